import Foundation

/// Any JSON value of a model file, kept as read (integers apart from other numbers). Internal:
/// the runtime does not depend on SketchwiseFormats, whose public `JSONValue` is the one the
/// other targets use.
enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// The value as an integer, if it is one.
    var intValue: Int? {
        if case let .integer(value) = self { return value }
        return nil
    }
}

extension DecodingError {
    /// A one-line account of the error, naming the JSON path.
    var readable: String {
        func path(_ context: Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "top level" : String(text.drop(while: { $0 == "." }))
        }
        switch self {
        case let .keyNotFound(key, context): return "missing '\(path(context, key))'"
        case let .typeMismatch(type, context): return "'\(path(context))' is not of type \(type)"
        case let .valueNotFound(type, context): return "'\(path(context))' is null, expected \(type)"
        case let .dataCorrupted(context):
            return context.codingPath.isEmpty
                ? "not valid JSON" : "'\(path(context))': \(context.debugDescription)"
        @unknown default: return "\(self)"
        }
    }
}
