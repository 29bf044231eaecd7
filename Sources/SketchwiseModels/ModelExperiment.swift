import Foundation
import SketchwiseDigest
import SketchwiseRecognition

/// An A/B test of one model: a deterministic share of people get another installed version of
/// it, the others whatever serves. The same person always lands in the same arm (a hash of the
/// experiment and their user id), so nothing about the split needs storing.
public struct ModelExperiment: Sendable, Equatable, CustomStringConvertible {
    /// The arm a person is in.
    public enum Arm: String, Sendable, Codable, CaseIterable {
        /// The version that serves everyone else.
        case control
        /// The experiment's version.
        case treatment
    }

    public let model: String
    /// The version the treatment arm gets (installed in the model store).
    public let version: String
    /// Percent of people in the treatment arm, 0…100.
    public let percent: Int

    /// Parses `NAME@VERSION[:PERCENT]` (50 % by default).
    /// - Throws: a description of what is wrong; raster-cnn cannot be tested this way, since the
    ///   library index is built with its embedding.
    public init(parsing text: String) throws {
        let pieces = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let (reference, share) = (pieces[0], pieces.count > 1 ? pieces[1] : nil)
        let parts = reference.split(separator: "@", maxSplits: 1).map(String.init)
        guard parts.count == 2, ModelStore.isPlainName(parts[0]), ModelStore.isPlainName(parts[1]) else {
            throw ModelLifecycleError.invalidExperiment("an A/B test is NAME@VERSION[:PERCENT], e.g. raster-cnn-lite@2.0.0:50")
        }
        let percent =
            try share.map { text -> Int in
                guard let value = Int(text), (0...100).contains(value) else {
                    throw ModelLifecycleError.invalidExperiment("an A/B test's percent is within 0…100")
                }
                return value
            } ?? 50
        guard parts[0] != RecognizerSet.rasterModel else {
            throw ModelLifecycleError.invalidExperiment(
                "\(RecognizerSet.rasterModel) cannot be A/B tested: the library index is built with its embedding; test another model (an ensemble member, stroke-rnn)"
            )
        }
        self.init(model: parts[0], version: parts[1], percent: percent)
    }

    public init(model: String, version: String, percent: Int) {
        self.model = model
        self.version = version
        self.percent = percent
    }

    /// `NAME@VERSION`, the experiment's name in counts and logs.
    public var name: String { "\(model)@\(version)" }

    public var description: String { "\(name) for \(percent) % of people" }

    /// The arm of the person with this user id.
    public func arm(ofUser id: Int64) -> Arm {
        var hash = SHA256()
        hash.update("\(name):\(id)".utf8)
        let bytes = hash.finalize()
        let bucket = (Int(bytes[0]) << 8 | Int(bytes[1])) % 100
        return bucket < percent ? .treatment : .control
    }
}
