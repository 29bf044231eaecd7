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
        [
            // What each user keeps of corrections, so that the quota is checked without a scan.
            """
            ALTER TABLE personal_user ADD COLUMN correction_count BIGINT NOT NULL DEFAULT 0,
                ADD COLUMN correction_bytes BIGINT NOT NULL DEFAULT 0
            """,
            """
            UPDATE personal_user SET correction_count = kept.count, correction_bytes = kept.bytes
            FROM (SELECT user_id, count(*) AS count, sum(octet_length(label) + octet_length(strokes)) AS bytes
                  FROM correction GROUP BY user_id) AS kept
            WHERE kept.user_id = personal_user.id
            """,
            """
            CREATE TABLE experiment_user (
                experiment TEXT NOT NULL, user_id BIGINT NOT NULL REFERENCES personal_user (id) ON DELETE CASCADE,
                served BIGINT NOT NULL DEFAULT 0, accepted BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (experiment, user_id))
            """,
        ],
    ]

    /// A label as stored, as UTF-8 bytes cut to ``ShortcutLabel/maximumReadBytes``.
    private static let label = "substring(convert_to(example.label, 'UTF8') from 1 for \(ShortcutLabel.maximumReadBytes))"

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
                .decode(Int.self)
            {
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

    /// How long one operation may wait for the database, a free connection included, before the
    /// store counts as unavailable (the pool would wait a minute before giving up on a database
    /// that is down).
    static let timeout: Duration = .seconds(5)

    /// Runs `operation` within ``timeout``. A database that cannot be reached (down, refusing or
    /// closing connections, short of resources, or not answering in time) becomes
    /// ``PersonalError`` `.unavailable`, which the server answers `503` with `Retry-After`. An
    /// operation past the time is cancelled and not waited for (``Deadline``): a statement already
    /// sent may still be carried out.
    private func bounded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await Deadline.run(within: Self.timeout, expired: Self.expired, operation)
        } catch where Self.isUnreachable(error) {
            throw PersonalError(.unavailable, "the personal database cannot be reached (\(error))")
        }
    }

    @Sendable private static func expired() -> any Error {
        PersonalError(.unavailable, "the personal database did not answer within \(timeout); what was asked may still be done")
    }

    /// Whether `error` says that the database cannot be reached, rather than that a statement
    /// failed: a connection refused, closed or lost, the server shutting down or short of
    /// resources (SQLSTATE classes 08, 57P and 53: too many connections, out of memory or disk),
    /// or the connection pool's own refusal (its circuit breaker, tripped after a minute of failed
    /// connections). Stored data that does not decode is not.
    static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case is PersonalError, is CancellationError, is PostgresDecodingError, is DecodingError: false
        case let error as PSQLError where error.code == .server:
            error.serverInfo?[.sqlState].map { ["08", "57P", "53"].contains(where: $0.hasPrefix) } ?? false
        case let error as PSQLError:
            [.serverClosedConnection, .connectionError, .uncleanShutdown, .clientClosedConnection].contains(error.code)
        default: true
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
        try await bounded {
            let token = StoredForms.newToken()
            let rows = try await client.query(
                """
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
    }

    public func user(token: String) async throws -> PersonalUser? {
        try await bounded {
            try await user(
                client.query(
                    "SELECT id, name, keeps_corrections FROM personal_user WHERE token_digest = \(StoredForms.digest(token: token))",
                    logger: logger))
        }
    }

    public func user(named name: String) async throws -> PersonalUser? {
        try await bounded {
            try await user(client.query("SELECT id, name, keeps_corrections FROM personal_user WHERE name = \(name)", logger: logger))
        }
    }

    private func user(_ rows: PostgresRowSequence) async throws -> PersonalUser? {
        for try await (id, name, keeps) in rows.decode((Int64, String, Bool).self) {
            return PersonalUser(id: id, name: name, keepsCorrections: keeps)
        }
        return nil
    }

    public func setKeepsCorrections(_ keeps: Bool, user: Int64) async throws {
        try await bounded {
            _ = try await client.query("UPDATE personal_user SET keeps_corrections = \(keeps) WHERE id = \(user)", logger: logger)
        }
    }

    public func modelVersion(user: Int64) async throws -> Int64 {
        try await bounded {
            try await storedVersion(client.query("SELECT model_version FROM personal_user WHERE id = \(user)", logger: logger), user: user)
        }
    }

    /// The version of a user's shortcuts from a `SELECT model_version` query.
    /// - Throws: ``PersonalError`` `.notFound` for no such user.
    private func storedVersion(_ rows: PostgresRowSequence, user: Int64) async throws -> Int64 {
        for try await version in rows.decode(Int64.self) { return version }
        throw PersonalError(.notFound, "no user \(user)")
    }

    public func model(user: Int64) async throws -> PersonalModel {
        try await bounded {
            // One statement, so one snapshot of the version and the examples.
            let rows = try await client.query(
                """
                SELECT personal_user.model_version, personal_user.embedder, \(unescaped: Self.label), example.strokes, example.embedding
                FROM personal_user LEFT JOIN example ON example.user_id = personal_user.id
                WHERE personal_user.id = \(user) ORDER BY example.id
                """, logger: logger)
            var stored: (version: Int64, embedder: String)?
            var examples: [ShortcutExample] = []
            for try await (version, embedder, label, strokes, embedding) in rows.decode((Int64, String, Data?, String?, Data?).self) {
                stored = (version, embedder)
                if let label, let strokes, let embedding {
                    examples.append(
                        ShortcutExample(
                            label: ShortcutLabel.decoded(label), sketch: try StoredForms.sketch(strokes),
                            embedding: StoredForms.floats(embedding)))
                }
            }
            guard let stored else { throw PersonalError(.notFound, "no user \(user)") }
            return PersonalModel(version: stored.version, embedder: stored.embedder, examples: examples)
        }
    }

    public func save(_ model: PersonalModel, user: Int64, expectedVersion: Int64) async throws -> Int64 {
        try await bounded {
            try await transaction { connection in
                // The row lock of this UPDATE orders concurrent saves; a later one sees the new version.
                let rows = try await connection.query(
                    """
                    UPDATE personal_user SET model_version = model_version + 1, embedder = \(model.embedder)
                    WHERE id = \(user) AND model_version = \(expectedVersion) RETURNING model_version
                    """, logger: logger)
                var saved: Int64?
                for try await version in rows.decode(Int64.self) { saved = version }
                guard let saved else {
                    let stored = try await storedVersion(
                        connection.query("SELECT model_version FROM personal_user WHERE id = \(user)", logger: logger), user: user)
                    throw PersonalError(
                        .conflict, "the shortcuts changed meanwhile (version \(stored), expected \(expectedVersion)); try again")
                }
                try await connection.query("DELETE FROM example WHERE user_id = \(user)", logger: logger)
                for example in model.examples {
                    try await connection.query(
                        """
                        INSERT INTO example (user_id, label, strokes, embedding)
                        VALUES (\(user), \(example.label), \(StoredForms.json(example.sketch)), \(StoredForms.data(example.embedding)))
                        """, logger: logger)
                }
                return saved
            }
        }
    }

    public func shortcutLabels(user: Int64) async throws -> [(label: String, examples: Int)] {
        try await bounded {
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.label), count(*) FROM example WHERE user_id = \(user)
                GROUP BY 1 ORDER BY min(example.id)
                """, logger: logger)
            var labels: [(label: String, examples: Int)] = []
            for try await (label, examples) in rows.decode((Data?, Int).self) { labels.append((ShortcutLabel.decoded(label), examples)) }
            return labels
        }
    }

    public func addCorrection(user: Int64, label: String, sketch: StrokeSketch, limits: CorrectionLimits) async throws {
        try await bounded {
            let strokes = StoredForms.json(sketch)
            let bytes = label.utf8.count + strokes.utf8.count
            try await transaction { connection in
                // The row lock of this UPDATE orders concurrent corrections of one user.
                let rows = try await connection.query(
                    """
                    UPDATE personal_user SET correction_count = correction_count + 1, correction_bytes = correction_bytes + \(bytes)
                    WHERE id = \(user) AND correction_count < \(limits.maximumCount) AND correction_bytes <= \(limits.maximumBytes - bytes)
                    RETURNING id
                    """, logger: logger)
                var updated = false
                for try await _ in rows.decode(Int64.self) { updated = true }
                guard updated else {
                    let kept = try await connection.query(
                        "SELECT correction_count, correction_bytes FROM personal_user WHERE id = \(user)", logger: logger)
                    for try await (count, stored) in kept.decode((Int, Int).self) {
                        throw StoredForms.correctionQuotaError(count: count, bytes: stored, adding: bytes, limits: limits)
                    }
                    throw PersonalError(.notFound, "no user \(user)")
                }
                try await connection.query(
                    """
                    INSERT INTO correction (user_id, label, strokes, created)
                    VALUES (\(user), \(label), \(strokes), \(Date().timeIntervalSince1970))
                    """, logger: logger)
            }
        }
    }

    public func forEachCorrection(user: String?, _ body: @escaping @Sendable (Correction) throws -> Void) async throws {
        // Not bounded by ``timeout``: an export of every correction may take minutes. The rows arrive
        // as they are read (PostgresNIO asks the server for more as they are used).
        let rows = try await client.query(
            """
            SELECT personal_user.name, label, strokes, created FROM correction JOIN personal_user ON personal_user.id = correction.user_id
            WHERE \(user)::text IS NULL OR personal_user.name = \(user) ORDER BY correction.id
            """, logger: logger)
        for try await (name, label, strokes, created) in rows.decode((String, String, String, Double).self) {
            try body(Correction(user: name, label: label, sketch: try StoredForms.sketch(strokes), created: created))
        }
    }

    public func count(experiment: String, arm: String, user: Int64, served: Int, accepted: Int) async throws -> Int {
        try await bounded {
            try await transaction { connection in
                // The upsert locks the user's row until the transaction ends.
                let rows = try await connection.query(
                    """
                    INSERT INTO experiment_user (experiment, user_id, served) VALUES (\(experiment), \(user), \(served))
                    ON CONFLICT (experiment, user_id) DO UPDATE SET served = experiment_user.served + excluded.served
                    RETURNING served, accepted
                    """, logger: logger)
                var counted = 0
                for try await (total, already) in rows.decode((Int, Int).self) {
                    counted = StoredForms.countedAcceptances(accepted, served: total, accepted: already)
                }
                try await connection.query(
                    """
                    UPDATE experiment_user SET accepted = accepted + \(counted) WHERE experiment = \(experiment) AND user_id = \(user)
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO experiment_count (experiment, arm, served, accepted) VALUES (\(experiment), \(arm), \(served), \(counted))
                    ON CONFLICT (experiment, arm) DO UPDATE
                    SET served = experiment_count.served + excluded.served, accepted = experiment_count.accepted + excluded.accepted
                    """, logger: logger)
                return counted
            }
        }
    }

    public func counts(experiment: String) async throws -> [ExperimentCount] {
        try await bounded {
            let rows = try await client.query(
                "SELECT arm, served, accepted FROM experiment_count WHERE experiment = \(experiment) ORDER BY arm", logger: logger)
            var counts: [ExperimentCount] = []
            for try await (arm, served, accepted) in rows.decode((String, Int, Int).self) {
                counts.append(ExperimentCount(arm: arm, served: served, accepted: accepted))
            }
            return counts
        }
    }
}
