import Foundation
import GRDB
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// Each test opens a fresh database in its own temporary folder.
@Suite struct LibraryDatabaseTests {
    let folder = TemporaryFolder()

    func item(_ id: String, source: LibrarySource = .clipart) -> LibraryItem {
        LibraryItem(
            id: id, source: source, path: "/x/\(id).svg", title: "a \(id)", sourceTitle: nil, keywords: ["one", "two"],
            license: "public domain",
            thumbnail: Data([1, 2, 3]), aspect: 1.5, raster: GrayImage(width: 2, height: 2, pixels: [0, 255, 7, 9]),
            embedding: [0.5, -1.25, 3e-8], topClasses: [Guess(label: "cat", probability: 0.75)],
            file: FileStamp(fileHash: "00ff", fileSize: 12, fileModified: 1.5, pipeline: "p")
        )
    }

    @Test func aNewDatabaseIsMigratedAndEmpty() throws {
        let database = try LibraryDatabase(path: folder.path("sub/dir/index.sqlite"))
        #expect(try database.itemCounts().isEmpty)
        #expect(try database.skippedCounts().isEmpty)
        let tables = try database.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        #expect(tables.contains("item") && tables.contains("skipped"))
    }

    @Test func itemsRoundTripWithTheirEmbeddingKeywordsAndClasses() throws {
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        let stored = item("cat")
        try database.pool.write { try stored.insert($0) }
        let read = try #require(try database.read { try LibraryItem.fetchOne($0, key: "cat") })
        #expect(read == stored)
        #expect(read.embeddingVector == [0.5, -1.25, 3e-8])
        #expect(read.rasterImage.pixels == [0, 255, 7, 9])
        #expect(read.keywords == ["one", "two"] && read.topClasses.first?.label == "cat")
        #expect(try database.itemCounts() == [.clipart: 1])
    }

    @Test func reopeningKeepsTheItems() throws {
        let path = folder.path("index.sqlite")
        try LibraryDatabase(path: path).pool.write { try item("a").insert($0) }
        #expect(try LibraryDatabase(path: path).itemCounts() == [.clipart: 1])
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let path = folder.path("index.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            try LibraryDatabase(path: path)
        } throws: { error in
            let text = "\(error)"
            return error is LibraryError && text.contains(path) && text.contains("not a usable library database")
        }
    }

    @Test func aTruncatedDatabaseIsAClearError() throws {
        let path = folder.path("index.sqlite")
        try LibraryDatabase(path: path).pool.write { db in
            for i in 0..<50 { try item("i\(i)").insert(db) }
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        var damaged = bytes
        damaged.replaceSubrange(0..<100, with: Data(repeating: 0xEE, count: 100))
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(throws: LibraryError.self) { try LibraryDatabase(path: path) }
    }

    @Test func aDatabaseFromANewerVersionIsRefused() throws {
        let path = folder.path("index.sqlite")
        try LibraryDatabase(path: path).pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        #expect {
            try LibraryDatabase(path: path)
        } throws: { error in
            "\(error)".contains("newer version")
        }
    }

    @Test func aFolderInTheWayIsAClearError() throws {
        try Data().write(to: URL(fileURLWithPath: folder.path("file")))
        #expect(throws: LibraryError.self) { try LibraryDatabase(path: folder.path("file/index.sqlite")) }
    }
}
