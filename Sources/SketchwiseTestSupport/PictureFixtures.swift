/// Library pictures with injected embeddings, for the candidate, coverage and ranking tests
/// (SketchwiseLibraryTests, SketchwiseSuggestionsTests), which make their own item or picture
/// values of them.
public enum PictureFixtures {
    public typealias Picture = (
        id: String, title: String, keywords: [String], embedding: [Float], top: [(label: String, probability: Double)]
    )

    /// Three boats and a chart, named by words; a cat emoji; two pictures only the model puts
    /// in "cat" (one of them sure enough to be a candidate).
    public static let boats: [Picture] = [
        ("clipart:a.svg", "Red sailboat", [], [1, 0, 0], []),
        ("clipart:b.svg", "Ships in harbour", ["transport"], [0.9, 0.43, 0], []),
        ("clipart:c.svg", "Boat", [], [0.995, 0.099, 0.001], []),
        ("clipart:d.svg", "Scatter plot", ["category"], [0, 1, 0], []),
        ("emoji:U+1F408", "cat", [], [0, 0, 1], [("cat", 0.9)]),
        ("clipart:e.svg", "Something", [], [0, 0.6, 0.8], [("cat", 0.95)]),
        ("clipart:f.svg", "Other", [], [0, 0.8, 0.6], [("cat", 0.3)]),
    ]
}
