import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseFormats

struct SimplifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplify",
        abstract: "Simplify drawings exactly as Google made Quick, Draw!'s simplified files.",
        discussion: """
        Aligns each drawing to the top-left, scales it so the longer side is 255, resamples it at \
        1 px and simplifies it with Ramer–Douglas–Peucker (ε = 2), writing integer Google-format \
        ndjson with every other record field kept.
        """
    )

    @OptionGroup var input: InputOptions

    @Option(name: .shortAndLong, help: "Output .ndjson file, or a folder (one <class>.ndjson each) when IN is a folder. Default: standard output.")
    var output: String?

    func run() async throws {
        let source = try input.source()
        let destination: RecordWriter.Destination = switch output {
        case nil: .standardOutput
        case let path? where source.files.count > 1 || path.hasSuffix("/"): .folderPerClass(path)
        case let path?: .file(path)
        }
        let report = try SimplifyJob.run(source: source, writer: try RecordWriter(destination), policy: input.policy) {
            StandardError.progress("simplified \($0) drawings")
        }
        StandardError.summary("simplified", report)
    }
}
