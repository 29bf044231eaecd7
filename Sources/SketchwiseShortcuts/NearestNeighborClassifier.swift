/// An updatable k-nearest-neighbour classifier over L2-normalised embeddings, after Core ML's
/// updatable k-NN: examples are added and removed one label at a time, and a query whose nearest
/// example is farther than ``Configuration/unknownDistance`` is *unknown* rather than the least
/// bad label (farther than ``Configuration/unknownDistances`` for the nearest example's number of
/// examples, when an embedding's calibration gives them). Distances are cosine distances, 1 − cos,
/// from 0 (same direction) to 2.
public struct NearestNeighborClassifier: Sendable, Equatable {
    /// How neighbours vote.
    public enum Weighting: String, Sendable, CaseIterable {
        /// Every one of the k nearest counts once.
        case uniform
        /// Each counts 1 / (distance + 0.01): near examples outvote far ones.
        case inverseDistance
    }

    public struct Configuration: Sendable, Equatable {
        /// Neighbours that vote.
        public var k: Int
        public var weighting: Weighting
        /// A query farther than this from every example is unknown. The default, 0.25, is the
        /// loosest threshold that accepts under 10 % of drawings of untaught labels in open-set
        /// 5-way 3-shot episodes with `sketch-embedding`, on classes it never saw: Omniglot
        /// (6.8 % accepted, 95.3 % of taught drawings answered rightly) and Quick, Draw! (8.7 %,
        /// 45.1 %); `sketchwise fewshot --unseen --open-set`, docs/shortcuts.md.
        public var unknownDistance: Float
        /// Examples a new label needs.
        public var minimumExamples: Int
        /// When not empty, the threshold for a nearest example whose label has 1, 2, … examples
        /// (more use the last) in place of `unknownDistance`: a label taught from more examples
        /// has more of them near any drawing, so it needs a closer one.
        public var unknownDistances: [Float]

        public init(
            k: Int = 3, weighting: Weighting = .inverseDistance, unknownDistance: Float = 0.25, minimumExamples: Int = 3,
            unknownDistances: [Float] = []
        ) {
            self.k = k
            self.weighting = weighting
            self.unknownDistance = unknownDistance
            self.minimumExamples = minimumExamples
            self.unknownDistances = unknownDistances
        }

        /// The unknown threshold for a nearest example whose label has `examples` examples.
        public func unknownDistance(examples: Int) -> Float {
            unknownDistances.isEmpty ? unknownDistance : unknownDistances[min(max(examples, 1), unknownDistances.count) - 1]
        }
    }

    /// One stored example: a label and its unit-length embedding.
    public struct Example: Sendable, Equatable {
        public let label: String
        public let embedding: [Float]
    }

    /// The answer to a query: a label, or nil for unknown, and the distance to the nearest
    /// example (of the label, when there is one).
    public struct Prediction: Sendable, Equatable, Encodable {
        public let label: String?
        public let distance: Float

        public init(label: String?, distance: Float) {
            self.label = label
            self.distance = distance
        }

        enum CodingKeys: CodingKey { case label, distance }

