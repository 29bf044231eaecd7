import Foundation
import Logging
import PostgresNIO
import SketchwiseCore
import SketchwisePersonal

/// ``PersonalStore`` in PostgreSQL, for several `sketchwise serve` replicas that share one
/// database. The same semantics as ``SQLitePersonalStore``: every change is one transaction, a
/// model is saved only over the version it was read at (else ``PersonalError`` `.conflict`), and
/// bearer tokens are kept as their SHA-256 digests only.
///
/// It runs its queries on a ``PostgresClient`` (a connection pool) whose `run()` the owner keeps
/// running; ``PersonalDatabase/withStore(_:logger:_:)`` does that and shuts the pool down after.
public struct PostgresPersonalStore: PersonalStore {
    let client: PostgresClient
    let logger: Logger

    /// Brings the schema up to date (see ``migrations``) on a client whose `run()` is running.
    /// - Throws: ``PersonalError`` (`.invalid`) when the database was made by a newer version.
    public init(client: PostgresClient, logger: Logger) async throws {
        self.client = client
        self.logger = logger
        try await migrate()
    }

    /// The schema, one step per version; `schema_version` records those applied. Never edit a
    /// step that has shipped: add one.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE personal_user (
                id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_digest TEXT NOT NULL UNIQUE,
                keeps_corrections BOOLEAN NOT NULL DEFAULT TRUE, model_version BIGINT NOT NULL DEFAULT 0,
                embedder TEXT NOT NULL DEFAULT '')
            """,
            """
            CREATE TABLE example (
                id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES personal_user (id) ON DELETE CASCADE,
                label TEXT NOT NULL, strokes TEXT NOT NULL, embedding BYTEA NOT NULL)
            """,
            "CREATE INDEX example_user ON example (user_id)",
            """
            CREATE TABLE correction (
                id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES personal_user (id) ON DELETE CASCADE,
                label TEXT NOT NULL, strokes TEXT NOT NULL, created DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX correction_user ON correction (user_id)",
            """
            CREATE TABLE experiment_count (
                experiment TEXT NOT NULL, arm TEXT NOT NULL, served BIGINT NOT NULL DEFAULT 0,
                accepted BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (experiment, arm))
            """,
        ],
    ]

    /// Applies the missing migrations in one transaction, under an advisory lock so that
    /// replicas starting together migrate once.
    private func migrate() async throws {
        try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7301954)", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger)
            var current = 0
            for try await version in try await connection.query("SELECT coalesce(max(version), 0) FROM schema_version", logger: logger)
                .decode(Int.self) {
                current = version
            }
            guard current <= Self.migrations.count else {
                throw PersonalError(.invalid, "the database was made by a newer version of Sketchwise (schema \(current))")
            }
            for (index, statements) in Self.migrations.enumerated().dropFirst(current) {
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("INSERT INTO schema_version (version) VALUES (\(index + 1))", logger: logger)
            }
        }
    }

    /// Runs `body` in one transaction on a pooled connection: committed when it returns, rolled
    /// back when it throws, rethrowing its error as it was (``PersonalError`` stays one).
    private func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            let result: T
            do {
                result = try await body(connection)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            return result
        }
    }

    public func createUser(name: String?) async throws -> (user: PersonalUser, token: String) {
        let token = StoredForms.newToken()
        let rows = try await client.query("""
            WITH next AS (SELECT nextval(pg_get_serial_sequence('personal_user', 'id')) AS id)
            INSERT INTO personal_user (id, name, token_digest)
            SELECT id, coalesce(\(name)::text, 'user-' || id), \(StoredForms.digest(token: token)) FROM next
            ON CONFLICT (name) DO NOTHING RETURNING id, name
            """, logger: logger)
        for try await (id, created) in rows.decode((Int64, String).self) {
            return (PersonalUser(id: id, name: created, keepsCorrections: true), token)
        }
        throw PersonalError(.conflict, "a user named \(name ?? "?") exists")
    }

    public func user(token: String) async throws -> PersonalUser? {
        try await user(client.query(
            "SELECT id, name, keeps_corrections FROM personal_user WHERE token_digest = \(StoredForms.digest(token: token))", logger: logger))
    }

    public func user(named name: String) async throws -> PersonalUser? {
        try await user(client.query("SELECT id, name, keeps_corrections FROM personal_user WHERE name = \(name)", logger: logger))
    }

    private func user(_ rows: PostgresRowSequence) async throws -> PersonalUser? {
        for try await (id, name, keeps) in rows.decode((Int64, String, Bool).self) {
            return PersonalUser(id: id, name: name, keepsCorrections: keeps)
        }
        return nil
    }

    public func setKeepsCorrections(_ keeps: Bool, user: Int64) async throws {
        try await client.query("UPDATE personal_user SET keeps_corrections = \(keeps) WHERE id = \(user)", logger: logger)
    }

    public func modelVersion(user: Int64) async throws -> Int64 {
        try await storedVersion(client.query("SELECT model_version FROM personal_user WHERE id = \(user)", logger: logger), user: user)
    }

    /// The version of a user's shortcuts from a `SELECT model_version` query.
    /// - Throws: ``PersonalError`` `.notFound` for no such user.
    private func storedVersion(_ rows: PostgresRowSequence, user: Int64) async throws -> Int64 {
        for try await version in rows.decode(Int64.self) { return version }
        throw PersonalError(.notFound, "no user \(user)")
    }

    public func model(user: Int64) async throws -> PersonalModel {
        // One statement, so one snapshot of the version and the examples.
        let rows = try await client.query("""
            SELECT personal_user.model_version, personal_user.embedder, example.label, example.strokes, example.embedding
            FROM personal_user LEFT JOIN example ON example.user_id = personal_user.id
            WHERE personal_user.id = \(user) ORDER BY example.id
            """, logger: logger)
        var stored: (version: Int64, embedder: String)?
        var examples: [ShortcutExample] = []
        for try await (version, embedder, label, strokes, embedding) in rows.decode((Int64, String, String?, String?, Data?).self) {
            stored = (version, embedder)
            if let label, let strokes, let embedding {
                examples.append(ShortcutExample(label: label, sketch: try StoredForms.sketch(strokes), embedding: StoredForms.floats(embedding)))
            }
        }
        guard let stored else { throw PersonalError(.notFound, "no user \(user)") }
        return PersonalModel(version: stored.version, embedder: stored.embedder, examples: examples)
    }

    public func save(_ model: PersonalModel, user: Int64, expectedVersion: Int64) async throws -> Int64 {
        try await transaction { connection in
            // The row lock of this UPDATE orders concurrent saves; a later one sees the new version.
            let rows = try await connection.query("""
                UPDATE personal_user SET model_version = model_version + 1, embedder = \(model.embedder)
                WHERE id = \(user) AND model_version = \(expectedVersion) RETURNING model_version
                """, logger: logger)
            var saved: Int64?
            for try await version in rows.decode(Int64.self) { saved = version }
            guard let saved else {
                let stored = try await storedVersion(
                    connection.query("SELECT model_version FROM personal_user WHERE id = \(user)", logger: logger), user: user)
                throw PersonalError(.conflict, "the shortcuts changed meanwhile (version \(stored), expected \(expectedVersion)); try again")
            }
            try await connection.query("DELETE FROM example WHERE user_id = \(user)", logger: logger)
            for example in model.examples {
                try await connection.query("""
                    INSERT INTO example (user_id, label, strokes, embedding)
                    VALUES (\(user), \(example.label), \(StoredForms.json(example.sketch)), \(StoredForms.data(example.embedding)))
                    """, logger: logger)
            }
            return saved
        }
    }

    public func addCorrection(user: Int64, label: String, sketch: StrokeSketch) async throws {
        try await client.query("""
            INSERT INTO correction (user_id, label, strokes, created)
            VALUES (\(user), \(label), \(StoredForms.json(sketch)), \(Date().timeIntervalSince1970))
            """, logger: logger)
    }

    public func corrections(user: String?) async throws -> [Correction] {
        let rows = try await client.query("""
            SELECT personal_user.name, label, strokes, created FROM correction JOIN personal_user ON personal_user.id = correction.user_id
            WHERE \(user)::text IS NULL OR personal_user.name = \(user) ORDER BY correction.id
            """, logger: logger)
        var corrections: [Correction] = []
        for try await (name, label, strokes, created) in rows.decode((String, String, String, Double).self) {
            corrections.append(Correction(user: name, label: label, sketch: try StoredForms.sketch(strokes), created: created))
        }
        return corrections
    }

    public func count(experiment: String, arm: String, served: Int, accepted: Int) async throws {
        try await client.query("""
            INSERT INTO experiment_count (experiment, arm, served, accepted) VALUES (\(experiment), \(arm), \(served), \(accepted))
            ON CONFLICT (experiment, arm) DO UPDATE
            SET served = experiment_count.served + excluded.served, accepted = experiment_count.accepted + excluded.accepted
            """, logger: logger)
    }

    public func counts(experiment: String) async throws -> [ExperimentCount] {
        let rows = try await client.query(
            "SELECT arm, served, accepted FROM experiment_count WHERE experiment = \(experiment) ORDER BY arm", logger: logger)
        var counts: [ExperimentCount] = []
        for try await (arm, served, accepted) in rows.decode((String, Int, Int).self) {
            counts.append(ExperimentCount(arm: arm, served: served, accepted: accepted))
        }
        return counts
    }
}
