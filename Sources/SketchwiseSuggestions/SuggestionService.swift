import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseWork

/// Guesses and pictures for one state of a sketch.
public struct SuggestionResult: Sendable, Equatable {
    /// The most probable labels, most probable first (empty for an empty sketch).
    public var guesses: [Guess]
    /// Every provider's pictures merged, best score first, each picture once.
    public var suggestions: [Suggestion]
    /// Providers that failed, with their reasons; the others' pictures are still there.
    public var problems: [String]

    public init(guesses: [Guess], suggestions: [Suggestion], problems: [String] = []) {
        self.guesses = guesses
        self.suggestions = suggestions
        self.problems = problems
    }

    public static let empty = SuggestionResult(guesses: [], suggestions: [])
}

/// Turns a sketch into guesses and suggested pictures: classify → ask every provider (at the
/// same time) → merge and order. Task cancellation is checked between the stages, so a query
/// whose sketch is already outdated stops early. Thread-safe.
public struct SuggestionService: Sendable {
    public let recognizer: SketchRecognizer
    public let providers: [any SuggestionProvider]
    /// Where recognition runs; nil runs it in the calling task.
    public let work: WorkQueue?
    /// How many guesses are returned, or `labels` of ``suggest(_:labels:perLabel:)`` if more.
    public var guessCount = 5

    public init(recognizer: SketchRecognizer, providers: [any SuggestionProvider], work: WorkQueue? = nil) {
        self.recognizer = recognizer
        self.providers = providers
        self.work = work
    }

    /// The service the server and `sketchwise suggest` answer with: pictures from `library`, plus
    /// web image search when `web` is configured (ranked by the raster model's embedding), and
    /// guesses from the `model` recogniser of `recognizers`.
    public static func composed(
        library: LibraryProvider, web: WebImageSearchConfiguration?, recognizers: RecognizerSet, model: RecognizerKind,
        work: WorkQueue? = nil
    ) throws -> SuggestionService {
        var providers: [any SuggestionProvider] = [library]
        if let web {
            providers.append(WebImageSearchProvider(configuration: web, embedder: try PictureEmbedder(recognizer: try recognizers.raster)))
        }
        return SuggestionService(recognizer: try recognizers.recognizer(model), providers: providers, work: work)
    }

    /// The same service answering with another recogniser.
    public func answering(with recognizer: SketchRecognizer) -> SuggestionService {
        var service = SuggestionService(recognizer: recognizer, providers: providers, work: work)
        service.guessCount = guessCount
        return service
    }

    /// The guesses and suggestions for `sketch`: pictures for its `labels` most probable guesses,
    /// at most `perLabel` each, in `style` (nil: each provider's default). An empty sketch gives an
    /// empty result. Recognition runs on ``work`` (which answers by `deadline` and stops the work
    /// under way), or in the calling task; cancellation and `deadline` are checked between the stages.
    /// - Throws: `CancellationError` when the task is cancelled; ``SketchwiseWork/DeadlineExceeded``
    ///   past `deadline`; ``SketchwiseWork/WorkQueue/Busy`` when the work queue is full;
    ///   ``SketchwiseCore/SketchError`` for unusable coordinates.
    public func suggest(
        _ sketch: StrokeSketch, labels: Int = SuggestionLimits.defaultLabels, perLabel: Int = SuggestionLimits.defaultPerLabel,
        style: PictureStyle? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> SuggestionResult {
        func checkpoint() throws {
            try Task.checkCancellation()
            if let deadline, ContinuousClock.now > deadline { throw DeadlineExceeded() }
        }
        guard sketch.strokes.contains(where: { !$0.points.isEmpty }) else { return .empty }
        try checkpoint()
        let (recognizer, top) = (recognizer, max(guessCount, labels))
        let analysis =
            if let work {
                try await work.run(deadline: deadline) { try recognizer.analyze(sketch, top: top) }
            } else {
                try recognizer.analyze(sketch, top: top)
            }
        try checkpoint()
        let (suggestions, problems) = await pictures(
            for: SuggestionRequest(analysis: analysis, labels: labels, perLabel: perLabel, style: style))
        try checkpoint()
        return SuggestionResult(
            guesses: Array(analysis.guesses.prefix(max(guessCount, labels))), suggestions: suggestions, problems: problems)
    }

    /// Every provider's pictures for `request`, merged, best score first, each picture once, at
    /// most `labels × perLabel`; and the providers that failed, with their reasons.
    public func pictures(for request: SuggestionRequest) async -> (suggestions: [Suggestion], problems: [String]) {
        await Self.pictures(from: providers, for: request)
    }

    /// The pictures of `providers` for `request`, as ``pictures(for:)`` merges them.
    public static func pictures(
        from providers: [any SuggestionProvider], for request: SuggestionRequest
    ) async -> (suggestions: [Suggestion], problems: [String]) {
        var found: [Suggestion] = []
        var problems: [String] = []
        for (index, answer) in await answers(of: providers, to: request) {
            switch answer {
            case let .success(suggestions): found += suggestions
            case let .failure(error): problems.append("\(providers[index].name): \(error)")
            }
        }
        return (Array(Suggestion.merged(found).prefix(request.labels * request.perLabel)), problems)
    }

    /// Every provider's answer, in the providers' order; several providers are asked at the same
    /// time, a single one (the usual library) directly, without a child task.
    private static func answers(
        of providers: [any SuggestionProvider], to request: SuggestionRequest
    ) async -> [(Int, Result<[Suggestion], any Error>)] {
        if providers.count == 1 { return [(0, await Self.answer(of: providers[0], to: request))] }
        return await withTaskGroup(of: (Int, Result<[Suggestion], any Error>).self) { group in
            for (index, provider) in providers.enumerated() {
                group.addTask { (index, await Self.answer(of: provider, to: request)) }
            }
            var answers: [(Int, Result<[Suggestion], any Error>)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }
        }
    }

    private static func answer(of provider: any SuggestionProvider, to request: SuggestionRequest) async -> Result<[Suggestion], any Error>
    {
        do { return .success(try await provider.suggestions(for: request)) } catch { return .failure(error) }
    }
}
