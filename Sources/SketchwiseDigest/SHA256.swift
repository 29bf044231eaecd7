import Foundation

/// SHA-256 (FIPS 180-4), fed in pieces: model files are checked as they stream in, and bearer
/// tokens are stored as their digests.
public struct SHA256: Sendable {
    private var state: [UInt32] = [
        0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19,
    ]
    private var pending: [UInt8] = []
    /// 64-byte blocks compressed so far.
    private var blocks: UInt64 = 0

    public init() {}

    /// Adds bytes to the message.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ absorb($0) }) != nil { return }
        for byte in bytes { absorb(CollectionOfOne(byte)) }
    }

    /// Completes the pending block first, then compresses whole blocks straight from `bytes`.
    private mutating func absorb(_ bytes: some RandomAccessCollection<UInt8>) {
        var index = bytes.startIndex
        if !pending.isEmpty {
            while pending.count < 64, index != bytes.endIndex {
                pending.append(bytes[index])
                bytes.formIndex(after: &index)
            }
            guard pending.count == 64 else { return }
            compress(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.distance(from: index, to: bytes.endIndex) >= 64 {
            let end = bytes.index(index, offsetBy: 64)
            compress(bytes[index..<end])
            index = end
        }
        pending.append(contentsOf: bytes[index...])
    }

    /// The 32-byte digest of everything added (the value itself is left as it was).
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = copy.messageLength &* 8
        copy.update([0x80])
        while copy.pending.count != 56 { copy.update([0]) }
        copy.update((0..<8).map { UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * UInt64($0))) })
        return copy.state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    /// The digest as 64 lower-case hexadecimal digits.
    public func hexDigest() -> String {
        finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The hexadecimal digest of `bytes`.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }

    /// Bytes added so far.
    private var messageLength: UInt64 { blocks &* 64 &+ UInt64(pending.count) }

    private static let k: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    private mutating func compress(_ block: some Collection<UInt8>) {
        blocks &+= 1
        var w = [UInt32](repeating: 0, count: 64)
        for (i, byte) in block.enumerated() { w[i / 4] = w[i / 4] << 8 | UInt32(byte) }
        for i in 16..<64 {
            let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
            let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for i in 0..<64 {
            let t1 = h &+ (e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[i] &+ w[i]
            let t2 = (a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        for (i, v) in [a, b, c, d, e, f, g, h].enumerated() { state[i] &+= v }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ n: UInt32) -> UInt32 { self >> n | self << (32 - n) }
}

extension SHA256 {
    /// The hexadecimal SHA-256 of a file, read in 1 MiB pieces.
    public static func hexDigest(ofFileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(chunk) }
        return hash.hexDigest()
    }
}
