import Foundation
import SketchwiseCore

/// A person known to the server or the command line.
public struct PersonalUser: Sendable, Equatable {
    public let id: Int64
    /// A name given on the command line, or `user-<id>` for users made through the API.
    public let name: String
    /// Whether the sketches behind picked suggestions are kept as corrections.
    public var keepsCorrections: Bool

    public init(id: Int64, name: String, keepsCorrections: Bool) {
        self.id = id
        self.name = name
        self.keepsCorrections = keepsCorrections
    }
}

/// One taught example of a shortcut: the drawing and its embedding by the named model.
public struct ShortcutExample: Sendable, Equatable {
    public let label: String
    public let sketch: StrokeSketch
    public let embedding: [Float]

    public init(label: String, sketch: StrokeSketch, embedding: [Float]) {
        self.label = label
        self.sketch = sketch
        self.embedding = embedding
    }
}

/// A person's shortcuts as stored: every example, the model that embedded them and the
/// version, which grows by one with every committed change.
public struct PersonalModel: Sendable, Equatable {
    public let version: Int64
    /// The embedding model (`name@version`) of the stored embeddings.
    public let embedder: String
    public let examples: [ShortcutExample]

    public init(version: Int64, embedder: String, examples: [ShortcutExample]) {
        self.version = version
        self.embedder = embedder
        self.examples = examples
    }

    /// The labels, in the order they were taught.
    public var labels: [String] { examples.labels }
}

extension [ShortcutExample] {
    /// The examples' labels, each once, in the order they first appear.
    public var labels: [String] {
        var seen = Set<String>()
        return map(\.label).filter { seen.insert($0).inserted }
    }
}

/// A sketch and the label the person chose for it (a picked suggestion, or a guess that was
/// not the first).
public struct Correction: Sendable, Equatable {
    public let user: String
    public let label: String
    public let sketch: StrokeSketch
    /// Seconds since 1970.
    public let created: Double

    public init(user: String, label: String, sketch: StrokeSketch, created: Double) {
        self.user = user
        self.label = label
        self.sketch = sketch
        self.created = created
    }
}

/// Where users, their tokens, shortcuts, corrections and A/B counts live: ``SQLitePersonalStore``
/// (one file, one server) or `PostgresPersonalStore` (one database shared by several replicas).
/// Every change is one transaction: a crash leaves the state before it or after it, never a mix.
/// The methods are `async` because a networked backend waits on I/O: callers await them on
/// Swift's concurrency pool instead of holding a thread of the work queue.
public protocol PersonalStore: Sendable {
    /// A new user with a fresh random bearer token; `name` nil gives `user-<id>`.
    func createUser(name: String?) async throws -> (user: PersonalUser, token: String)
    /// The user a bearer token belongs to, if any.
    func user(token: String) async throws -> PersonalUser?
    /// The user of that name, if any.
    func user(named name: String) async throws -> PersonalUser?
    /// Turns keeping corrections on or off.
    func setKeepsCorrections(_ keeps: Bool, user: Int64) async throws
    /// The version of the user's shortcuts (a cheap check before ``model(user:)``).
    func modelVersion(user: Int64) async throws -> Int64
    /// The user's shortcuts (version 0 and no examples for a user who taught none).
    func model(user: Int64) async throws -> PersonalModel
    /// Replaces the examples of `label` (all of them with the same label) and, when the
    /// embedder changed, re-stores every example: `model` is the whole new personal model,
    /// written only if the stored version is still `expectedVersion`.
    /// - Returns: the new version.
    func save(_ model: PersonalModel, user: Int64, expectedVersion: Int64) async throws -> Int64
    /// The user's labels, each once in the order first taught, with their numbers of examples,
    /// without reading the drawings (`GET /api/shortcuts`). A label is read back cut to
    /// ``ShortcutLabel/maximumReadBytes`` bytes, as stored: repairing it is the caller's.
    func shortcutLabels(user: Int64) async throws -> [(label: String, examples: Int)]
    /// Keeps a correction (when the user keeps them), unless the user's kept corrections would
    /// pass `limits`: then ``PersonalError`` `.limit` (with its ``PersonalError/quota``) and
    /// nothing is written. The check and the write are one transaction.
    func addCorrection(user: Int64, label: String, sketch: StrokeSketch, limits: CorrectionLimits) async throws
    /// Calls `body` with every kept correction, of one user (by name) or of all, oldest first,
    /// one row at a time (a cursor: the corrections are never all in memory). An error thrown by
    /// `body` stops the walk and is rethrown.
    func forEachCorrection(user: String?, _ body: @escaping @Sendable (Correction) throws -> Void) async throws
    /// Adds to an A/B experiment's counts for one arm: suggestions answered to `user` and
    /// accepted by them. Acceptances count only up to the suggestions answered to that user
    /// (accepted ≤ served, per user), so that posting corrections cannot inflate an arm.
    /// - Returns: the acceptances counted (at most `accepted`).
    @discardableResult
    func count(experiment: String, arm: String, user: Int64, served: Int, accepted: Int) async throws -> Int
    /// The counts of every arm of `experiment`.
    func counts(experiment: String) async throws -> [ExperimentCount]
}

extension PersonalStore {
    /// Every kept correction, of one user (by name) or of all, oldest first, in memory (tests
    /// and small exports; `corrections export` walks them with ``forEachCorrection(user:_:)``).
    public func corrections(user: String?) async throws -> [Correction] {
        let collected = CorrectionList()
        try await forEachCorrection(user: user) { collected.append($0) }
        return collected.all
    }
}

/// Corrections collected across the store's threads.
private final class CorrectionList: @unchecked Sendable {
    private let lock = NSLock()
    private var corrections: [Correction] = []
    func append(_ correction: Correction) { lock.withLock { corrections.append(correction) } }
    var all: [Correction] { lock.withLock { corrections } }
}

/// The counts of one arm of an A/B experiment.
public struct ExperimentCount: Sendable, Equatable, Encodable {
    public let arm: String
    /// Suggestions answered to people in this arm.
    public let served: Int
    /// Suggestions they picked.
    public let accepted: Int

    public init(arm: String, served: Int, accepted: Int) {
        self.arm = arm
        self.served = served
        self.accepted = accepted
    }
}

/// Why a personal change was refused.
public struct PersonalError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bad input: an empty label, too few or too many examples, an empty drawing.
        case invalid
        /// A limit on labels or examples was reached.
        case limit
        /// No such label or user.
        case notFound
        /// Another change was committed first.
        case conflict
        /// The change was cancelled before it was written.
        case cancelled
        /// The store cannot be reached now (a database that is down or does not answer in time);
        /// the same request may succeed later.
        case unavailable
    }

    /// Which per-person quota a `.limit` error is about (for the server's metrics).
    public enum Quota: String, Sendable, Equatable {
        case shortcuts, examples, corrections
        case exampleBytes = "example_bytes"
        case correctionBytes = "correction_bytes"
    }

    public let kind: Kind
    public let description: String
    /// The quota a `.limit` error is about, when it is one.
    public var quota: Quota?

    public init(_ kind: Kind, _ description: String, quota: Quota? = nil) {
        self.kind = kind
        self.description = description
        self.quota = quota
    }
}
