import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseSuggestions
import SketchwiseWork

/// What a photo shows, in the photo model's labels and in Sketchwise's drawing classes, and the
/// library's pictures for it.
public struct PhotoResult: Sendable, Equatable {
    /// The photo model's most probable labels, most probable first.
    public var labels: [PhotoLabel]
    /// The drawing classes those labels map to, with the summed confidence of the labels that
    /// map to each (at least ``PhotoService/minimumClassConfidence``), most confident first.
    public var classes: [Guess]
    /// Pictures of the classes (or, for labels no class fits, of the labels' words), best first.
    public var suggestions: [Suggestion]
    /// Providers that failed, with their reasons.
    public var problems: [String]
}

/// Photo → labels → drawing classes → pictures: the photo half of the seed's Vibes app. The
/// photo is decoded and classified on the work queue; pictures come from the same providers as
/// a sketch's suggestions, ranked by how typical each is of its class (a photo has no sketch to
/// compare pictures with). Thread-safe.
public struct PhotoService: Sendable {
    public let classifier: PhotoClassifier
    public let mapping: PhotoLabelMapping
    /// Where the pictures come from (the library, and web search where configured).
    public let providers: [any SuggestionProvider]
    /// Where decoding and classification run; nil runs them in the calling task.
    public let work: WorkQueue?
    /// How many of the model's labels are considered.
    public var labelCount = 5
    /// Classes with less summed confidence than this are left out, and so are labels of less
    /// confidence that map to no class (their words find no pictures).
    public var minimumClassConfidence = 0.05

    public init(classifier: PhotoClassifier, mapping: PhotoLabelMapping, providers: [any SuggestionProvider], work: WorkQueue? = nil) {
        (self.classifier, self.mapping, self.providers, self.work) = (classifier, mapping, providers, work)
    }

    /// The labels, classes and pictures of the PNG or JPEG photo in `bytes`: pictures for at
    /// most `labels` classes (or words), `perLabel` each, in `style` (nil: each provider's default).
    /// - Throws: ``PhotoError`` for an unusable file; the work queue's `Busy` and
    ///   `DeadlineExceeded`; `CancellationError`.
    public func analyze(
        _ bytes: [UInt8], labels: Int = SuggestionLimits.defaultLabels, perLabel: Int = SuggestionLimits.defaultPerLabel,
        style: PictureStyle? = nil, limits: PhotoLimits = PhotoLimits(), deadline: ContinuousClock.Instant? = nil
    ) async throws -> PhotoResult {
        let (classifier, top) = (classifier, labelCount)
        let found =
            if let work {
                try await work.run(deadline: deadline) { try classifier.classify(bytes, top: top, limits: limits) }
            } else {
                try classifier.classify(bytes, top: top, limits: limits)
            }
        try Task.checkCancellation()
        let classes = mapping.classes(for: found, minimumConfidence: minimumClassConfidence)
        let topics = mapping.pictureTopics(for: found, classes: classes, minimumConfidence: minimumClassConfidence)
        let request = SuggestionRequest(
            analysis: SketchAnalysis(guesses: topics, embedding: []), labels: labels, perLabel: perLabel, style: style)
        let (suggestions, problems) = await SuggestionService.pictures(from: providers, for: request)
        return PhotoResult(labels: found, classes: classes, suggestions: suggestions, problems: problems)
    }
}
