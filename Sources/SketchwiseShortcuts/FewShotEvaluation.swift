/// N-way K-shot episodes over labelled embeddings, the measure of how well an embedding learns
/// new drawings from a few examples. Each episode draws `ways` labels that have at least
/// `shots + 1` items, takes `shots` of each as support and one more as the query, and classifies
/// every query by its nearest prototype: the mean of its label's unit-length support
/// embeddings (with one shot, the nearest neighbour).
public enum FewShotEvaluation {
    public struct Result: Sendable, Equatable, Encodable {
        /// Queries classified correctly, over all queries.
        public let accuracy: Double
        public let episodes: Int
        public let ways: Int
        public let shots: Int
        /// Labels with enough items to be drawn.
        public let eligibleLabels: Int
    }

    /// Runs the episodes, drawn reproducibly from `seed`.
    /// - Throws: ``ShortcutError`` when fewer than `ways` labels have `shots + 1` items, or the
    ///   embeddings differ in size.
    public static func run(
        items: [(label: String, embedding: [Float])], ways: Int, shots: Int, episodes: Int, seed: UInt64
    ) throws(ShortcutError) -> Result {
        guard ways >= 2, shots >= 1, episodes >= 1 else { throw ShortcutError("ways must be at least 2, shots and episodes at least 1") }
        let (byLabel, eligible, dimension) = try grouped(items, shots: shots)
        guard eligible.count >= ways else {
            throw ShortcutError("\(ways)-way \(shots)-shot needs \(ways) labels with \(shots + 1) items each; \(eligible.count) have")
        }
        var random = SplitMix64(seed: seed)
        var correct = 0
        for _ in 0..<episodes {
            let labels = Array(eligible.shuffled(using: &random).prefix(ways))
            var prototypes: [[Float]] = [], queries: [[Float]] = []
            for label in labels {
                let chosen = byLabel[label]!.shuffled(using: &random).prefix(shots + 1)
                prototypes.append(unit(mean(Array(chosen.prefix(shots)), dimension: dimension)))
                queries.append(chosen.last!)
            }
            for (truth, query) in queries.enumerated() {
                let scores = prototypes.map { dot($0, query) }
                if scores.indices.max(by: { scores[$0] < scores[$1] }) == truth { correct += 1 }
            }
        }
        return Result(
            accuracy: Double(correct) / Double(episodes * ways), episodes: episodes, ways: ways, shots: shots,
            eligibleLabels: eligible.count)
    }

    /// How the shortcut classifier answers in open-set episodes: the share of taught drawings
    /// answered with their own label, and of drawings of labels it was not taught answered unknown.
    public struct OpenSetResult: Sendable, Equatable, Encodable {
        public let ways: Int
        public let shots: Int
        public let episodes: Int
        /// Earlier drawings of the untaught labels per episode, each undone when a shortcut fired on it.
        public let misfireDrawings: Int
        /// Misfires undone per episode, on average.
        public let misfiresUndone: Double
        public let knownCorrect: Double
        public let unknownRejected: Double
    }

    /// Open-set episodes, the measure of when a shortcut answers: each teaches a classifier
    /// (`configuration`) `ways` labels with `shots` examples, then asks one more drawing of each
    /// and one drawing of each of `ways` other labels. With `misfireDrawings`, the person first
    /// draws that many other drawings of the untaught labels (in turn) and undoes every shortcut
    /// that fires on one: it becomes a misfire (``NearestNeighborClassifier/misfireLabel``), as
    /// in the app.
    public static func openSet(
        items: [(label: String, embedding: [Float])], ways: Int, shots: Int, episodes: Int, seed: UInt64,
        configuration: NearestNeighborClassifier.Configuration, misfireDrawings: Int = 0
    ) throws(ShortcutError) -> OpenSetResult {
        guard ways >= 2, shots >= 1, episodes >= 1, misfireDrawings >= 0 else {
            throw ShortcutError("ways must be at least 2, shots and episodes at least 1, misfire drawings not negative")
        }
        let (byLabel, eligible, dimension) = try grouped(items, shots: shots)  // so every label has 2+ drawings
        guard eligible.count >= 2 * ways else {
            throw ShortcutError(
                "open-set \(ways)-way \(shots)-shot needs \(2 * ways) labels with \(shots + 1) items each; \(eligible.count) have")
        }
        var random = SplitMix64(seed: seed)
        var knownCorrect = 0, unknownRejected = 0, undone = 0
        var taught = configuration
        taught.minimumExamples = shots
        for _ in 0..<episodes {
            let labels = Array(eligible.shuffled(using: &random).prefix(2 * ways))
            var classifier = NearestNeighborClassifier(dimension: dimension, configuration: taught)
            var knownQueries: [(label: String, embedding: [Float])] = []
            for label in labels.prefix(ways) {
                let chosen = Array(byLabel[label]!.shuffled(using: &random).prefix(shots + 1))
                try classifier.add(label: label, embeddings: Array(chosen.prefix(shots)))
                knownQueries.append((label, chosen[shots]))
            }
            let untaught = Array(labels.suffix(ways))
            let queryIndices = untaught.map { byLabel[$0]!.indices.randomElement(using: &random)! }
            for drawing in 0..<misfireDrawings {
                let (label, query) = (untaught[drawing % ways], queryIndices[drawing % ways])
                let others = byLabel[label]!.indices.filter { $0 != query }
                let earlier = byLabel[label]![others.randomElement(using: &random)!]
                guard try classifier.predict(earlier).label != nil else { continue }
                try classifier.add(label: NearestNeighborClassifier.misfireLabel, embeddings: [earlier])
                undone += 1
            }
            for (label, query) in knownQueries { knownCorrect += try classifier.predict(query).label == label ? 1 : 0 }
            for (label, query) in zip(untaught, queryIndices) {
                unknownRejected += try classifier.predict(byLabel[label]![query]).label == nil ? 1 : 0
            }
        }
        let asked = Double(episodes * ways)
        return OpenSetResult(
            ways: ways, shots: shots, episodes: episodes, misfireDrawings: misfireDrawings,
            misfiresUndone: Double(undone) / Double(episodes), knownCorrect: Double(knownCorrect) / asked,
            unknownRejected: Double(unknownRejected) / asked)
    }

    /// The unit-length embeddings of each label, the labels with more than `shots` of them
    /// (sorted, so that a seed always draws the same ones) and the embeddings' size.
    private static func grouped(
        _ items: [(label: String, embedding: [Float])], shots: Int
    ) throws(ShortcutError) -> (byLabel: [String: [[Float]]], eligible: [String], dimension: Int) {
        guard let dimension = items.first?.embedding.count, items.allSatisfy({ $0.embedding.count == dimension }) else {
            throw ShortcutError("no items, or embeddings of different sizes")
        }
        var byLabel: [String: [[Float]]] = [:]
        for item in items { byLabel[item.label, default: []].append(unit(item.embedding)) }
        return (byLabel, byLabel.filter { $0.value.count > shots }.keys.sorted(), dimension)
    }

    static func unit(_ v: [Float]) -> [Float] {
        let length = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return length > 1e-12 ? v.map { $0 / length } : v
    }

    static func mean(_ vectors: [[Float]], dimension: Int) -> [Float] {
        var sum = [Float](repeating: 0, count: dimension)
        for v in vectors { for index in 0..<dimension { sum[index] += v[index] } }
        return sum.map { $0 / Float(vectors.count) }
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var total: Float = 0
        for index in a.indices { total += a[index] * b[index] }
        return total
    }
}

/// A small, fast generator with a seed (SplitMix64), so that episodes can be drawn again.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
