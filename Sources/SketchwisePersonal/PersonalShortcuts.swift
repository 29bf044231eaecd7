import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwiseRecognition
import SketchwiseShortcuts
import SketchwiseWork

/// People's shortcuts: each person's classifier over the shortcut embedding, built from the
/// store and kept in memory until the stored version changes. Thread-safe. The store is awaited
/// on the calling task; embedding and building classifiers run on ``work`` when there is one.
public final class PersonalShortcuts: @unchecked Sendable {
    public let store: any PersonalStore
    public let embedder: ModelRecognizer
    /// Where the CPU-heavy steps run (the server's bounded pool); nil runs them on the calling task.
    public let work: WorkQueue?
    public let limits: ShortcutLimits
    public let configuration: NearestNeighborClassifier.Configuration
    private let lock = NSLock()
    /// Classifiers by user, with when each was last used: at most ``maximumCachedClassifiers``,
    /// the least recently used dropped first, so that many people cost bounded memory.
    private var classifiers: [Int64: (version: Int64, classifier: NearestNeighborClassifier, used: UInt64)] = [:]
    private var uses: UInt64 = 0
    /// The most people whose classifiers are kept in memory (each at most
    /// ``ShortcutLimits/maximumExamples`` embeddings).
    public static let maximumCachedClassifiers = 1000

    /// - Parameter configuration: how the classifier answers; by default, unknown as the
    ///   embedder's calibration says (when its model carries one).
    /// - Throws: ``ShortcutError`` when the model's calibration does not fit its embedding.
    public init(
        store: any PersonalStore, embedder: ModelRecognizer, work: WorkQueue? = nil, limits: ShortcutLimits = ShortcutLimits(),
        configuration: NearestNeighborClassifier.Configuration? = nil
    ) throws {
        self.store = store
        self.embedder = embedder
        self.work = work
        self.limits = limits
        self.configuration = try configuration ?? NearestNeighborClassifier.Configuration().calibrated(for: embedder.model)
    }

    /// The label misfires are stored under.
    static let misfire = NearestNeighborClassifier.misfireLabel

    /// `name@version` of the embedding model: stored embeddings made by another are redone.
    public var embedderIdentity: String { "\(embedder.name)@\(embedder.model.spec.version)" }

    /// The person's labels and how many examples each has, without reading the drawings (the
    /// misfires are no shortcut). A label an older version stored against today's rules is shown
    /// repaired (``ShortcutLabel/repaired(_:maximumBytes:)``), the name it is used and removed by.
    public func labels(user: Int64) async throws -> [(label: String, examples: Int)] {
        var merged: [(label: String, examples: Int)] = []
        for (stored, examples) in try await store.shortcutLabels(user: user) where stored != Self.misfire {
            let label = ShortcutLabel.repaired(stored, maximumBytes: limits.maximumLabelBytes)
            if let index = merged.firstIndex(where: { $0.label == label }) {
                merged[index].examples += examples
            } else {
                merged.append((label, examples))
            }
        }
        return merged
    }

    /// The person's shortcut for a sketch, or unknown (`label` nil), with the distance.
    /// - Parameter deadline: when the work queue gives up on the embedding (nil: never).
    public func predict(user: Int64, sketch: StrokeSketch, deadline: ContinuousClock.Instant? = nil) async throws
        -> NearestNeighborClassifier.Prediction
    {
        let classifier = try await classifier(user: user, deadline: deadline)
        guard !classifier.examples.isEmpty, !sketch.isEmpty else { return .init(label: nil, distance: 2) }
        return try await compute(deadline) { try classifier.predict(try self.embedder.embedding(sketch)) }
    }