        /// `{"label": … or null, "distance": …}`: an unknown drawing keeps its `label` key.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try container.encode(distance, forKey: .distance)
        }
    }

    /// The label of misfires: drawings a shortcut fired on and the person undid at once. They are
    /// examples like any other, so a query whose nearest example or vote is a misfire is
    /// unknown: the shortcuts learn where they are not wanted. A misfire needs no minimum number
    /// of examples; no label a person types is this one (a noncharacter starts it).
    public static let misfireLabel = "\u{FFFF}misfire"

    public let dimension: Int
    public var configuration: Configuration
    public private(set) var examples: [Example] = []

    public init(dimension: Int, configuration: Configuration = Configuration()) {
        self.dimension = dimension
        self.configuration = configuration
    }

    /// The labels, in the order they were first added.
    public var labels: [String] {
        var seen = Set<String>()
        return examples.map(\.label).filter { seen.insert($0).inserted }
    }

    /// Adds examples of `label`. A label not yet known needs ``Configuration/minimumExamples``
    /// of them at once; a known one, and ``misfireLabel``, take any number.
    /// - Throws: ``ShortcutError`` for an empty label, too few examples, or an embedding of the
    ///   wrong size, with a non-finite value or of zero length. Nothing is added then.
    public mutating func add(label: String, embeddings: [[Float]]) throws(ShortcutError) {
        guard !label.allSatisfy(\.isWhitespace) else { throw ShortcutError("a label must not be empty") }
        let known = examples.contains { $0.label == label }
        guard known || label == Self.misfireLabel || embeddings.count >= configuration.minimumExamples else {
            throw ShortcutError(
                "a new label needs at least \(configuration.minimumExamples) examples; \"\(label)\" has \(embeddings.count)")
        }
        let normalized = try embeddings.enumerated().map { (index, embedding) throws(ShortcutError) in
            try normalize(embedding, what: "example \(index + 1) of \"\(label)\"")
        }
        examples += normalized.map { Example(label: label, embedding: $0) }
    }

    /// Removes every example of `label`; returns how many there were.
    @discardableResult
    public mutating func remove(label: String) -> Int {
        let before = examples.count
        examples.removeAll { $0.label == label }
        return before - examples.count
    }

    /// The label of `embedding`, or unknown: nothing near enough, or a misfire nearest or winning
    /// the vote (``misfireLabel``).
    /// - Throws: ``ShortcutError`` for an embedding of the wrong size, non-finite or zero.
    public func predict(_ embedding: [Float]) throws(ShortcutError) -> Prediction {
        let query = try normalize(embedding, what: "the query")
        guard !examples.isEmpty else { return Prediction(label: nil, distance: 2) }
        let nearest = examples.map { (label: $0.label, distance: Self.distance(query, $0.embedding)) }
            .sorted { $0.distance < $1.distance }
            .prefix(max(1, configuration.k))
        guard let closest = nearest.first, closest.label != Self.misfireLabel,
            closest.distance <= configuration.unknownDistance(examples: examples.count { $0.label == closest.label })
        else {
            return Prediction(label: nil, distance: nearest.first?.distance ?? 2)
        }
        var votes: [String: Float] = [:]
        for neighbor in nearest {
            votes[neighbor.label, default: 0] += configuration.weighting == .uniform ? 1 : 1 / (neighbor.distance + 0.01)
        }
        // Ties go to the label with the nearer example.
        let winner = votes.max { a, b in
            a.value != b.value ? a.value < b.value : distance(of: a.key, in: nearest) > distance(of: b.key, in: nearest)
        }!.key
        guard winner != Self.misfireLabel else { return Prediction(label: nil, distance: closest.distance) }
        return Prediction(label: winner, distance: distance(of: winner, in: nearest))
    }

    private func distance(of label: String, in neighbors: ArraySlice<(label: String, distance: Float)>) -> Float {
        neighbors.first { $0.label == label }?.distance ?? 2
    }

    /// Cosine distance of two unit vectors.
    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        var dot: Float = 0
        for index in a.indices { dot += a[index] * b[index] }
        return max(0, 1 - dot)
    }

    private func normalize(_ embedding: [Float], what: String) throws(ShortcutError) -> [Float] {
        guard embedding.count == dimension else {
            throw ShortcutError("\(what) has \(embedding.count) values; the embedding has \(dimension)")
        }
        guard embedding.allSatisfy(\.isFinite) else { throw ShortcutError("\(what) holds a value that is not finite") }
        let length = embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard length > 1e-12 else { throw ShortcutError("\(what) is all zeros") }
        return embedding.map { $0 / length }
    }
}

/// Why a shortcut could not be learned or asked.
public struct ShortcutError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
