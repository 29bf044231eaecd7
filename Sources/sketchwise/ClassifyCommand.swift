import ArgumentParser
import Foundation
import SketchwiseFormats
import SketchwiseRecognition

struct ClassifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Guess what each drawing shows.",
        discussion:
            "Drawings go to the chosen model (default: the ensemble; for bitmaps, its members that read images). Stroke models cannot read bitmaps."
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var language: LanguageOptions

    @Option(help: ArgumentHelp("\(ModelOptions.modelHelp) (default: ensemble)."))
    var model: RecognizerKind?

    @Option(help: "How many guesses per drawing.")
    var top = 5

    @Flag(help: "One JSON object per drawing: {\"origin\", \"label\", \"guesses\": [{\"label\", \"display\", \"probability\"}]}.")
    var json = false

    func validate() throws {
        guard (1...345).contains(top) else { throw ValidationError("--top must be within 1…345") }
    }

    func run() async throws {
        let recognizer = try modelOptions.load().recognizer(model ?? .ensemble)
        let policy = input.policy
        let guessNames = language.namer()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try input.source().forEach(onError: policy.skip) { drawing in
            let guesses: [Guess]
            do {
                switch drawing.content {
                case let .bitmap(image): guesses = try recognizer.logProbabilities(image).top(top)
                case let .strokes(record): guesses = try recognizer.classify(record.drawing, top: top)
                }
            } catch {
                try policy.skip(FormatError(file: drawing.origin, reason: "\(error)"))
                return
            }
            let named = guessNames(guesses)
            if json {
                struct Line: Encodable { var origin: String; var label: String; var guesses: [NamedGuess] }
                print(
                    String(
                        decoding: try encoder.encode(Line(origin: drawing.origin, label: drawing.label, guesses: named)), as: UTF8.self))
            } else {
                print("\(drawing.origin) [\(drawing.label)]: \(named.map(\.text).joined(separator: ", "))")
            }
        }
    }
}
