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
    /// What kind of value this is, for messages: "a string", "a number", "a list"…
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }

    /// Why the member `key` is not what it should be (`expected`): missing (or null), or of
    /// another kind, as a message says it.
    public static func problem(with value: JSONValue?, key: String, expected: String) -> String {
        switch value {
        case nil, .null?: "missing \"\(key)\": \(expected)"
        case let value?: "\"\(key)\" must be \(expected), not \(value.kindName)"
        }
    }

    public var jsonText: String {
        var out = JSONOutput()
        out.value(self)
        return out.text
    }
}

/// Compact JSON text written by hand, straight into UTF-8 bytes: Quick, Draw! files have a fixed
/// key order and integer coordinates that a generic encoder would not reproduce, and the API's
/// hot answers are cheaper written without building values first. The caller places the commas.
public struct JSONOutput: Sendable {
    /// The text so far, UTF-8.
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The text so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Punctuation or literal JSON (`{`, `]`, `,`, `null`), copied as it is.
    public mutating func raw(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `"key":`, after a comma unless the member is the object's first.
    public mutating func key(_ key: String, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Any value; object keys sorted.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case let .bool(b): bool(b)
        case let .number(n): number(n)
        case let .string(s): string(s)
        case let .array(a):
            raw("[")
            for (i, v) in a.enumerated() {
                if i > 0 { raw(",") }
                self.value(v)
            }
            raw("]")
        case let .object(o):
            raw("{")
            for (i, key) in o.keys.sorted().enumerated() {
                self.key(key, first: i == 0)
                self.value(o[key]!)
            }
            raw("}")
        }
    }

    public mutating func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// Integers as integers (`12`, not `12.0`); other finite numbers in Swift's shortest
    /// round-tripping form; non-finite numbers (which JSON cannot hold) as `null`.
    public mutating func number(_ n: Double) {
        if n.isFinite, n == n.rounded(), n.magnitude < 9.0e15 {
            integer(Int64(n))
        } else if n.isFinite {
            bytes.append(contentsOf: n.description.utf8)
        } else {
            raw("null")
        }
    }

    /// An integer's decimal digits, written without an intermediate string.
    public mutating func integer(_ n: Int64) {
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = n.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for UInt64.max's 20 digits, filled from the end
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[start...])
        }
    }

    /// A JSON string literal: runs that need no escape are copied whole (only `"`, `\\` and
    /// control characters are escaped, all ASCII, so every cut falls between scalars).
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        if let done: Void = s.utf8.withContiguousStorageIfAvailable({ escaped($0) }) {
            done
        } else {
            Array(s.utf8).withUnsafeBufferPointer { escaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for (index, byte) in utf8.enumerated() where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            default:
                let hex = Array("0123456789abcdef".utf8)
                raw("\\u00")
                bytes += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
            runStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
}
