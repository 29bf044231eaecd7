import Foundation
import SketchwiseTestSupport
import Testing

@testable import SketchwiseLibrary

/// The review list that ships (issue 13): read, applied, and never undone by the rules.
@Suite struct PictureReviewTests {
    let reviews: PictureReviews

    init() throws {
        reviews = try PictureReviews.bundled()
    }

    @Test func theShippedListIsReadAndCoversAtLeastSixtyClasses() {
        let classes = Set(reviews.all.map(\.label))
        #expect(classes.count >= 60)
        #expect(classes.isSubset(of: Set(ClassSynonyms.quickDraw.labels)), "every reviewed class is a Quick, Draw! class")
        #expect(PictureReviews.Verdict.allCases.allSatisfy { verdict in reviews.all.contains { $0.verdict == verdict } })
    }

    /// A doodle's verdict names its drawing (`doodle:barn/5076056950177792.svg`, issue 38), so that
    /// it never passes to another drawing the doodles command chooses for the class.
    @Test func reviewedDoodlesAreNamedByTheirClassAndDrawing() {
        let doodles = reviews.all.filter { $0.id.hasPrefix("doodle:") }
        #expect(Set(doodles.map(\.label)).count >= 60)
        for (label, id, _) in doodles {
            let name = id.dropFirst("doodle:\(label)/".count)
            #expect(
                id.hasPrefix("doodle:\(label)/") && name.hasSuffix(".svg") && name.dropLast(4).count >= 8
                    && name.dropLast(4).allSatisfy(\.isNumber), "\(id)")
        }
    }

    @Test func malformedListsAreClearErrors() throws {
        #expect(try PictureReviews(text: "# only a comment\n\n") == PictureReviews())
        #expect(throws: LibraryError.self) { try PictureReviews(text: "cat\topenmoji:1F408.svg\tgreat\n") }
        #expect(throws: LibraryError.self) { try PictureReviews(text: "cat openmoji:1F408.svg good\n") }
        let error = #expect(throws: LibraryError.self) { try PictureReviews(text: "cat\ta\tgood\n\tb\twrong\n") }
        #expect(error?.description.contains("line 2") == true)
    }

    /// A picture reviewed as wrong or loose for a class never comes back for it, even when its
    /// title is exactly the class's name; one reviewed as good does, even with unrelated words.
    @Test func verdictsOverruleWords() {
        var pictures: [IndexedPicture] = []
        for (label, id, verdict) in reviews.all {
            let title = verdict == .good ? "unrelated \(pictures.count)" : label
            pictures.append(IndexedPicture(id: id, source: .openmoji, title: title, keywords: [], embedding: [1], topClasses: []))
        }
        let finder = CandidateFinder(pictures: pictures, reviews: reviews)
        for label in Set(reviews.all.map(\.label)) {
            let found = Set(finder.candidates(for: label).map(\.picture.id))
            for (id, verdict) in reviews.reviewed(for: label) {
                #expect(found.contains(id) == (verdict == .good), "\(label): \(id) reviewed \(verdict.rawValue)")
            }
        }
    }

    /// The real pictures: every file of the line sources (OpenMoji, Lucide, Tabler, the doodles) the
    /// list names is indexed with its real names (CLDR when installed), and for every reviewed class
    /// no picture reviewed as wrong is a candidate, by default and when keyword and model-only
    /// matches are let in. A reviewed doodle this machine's data did not draw is left out.
    @Test func noPictureReviewedAsWrongComesBackFromTheRealLibrary() throws {
        let locations = LibraryLocations()
        let lineSources = PictureStyle.line.sources
        guard locations.installed(lineSources) == lineSources else {
            print("skipped: OpenMoji, Lucide and Tabler are not all installed (scripts/install-deps.sh installs them)")
            return
        }
        let folder = TemporaryFolder()
        var copied = LibraryLocations(
            openmojiFolder: folder.url.appendingPathComponent("openmoji"), lucideFolder: folder.url.appendingPathComponent("lucide"),
            tablerFolder: folder.url.appendingPathComponent("tabler"))
        copied.doodleFolder = folder.url.appendingPathComponent("doodles")
        copied.emojiAnnotations = locations.emojiAnnotations
        var doodles = 0
        for id in Set(reviews.all.map(\.id)) {
            let parts = id.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let source = LibrarySource(rawValue: parts[0]), lineSources.contains(source) else { continue }
            let original = locations.location(of: source).appendingPathComponent(parts[1])
            if source == .doodle, !FileManager.default.fileExists(atPath: original.path) { continue }
            let target = copied.location(of: source).appendingPathComponent(parts[1])
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: original, to: target)
            if source == .doodle { doodles += 1 }
        }
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        _ = try IndexBuilder(sources: lineSources, locations: copied).build(
            into: database, embedder: try LibraryFixtures.embedder())
        let pictures = try database.pictures()
        #expect(pictures.count >= 300)
        #expect(pictures.filter { $0.source == .doodle }.count == doodles)
        print("reviewed doodles drawn here and indexed: \(doodles)")
        for weakest in [MatchStrength.synonymInTitle, .prediction] {
            let finder = CandidateFinder(pictures: pictures, reviews: reviews, weakest: weakest, minimumPredictedProbability: 0)
            for label in Set(reviews.all.map(\.label)) {
                let wrong = Set(reviews.reviewed(for: label).filter { $0.value == .wrong }.keys)
                let back = finder.candidates(for: label).map(\.picture.id).filter(wrong.contains)
                #expect(back.isEmpty, "\(label): \(back) came back")
            }
        }
    }
}
