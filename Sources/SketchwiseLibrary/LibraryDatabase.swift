import Foundation
import GRDB

/// The library index: an SQLite database (GRDB, WAL mode) of ``LibraryItem``s and
/// ``SkippedFile``s, migrated on open. Safe to share between threads.
public final class LibraryDatabase: Sendable {
    /// Where `sketchwise index build` writes by default.
    public static let defaultPath = "out/library.sqlite"

    public let path: String
    /// The GRDB connection pool, for reading items.
    public let pool: DatabasePool

    /// Opens (creating it and its folder if needed) and migrates the database at `path`.
    /// - Throws: ``LibraryError`` when the file is not an SQLite database, is damaged, was made
    ///   by a newer Sketchwise, or cannot be created.
    public init(path: String) throws(LibraryError) {
        self.path = path
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw LibraryError("\(path): cannot create its folder (\(error.localizedDescription))")
        }
        do {
            pool = try DatabasePool(path: path)
            let migrator = Self.migrator
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                throw LibraryError("\(path) was made by a newer version of Sketchwise; move it away (serve and index build a new one)")
            }
            try migrator.migrate(pool)
        } catch let error as LibraryError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw LibraryError(
                "\(path) is not a usable library database (\(error.message ?? "\(error.resultCode)")); delete it (serve and index build it again)"
            )
        } catch {
            throw LibraryError("\(path): cannot open the library database: \(error)")
        }
    }

    /// Runs `body` in a read transaction, turning database errors into ``LibraryError``s.
    public func read<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try pool.read(body) } catch { throw wrap(error) }
    }

    /// Runs `body` in one write transaction (committed when it returns).
    func write<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try pool.write(body) } catch { throw wrap(error) }
    }

    private func wrap(_ error: any Error) -> LibraryError {
        if let error = error as? LibraryError { return error }
        if let error = error as? DatabaseError { return LibraryError("\(path): \(error.message ?? "\(error.resultCode)")") }
        return LibraryError("\(path): \(error)")
    }

    /// The number of items of each source.
    public func itemCounts() throws(LibraryError) -> [LibrarySource: Int] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT source, COUNT(*) AS n FROM item GROUP BY source")
            return Dictionary(
                uniqueKeysWithValues: rows.compactMap { row in
                    LibrarySource(rawValue: row["source"]).map { ($0, row["n"] as Int) }
                })
        }
    }

    /// The number of skipped files of each source and reason.
    public func skippedCounts() throws(LibraryError) -> [LibrarySource: [SkipReason: Int]] {
        try read { db in
            var counts: [LibrarySource: [SkipReason: Int]] = [:]
            for file in try SkippedFile.fetchAll(db) { counts[file.source, default: [:]][file.reason, default: 0] += 1 }
            return counts
        }
    }

    /// What the index knows of each id of `source`, indexed or skipped.
    func stamps(of source: LibrarySource) throws(LibraryError) -> [String: FileStamp] {
        try read { db in
            var stamps: [String: FileStamp] = [:]
            for table in [LibraryItem.databaseTableName, SkippedFile.databaseTableName] {
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT id, fileHash, fileSize, fileModified, pipeline FROM \(table) WHERE source = ?",
                    arguments: [source.rawValue]
                )
                while let row = try rows.next() {
                    stamps[row["id"]] = FileStamp(
                        fileHash: row["fileHash"], fileSize: row["fileSize"], fileModified: row["fileModified"], pipeline: row["pipeline"]
                    )
                }
            }
            return stamps
        }
    }
}
