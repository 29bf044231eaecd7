import Foundation
import GRDB
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// Candidates and coverage over a fresh database per test, with injected embeddings.
@Suite struct SuggestionTests {
    let folder = TemporaryFolder()

    func item(_ id: String, title: String, keywords: [String] = [], embedding: [Float], top: [Guess] = []) -> LibraryItem {
        LibraryItem(
            id: id, source: id.hasPrefix("emoji") ? .emoji : .clipart, path: "/x/\(id)", title: title, sourceTitle: nil,
            keywords: keywords, license: "public domain", thumbnail: Data([1]), aspect: 1,
            raster: GrayImage(width: 1, height: 1, pixels: [0]),
            embedding: embedding, topClasses: top, file: FileStamp(fileHash: "0", fileSize: 1, fileModified: 0, pipeline: "p")
        )
    }

    /// A database holding `items`, and its pictures.
    func pictures(_ items: [LibraryItem]) throws -> [IndexedPicture] {
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        try database.pool.write { db in for item in items { try item.insert(db) } }
        return try database.pictures()
    }

    /// A finder over pictures `(id, title, keywords)` with one shared embedding.
    func finder(titled pictures: [(id: String, title: String, keywords: [String])]) throws -> CandidateFinder {
        CandidateFinder(pictures: try self.pictures(pictures.map { item($0.id, title: $0.title, keywords: $0.keywords, embedding: [1]) }))
    }

    var boats: [LibraryItem] {
        PictureFixtures.boats.map { picture in
            let top = picture.top.map { Guess(label: $0.label, probability: $0.probability) }
            return item(picture.id, title: picture.title, keywords: picture.keywords, embedding: picture.embedding, top: top)
        }
    }

    @Test func wordsMatchAtWordBoundariesIgnoringCaseAndPlurals() {
        let words = WordMatcher.words("Two BOATS, three Berries & flip-flops (food/fruit) boxes glass bus")
        #expect(words == ["two", "boat", "three", "berry", "flip", "flop", "food", "fruit", "box", "glass", "bus"])
        #expect(WordMatcher.contains(["flip", "flop"], in: words))
        #expect(WordMatcher.contains(WordMatcher.words("berries"), in: words))
        #expect(!WordMatcher.contains(["boat", "box"], in: words))
        #expect(!WordMatcher.contains(["cat"], in: WordMatcher.words("scatter category")))
        #expect(!WordMatcher.contains([], in: words) && !WordMatcher.contains(["a", "b"], in: ["a"]))
    }

    @Test func theTableCoversTheQuickDrawClassesWithWords() throws {
        let table = ClassSynonyms.quickDraw
        #expect(table.labels.count == 345)
        #expect(table.table.values.allSatisfy { !$0.isEmpty && $0.allSatisfy { !WordMatcher.words($0).isEmpty } })
        #expect(table.words(for: "The Eiffel Tower").contains("eiffel"))
        #expect(table.words(for: "Unknown Thing") == ["unknown thing"])
        let categories = SharedData.quickDraw("categories.txt")
        if let text = try? String(contentsOf: categories, encoding: .utf8) {
            let names = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(Set(names) == Set(table.labels))
        }
    }

    @Test func picturesComeBackWithoutImages() throws {
        let read = try pictures(boats)
        #expect(read.count == 7)
        let cat = try #require(read.first { $0.id == "emoji:U+1F408" })
        #expect(cat.source == .emoji && cat.embedding == [0, 0, 1] && cat.topClasses.first?.label == "cat")
    }

