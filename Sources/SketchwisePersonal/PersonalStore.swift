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
    /// Keeps a correction (when the user keeps them).
    func addCorrection(user: Int64, label: String, sketch: StrokeSketch) async throws
    /// Every kept correction, of one user (by name) or of all, oldest first.
    func corrections(user: String?) async throws -> [Correction]
    /// Adds to an A/B experiment's counts for one arm: suggestions answered and accepted.
    func count(experiment: String, arm: String, served: Int, accepted: Int) async throws
    /// The counts of every arm of `experiment`.
    func counts(experiment: String) async throws -> [ExperimentCount]
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
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
