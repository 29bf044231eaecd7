import Foundation
import GRDB
import SketchwiseCore

/// ``PersonalStore`` in one SQLite file (GRDB, WAL mode, synchronous writes). Every change is
/// one transaction, so a process killed at any moment leaves the file as it was before the
/// change or after it. Bearer tokens are kept as their SHA-256 digests only.
public final class SQLitePersonalStore: PersonalStore {
    /// Where `sketchwise serve` and `sketchwise shortcuts` keep personal state by default.
    public static let defaultPath = "out/personal.sqlite"

    public let path: String
    private let pool: DatabasePool

    /// Opens (creating it and its folder if needed) and migrates the database at `path`.
    /// - Throws: ``PersonalError`` (`.invalid`) when the file is not such a database or cannot be made.
    public init(path: String) throws {
        self.path = path
        do {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = Self.migrator
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                throw PersonalError(.invalid, "\(path) was made by a newer version of Sketchwise")
            }
            try migrator.migrate(pool)
        } catch let error as PersonalError {
            throw error
        } catch {
            throw PersonalError(.invalid, "\(path): cannot open the personal database: \(error)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "user") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("tokenDigest", .text).notNull().unique()
                t.column("keepsCorrections", .boolean).notNull().defaults(to: true)
                t.column("modelVersion", .integer).notNull().defaults(to: 0)
                t.column("embedder", .text).notNull().defaults(to: "")
            }
            try db.create(table: "example") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("label", .text).notNull()
                t.column("strokes", .text).notNull()
                t.column("embedding", .blob).notNull()
            }
            try db.create(table: "correction") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("label", .text).notNull()
                t.column("strokes", .text).notNull()
                t.column("created", .double).notNull()
            }
        }
        migrator.registerMigration("v2: experiment counts") { db in
            try db.create(table: "experimentCount") { t in
                t.column("experiment", .text).notNull()
                t.column("arm", .text).notNull()
                t.column("served", .integer).notNull().defaults(to: 0)
                t.column("accepted", .integer).notNull().defaults(to: 0)
                t.primaryKey(["experiment", "arm"])
            }
        }
        return migrator
    }

    public func createUser(name: String?) async throws -> (user: PersonalUser, token: String) {
        let token = StoredForms.newToken()
        let digest = StoredForms.digest(token: token)
        return try await pool.write { db in
            let placeholder = name ?? "pending-\(digest)"
            if name != nil, try Row.fetchOne(db, sql: "SELECT 1 FROM user WHERE name = ?", arguments: [placeholder]) != nil {
                throw PersonalError(.conflict, "a user named \(placeholder) exists")
            }
            try db.execute(sql: "INSERT INTO user (name, tokenDigest) VALUES (?, ?)", arguments: [placeholder, digest])
            let id = db.lastInsertedRowID
            let finalName = name ?? "user-\(id)"
            if name == nil { try db.execute(sql: "UPDATE user SET name = ? WHERE id = ?", arguments: [finalName, id]) }
            return (PersonalUser(id: id, name: finalName, keepsCorrections: true), token)
        }
    }

    public func user(token: String) async throws -> PersonalUser? {
        try await pool.read { db in try Self.user(db, where: "tokenDigest = ?", StoredForms.digest(token: token)) }
    }

    public func user(named name: String) async throws -> PersonalUser? {
        try await pool.read { db in try Self.user(db, where: "name = ?", name) }
    }

    private static func user(_ db: Database, where condition: String, _ value: String) throws -> PersonalUser? {
        try Row.fetchOne(db, sql: "SELECT id, name, keepsCorrections FROM user WHERE \(condition)", arguments: [value]).map {
            PersonalUser(id: $0["id"], name: $0["name"], keepsCorrections: $0["keepsCorrections"])
        }
    }

    public func setKeepsCorrections(_ keeps: Bool, user: Int64) async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE user SET keepsCorrections = ? WHERE id = ?", arguments: [keeps, user]) }
    }

    public func modelVersion(user: Int64) async throws -> Int64 {
        try await pool.read { db in try Self.storedVersion(db, user: user) }
    }

    /// The version of a user's shortcuts in `db`.
    /// - Throws: ``PersonalError`` `.notFound` for no such user.
    private static func storedVersion(_ db: Database, user: Int64) throws -> Int64 {
        guard let version = try Int64.fetchOne(db, sql: "SELECT modelVersion FROM user WHERE id = ?", arguments: [user]) else {
            throw PersonalError(.notFound, "no user \(user)")
        }
        return version
    }

    public func model(user: Int64) async throws -> PersonalModel {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT modelVersion, embedder FROM user WHERE id = ?", arguments: [user]) else {
                throw PersonalError(.notFound, "no user \(user)")
            }
            let examples = try Row.fetchAll(db, sql: "SELECT label, strokes, embedding FROM example WHERE userId = ? ORDER BY id", arguments: [user])
                .map { row in
                    ShortcutExample(label: row["label"], sketch: try StoredForms.sketch(row["strokes"]), embedding: StoredForms.floats(row["embedding"]))
                }
            return PersonalModel(version: row["modelVersion"], embedder: row["embedder"], examples: examples)
        }
    }

    public func save(_ model: PersonalModel, user: Int64, expectedVersion: Int64) async throws -> Int64 {
        try await pool.write { db in
            let stored = try Self.storedVersion(db, user: user)
            guard stored == expectedVersion else {
                throw PersonalError(.conflict, "the shortcuts changed meanwhile (version \(stored), expected \(expectedVersion)); try again")
            }
            try db.execute(sql: "DELETE FROM example WHERE userId = ?", arguments: [user])
            for example in model.examples {
                try db.execute(
                    sql: "INSERT INTO example (userId, label, strokes, embedding) VALUES (?, ?, ?, ?)",
                    arguments: [user, example.label, StoredForms.json(example.sketch), StoredForms.data(example.embedding)])
            }
            let version = stored + 1
            try db.execute(sql: "UPDATE user SET modelVersion = ?, embedder = ? WHERE id = ?", arguments: [version, model.embedder, user])
            return version
        }
    }

    public func addCorrection(user: Int64, label: String, sketch: StrokeSketch) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO correction (userId, label, strokes, created) VALUES (?, ?, ?, ?)",
                arguments: [user, label, StoredForms.json(sketch), Date().timeIntervalSince1970])
        }
    }

    public func count(experiment: String, arm: String, served: Int, accepted: Int) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO experimentCount (experiment, arm, served, accepted) VALUES (?, ?, ?, ?)
                ON CONFLICT (experiment, arm) DO UPDATE SET served = served + excluded.served, accepted = accepted + excluded.accepted
                """, arguments: [experiment, arm, served, accepted])
        }
    }

    public func counts(experiment: String) async throws -> [ExperimentCount] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT arm, served, accepted FROM experimentCount WHERE experiment = ? ORDER BY arm", arguments: [experiment]).map {
                ExperimentCount(arm: $0["arm"], served: $0["served"], accepted: $0["accepted"])
            }
        }
    }

    public func corrections(user: String?) async throws -> [Correction] {
        try await pool.read { db in
            var sql = "SELECT user.name AS name, label, strokes, created FROM correction JOIN user ON user.id = correction.userId"
            var arguments: StatementArguments = []
            if let user {
                sql += " WHERE user.name = ?"
                arguments = [user]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY correction.id", arguments: arguments).map { row in
                Correction(user: row["name"], label: row["label"], sketch: try StoredForms.sketch(row["strokes"]), created: row["created"])
            }
        }
    }
}
