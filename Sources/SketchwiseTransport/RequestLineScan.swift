/// Follows a request's first line, byte by byte, to tell whether it names an HTTP version.
struct RequestLineScan {
    /// The last 6 bytes seen, oldest in the high bits.
    private var recent: UInt64 = 0
    private(set) var hasVersion = false

    /// `" HTTP/"`, as `recent` holds it.
    private static let version = " HTTP/".utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }

    /// Takes the next byte; returns true when it ends the line (LF).
    mutating func add(_ byte: UInt8) -> Bool {
        if byte == 10 { return true }
        recent = (recent << 8 | UInt64(byte)) & 0xFFFF_FFFF_FFFF
        if recent == Self.version { hasVersion = true }
        return false
    }
}
