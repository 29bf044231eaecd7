import Foundation
import SketchwiseCore
import SketchwiseDigest
import SketchwiseFormats

/// How every ``PersonalStore`` backend keeps values: bearer tokens as digests, drawings as
/// Quick, Draw! records, embeddings as raw little-endian floats. One place, so that the backends
/// store the same bytes.
public enum StoredForms {
    /// A fresh bearer token: 32 random bytes as 64 hexadecimal digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    /// What is stored of a token: its SHA-256, hexadecimal.
    public static func digest(token: String) -> String { SHA256.hex(token.utf8) }

    /// A sketch as a Quick, Draw! record (with times when it has them).
    public static func json(_ sketch: StrokeSketch) -> String {
        QuickDrawRecord(word: "sketch", drawing: sketch).ndjsonLine
    }

    /// The sketch of a record made by ``json(_:)``.
    public static func sketch(_ json: String) throws -> StrokeSketch {
        StrokeSketch(strokes: try QuickDrawRecord(json: Data(json.utf8)).drawing.strokes)
    }

    /// An embedding's floats as bytes.
    public static func data(_ floats: [Float]) -> Data {
        floats.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    /// The floats of bytes made by ``data(_:)``.
    public static func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The error of a correction refused by its user's quota, which has `count` corrections of
    /// `bytes` bytes and would add one of `adding` bytes.
    public static func correctionQuotaError(count: Int, bytes: Int, adding: Int, limits: CorrectionLimits) -> PersonalError {
        if count >= limits.maximumCount {
            return PersonalError(
                .limit, "at most \(limits.maximumCount) corrections are kept per person; this one was not kept", quota: .corrections)
        }
        return PersonalError(
            .limit, "at most \(limits.maximumBytes) bytes of corrections are kept per person (\(bytes) kept, this one has \(adding))",
            quota: .correctionBytes)
    }

    /// How many of `adding` acceptances count for a user answered `served` suggestions who has
    /// `accepted` counted: no more than were answered to them.
    public static func countedAcceptances(_ adding: Int, served: Int, accepted: Int) -> Int {
        max(0, min(adding, served - accepted))
    }
}
