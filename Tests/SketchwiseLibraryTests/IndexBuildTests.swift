import Foundation
import GRDB
import SketchwiseLibrary
import SketchwiseNN
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// Builds over a temporary folder of drawings into a temporary database.
@Suite struct IndexBuildTests {
    let folder = TemporaryFolder()
    let embedder: PictureEmbedder
    var clipart: URL { folder.url.appendingPathComponent("svg") }

    init() throws {
        embedder = try LibraryFixtures.embedder()
        try LibraryFixtures.write(
            Dictionary(uniqueKeysWithValues: LibraryFixtures.shapes.map { ("things/\($0.key).svg", $0.value) }), in: clipart)
    }

    func builder(batchSize: Int = 128) -> IndexBuilder {
        var builder = IndexBuilder(sources: [.clipart], locations: LibraryLocations(clipartFolder: clipart))
        builder.batchSize = batchSize
        return builder
    }

    func database() throws -> LibraryDatabase { try LibraryDatabase(path: folder.path("index.sqlite")) }

    @Test func aBuildStoresEveryDrawingWithItsMetadataRasterAndEmbedding() throws {
        let database = try database()
        let report = try builder().build(into: database, embedder: embedder)
        #expect(report.sources[.clipart]?.indexed == 4)
        #expect(report.items == [.clipart: 4])
        let ball = try #require(try database.read { try LibraryItem.fetchOne($0, key: "clipart:things/circle.svg") })
        #expect(ball.title == "Red ball")
        #expect(ball.keywords == ["ball", "toy", "things"])
        #expect(ball.license.hasPrefix("public domain"))
        #expect(ball.path == clipart.appendingPathComponent("things/circle.svg").path)
        #expect(ball.rasterSize == embedder.inputSize && ball.raster.count == 400)
        #expect(ball.embeddingVector.count == embedder.recognizer.model.embeddingCount)
        #expect(ball.topClasses.count == 3)
        #expect(ball.thumbnail.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let line = try #require(try database.read { try LibraryItem.fetchOne($0, key: "clipart:things/line.svg") })
        #expect(line.title == "line", "no RDF: the title comes from the file name")
    }

