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

    public init(analysis: SketchAnalysis, labels: Int, perLabel: Int) {
        self.analysis = analysis
        self.labels = labels
        self.perLabel = perLabel
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

/// The local library: Open Clip Art drawings and Noto emoji from the SQLite index, candidates by
/// synonym and predicted class, ordered by embedding similarity (``SuggestionRanker``).
public struct LibraryProvider: SuggestionProvider {
    public let name = "library"
    public let finder: CandidateFinder

    public init(finder: CandidateFinder) {
        self.finder = finder
    }

    /// The provider over every picture of an index.
    public init(database: LibraryDatabase) throws(LibraryError) {
        self.init(finder: CandidateFinder(pictures: try database.pictures()))
    }

    public func suggestions(for request: SuggestionRequest) async throws -> [Suggestion] {
        var ranker = SuggestionRanker(finder: finder)
        ranker.guessCount = request.labels
        ranker.perGuess = request.perLabel
        return ranker.suggestions(guesses: request.analysis.guesses, embedding: request.analysis.embedding)
    }
}
