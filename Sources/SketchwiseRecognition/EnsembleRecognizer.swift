import Foundation
import SketchwiseCore
import SketchwisePreprocess

/// Several models voting: the weighted average of their log-probabilities, renormalised.
/// Members must share the label list. A bitmap goes to the members that read bitmaps, with
/// weights of its own when the ensemble has them.
public final class EnsembleRecognizer: Sendable {
    public let members: [ModelRecognizer]
    /// The members' weights for drawings.
    public let weights: [Float]
    /// The members' weights for bitmaps (Google's rendering, not ours: chosen on their own
    /// validation data); nil to use ``weights``.
    public let bitmapWeights: [Float]?

    public init(members: [ModelRecognizer], weights: [Float], bitmapWeights: [Float]? = nil) throws {
        guard !members.isEmpty, members.count == weights.count, bitmapWeights.map({ $0.count == members.count }) ?? true else {
            throw RecognitionError("an ensemble needs one weight per member")
        }
        guard members.allSatisfy({ $0.labels == members[0].labels }) else {
            throw RecognitionError("ensemble members must share their labels, in the same order")
        }
        self.members = members
        self.weights = weights
        self.bitmapWeights = bitmapWeights
    }

    public var labels: [String] { members[0].labels }

    /// The answer for a sketch, simplified once for all members.
    public func logProbabilities(_ sketch: StrokeSketch) throws -> LogProbabilities {
        let simplified = try GoogleSimplifier().simplifiedIfNeeded(sketch)
        return try combine { try $0.logProbabilities(simplified) }
    }

    /// The answer for a bitmap: the members that read bitmaps of its size and weigh more than
    /// zero on bitmaps, their (bitmap) weights renormalised.
    public func logProbabilities(_ image: GrayImage) throws -> LogProbabilities {
        let readers = Self.voting(zip(members, bitmapWeights ?? weights).filter { $0.0.reads(image) })
        guard !readers.isEmpty else {
            throw RecognitionError("no member of the ensemble reads \(image.width)×\(image.height) bitmaps")
        }
        let total = readers.reduce(0) { $0 + $1.1 }
        return LogProbabilities.mean(try readers.map { try $0.0.logProbabilities(image) },
                                     weights: total > 0 ? readers.map { $0.1 / total } : nil)
    }

    /// The ensemble's answer for a drawing from its members' answers (`answer` gives a member's),
    /// asking only the members whose weight is above zero.
    public func combine(_ answer: (ModelRecognizer) throws -> LogProbabilities) rethrows -> LogProbabilities {
        let voting = Self.voting(Array(zip(members, weights)))
        return LogProbabilities.mean(try voting.map { try answer($0.0) }, weights: voting.map(\.1))
    }

    /// The members that vote: those weighing more than zero, or all of them when none does.
    private static func voting(_ weighted: [(ModelRecognizer, Float)]) -> [(ModelRecognizer, Float)] {
        weighted.contains { $0.1 > 0 } ? weighted.filter { $0.1 > 0 } : weighted
    }
}
