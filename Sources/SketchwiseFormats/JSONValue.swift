/// Any JSON value; keeps record fields that Sketchwise does not interpret so they survive a
/// read-modify-write round trip.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else if let o = try? c.decode([String: JSONValue].self) { self = .object(o) }
        else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "a value that is not valid JSON (a number out of range?)") }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .bool(b): try c.encode(b)
        case let .number(n): try c.encode(n)
        case let .string(s): try c.encode(s)
        case let .array(a): try c.encode(a)
        case let .object(o): try c.encode(o)
        }
    }

    /// Compact JSON text, object keys sorted, numbers without a fraction written as integers.
    public var jsonText: String {
        var out = ""
        JSONWriter.write(self, to: &out)
        return out
    }
}

/// Writes compact JSON text by hand: Quick, Draw! files have a fixed key order and integer
/// coordinates that a generic encoder would not reproduce.
enum JSONWriter {
    static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n): writeNumber(n, to: &out)
        case let .string(s): writeString(s, to: &out)
        case let .array(a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                write(v, to: &out)
            }
            out += "]"
        case let .object(o):
            out += "{"
            for (i, key) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                writeString(key, to: &out)
                out += ":"
                write(o[key]!, to: &out)
            }
            out += "}"
        }
    }

    /// Integers as integers (`12`, not `12.0`); other finite numbers in Swift's shortest
    /// round-tripping form; non-finite numbers (which JSON cannot hold) as `null`.
    static func writeNumber(_ n: Double, to out: inout String) {
        if n.isFinite, n == n.rounded(), n.magnitude < 9.0e15 {
            out += String(Int64(n))
        } else if n.isFinite {
            out += "\(n)"
        } else {
            out += "null"
        }
    }

    /// A JSON string literal: runs that need no escape are copied whole (only `"`, `\\` and
    /// control characters are escaped, all ASCII, so every cut falls between scalars).
    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        let utf8 = s.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else {
                index = utf8.index(after: index)
                continue
            }
            out += s[runStart..<index]
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\r"): out += "\\r"
            case UInt8(ascii: "\t"): out += "\\t"
            default:
                let hex = String(byte, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            index = utf8.index(after: index)
            runStart = index
        }
        out += s[runStart..<utf8.endIndex]
        out += "\""
    }
}
