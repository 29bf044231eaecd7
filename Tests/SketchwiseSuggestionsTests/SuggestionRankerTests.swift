import Foundation
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseSuggestions
import SketchwiseTestSupport
import Testing

/// Ranking a sketch's guesses into suggestions, over pictures with injected embeddings.
@Suite struct SuggestionRankerTests {
    struct Item {
        var id: String, title: String, keywords: [String] = [], embedding: [Float], top: [Guess] = []
    }

    func item(_ id: String, title: String, keywords: [String] = [], embedding: [Float], top: [Guess] = []) -> Item {
        Item(id: id, title: title, keywords: keywords, embedding: embedding, top: top)
    }

    /// The pictures of `items`, as the library index gives them.
    func pictures(_ items: [Item]) -> [IndexedPicture] {
        items.map {
            IndexedPicture(
                id: $0.id, source: $0.id.hasPrefix("emoji") ? .emoji : .clipart, title: $0.title, keywords: $0.keywords,
                embedding: $0.embedding, topClasses: $0.top
            )
        }
    }

    var boats: [Item] {
        PictureFixtures.boats.map { picture in
            let top = picture.top.map { Guess(label: $0.label, probability: $0.probability) }
            return item(picture.id, title: picture.title, keywords: picture.keywords, embedding: picture.embedding, top: top)
        }
    }

