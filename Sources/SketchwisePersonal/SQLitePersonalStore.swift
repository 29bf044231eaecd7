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
        migrator.registerMigration("v3: quotas and per-user experiment counts") { db in
            // What each user keeps of corrections, so that the quota is checked without a scan.
            try db.alter(table: "user") { t in
                t.add(column: "correctionCount", .integer).notNull().defaults(to: 0)
                t.add(column: "correctionBytes", .integer).notNull().defaults(to: 0)
            }
            try db.execute(
                sql: """
                    UPDATE user SET
                        correctionCount = (SELECT count(*) FROM correction WHERE userId = user.id),
                        correctionBytes = (SELECT coalesce(sum(length(CAST(label AS BLOB)) + length(CAST(strokes AS BLOB))), 0)
                                           FROM correction WHERE userId = user.id)
                    """)
            try db.create(table: "experimentUser") { t in
                t.column("experiment", .text).notNull()
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("served", .integer).notNull().defaults(to: 0)
                t.column("accepted", .integer).notNull().defaults(to: 0)
                t.primaryKey(["experiment", "userId"])
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
            let examples = try Row.fetchAll(
                db, sql: "SELECT \(Self.label) AS label, strokes, embedding FROM example WHERE userId = ? ORDER BY id", arguments: [user]
            ).map { row in
                ShortcutExample(
                    label: ShortcutLabel.decoded(row["label"] as Data?), sketch: try StoredForms.sketch(row["strokes"]),
                    embedding: StoredForms.floats(row["embedding"] as Data? ?? Data()))
            }
            return PersonalModel(version: row["modelVersion"], embedder: row["embedder"], examples: examples)
        }
    }

    public func save(_ model: PersonalModel, user: Int64, expectedVersion: Int64) async throws -> Int64 {
        try await pool.write { db in
            let stored = try Self.storedVersion(db, user: user)
            guard stored == expectedVersion else {
                throw PersonalError(
                    .conflict, "the shortcuts changed meanwhile (version \(stored), expected \(expectedVersion)); try again")
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

    /// A label as stored, as bytes (GRDB reads text up to its first NUL, and old stores may hold
    /// one), cut to ``ShortcutLabel/maximumReadBytes``.
    private static let label = "substr(CAST(label AS BLOB), 1, \(ShortcutLabel.maximumReadBytes))"

    public func shortcutLabels(user: Int64) async throws -> [(label: String, examples: Int)] {
        try await pool.read { db in
            // Grouped by the bytes read (labels that differ after a NUL stay apart; two that
            // differ only past ShortcutLabel.maximumReadBytes are repaired to one anyway).
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.label) AS label, count(*) AS examples FROM example WHERE userId = ?
                    GROUP BY 1 ORDER BY min(id)
                    """, arguments: [user]
            ).map { (ShortcutLabel.decoded($0["label"] as Data?), $0["examples"]) }
        }
    }

    public func addCorrection(user: Int64, label: String, sketch: StrokeSketch, limits: CorrectionLimits) async throws {
        let strokes = StoredForms.json(sketch)
        let bytes = label.utf8.count + strokes.utf8.count
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE user SET correctionCount = correctionCount + 1, correctionBytes = correctionBytes + ?
                    WHERE id = ? AND correctionCount < ? AND correctionBytes <= ? - ?
                    """, arguments: [bytes, user, limits.maximumCount, limits.maximumBytes, bytes])
            guard db.changesCount == 1 else {
                let row = try Row.fetchOne(db, sql: "SELECT correctionCount, correctionBytes FROM user WHERE id = ?", arguments: [user])
                guard let row else { throw PersonalError(.notFound, "no user \(user)") }
                throw StoredForms.correctionQuotaError(
                    count: row["correctionCount"], bytes: row["correctionBytes"], adding: bytes, limits: limits)
            }
            try db.execute(
                sql: "INSERT INTO correction (userId, label, strokes, created) VALUES (?, ?, ?, ?)",
                arguments: [user, label, strokes, Date().timeIntervalSince1970])
        }
    }

    public func count(experiment: String, arm: String, user: Int64, served: Int, accepted: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO experimentUser (experiment, userId, served) VALUES (?, ?, ?)
                    ON CONFLICT (experiment, userId) DO UPDATE SET served = served + excluded.served
                    """, arguments: [experiment, user, served])
            let row = try Row.fetchOne(
                db, sql: "SELECT served, accepted FROM experimentUser WHERE experiment = ? AND userId = ?", arguments: [experiment, user])
            let counted = StoredForms.countedAcceptances(accepted, served: row?["served"] ?? 0, accepted: row?["accepted"] ?? 0)
            try db.execute(
                sql: "UPDATE experimentUser SET accepted = accepted + ? WHERE experiment = ? AND userId = ?",
                arguments: [counted, experiment, user])
            try db.execute(
                sql: """
                    INSERT INTO experimentCount (experiment, arm, served, accepted) VALUES (?, ?, ?, ?)
                    ON CONFLICT (experiment, arm) DO UPDATE SET served = served + excluded.served, accepted = accepted + excluded.accepted
                    """, arguments: [experiment, arm, served, counted])
            return counted
        }
    }

    public func counts(experiment: String) async throws -> [ExperimentCount] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT arm, served, accepted FROM experimentCount WHERE experiment = ? ORDER BY arm", arguments: [experiment]
            ).map {
                ExperimentCount(arm: $0["arm"], served: $0["served"], accepted: $0["accepted"])
            }
        }
    }

    public func forEachCorrection(user: String?, _ body: @escaping @Sendable (Correction) throws -> Void) async throws {
        try await pool.read { db in
            var sql = """
                SELECT user.name AS name, CAST(label AS BLOB) AS label, strokes, created
                FROM correction JOIN user ON user.id = correction.userId
                """
            var arguments: StatementArguments = []
            if let user {
                sql += " WHERE user.name = ?"
                arguments = [user]
            }
            let rows = try Row.fetchCursor(db, sql: sql + " ORDER BY correction.id", arguments: arguments)
            while let row = try rows.next() {
                try body(
                    Correction(
                        user: row["name"], label: ShortcutLabel.decoded(row["label"] as Data?),
                        sketch: try StoredForms.sketch(row["strokes"]),
                        created: row["created"]))
            }
        }
    }
}