    /// Runs an update task to the end, reporting its events: reads the stored model, embeds on
    /// ``work``, writes the new model over the version it read.
    /// - Returns: the new version of the person's shortcuts.
    /// - Throws: ``PersonalError`` (also reported as `failed` or `cancelled`).
    @discardableResult
    public func apply(
        _ task: ShortcutUpdateTask, deadline: ContinuousClock.Instant? = nil,
        events: @escaping @Sendable (ShortcutUpdateTask.Event) -> Void = { _ in }
    ) async throws -> Int64 {
        do {
            let stored = try await store.model(user: task.user)
            let (model, classifier) = try await compute(deadline) { try self.update(stored, by: task, events: events) }
            let version = try await store.save(model, user: task.user, expectedVersion: stored.version)
            remember(classifier, version: version, user: task.user)
            events(.completed(version: version))
            return version
        } catch let error as PersonalError where error.kind == .cancelled {
            events(.cancelled)
            throw error
        } catch {
            events(.failed("\(error)"))
            throw error
        }
    }

    /// The new model and its classifier: `stored` changed by `task` (the CPU-heavy part of an update).
    private func update(
        _ stored: PersonalModel, by task: ShortcutUpdateTask,
        events: (ShortcutUpdateTask.Event) -> Void
    ) throws -> (PersonalModel, NearestNeighborClassifier) {
        var examples = try current(stored)
        switch task.change {
        case let .teach(typed, sketches):
            let label = try ShortcutLabel.validated(typed, limits: limits)
            try check(label: label, sketches: sketches, otherLabels: Set(examples.map(\.label)).subtracting([label, Self.misfire]).count)
            examples.removeAll { $0.label == label }
            try checkQuota(examples, adding: sketches, label: label)
            events(.began(examples: sketches.count))
            var taught: [ShortcutExample] = []
            for (index, sketch) in sketches.enumerated() {
                guard !task.isCancelled else { throw PersonalError(.cancelled, "the update was cancelled") }
                taught.append(ShortcutExample(label: label, sketch: sketch, embedding: try embedder.embedding(sketch)))
                events(.exampleEmbedded(index + 1, of: sketches.count))
            }
            examples += taught
        case let .remove(typed):
            let label = typed.precomposedStringWithCanonicalMapping
            events(.began(examples: 0))
            try checkIsShortcut(label, in: examples)
            examples.removeAll { $0.label == label }
        case let .misfire(typed, drawing):
            let label = typed.precomposedStringWithCanonicalMapping
            events(.began(examples: 1))
            try checkIsShortcut(label, in: examples)
            guard !drawing.isEmpty else { throw PersonalError(.invalid, "the drawing has no points") }
            let kept = examples.indices.filter { examples[$0].label == Self.misfire }
            let forgotten = Set(kept.prefix(max(0, kept.count - limits.maximumMisfires + 1)))
            examples = examples.indices.filter { !forgotten.contains($0) }.map { examples[$0] }
            try checkQuota(examples, adding: [drawing], label: Self.misfire)
            examples.append(ShortcutExample(label: Self.misfire, sketch: drawing, embedding: try embedder.embedding(drawing)))
            events(.exampleEmbedded(1, of: 1))
        }
        guard !task.isCancelled else { throw PersonalError(.cancelled, "the update was cancelled") }
        let classifier = try makeClassifier(examples)
        return (PersonalModel(version: stored.version, embedder: embedderIdentity, examples: examples), classifier)
    }

    /// Runs a CPU-heavy step on ``work``, or on the calling task when there is none.
    private func compute<T: Sendable>(_ deadline: ContinuousClock.Instant?, _ step: @escaping @Sendable () throws -> T) async throws -> T {
        guard let work else { return try step() }
        return try await work.run(deadline: deadline, step)
    }

    /// The stored examples, their labels repaired (``ShortcutLabel/repaired(_:maximumBytes:)``)
    /// and embedded again when another model made them.
    private func current(_ model: PersonalModel) throws -> [ShortcutExample] {
        let reembeds = model.embedder != embedderIdentity
        return try model.examples.map { example in
            let label = ShortcutLabel.repaired(example.label, maximumBytes: limits.maximumLabelBytes)
            guard reembeds || label != example.label else { return example }
            return ShortcutExample(
                label: label, sketch: example.sketch, embedding: reembeds ? try embedder.embedding(example.sketch) : example.embedding)
        }
    }

