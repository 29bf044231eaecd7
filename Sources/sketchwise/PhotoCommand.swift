import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseLibrary
import SketchwisePhotos
import SketchwiseRecognition
import SketchwiseSuggestions

struct PhotoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Tell what each photo shows, and suggest pictures of it.",
        discussion: """
            Each PNG or JPEG goes to the photo model (EfficientNet-Lite0 by default, imported at install \
            time by scripts/fetch-photo-model.sh): its most probable ImageNet labels, the drawing classes \
            they map to (imagenet-classes.tsv) and, when the library index exists, the most typical \
            pictures of those classes. A photo that cannot be read is reported on standard error and the \
            others go on; the exit status is then 1. At the end, on standard error: the time per photo \
            (p50/p99, one thread per photo).
            """
    )

    @Argument(help: "PNG or JPEG files.")
    var images: [String]

    @OptionGroup var language: LanguageOptions

    @Option(
        help:
            "The photo model's spec (default: efficientnet-lite0.json in $SKETCHWISE_PHOTO_MODELS, the installation's share/sketchwise/photo-models or /usr/local/share/sketchwise/photo-models)."
    )
    var model: String?

    @Option(help: "How many of the model's labels per photo.")
    var top = 5

    @Option(help: "The index database (sketchwise index build); without it only labels and classes are given.")
    var db = LibraryDatabase.defaultPath

    @Option(help: "How many classes get pictures.")
    var labels = SuggestionLimits.defaultLabels

    @Option(help: "How many pictures each class gets at most.")
    var perLabel = SuggestionLimits.defaultPerLabel

    @Option(help: "The pictures' style: line, emoji, clipart or all (default: line when the index has line art, else all).")
    var style: PictureStyle?

    @Flag(
        help:
            "One JSON object per photo: {\"origin\", \"model\", \"labels\": [{index, text, confidence}], \"classes\": [{label, display, probability}], \"suggestions\": [{id, label, score, source, title, displayTitle}]}. The model's labels are ImageNet's English ones."
    )
    var json = false

    func validate() throws {
        guard (1...20).contains(top) else { throw ValidationError("--top must be within 1…20") }
        guard SuggestionLimits.labels.contains(labels) else {
            throw ValidationError("--labels must be within \(SuggestionLimits.describe(SuggestionLimits.labels))")
        }
        guard SuggestionLimits.perLabel.contains(perLabel) else {
            throw ValidationError("--per-label must be within \(SuggestionLimits.describe(SuggestionLimits.perLabel))")
        }
    }

    func run() async throws {
        let spec = model.map { URL(fileURLWithPath: $0) } ?? PhotoModels.defaultSpec
        guard FileManager.default.fileExists(atPath: spec.path) else {
            throw ValidationError("no photo model at \(spec.path); scripts/fetch-photo-model.sh installs it (or pass --model)")
        }
        var providers: [any SuggestionProvider] = []
        if FileManager.default.fileExists(atPath: db) {
            providers.append(try LibraryProvider(database: LibraryDatabase(path: db)))
        } else {
            StandardError.print("no index at \(db): pictures left out (sketchwise index build makes it)")
        }
        var service = PhotoService(
            classifier: try PhotoClassifier(contentsOf: spec), mapping: try PhotoModels.labelMapping(), providers: providers)
        service.labelCount = top
        let names = language.namer()
        var failed = 0
        var milliseconds: [Double] = []
        for image in images {
            do {
                let bytes = try Self.read(image)
                let start = ContinuousClock.now
                let result = try await service.analyze(bytes, labels: labels, perLabel: perLabel, style: style)
                milliseconds.append((ContinuousClock.now - start).inSeconds * 1000)
                if json {
                    try printJSON(PhotoLine(origin: image, model: service.classifier.name, result: result, names: names))
                } else {
                    print(Self.describe(result, origin: image, names: names))
                }
            } catch {
                failed += 1
                StandardError.print("\(image): \(error)")
            }
        }
        if !milliseconds.isEmpty {
            let (p50, p99) = (ModelBenchmark.percentile(milliseconds, 0.5), ModelBenchmark.percentile(milliseconds, 0.99))
            StandardError.print(
                String(format: "photos: %d   per photo (decode, classify, pictures) p50 %.1f ms, p99 %.1f ms", milliseconds.count, p50, p99)
            )
        }
        if failed > 0 { throw ExitCode(1) }
    }

    private static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        return [UInt8](data)
    }

    private static func describe(_ result: PhotoResult, origin: String, names: Namer) -> String {
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        var lines = ["\(origin):"]
        lines.append("  labels:   " + result.labels.map { "\($0.text) \(percent($0.confidence))" }.joined(separator: ", "))
        lines.append(
            "  classes:  "
                + (result.classes.isEmpty
                    ? "none" : names(result.classes).map(\.text).joined(separator: ", ")))
        if !result.suggestions.isEmpty {
            let pictures = result.suggestions.map {
                "\(NamedGuess.shown($0.title, as: names.name(of: $0))) [\($0.label), \($0.source)]"
            }
            lines.append("  pictures: " + pictures.joined(separator: "; "))
        }
        lines += result.problems.map { "  problem:  \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// One line of `sketchwise photo --json`.
private struct PhotoLine: Encodable {
    let origin, model: String
    let labels: [PhotoLabel]
    let classes: [NamedGuess]
    let suggestions: [SuggestionItem]

    init(origin: String, model: String, result: PhotoResult, names: Namer) {
        (self.origin, self.model, labels, classes) = (origin, model, result.labels, names(result.classes))
        suggestions = result.suggestions.map { SuggestionItem($0, names: names) }
    }
}
