import SketchwiseLibrary
import SketchwiseRecognition

/// What a provider is asked: the recogniser's view of the sketch and how many pictures to find.
public struct SuggestionRequest: Sendable, Equatable {
    /// The sketch's guesses (most probable first) and embedding.
    public var analysis: SketchAnalysis
    /// How many of the most probable guesses get pictures.
    public var labels: Int
    /// How many pictures each of those guesses gets at most.
    public var perLabel: Int
    /// The style of the pictures, or nil for the provider's ``LibraryProvider/defaultStyle``.
    public var style: PictureStyle?

    public init(analysis: SketchAnalysis, labels: Int, perLabel: Int, style: PictureStyle? = nil) {
        self.analysis = analysis
        self.labels = labels
        self.perLabel = perLabel
        self.style = style
    }
}

/// A source of pictures for a sketch's guesses, ranked by how much they look like the sketch.
public protocol SuggestionProvider: Sendable {
    /// A short name for logs and error reports (`library`, `web`).
    var name: String { get }
    /// The provider's pictures for the request, best first. Implementations check for task
    /// cancellation between their own stages.
    func suggestions(for request: SuggestionRequest) async throws -> [Suggestion]
}

/// The local library: line art, emoji and clip-art from the SQLite index, candidates by synonym
/// and predicted class, in one style, ordered by embedding similarity (``SuggestionRanker``).
public struct LibraryProvider: SuggestionProvider {
    public let name = "library"
    public let finder: CandidateFinder
    /// The style of requests that name none: ``PictureStyle/standard`` when the library has
    /// pictures of it, else every source.
    public let defaultStyle: PictureStyle

    public init(finder: CandidateFinder) {
        self.finder = finder
        defaultStyle = finder.has(PictureStyle.standard) ? .standard : .all
    }

    /// The provider over every picture of an index, with people's verdicts on them (by default
    /// the review list that ships).
    public init(database: LibraryDatabase, reviews: PictureReviews? = nil) throws(LibraryError) {
        let verdicts = if let reviews { reviews } else { try PictureReviews.bundled() }
        self.init(finder: CandidateFinder(pictures: try database.pictures(), reviews: verdicts))
    }

    public func suggestions(for request: SuggestionRequest) async throws -> [Suggestion] {
        var ranker = SuggestionRanker(finder: finder)
        ranker.guessCount = request.labels
        ranker.perGuess = request.perLabel
        ranker.style = request.style ?? defaultStyle
        return ranker.suggestions(guesses: request.analysis.guesses, embedding: request.analysis.embedding)
    }
}
