import Foundation

/// A 64-bit FNV-1a hash of bytes, written as 16 hex digits: tells whether a file or a model
/// changed since the index last saw it (not a cryptographic hash).
struct ContentHash {
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var h = state
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        state = h
    }

    mutating func add(_ bytes: [UInt8]) { bytes.withUnsafeBytes { add($0) } }

    mutating func add(_ text: String) { add(Array(text.utf8)) }

    var hex: String {
        let digits = String(state, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash of `bytes` alone.
    static func of(_ bytes: [UInt8]) -> String {
        var hash = ContentHash()
        hash.add(bytes)
        return hash.hex
    }
}
