import Foundation
import Logging
import PostgresNIO
import SketchwiseCore
import SketchwisePersonal
import SketchwiseShortcuts
import SketchwiseTestSupport
import Testing

@testable import SketchwisePostgres

/// What every ``PersonalStore`` backend must do, written once and run against each: SQLite
/// always, PostgreSQL when `SKETCHWISE_TEST_POSTGRES_URL` names a server (`make test` starts one
/// with scripts/postgres.sh). Each check gets a fresh, empty database, opened the way
/// `--database` opens it.
struct StoreCheck: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable (PersonalDatabase) async throws -> Void

    var testDescription: String { name }

    static let logger = Logger(label: "sketchwise-tests")

    static func open<T>(_ database: PersonalDatabase, _ body: (any PersonalStore) async throws -> T) async throws -> T {
        try await database.withStore(logger: logger, body)
    }

    static let all: [StoreCheck] = [
        StoreCheck(name: "users are found by token and by name, never by a wrong token") { database in
            try await open(database) { store async throws in
                let (user, token) = try await store.createUser(name: nil)
                #expect(token.count == 64 && user.name == "user-\(user.id)" && user.keepsCorrections)
                #expect(try await store.user(token: token) == user)
                #expect(try await store.user(token: "not-a-token") == nil)
                let ann = try await store.createUser(name: "ann")
                #expect(ann.token != token && ann.user.id != user.id)
                #expect(try await store.user(named: "ann") == ann.user)
                #expect(try await store.user(named: "nobody") == nil)
                await #expect(throws: PersonalError.self) { try await store.createUser(name: "ann") }
                try await store.setKeepsCorrections(false, user: ann.user.id)
                #expect(try await store.user(token: ann.token)?.keepsCorrections == false)
            }
        },
        StoreCheck(name: "a model is saved whole over the version it was read at, and survives reopening") { database in
            let sketch = StrokeSketch(strokes: [
                Stroke(points: [Point(x: 1, y: 2, t: 0), Point(x: 30, y: 40, t: 16)]), Stroke(points: [Point(x: 5, y: 5)]),
            ])
            let examples = [
                ShortcutExample(label: "🌀", sketch: sketch, embedding: [0.5, -1, 3.25]),
                ShortcutExample(label: "🌀", sketch: sketch, embedding: [1, 2, 3]),
                ShortcutExample(label: "saw", sketch: sketch, embedding: [-0.125, 0, 9]),
                // The misfires' label starts with a noncharacter, which each store keeps as it is.
                ShortcutExample(label: NearestNeighborClassifier.misfireLabel, sketch: sketch, embedding: [0, 1, 0]),
            ]
            let user = try await open(database) { store async throws in
                let user = try await store.createUser(name: nil).user
                #expect(try await store.model(user: user.id) == PersonalModel(version: 0, embedder: "", examples: []))
                #expect(
                    try await store.save(PersonalModel(version: 0, embedder: "m@1", examples: examples), user: user.id, expectedVersion: 0)
                        == 1)
                await #expect(throws: PersonalError(.conflict, "the shortcuts changed meanwhile (version 1, expected 0); try again")) {
                    try await store.save(PersonalModel(version: 0, embedder: "m@1", examples: []), user: user.id, expectedVersion: 0)
                }
                await #expect(throws: PersonalError(.notFound, "no user 999999")) { try await store.model(user: 999_999) }
                await #expect(throws: PersonalError.self) { try await store.modelVersion(user: 999_999) }
                return user
            }
            try await open(database) { store async throws in
                #expect(try await store.modelVersion(user: user.id) == 1)
                #expect(try await store.model(user: user.id) == PersonalModel(version: 1, embedder: "m@1", examples: examples))
                #expect(
                    try await store.save(
                        PersonalModel(version: 1, embedder: "m@2", examples: [examples[2]]), user: user.id, expectedVersion: 1) == 2)
                #expect(try await store.model(user: user.id) == PersonalModel(version: 2, embedder: "m@2", examples: [examples[2]]))
            }
        },
        StoreCheck(name: "of two saves over the same version, one wins and the other is a conflict") { database in
            try await open(database) { store async throws in
                let user = try await store.createUser(name: nil).user
                let outcomes = await withTaskGroup(of: Bool.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            let example = ShortcutExample(
                                label: "l\(index)", sketch: StrokeSketch(strokes: [Stroke(points: [Point(x: 0, y: 0)])]),
                                embedding: [Float(index)])
                            do {
                                _ = try await store.save(
                                    PersonalModel(version: 0, embedder: "m@1", examples: [example]), user: user.id, expectedVersion: 0)
                                return true
                            } catch {
                                #expect(
                                    error as? PersonalError
                                        == PersonalError(.conflict, "the shortcuts changed meanwhile (version 1, expected 0); try again"))
                                return false
                            }
                        }
                    }
                    return await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 }.count == 1)
                let model = try await store.model(user: user.id)
                #expect(model.version == 1 && model.examples.count == 1)
            }
        },
        StoreCheck(name: "corrections are kept per user, oldest first") { database in
            try await open(database) { store async throws in
                let ann = try await store.createUser(name: "ann").user, bob = try await store.createUser(name: "bob").user
                let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 1, t: 0), Point(x: 9, y: 9, t: 20)])])
                try await store.addCorrection(user: ann.id, label: "snail", sketch: sketch, limits: CorrectionLimits())
                try await store.addCorrection(user: bob.id, label: "saw", sketch: sketch, limits: CorrectionLimits())
                try await store.addCorrection(user: ann.id, label: "spring", sketch: sketch, limits: CorrectionLimits())
                #expect(try await store.corrections(user: "ann").map(\.label) == ["snail", "spring"])
                let all = try await store.corrections(user: nil)
                #expect(all.map(\.user) == ["ann", "bob", "ann"] && all.allSatisfy { $0.sketch == sketch })
                #expect(all[0].created <= all[2].created && abs(all[0].created - Date().timeIntervalSince1970) < 60)
                #expect(try await store.corrections(user: "nobody").isEmpty)
            }
        },
        StoreCheck(name: "experiment counts add up per arm and survive reopening") { database in
            try await open(database) { store async throws in
                let ann = try await store.createUser(name: "ann").user.id, bob = try await store.createUser(name: "bob").user.id
                try await store.count(experiment: "m@2", arm: "treatment", user: ann, served: 1, accepted: 0)
                try await store.count(experiment: "m@2", arm: "treatment", user: ann, served: 1, accepted: 1)
                try await store.count(experiment: "m@2", arm: "control", user: bob, served: 3, accepted: 0)
                try await store.count(experiment: "other@1", arm: "control", user: bob, served: 9, accepted: 9)
            }
            try await open(database) { store async throws in
                #expect(
                    try await store.counts(experiment: "m@2") == [
                        ExperimentCount(arm: "control", served: 3, accepted: 0), ExperimentCount(arm: "treatment", served: 2, accepted: 1),
                    ])
                #expect(try await store.counts(experiment: "none@0").isEmpty)
            }
        },
        StoreCheck(name: "a person's acceptances count only up to the suggestions answered to them") { database in
            try await open(database) { store async throws in
                let ann = try await store.createUser(name: "ann").user.id, bob = try await store.createUser(name: "bob").user.id
                #expect(try await store.count(experiment: "m@2", arm: "treatment", user: ann, served: 0, accepted: 500) == 0)
                #expect(try await store.count(experiment: "m@2", arm: "treatment", user: ann, served: 2, accepted: 0) == 0)
                #expect(try await store.count(experiment: "m@2", arm: "treatment", user: ann, served: 0, accepted: 5) == 2)
                #expect(try await store.count(experiment: "m@2", arm: "treatment", user: ann, served: 0, accepted: 1) == 0)
                // Another person's suggestions are not ann's, and another experiment's not this one's.
                #expect(try await store.count(experiment: "m@2", arm: "control", user: bob, served: 1, accepted: 1) == 1)
                #expect(try await store.count(experiment: "m@3", arm: "treatment", user: ann, served: 0, accepted: 1) == 0)
                #expect(
                    try await store.counts(experiment: "m@2") == [
                        ExperimentCount(arm: "control", served: 1, accepted: 1), ExperimentCount(arm: "treatment", served: 2, accepted: 2),
                    ])
            }
        },
        StoreCheck(name: "labels are listed with their counts in the order taught, an oversized one read cut") { database in
            let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 2)])])
            // One grapheme of 800 KB, as an older version accepted: "e" and 400 000 combining accents.
            let huge = "e" + String(repeating: "\u{301}", count: 400_000)
            let labels = ["🌀", "saw", "🌀", huge, "saw", "🌀"]
            try await open(database) { store async throws in
                let user = try await store.createUser(name: nil).user.id
                #expect(try await store.shortcutLabels(user: user).isEmpty)
                let examples = labels.map { ShortcutExample(label: $0, sketch: sketch, embedding: [1, 2]) }
                _ = try await store.save(PersonalModel(version: 0, embedder: "m@1", examples: examples), user: user, expectedVersion: 0)
                let listed = try await store.shortcutLabels(user: user)
                // Cut at 1024 bytes, the last character cut in two becomes U+FFFD.
                let readable = (ShortcutLabel.maximumReadBytes - 3)...(ShortcutLabel.maximumReadBytes + 3)
                #expect(listed.map(\.label).prefix(2) == ["🌀", "saw"] && readable.contains(listed[2].label.utf8.count))
                #expect(listed.map(\.examples) == [3, 2, 1])
                #expect(listed[2].label.unicodeScalars.starts(with: "e\u{301}\u{301}".unicodeScalars))
                let model = try await store.model(user: user)
                #expect(model.examples.map(\.label).filter { $0.utf8.count > 4 }.allSatisfy { readable.contains($0.utf8.count) })
            }
        },
        StoreCheck(name: "corrections past a person's quota of count or bytes are refused and not written") { database in
            let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 1, t: 0), Point(x: 9, y: 9, t: 20)])])
            let bytes = "snail".utf8.count + StoredForms.json(sketch).utf8.count
            try await open(database) { store async throws in
                let ann = try await store.createUser(name: "ann").user.id, bob = try await store.createUser(name: "bob").user.id
                let byCount = CorrectionLimits(maximumCount: 2, maximumBytes: 1 << 20)
                try await store.addCorrection(user: ann, label: "snail", sketch: sketch, limits: byCount)
                try await store.addCorrection(user: ann, label: "snail", sketch: sketch, limits: byCount)
                let refused = await #expect(throws: PersonalError.self) {
                    try await store.addCorrection(user: ann, label: "snail", sketch: sketch, limits: byCount)
                }
                #expect(refused?.kind == .limit && refused?.quota == .corrections)
                let byBytes = CorrectionLimits(maximumCount: 100, maximumBytes: 2 * bytes + 1)
                try await store.addCorrection(user: bob, label: "snail", sketch: sketch, limits: byBytes)
                try await store.addCorrection(user: bob, label: "snail", sketch: sketch, limits: byBytes)
                let tooMany = await #expect(throws: PersonalError.self) {
                    try await store.addCorrection(user: bob, label: "snail", sketch: sketch, limits: byBytes)
                }
                #expect(tooMany?.kind == .limit && tooMany?.quota == .correctionBytes)
                await #expect(throws: PersonalError.self) {
                    try await store.addCorrection(user: 999_999, label: "snail", sketch: sketch, limits: byBytes)
                }
                #expect(try await store.corrections(user: nil).count == 4)
            }
            // Concurrent corrections of one person never pass the quota together.
            try await open(database) { store async throws in
                let cid = try await store.createUser(name: "cid").user.id
                let limits = CorrectionLimits(maximumCount: 5, maximumBytes: 1 << 20)
                let kept = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<16 {
                        group.addTask { (try? await store.addCorrection(user: cid, label: "snail", sketch: sketch, limits: limits)) != nil }
                    }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(kept == 5)
                #expect(try await store.corrections(user: "cid").count == 5)
            }
        },
        StoreCheck(name: "corrections are walked one at a time, and an error of the walker stops it") { database in
            struct Stop: Error {}
            let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 1)])])
            try await open(database) { store async throws in
                let ann = try await store.createUser(name: "ann").user.id
                for index in 0..<50 { try await store.addCorrection(user: ann, label: "l\(index)", sketch: sketch, limits: .unlimited) }
                let seen = Seen()
                await #expect(throws: Stop.self) {
                    try await store.forEachCorrection(user: nil) { correction in
                        guard seen.add(correction.label) < 10 else { throw Stop() }
                    }
                }
                #expect(seen.labels == (0..<10).map { "l\($0)" } + ["l10"])
            }
        },
    ]
}

