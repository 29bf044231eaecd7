import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwiseRecognition
import SketchwiseShortcuts
import SketchwiseWork

/// How much one person may teach.
public struct ShortcutLimits: Sendable, Equatable {
    public var maximumLabels: Int
    public var maximumExamplesPerLabel: Int
    /// Characters in a label (an emoji, a picture's id or a word).
    public var maximumLabelLength: Int

    public init(maximumLabels: Int = 50, maximumExamplesPerLabel: Int = 10, maximumLabelLength: Int = 200) {
        self.maximumLabels = maximumLabels
        self.maximumExamplesPerLabel = maximumExamplesPerLabel
        self.maximumLabelLength = maximumLabelLength
    }
}

/// People's shortcuts: each person's k-NN classifier over the shortcut embedding, built from the
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
    private var classifiers: [Int64: (version: Int64, classifier: NearestNeighborClassifier)] = [:]

    public init(store: any PersonalStore, embedder: ModelRecognizer, work: WorkQueue? = nil, limits: ShortcutLimits = ShortcutLimits(),
                configuration: NearestNeighborClassifier.Configuration = NearestNeighborClassifier.Configuration()) {
        self.store = store
        self.embedder = embedder
        self.work = work
        self.limits = limits
        self.configuration = configuration
    }

    /// `name@version` of the embedding model: stored embeddings made by another are redone.
    public var embedderIdentity: String { "\(embedder.name)@\(embedder.model.spec.version)" }

    /// The person's labels and how many examples each has.
    public func labels(user: Int64) async throws -> [(label: String, examples: Int)] {
        let model = try await store.model(user: user)
        return model.labels.map { label in (label, model.examples.count { $0.label == label }) }
    }

    /// The person's shortcut for a sketch, or unknown (`label` nil), with the distance.
    /// - Parameter deadline: when the work queue gives up on the embedding (nil: never).
    public func predict(user: Int64, sketch: StrokeSketch, deadline: ContinuousClock.Instant? = nil) async throws -> NearestNeighborClassifier.Prediction {
        let classifier = try await classifier(user: user, deadline: deadline)
        guard !classifier.examples.isEmpty, !sketch.isEmpty else { return .init(label: nil, distance: 2) }
        return try await compute(deadline) { try classifier.predict(try self.embedder.embedding(sketch)) }
    }

    /// Runs an update task to the end, reporting its events: reads the stored model, embeds on
    /// ``work``, writes the new model over the version it read.
    /// - Returns: the new version of the person's shortcuts.
    /// - Throws: ``PersonalError`` (also reported as `failed` or `cancelled`).
    @discardableResult
    public func apply(_ task: ShortcutUpdateTask, deadline: ContinuousClock.Instant? = nil,
                      events: @escaping @Sendable (ShortcutUpdateTask.Event) -> Void = { _ in }) async throws -> Int64 {
        do {
            let stored = try await store.model(user: task.user)
            let (model, classifier) = try await compute(deadline) { try self.update(stored, by: task, events: events) }
            let version = try await store.save(model, user: task.user, expectedVersion: stored.version)
            lock.withLock { classifiers[task.user] = (version, classifier) }
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
    private func update(_ stored: PersonalModel, by task: ShortcutUpdateTask,
                        events: (ShortcutUpdateTask.Event) -> Void) throws -> (PersonalModel, NearestNeighborClassifier) {
        var examples = try current(stored)
        switch task.change {
        case let .teach(label, sketches):
            try check(label: label, sketches: sketches, otherLabels: Set(examples.map(\.label)).subtracting([label]).count)
            events(.began(examples: sketches.count))
            var taught: [ShortcutExample] = []
            for (index, sketch) in sketches.enumerated() {
                guard !task.isCancelled else { throw PersonalError(.cancelled, "the update was cancelled") }
                taught.append(ShortcutExample(label: label, sketch: sketch, embedding: try embedder.embedding(sketch)))
                events(.exampleEmbedded(index + 1, of: sketches.count))
            }
            examples.removeAll { $0.label == label }
            examples += taught
        case let .remove(label):
            events(.began(examples: 0))
            guard examples.contains(where: { $0.label == label }) else { throw PersonalError(.notFound, "no shortcut \(label)") }
            examples.removeAll { $0.label == label }
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

    /// The stored examples, embedded again when another model made them.
    private func current(_ model: PersonalModel) throws -> [ShortcutExample] {
        guard model.embedder != embedderIdentity, !model.examples.isEmpty else { return model.examples }
        return try model.examples.map { ShortcutExample(label: $0.label, sketch: $0.sketch, embedding: try embedder.embedding($0.sketch)) }
    }

    private func check(label: String, sketches: [StrokeSketch], otherLabels: Int) throws {
        guard !label.allSatisfy(\.isWhitespace) else { throw PersonalError(.invalid, "a shortcut needs a label") }
        guard label.count <= limits.maximumLabelLength else {
            throw PersonalError(.invalid, "a label has at most \(limits.maximumLabelLength) characters")
        }
        guard sketches.count >= configuration.minimumExamples else {
            throw PersonalError(.invalid, "a shortcut needs at least \(configuration.minimumExamples) examples; \"\(label)\" has \(sketches.count)")
        }
        guard sketches.count <= limits.maximumExamplesPerLabel else {
            throw PersonalError(.limit, "a shortcut takes at most \(limits.maximumExamplesPerLabel) examples")
        }
        if let empty = sketches.firstIndex(where: \.isEmpty) {
            throw PersonalError(.invalid, "example \(empty + 1) of \"\(label)\" has no points")
        }
        guard otherLabels < limits.maximumLabels else {
            throw PersonalError(.limit, "at most \(limits.maximumLabels) shortcuts per person; remove one first")
        }
    }

    /// The person's classifier, rebuilt when the store holds a newer version.
    private func classifier(user: Int64, deadline: ContinuousClock.Instant?) async throws -> NearestNeighborClassifier {
        let version = try await store.modelVersion(user: user)
        if let cached = lock.withLock({ classifiers[user] }), cached.version == version { return cached.classifier }
        let model = try await store.model(user: user)
        let classifier = try await compute(deadline) { try self.makeClassifier(try self.current(model)) }
        lock.withLock { classifiers[user] = (model.version, classifier) }
        return classifier
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