    /// Issue 13: how directly a picture is named orders a guess's pictures; look only within one strength.
    @Test func namedPicturesComeBeforeLookAlikes() throws {
        let finder = CandidateFinder(
            pictures: pictures([
                item("clipart:a.svg", title: "Cat", embedding: [0.2, 1, 0]),
                item("clipart:b.svg", title: "Sleeping cat", embedding: [0.5, 1, 0]),
                item("clipart:c.svg", title: "Kitten", embedding: [0.8, 1, 0]),
                item("clipart:d.svg", title: "Animal", keywords: ["cat"], embedding: [0.9, 0.1, 0]),
                item("clipart:e.svg", title: "Blob", embedding: [1, 0, 0], top: [Guess(label: "cat", probability: 0.99)]),
            ]), weakest: .prediction)
        #expect(finder.candidates(for: "cat").map(\.strength) == [.exactTitle, .nameInTitle, .synonymInTitle, .keyword, .prediction])
        var ranker = SuggestionRanker(finder: finder)
        (ranker.perGuess, ranker.duplicateSimilarity) = (5, 1.01)
        // The sketch looks most like the model-only blob and least like the exact title.
        let suggestions = ranker.suggestions(guesses: [Guess(label: "cat", probability: 0.9)], embedding: [1, 0, 0])
        #expect(suggestions.map(\.itemID) == ["clipart:a.svg", "clipart:b.svg", "clipart:c.svg", "clipart:d.svg", "clipart:e.svg"])
        #expect(suggestions.allSatisfy { $0.score <= 0.9 })
        ranker.perGuess = 2
        #expect(
            ranker.suggestions(guesses: [Guess(label: "cat", probability: 0.9)], embedding: [1, 0, 0]).map(\.itemID)
                == ["clipart:a.svg", "clipart:b.svg"], "look-alikes never push out named pictures")
    }

    /// Issue 38: a picture named after a guess stays under that guess, though another scores it higher.
    @Test func aPictureNamedAfterAGuessStaysUnderIt() throws {
        let finder = CandidateFinder(
            pictures: pictures([
                item("clipart:car.svg", title: "Car", embedding: [1, 0, 0]),
                item("clipart:police.svg", title: "Police car", embedding: [0.5, 0.8, 0]),
            ]))
        let ranker = SuggestionRanker(finder: finder)
        let guesses = [Guess(label: "car", probability: 0.7), Guess(label: "police car", probability: 0.2)]
        let suggestions = ranker.suggestions(guesses: guesses, embedding: [1, 0, 0])
        #expect(suggestions.map { "\($0.itemID) \($0.label)" } == ["clipart:car.svg car", "clipart:police.svg police car"])
        let carAlone = ranker.suggestions(guesses: [guesses[0]], embedding: [1, 0, 0])
        let underCar = try #require(carAlone.first { $0.itemID == "clipart:police.svg" })
        #expect(underCar.score > suggestions[1].score, "car alone would have kept it, with a higher score")
    }

    @Test func rankingOrdersBySimilarityAndSkipsNearDuplicates() throws {
        var ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures(boats)))
        ranker.perGuess = 2
        let suggestions = ranker.suggestions(guesses: [Guess(label: "sailboat", probability: 0.8)], embedding: [1, 0, 0])
        // c is a near duplicate of a (cosine > 0.97), so the less similar b comes second.
        #expect(suggestions.map(\.itemID) == ["clipart:a.svg", "clipart:b.svg"])
        #expect(suggestions[0].score == Suggestion.score(probability: 0.8, similarity: 1, strength: .nameInTitle))
        #expect(suggestions[0].label == "sailboat" && suggestions[0].title == "Red sailboat")
        ranker.duplicateSimilarity = 1.01
        let withDuplicates = ranker.suggestions(guesses: [Guess(label: "sailboat", probability: 0.8)], embedding: [1, 0, 0])
        #expect(withDuplicates.map(\.itemID) == ["clipart:a.svg", "clipart:c.svg"])
    }

    @Test func guessesAreMergedByScoreWithProvenance() throws {
        let ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures(boats), weakest: .prediction))
        let guesses = [
            Guess(label: "cat", probability: 0.5), Guess(label: "sailboat", probability: 0.3),
            Guess(label: "giraffe", probability: 0.1), Guess(label: "dog", probability: 0.06), Guess(label: "boat", probability: 0.05),
        ]
        let suggestions = ranker.suggestions(guesses: guesses, embedding: [0.5, 0, 0.5])
        #expect(suggestions.map(\.score) == suggestions.map(\.score).sorted(by: >))
        #expect(suggestions.first?.itemID == "emoji:U+1F408" && suggestions.first?.source == .library(.emoji))
        #expect(Set(suggestions.map(\.label)) == ["cat", "sailboat"])
        #expect(Set(suggestions.map(\.itemID)).count == suggestions.count)
        #expect(suggestions.contains { $0.reason == .predictedClass(0.95) })
    }

    @Test func badInputGivesNoSuggestionsRatherThanACrash() throws {
        var ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures(boats)))
        #expect(ranker.suggestions(guesses: [], embedding: [1, 0, 0]).isEmpty)
        #expect(ranker.suggestions(guesses: [Guess(label: "sailboat", probability: 1)], embedding: [1, 0]).isEmpty)
        #expect(ranker.suggestions(guesses: [Guess(label: "sailboat", probability: 1)], embedding: [0, 0, 0]).isEmpty)
        ranker.guessCount = -3
        ranker.perGuess = -1
        #expect(ranker.suggestions(guesses: [Guess(label: "sailboat", probability: 1)], embedding: [1, 0, 0]).isEmpty)
    }

    @Test func realEmbeddingsFromTheFixtureModelRankTheirOwnPictureFirst() throws {
        // The 20×20, 5-class CNN of the runtime's tests: a real raster model with an embedding.
        let model = SharedData.packageRoot.appendingPathComponent("Tests/SketchwiseNNTests/Fixtures/cnn.json")
        let embedder = try PictureEmbedder(recognizer: try ModelRecognizer(contentsOf: model), topCount: 3)
        let size = embedder.inputSize
        func image(_ draw: (Int, Int) -> Bool) -> GrayImage {
            GrayImage(width: size, height: size, pixels: (0..<size * size).map { draw($0 % size, $0 / size) ? 255 : 0 })
        }
        let bar = try embedder.describe(image { x, _ in x == size / 2 }).embedding
        let box = try embedder.describe(image { x, y in [2, size - 3].contains(x) || [2, size - 3].contains(y) }).embedding
        let finder = CandidateFinder(
            pictures: pictures([
                item("clipart:bar.svg", title: "line", embedding: bar), item("clipart:box.svg", title: "lines", embedding: box),
            ]))
        let suggestions = SuggestionRanker(finder: finder).suggestions(guesses: [Guess(label: "line", probability: 1)], embedding: box)
        #expect(suggestions.first?.itemID == "clipart:box.svg")
        #expect(abs((suggestions.first?.similarity ?? 0) - 1) < 1e-5)
    }

    /// Doodles are the last resort: shown for a guess only when no other picture of the style
    /// draws it, and scored as keyword matches, so that a real picture of a guess nearly as
    /// probable comes first.
    @Test func doodlesComeOnlyWhereNoPictureDrawsTheClass() {
        let pictures = [
            ("lucide:cat.svg", LibrarySource.lucide, "cat"), ("doodle:cat/1.svg", .doodle, "cat"), ("doodle:barn/1.svg", .doodle, "barn"),
            ("clipart:barn.svg", .clipart, "barn"),
        ].map { IndexedPicture(id: $0.0, source: $0.1, title: $0.2, keywords: [], embedding: [1, 0], topClasses: []) }
        var ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures))
        ranker.style = .line
        let guesses = [Guess(label: "barn", probability: 0.9), Guess(label: "cat", probability: 0.1)]
        let ids = ranker.suggestions(guesses: guesses, embedding: [1, 0]).map(\.itemID)
        #expect(ids == ["doodle:barn/1.svg", "lucide:cat.svg"], "cat has a line picture; barn has none but its doodle")
        let close = [Guess(label: "barn", probability: 0.55), Guess(label: "cat", probability: 0.45)]
        #expect(ranker.suggestions(guesses: close, embedding: [1, 0]).map(\.itemID) == ["lucide:cat.svg", "doodle:barn/1.svg"])
        ranker.style = .all
        #expect(ranker.suggestions(guesses: guesses, embedding: [1, 0]).map(\.itemID) == ["clipart:barn.svg", "lucide:cat.svg"])
    }

    /// When the style has nothing for a guess, the best picture of another style that people
    /// reviewed as good is offered, one, scored as a keyword match.
    @Test func aStyleWithNothingForAGuessOffersTheBestReviewedPictureOfAnother() throws {
        let pictures = [
            ("lucide:cat.svg", LibrarySource.lucide, [Float(1), 0]), ("openmoji:1F408.svg", .openmoji, [0.9, 0.1]),
            ("clipart:cat.svg", .clipart, [1, 0]),
        ].map { IndexedPicture(id: $0.0, source: $0.1, title: "cat", keywords: [], embedding: $0.2, topClasses: []) }
        let reviews = try PictureReviews(text: "cat\tlucide:cat.svg\tgood\ncat\topenmoji:1F408.svg\tgood\n")
        var ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures, reviews: reviews))
        ranker.style = .emoji
        let offered = ranker.suggestions(guesses: [Guess(label: "cat", probability: 1)], embedding: [1, 0])
        #expect(offered.map(\.itemID) == ["lucide:cat.svg"], "one picture, reviewed good, the most like the sketch")
        #expect(abs(offered[0].score - Suggestion.score(probability: 1, similarity: 1, strength: .keyword)) < 1e-9)
        ranker.style = .clipart
        #expect(ranker.suggestions(guesses: [Guess(label: "cat", probability: 1)], embedding: [1, 0]).map(\.itemID) == ["clipart:cat.svg"])
    }

    /// Variants of one drawing by their titles (clock faces at other hours, mirrored halves) count
    /// once under a guess; two pictures of one title do not.
    @Test func variantsOfOneDrawingCountOnce() {
        let titles = ["two o’clock", "eleven o'clock", "clock", "clock 2", "clock"]
        let pictures = titles.enumerated().map { index, title in
            IndexedPicture(
                id: "openmoji:\(index).svg", source: .openmoji, title: title, keywords: ["clock"],
                embedding: titles.indices.map { $0 == index ? 1 : 0 }, topClasses: [])
        }
        var ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures))
        ranker.perGuess = 10
        let sketch = [Float](repeating: 1, count: titles.count)
        let shown = ranker.suggestions(guesses: [Guess(label: "clock", probability: 1)], embedding: sketch).map(\.title)
        #expect(shown.filter { $0.hasSuffix("o’clock") || $0.hasSuffix("o'clock") }.count == 1, "one hour of the clock faces")
        #expect(shown.filter { $0 == "clock" }.count == 2 && !shown.contains("clock 2"), "a cat by two artists stays; a style variant goes")
    }

    @Test func aStyleLimitsTheSuggestionsToItsSources() {
        let pictures = [
            ("openmoji:1F408.svg", LibrarySource.openmoji), ("lucide:cat.svg", .lucide), ("tabler:cat.svg", .tabler),
            ("emoji:U+1F408", .emoji), ("clipart:cat.svg", .clipart),
        ].map {
            IndexedPicture(id: $0.0, source: $0.1, title: "cat", keywords: [], embedding: [1, 0], topClasses: [])
        }
        var ranker = SuggestionRanker(finder: CandidateFinder(pictures: pictures))
        ranker.perGuess = 10
        ranker.duplicateSimilarity = 2
        func sources(_ style: PictureStyle) -> Set<SuggestionSource> {
            ranker.style = style
            return Set(ranker.suggestions(guesses: [.init(label: "cat", probability: 1)], embedding: [1, 0]).map(\.source))
        }
        #expect(sources(.line) == [.library(.openmoji), .library(.lucide), .library(.tabler)])
        #expect(sources(.emoji) == [.library(.emoji)] && sources(.clipart) == [.library(.clipart)])
        #expect(sources(.all).count == 5)
        #expect(CandidateFinder(pictures: Array(pictures.suffix(2))).has(.line) == false)
    }
}