    /// Refuses `sketches` of `label` added to `examples` past the person's quotas of examples
    /// and bytes (checked before anything is embedded).
    private func checkQuota(_ examples: [ShortcutExample], adding sketches: [StrokeSketch], label: String) throws {
        guard examples.count + sketches.count <= limits.maximumExamples else {
            throw PersonalError(.limit, "at most \(limits.maximumExamples) examples per person; remove a shortcut first", quota: .examples)
        }
        let bytes =
            examples.reduce(0) { $0 + $1.label.utf8.count + StoredForms.json($1.sketch).utf8.count }
            + sketches.reduce(0) { $0 + label.utf8.count + StoredForms.json($1).utf8.count }
        guard bytes <= limits.maximumExampleBytes else {
            throw PersonalError(
                .limit,
                "at most \(limits.maximumExampleBytes) bytes of examples per person (these would take \(bytes)); remove a shortcut or draw simpler examples",
                quota: .exampleBytes)
        }
    }

    /// Refuses a label that is none of the person's shortcuts (the misfires' label included).
    private func checkIsShortcut(_ label: String, in examples: [ShortcutExample]) throws {
        guard label != Self.misfire, examples.contains(where: { $0.label == label }) else {
            throw PersonalError(.notFound, "no shortcut \(label)")
        }
    }

    private func check(label: String, sketches: [StrokeSketch], otherLabels: Int) throws {
        try checkExampleCount(sketches.count, label: label)
        if let empty = sketches.firstIndex(where: \.isEmpty) {
            throw PersonalError(.invalid, "example \(empty + 1) of \"\(label)\" has no points")
        }
        guard otherLabels < limits.maximumLabels else {
            throw PersonalError(.limit, "at most \(limits.maximumLabels) shortcuts per person; remove one first", quota: .shortcuts)
        }
    }

    /// Refuses a number of examples no shortcut takes (`.invalid`): a caller may ask before any
    /// work is queued, as an update does again.
    public func checkExampleCount(_ count: Int, label: String) throws {
        guard count >= configuration.minimumExamples else {
            throw PersonalError(.invalid, "a shortcut needs at least \(configuration.minimumExamples) examples; \"\(label)\" has \(count)")
        }
        guard count <= limits.maximumExamplesPerLabel else {
            throw PersonalError(.invalid, "a shortcut takes at most \(limits.maximumExamplesPerLabel) examples; \"\(label)\" has \(count)")
        }
    }

    /// The person's classifier, rebuilt when the store holds a newer version.
    private func classifier(user: Int64, deadline: ContinuousClock.Instant?) async throws -> NearestNeighborClassifier {
        let version = try await store.modelVersion(user: user)
        let cached: NearestNeighborClassifier? = lock.withLock {
            guard let cached = classifiers[user], cached.version == version else { return nil }
            uses += 1
            classifiers[user]?.used = uses
            return cached.classifier
        }
        if let cached { return cached }
        let model = try await store.model(user: user)
        let classifier = try await compute(deadline) { try self.makeClassifier(try self.current(model)) }
        remember(classifier, version: model.version, user: user)
        return classifier
    }

    /// Keeps a user's classifier, dropping the least recently used one past the bound.
    private func remember(_ classifier: NearestNeighborClassifier, version: Int64, user: Int64) {
        lock.withLock {
            uses += 1
            classifiers[user] = (version, classifier, uses)
            if classifiers.count > Self.maximumCachedClassifiers, let oldest = classifiers.min(by: { $0.value.used < $1.value.used })?.key {
                classifiers[oldest] = nil
            }
        }
    }

    /// A classifier holding `examples`, label by label in the order they were taught.
    private func makeClassifier(_ examples: [ShortcutExample]) throws -> NearestNeighborClassifier {
        var classifier = NearestNeighborClassifier(dimension: embedder.model.embeddingCount ?? 0, configuration: configuration)
        for label in examples.labels {
            try classifier.add(label: label, embeddings: examples.filter { $0.label == label }.map(\.embedding))
        }
        return classifier
    }
}
