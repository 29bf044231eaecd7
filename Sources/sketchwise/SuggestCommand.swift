import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseSuggestions

struct SuggestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Suggest library pictures for each drawing.",
        discussion: """
            For each stroke drawing of IN: the recogniser's guesses, and for the --labels most probable \
            ones up to --per-label pictures from the index, ordered by score: guess probability × how \
            directly a picture is named for the class and how much it looks like the sketch. At the \
            end, on standard error: how often the drawing's own class is among the first 8 \
            suggestions, and the latency per drawing (p50/p99, the first drawing left out). \
            --web adds pictures from a Bing-v7-style image search at $SKETCHWISE_IMAGE_SEARCH_ENDPOINT \
            (key in $SKETCHWISE_IMAGE_SEARCH_KEY).
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var language: LanguageOptions

    @Option(help: "The index database (sketchwise index build).")
    var db = LibraryDatabase.defaultPath

    @Option(help: ArgumentHelp("\(ModelOptions.modelHelp); the pictures are always ranked by raster-cnn's embedding."))
    var model: RecognizerKind = .ensemble

    @Option(help: "How many of the most probable guesses get pictures.")
    var labels = SuggestionLimits.defaultLabels

    @Option(help: "How many pictures each of those guesses gets at most.")
    var perLabel = SuggestionLimits.defaultPerLabel

    @Option(help: "all, validation or training (the training split rule).")
    var subset: ValidationSplit.Subset = .all

    @Option(help: "Stop after this many drawings.")
    var limit: Int?

    @Option(help: "The pictures' style: line, emoji, clipart or all (default: line when the index has line art, else all).")
    var style: PictureStyle?

    @OptionGroup var candidateOptions: CandidateOptions

    @Flag(
        help:
            "Pictures for each drawing's own class alone, as if it were the only guess: what a person sees when that class is guessed (for reviewing the library)."
    )
    var ownClass = false

    @Flag(help: "Also search the web (see the discussion).")
    var web = false

    @Flag(
        help:
            "One JSON object per drawing: {\"guesses\": [{label, display, probability}], \"suggestions\": [{id, label, score, source, title, displayTitle}]}."
    )
    var json = false

    func validate() throws {
        guard SuggestionLimits.labels.contains(labels) else {
            throw ValidationError("--labels must be within \(SuggestionLimits.describe(SuggestionLimits.labels))")
        }
        guard SuggestionLimits.perLabel.contains(perLabel) else {
            throw ValidationError("--per-label must be within \(SuggestionLimits.describe(SuggestionLimits.perLabel))")
        }
        guard FileManager.default.fileExists(atPath: db) else { throw ValidationError("\(db) does not exist; run sketchwise index build") }
    }

    func run() async throws {
        let recognizers = try modelOptions.load()
        let library = LibraryProvider(
            finder: CandidateFinder(
                pictures: try LibraryDatabase(path: db).pictures(), reviews: try candidateOptions.loadReviews(),
                weakest: try candidateOptions.weakest
            ))
        let warmStart = ContinuousClock.now
        library.finder.warmUp()
        StandardError.print(
            "found the candidates of every class in \(ContinuousClock.now - warmStart); style \((style ?? library.defaultStyle).rawValue)")
        let webSearch = web ? WebImageSearchConfiguration.fromEnvironment() : nil
        if web, webSearch == nil { throw ValidationError("--web needs SKETCHWISE_IMAGE_SEARCH_ENDPOINT") }
        let service = try SuggestionService.composed(library: library, web: webSearch, recognizers: recognizers, model: model)
        let policy = input.policy
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var drawings: [(label: String, sketch: StrokeSketchRecord)] = []
        try input.source().forEach(onError: policy.skip) { drawing in
            guard limit.map({ drawings.count < $0 }) ?? true, ValidationSplit.contains(drawing, in: subset) else { return }
            guard case let .strokes(record) = drawing.content else {
                policy.onSkip(FormatError(file: drawing.origin, reason: "a bitmap has no strokes to suggest pictures for"))
                return
            }
            drawings.append((drawing.label, StrokeSketchRecord(origin: drawing.origin, record: record)))
        }
        var tally = SuggestTally()
        let names = language.namer()
        for (label, drawing) in drawings {
            let started = ContinuousClock.now
            let result: SuggestionResult
            do {
                result =
                    ownClass
                    ? try await service.ownClassSuggestions(drawing.record.drawing, label: label, perLabel: perLabel, style: style)
                    : try await service.suggest(drawing.record.drawing, labels: labels, perLabel: perLabel, style: style)
            } catch {
                try policy.skip(FormatError(file: drawing.origin, reason: "\(error)"))
                continue
            }
            tally.add(latency: ContinuousClock.now - started, label: label, suggested: result.suggestions.map(\.label))
            for problem in result.problems { StandardError.print("\(drawing.origin): \(problem)") }
            if json {
                print(String(decoding: try encoder.encode(SuggestLine(result, names: names)), as: UTF8.self))
            } else {
                let guesses = names(Array(result.guesses.prefix(labels)))
                print("\(drawing.origin) [\(label)]: " + guesses.map(\.name).joined(separator: ", "))
                for suggestion in result.suggestions {
                    let title = NamedGuess.shown(suggestion.title, as: names.name(of: suggestion))
                    print(String(format: "  %.3f  %@  %@  (%@)", suggestion.score, suggestion.label, suggestion.itemID, title))
                }
            }
        }
        StandardError.print(tally.summary)
    }
}

/// A stroke drawing and where it came from.
struct StrokeSketchRecord {
    var origin: String
    var record: QuickDrawRecord
}

/// One suggested picture in a command's `--json` output (`suggest`, `photo`): its English
/// `title` and its name in the chosen language, `displayTitle`, as the API gives them.
struct SuggestionItem: Encodable {
    var id: String
    var label: String
    var score: Double
    var source: SuggestionSource
    var title: String
    var displayTitle: String

    init(_ suggestion: Suggestion, names: Namer) {
        (id, label, score, source, title) = (suggestion.itemID, suggestion.label, suggestion.score, suggestion.source, suggestion.title)
        displayTitle = names.name(of: suggestion)
    }
}

/// One `suggest --json` line.
struct SuggestLine: Encodable {
    var guesses: [NamedGuess]
    var suggestions: [SuggestionItem]

    init(_ result: SuggestionResult, names: Namer) {
        guesses = names(result.guesses)
        suggestions = result.suggestions.map { SuggestionItem($0, names: names) }
    }
}
