import Foundation
import NIOCore

/// The proxies whose `X-Forwarded-For` header is believed (`--trusted-proxies`): IPv4 and IPv6
/// addresses and CIDR ranges. None by default, so a client cannot pick its own address.
public struct TrustedProxies: Sendable, Equatable {
    /// One address range: the first `prefixLength` bits of `address` (4 or 16 bytes).
    struct Range: Sendable, Equatable {
        let address: [UInt8]
        let prefixLength: Int

        func contains(_ other: [UInt8]) -> Bool {
            guard other.count == address.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(address, other) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if mine & mask != theirs & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let ranges: [Range]

    /// No proxy is trusted.
    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses a comma-separated list such as `127.0.0.1, 10.0.0.0/8, ::1`.
    /// - Throws: ``TrustedProxies/ParseError`` naming the entry that is not an address or range.
    public init(parsing text: String) throws(ParseError) {
        var ranges: [Range] = []
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = Self.bytes(of: String(parts[0])) else { throw ParseError(entry: entry) }
            var prefixLength = address.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...address.count * 8).contains(length) else { throw ParseError(entry: entry) }
                prefixLength = length
            }
            ranges.append(Range(address: address, prefixLength: prefixLength))
        }
        self.init(ranges: ranges)
    }

    /// An entry of `--trusted-proxies` that is not an address or a CIDR range.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let entry: String
        public var description: String { "\"\(entry)\" is not an IP address or a CIDR range (such as 10.0.0.0/8)" }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (text) is one of the trusted proxies.
    public func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client of a request that came from `peer` with these `X-Forwarded-For` values: the
    /// right-most address that is not a trusted proxy (each proxy appends the address it saw, so
    /// only the entries added by trusted proxies can be believed). The peer itself when it is
    /// not trusted, or when the header holds nothing usable.
    public func client(peer: String, forwardedFor values: [String]) -> String {
        guard contains(peer) else { return peer }
        let hops = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard let bytes = Self.bytes(of: hop) else { return peer }
            if !ranges.contains(where: { $0.contains(bytes) }) { return Self.text(of: bytes) }
        }
        return hops.first.flatMap { Self.bytes(of: $0) }.map(Self.text) ?? peer
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text; nil for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        let text = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        guard !text.isEmpty, text.utf8.count <= 45, let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        switch address {
        case let .v4(v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case let .v6(v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is that IPv4 address.
            if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] { return Array(bytes.suffix(4)) }
            return bytes
        case .unixDomainSocket:
            return nil
        }
    }

    /// The canonical text of an address's bytes.
    static func text(of bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var storage = [UInt8](repeating: 0, count: 16)
        for (i, byte) in bytes.prefix(16).enumerated() { storage[i] = byte }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: storage) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    }
}