@Suite struct SQLitePersonalStoreContractTests {
    @Test(arguments: StoreCheck.all) func sqlite(_ check: StoreCheck) async throws {
        let folder = TemporaryFolder()
        try await check.run(.sqlite(path: folder.path("personal.sqlite")))
    }
}

/// The same checks on a real PostgreSQL server, each in a database of its own (made and dropped here).
@Suite(
    .enabled(
        if: PostgresTestServer.url != nil,
        "SKETCHWISE_TEST_POSTGRES_URL is not set: the PostgreSQL store is not tested (make test starts a server with scripts/postgres.sh)"))
struct PostgresPersonalStoreContractTests {
    @Test(arguments: StoreCheck.all) func postgres(_ check: StoreCheck) async throws {
        try await PostgresTestServer.withFreshDatabase { try await check.run($0) }
    }

    @Test func anUnreachableServerIsAClearError() async throws {
        var location = try PostgresLocation(url: "postgres://sketchwise@127.0.0.1:1/sketchwise?sslmode=disable")
        location.connectTimeout = .seconds(5)
        // Refused at once; a server that does not answer at all fails after connectTimeout.
        let error = await #expect(throws: PersonalError.self) {
            try await PersonalDatabase.postgres(location).withStore(logger: StoreCheck.logger) { _ in }
        }
        #expect(
            error?.description.contains("cannot open PostgreSQL at postgres://sketchwise@127.0.0.1:1/sketchwise") == true,
            "\(String(describing: error))")
    }

    /// A statement stalled on a lock another session holds is answered unavailable within the
    /// store's timeout, not when the lock is let go (a task group would wait for its cancelled
    /// query: PostgresNIO cannot withdraw a statement it has sent).
    @Test func aStalledDatabaseIsUnavailableWithinTheTimeout() async throws {
        try await PostgresTestServer.withFreshDatabase { database in
            guard case let .postgres(location) = database else {
                Issue.record("not PostgreSQL: \(database)")
                return
            }
            try await database.withStore(logger: StoreCheck.logger) { store in
                let other = PostgresClient(configuration: location.configuration, backgroundLogger: StoreCheck.logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await other.run() }
                    defer { group.cancelAll() }
                    try await other.withConnection { session in
                        try await session.query("BEGIN", logger: StoreCheck.logger)
                        try await session.query("LOCK TABLE personal_user IN ACCESS EXCLUSIVE MODE", logger: StoreCheck.logger)
                        let started = ContinuousClock.now
                        let error = await #expect(throws: PersonalError.self) { _ = try await store.createUser(name: "ann") }
                        let waited = ContinuousClock.now - started
                        #expect(error?.kind == .unavailable, "\(String(describing: error))")
                        #expect(waited < PostgresPersonalStore.timeout + .seconds(3), "answered after \(waited)")
                        try await session.query("ROLLBACK", logger: StoreCheck.logger)
                    }
                }
            }
        }
    }

    @Test func aWrongPasswordIsAClearError() async throws {
        let url = try #require(PostgresTestServer.url)
        var components = try #require(URLComponents(string: url))
        components.password = "wrong"
        let error = await #expect(throws: PersonalError.self) {
            try await PersonalDatabase(parsing: try #require(components.string)).withStore(logger: StoreCheck.logger) { _ in }
        }
        #expect(error?.description.contains("password") == true, "\(String(describing: error))")
        #expect(error?.description.contains("wrong") == false, "the password is not repeated")
    }
}

