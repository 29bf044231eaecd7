import Foundation
import SketchwiseDigest
import SketchwiseNN
import SketchwiseRecognition

/// One model file a benchmark timed: its name, spec and the SHA-256 of its weights.
public struct TimedModel: Sendable, Codable, Equatable {
    public var name: String
    public var spec: String
    public var sha256: String

    public init(_ member: ModelRecognizer) throws {
        name = member.name
        spec = member.model.url.path
        sha256 = try SHA256.hexDigest(ofFileAt: member.model.weightsURL)
    }
}
