import SketchwiseLibrary

/// One suggested picture for a sketch, with where it came from.
public struct Suggestion: Sendable, Equatable, Codable {
    /// The class guessed for the sketch that the picture illustrates.
    public var label: String
    /// The order of suggestions: ``score(probability:similarity:strength:)``.
    public var score: Double
    /// The guess's probability.
    public var probability: Double
    /// The cosine similarity of the sketch's embedding and the picture's (negative taken as 0).
    public var similarity: Double
    /// Where the picture comes from: a library source or the web.
    public var source: SuggestionSource
    /// The picture's id in its source (for the web, the image's address).
    public var itemID: String
    public var title: String
    /// The width of the picture's ink box over its height.
    public var aspect: Double
    /// Why the picture is a candidate for ``label``.
    public var reason: MatchReason

    public init(
        label: String, score: Double, probability: Double, similarity: Double, source: SuggestionSource, itemID: String, title: String,
        aspect: Double, reason: MatchReason
    ) {
        self.label = label
        self.score = score
        self.probability = probability
        self.similarity = similarity
        self.source = source
        self.itemID = itemID
        self.title = title
        self.aspect = aspect
        self.reason = reason
    }
}