/// Labels seen by a walk over the corrections, across the store's threads.
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []

    /// Adds a label; how many there were before it.
    func add(_ label: String) -> Int {
        lock.withLock {
            seen.append(label); return seen.count - 1
        }
    }
    var labels: [String] { lock.withLock { seen } }
}

/// The PostgreSQL server of `SKETCHWISE_TEST_POSTGRES_URL`.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["SKETCHWISE_TEST_POSTGRES_URL"]

    /// Runs `body` with a new empty database on the server, dropped afterwards.
    static func withFreshDatabase(_ body: (PersonalDatabase) async throws -> Void) async throws {
        let url = try #require(url)
        let name = "sketchwise_test_\(UInt64.random(in: 0...UInt64.max))"
        var components = try #require(URLComponents(string: url))
        components.path = "/\(name)"
        try await admin(url, "CREATE DATABASE \(name)")
        do {
            try await body(try PersonalDatabase(parsing: try #require(components.string)))
        } catch {
            try await admin(url, "DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
        try await admin(url, "DROP DATABASE \(name) WITH (FORCE)")
    }

    private static func admin(_ url: String, _ sql: String) async throws {
        let client = PostgresClient(configuration: try PostgresLocation(url: url).configuration, backgroundLogger: StoreCheck.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }
}