    @Test func drawingsTitledWithTheirCollectionsNameAreTitledByFileName() throws {
        let theme = (1...3).map {
            ("theme/icon_\($0)_camera.svg", LibraryFixtures.svg("<circle cx='50' cy='50' r='\(10 * $0)'/>", title: "Lemon SVG theme"))
        }
        try LibraryFixtures.write(Dictionary(uniqueKeysWithValues: theme), in: clipart)
        let database = try database()
        _ = try builder().build(into: database, embedder: embedder)
        let titles = try database.read { try String.fetchAll($0, sql: "SELECT title FROM item ORDER BY id") }
        #expect(titles == ["icon 1 camera", "icon 2 camera", "icon 3 camera", "Red ball", "House", "line", "Blue square"])
        try FileManager.default.removeItem(at: clipart.appendingPathComponent("theme/icon_3_camera.svg"))
        _ = try builder().build(into: database, embedder: embedder)
        #expect(
            try database.read { try LibraryItem.fetchOne($0, key: "clipart:theme/icon_1_camera.svg") }?.title == "Lemon SVG theme",
            "two drawings are no collection")
    }

    @Test func aSecondBuildRendersNothing() throws {
        let database = try database()
        _ = try builder().build(into: database, embedder: embedder)
        let again = try builder().build(into: database, embedder: embedder)
        #expect(again.sources[.clipart]?.unchanged == 4 && again.sources[.clipart]?.indexed == 0)
    }

    @Test func changedAddedRemovedAndTouchedFilesAreHandled() throws {
        let database = try database()
        _ = try builder().build(into: database, embedder: embedder)
        let files = clipart.appendingPathComponent("things")
        try Data(LibraryFixtures.svg("<circle cx='50' cy='50' r='20'/>", title: "Small ball").utf8).write(
            to: files.appendingPathComponent("circle.svg"))
        try FileManager.default.removeItem(at: files.appendingPathComponent("square.svg"))
        try LibraryFixtures.write(
            ["new/star.svg": LibraryFixtures.svg("<path d='M50 0 L61 35 L98 35 L68 57 L79 91 L50 70 L21 91 L32 57 L2 35 L39 35 Z'/>")],
            in: clipart)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: files.appendingPathComponent("house.svg").path)
        let report = try builder().build(into: database, embedder: embedder)
        let counts = try #require(report.sources[.clipart])
        #expect(counts.found == 4)
        #expect(counts.indexed == 2, "the changed and the new drawing")
        #expect(counts.unchanged == 2, "the untouched one, and the touched one whose bytes are the same")
        #expect(counts.removed == 1)
        #expect(try database.read { try LibraryItem.fetchOne($0, key: "clipart:things/circle.svg") }?.title == "Small ball")
        #expect(try database.read { try LibraryItem.fetchOne($0, key: "clipart:things/square.svg") } == nil)
        let third = try builder().build(into: database, embedder: embedder)
        #expect(third.sources[.clipart]?.unchanged == 4, "the touched file's new time was stored")
    }

    @Test func aKilledBuildResumesWhereItStopped() throws {
        struct Killed: Error {}
        let database = try database()
        #expect(throws: Killed.self) {
            try builder(batchSize: 1).build(into: database, embedder: embedder) { progress in
                if progress.done == 2 { throw Killed() }
            }
        }
        #expect(try database.itemCounts() == [.clipart: 2], "the committed batches stay")
        let resumed = try builder(batchSize: 1).build(into: database, embedder: embedder)
        #expect(resumed.sources[.clipart]?.unchanged == 2 && resumed.sources[.clipart]?.indexed == 2)
        #expect(resumed.items == [.clipart: 4])
    }

    @Test func anotherPipelineRendersEverythingAgain() throws {
        let database = try database()
        _ = try builder().build(into: database, embedder: embedder)
        var bigger = builder()
        bigger.thumbnailSize = 48
        #expect(try bigger.build(into: database, embedder: embedder).sources[.clipart]?.indexed == 4)
    }

    /// A picture named by an older rule is named again by the next build, its file unchanged.
    @Test func newerNamingRulesNameEveryPictureAgain() throws {
        let database = try database()
        var older = builder()
        older.namingRules = IndexBuilder.currentNamingRules - 1
        _ = try older.build(into: database, embedder: embedder)
        let id = "clipart:things/circle.svg"
        let title = try #require(try database.read { try LibraryItem.fetchOne($0, key: id) }?.title)
        try DatabaseQueue(path: folder.path("index.sqlite")).write {
            try $0.execute(sql: "UPDATE item SET title = 'ball', sourceTitle = 'ball' WHERE id = ?", arguments: [id])
        }
        #expect(try older.build(into: database, embedder: embedder).sources[.clipart]?.unchanged == 4)
        #expect(try database.read { try LibraryItem.fetchOne($0, key: id) }?.title == "ball", "the same rules keep the name")
        #expect(try builder().build(into: database, embedder: embedder).sources[.clipart]?.indexed == 4)
        #expect(try database.read { try LibraryItem.fetchOne($0, key: id) }?.title == title)
    }

    @Test func progressIsReportedAfterEachBatch() throws {
        var seen: [Int] = []
        _ = try builder(batchSize: 3).build(into: try database(), embedder: embedder) { seen.append($0.done) }
        #expect(seen == [3, 4])
    }

    @Test func linksToDrawingsInTheFolderAreNotIndexedTwice() throws {
        try FileManager.default.createSymbolicLink(
            atPath: clipart.appendingPathComponent("things/ball.svg").path, withDestinationPath: "circle.svg"
        )
        let report = try builder().build(into: try database(), embedder: embedder)
        #expect(report.sources[.clipart]?.aliases == 1 && report.items == [.clipart: 4])
    }

    @Test func aMissingSourceIsAClearError() throws {
        let builder = IndexBuilder(
            sources: [.clipart, .emoji],
            locations: LibraryLocations(
                clipartFolder: folder.url.appendingPathComponent("nothing"), emojiFont: folder.url.appendingPathComponent("none.ttf")
            ))
        #expect(throws: LibraryError.self) { try builder.build(into: try database(), embedder: embedder) }
        #expect(throws: LibraryError.self) { try LibrarySource.list("clipart,fonts") }
        #expect(try LibrarySource.list(" emoji , clipart") == [.emoji, .clipart])
    }

    @Test func emojiAreIndexedFromTheFont() throws {
        guard LibraryFixtures.hasEmojiFont else { print(LibraryFixtures.emojiMissing); return }
        let database = try database()
        var builder = IndexBuilder(sources: [.emoji], locations: LibraryLocations(emojiAnnotations: []))
        builder.batchSize = 512
        let report = try builder.build(into: database, embedder: embedder)
        let counts = try #require(report.sources[.emoji])
        #expect(counts.found > 1300 && counts.indexed == counts.found)
        let apple = try #require(try database.read { try LibraryItem.fetchOne($0, key: "emoji:U+1F34E") })
        #expect(apple.title == "red apple" && apple.keywords == ["red", "apple"], "Unicode names without CLDR")
        #expect(apple.license.contains("SIL Open Font License 1.1"))
        #expect(try builder.build(into: database, embedder: embedder).sources[.emoji]?.unchanged == counts.found)
    }
}