    @Test func candidatesMatchSynonymsThenPredictedClasses() throws {
        let library = try pictures(boats)
        let finder = CandidateFinder(pictures: library, weakest: .prediction)
        let sail = finder.candidates(for: "sailboat")
        #expect(sail.map(\.picture.id) == ["clipart:a.svg", "clipart:c.svg", "clipart:b.svg"])
        #expect(sail.first?.reason == .synonym("sailboat") && sail.last?.reason == .synonym("ship"))
        let cat = finder.candidates(for: "cat")
        #expect(cat.map(\.picture.id) == ["emoji:U+1F408", "clipart:e.svg"])
        #expect(cat.last?.reason == .predictedClass(0.95))
        let lenient = CandidateFinder(pictures: library, weakest: .prediction, minimumPredictedProbability: 0.2)
        #expect(lenient.candidates(for: "cat").map(\.picture.id) == ["emoji:U+1F408", "clipart:e.svg", "clipart:f.svg"])
        #expect(finder.candidates(for: "giraffe").isEmpty)
        #expect(CandidateFinder(pictures: []).candidates(for: "cat").isEmpty)
        #expect(
            CandidateFinder(pictures: library).candidates(for: "cat").map(\.picture.id) == ["emoji:U+1F408"],
            "by default the model alone makes no candidate")
    }

    @Test func outerFolderKeywordsDoNotMakeCandidates() throws {
        let finder = CandidateFinder(
            pictures: try pictures([
                item("clipart:computer/icons/disk.svg", title: "Disk", keywords: ["icon", "computer", "icons"], embedding: [1]),
                item("clipart:shapes/stars/s1.svg", title: "Shape one", keywords: ["shapes", "stars"], embedding: [1]),
                item("clipart:computer/pc.svg", title: "PC", keywords: ["computer"], embedding: [1]),
            ]), weakest: .keyword)
        #expect(finder.candidates(for: "computer").map(\.picture.id) == ["clipart:computer/pc.svg"])
        #expect(finder.candidates(for: "star").map(\.picture.id) == ["clipart:shapes/stars/s1.svg"])
        #expect(finder.candidates(for: "square").isEmpty)
    }

    /// Word-sense mistakes the library showed (issue 13): each class keeps its real pictures.
    @Test func otherSensesAndTopicWordsAreNotCandidates() throws {
        let finder = try finder(titled: [
            ("emoji:U+1F334", "palm tree", ["palm", "tree"]),
            ("clipart:plants/island_palm.svg", "Island, palm, and the sun", ["vacation", "palm"]),
            ("emoji:U+1F926", "face palm", ["face", "palm"]),
            ("emoji:U+1FAF4", "palm up hand", ["palm", "up", "hand"]),
            ("emoji:U+1F932", "palms up together", ["palms", "up", "together"]),
            ("emoji:U+1F683", "railway car", ["railway", "car"]),
            ("clipart:electronics/clie.svg", "Sony Clie", ["pda", "palm"]),
            ("emoji:U+2660", "black spade suit", ["black", "spade", "suit"]),
            ("clipart:tools/spade.svg", "Garden spade", []),
            ("clipart:unsorted/signorina_in_viola.svg", "signorina in viola", []),
            ("clipart:people/van_gogh.svg", "Van Gogh 's Room", ["gogh", "van"]),
            ("clipart:transport/van.svg", "Delivery van", []),
            ("clipart:tools/hurricane_lamp.svg", "Red Hurricane Lamp", ["lamp"]),
            ("emoji:U+1F46E", "police officer", ["police", "officer"]),
            ("emoji:U+1F693", "police car", ["police", "car"]),
            ("emoji:U+1F6A8", "police cars revolving light", ["police", "light"]),
            ("clipart:heraldry/coat.svg", "Coat of arms", []),
        ])
        #expect(finder.candidates(for: "palm tree").map(\.picture.id) == ["emoji:U+1F334", "clipart:plants/island_palm.svg"])
        #expect(finder.candidates(for: "shovel").map(\.picture.id) == ["clipart:tools/spade.svg"])
        #expect(finder.candidates(for: "violin").isEmpty)
        #expect(finder.candidates(for: "van").map(\.picture.id) == ["clipart:transport/van.svg"])
        #expect(finder.candidates(for: "hurricane").isEmpty)
        #expect(finder.candidates(for: "police car").map(\.picture.id) == ["emoji:U+1F693"])
        #expect(finder.candidates(for: "car").map(\.picture.id) == ["emoji:U+1F693"], "a police car is a car; a railway car is not")
        #expect(finder.candidates(for: "arm").isEmpty)
    }

    /// Pictures of interface actions and controls (issue 38) are no object's candidates.
    @Test func interfaceSymbolsAreNotCandidates() throws {
        let finder = try finder(titled: [
            ("emoji:U+1F4E9", "envelope with arrow", ["envelope", "e-mail"]),
            ("emoji:U+2709", "envelope", ["envelope", "letter"]),
            ("emoji:U+1F518", "radio button", ["radio", "button"]),
            ("emoji:U+1F4FB", "radio", ["radio", "video"]),
            ("clipart:office/delete_table.svg", "delete table", []),
            ("clipart:furniture/table.svg", "Kitchen table", []),
            ("clipart:signs/line_arrow_begin.svg", "line arrow begin", []),
        ])
        #expect(finder.candidates(for: "envelope").map(\.picture.id) == ["emoji:U+2709"])
        #expect(finder.candidates(for: "radio").map(\.picture.id) == ["emoji:U+1F4FB"])
        #expect(finder.candidates(for: "table").map(\.picture.id) == ["clipart:furniture/table.svg"])
        #expect(finder.candidates(for: "line").isEmpty)
    }

    @Test func coverageCountsAndNamesTheThinClasses() throws {
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        try database.pool.write { db in for item in boats { try item.insert(db) } }
        let coverage = try LibraryCoverage(database: database, reviews: PictureReviews())
        #expect(coverage.classes.count == 345)
        let sail = try #require(coverage.classes.first { $0.label == "sailboat" })
        #expect(sail.bySynonym == 3 && sail.byPrediction == 0)
        #expect(coverage.classes(withAtLeast: 1).map(\.label).contains("cat"))
        #expect(coverage.classes(withAtLeast: 5).isEmpty)
        #expect(coverage.summary.contains("≥ 5 candidates: 0 of 345"))
        #expect(coverage.summary.contains("thin (< 5): "))
        let json = try coverage.json()
        #expect(json.contains("\"classesWithAtLeastFive\" : 0") && json.contains("\"bySynonym\" : 3"))
    }
}
