import ArgumentParser
import Foundation
import SketchwiseModels
import SketchwiseServer

@main
struct Sketchwise: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sketchwise",
        abstract: "Assisted drawing: read, simplify, render and recognise sketches.",
        discussion: """
            Drawing inputs (IN) are files in any supported format — Quick, Draw! raw or simplified \
            .ndjson, a .json array of such records, Google's binary .bin of simplified drawings, \
            Sketch-RNN stroke-3 .npz, numpy_bitmap .npy, Omniglot stroke .txt or its .zip — or a folder of them (the class is the record's word, \
            else the file name).
            """,
        version: SketchwiseVersion.current,
        subcommands: [
            DemoCommand.self, InfoCommand.self, SimplifyCommand.self, RenderCommand.self,
            ClassifyCommand.self, EvalCommand.self, BenchCommand.self, IndexCommand.self, SuggestCommand.self,
            SimilarityCommand.self, FewShotCommand.self, ShortcutsCommand.self, CorrectionsCommand.self, ModelsCommand.self,
            DetectCommand.self,
            ScenesEvalCommand.self, PhotoCommand.self, ServeCommand.self,
        ]
    )

    /// `serve` first makes NIO's event loops run every task (``SketchwiseServer/runTasksOnEventLoops()``):
    /// that must happen on the main thread before any task starts. Its options may also come
    /// from the environment and a settings file (``ServeSettings``). A negative number is an
    /// option's value (``NegativeNumbers``).
    static func main() async {
        let arguments = NegativeNumbers.attached(Array(CommandLine.arguments.dropFirst()))
        guard arguments.first == "serve" else { return await main(arguments) }
        SketchwiseServer.runTasksOnEventLoops()
        do {
            await main(["serve"] + (try await ServeSettings.arguments(Array(arguments.dropFirst()), of: ServeCommand.self)))
        } catch {
            exit(withError: error)
        }
    }
}
