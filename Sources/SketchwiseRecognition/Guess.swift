import Foundation

/// One guess of what a sketch shows.
public struct Guess: Hashable, Sendable, Codable {
    public var label: String
    /// 0…1; the guesses of one sketch over all classes sum to 1.
    public var probability: Double

    public init(label: String, probability: Double) {
        self.label = label
        self.probability = probability
    }
}

/// Why a sketch could not be recognised.
public struct RecognitionError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Log-probabilities over a model's labels, in label order.
public struct LogProbabilities: Sendable, Equatable {
    public var labels: [String]
    public var values: [Float]

    /// From raw logits: `log softmax`, computed stably.
    public init(labels: [String], logits: UnsafeBufferPointer<Float>) {
        let maximum = logits.max() ?? 0
        var sum: Float = 0
        for v in logits { sum += (v - maximum).exp() }
        let logSum = maximum + sum.log()
        self.labels = labels
        self.values = logits.map { $0 - logSum }
    }

    public init(labels: [String], values: [Float]) {
        self.labels = labels
        self.values = values
    }

    /// The weighted mean of several answers over the same labels (a weighted geometric mean of
    /// the probabilities), renormalised so the probabilities sum to 1 again. Equal weights when
    /// `weights` is nil.
    public static func mean(_ answers: [LogProbabilities], weights: [Float]? = nil) -> LogProbabilities {
        precondition(!answers.isEmpty && (weights == nil || weights!.count == answers.count))
        let weights = weights ?? [Float](repeating: 1 / Float(answers.count), count: answers.count)
        var sum = [Float](repeating: 0, count: answers[0].values.count)
        for (answer, weight) in zip(answers, weights) {
            for i in sum.indices { sum[i] += weight * answer.values[i] }
        }
        return sum.withUnsafeBufferPointer { LogProbabilities(labels: answers[0].labels, logits: $0) }
    }

    /// The `count` most probable labels, most probable first.
    public func top(_ count: Int) -> [Guess] {
        // A running top-k (k is small) instead of sorting every label: ties keep label order.
        guard count > 0 else { return [] }
        var best: [Int] = []
        best.reserveCapacity(count + 1)
        for index in values.indices where best.count < count || values[index] > values[best[best.count - 1]] {
            var position = best.count
            while position > 0, values[index] > values[best[position - 1]] { position -= 1 }
            best.insert(index, at: position)
            if best.count > count { best.removeLast() }
        }
        return best.map { Guess(label: labels[$0], probability: Double(values[$0].exp())) }
    }
}

extension Float {
    func exp() -> Float { Float(Foundation.exp(Double(self))) }
    func log() -> Float { Float(Foundation.log(Double(self))) }
}
