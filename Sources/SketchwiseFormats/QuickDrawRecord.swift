import Foundation
import SketchwiseCore

/// One Quick, Draw! drawing with its record fields, as in Google's raw and simplified ndjson.
///
/// Raw strokes carry `[x…], [y…], [t…]`; simplified ones `[x…], [y…]`. Fields Sketchwise does not
/// interpret are kept in ``extraFields`` and written back.
public struct QuickDrawRecord: Hashable, Sendable {
    public var word: String
    public var countryCode: String?
    public var timestamp: String?
    public var recognized: Bool?
    /// Google's id; the same drawing has the same id in the raw and simplified files.
    public var keyID: String?
    public var drawing: StrokeSketch
    public var extraFields: [String: JSONValue]

    public init(word: String, countryCode: String? = nil, timestamp: String? = nil, recognized: Bool? = nil,
                keyID: String? = nil, drawing: StrokeSketch, extraFields: [String: JSONValue] = [:]) {
        self.word = word
        self.countryCode = countryCode
        self.timestamp = timestamp
        self.recognized = recognized
        self.keyID = keyID
        self.drawing = drawing
        self.extraFields = extraFields
        self.drawing.label = word
    }
}

extension QuickDrawRecord {
    private static let knownKeys: Set<String> = ["word", "countrycode", "timestamp", "recognized", "key_id", "drawing"]

    /// Parses one JSON object. `fallbackWord` names the class when the record has no `word`
    /// (for example the file name).
    /// - Throws: a message saying what is wrong (the caller adds file and line).
    public init(json: Data, fallbackWord: String? = nil) throws(RecordError) {
        let object: [String: JSONValue]
        do {
            guard case let .object(members) = try JSONValue.parse(json) else { throw RecordError("not a JSON object (another JSON value)") }
            object = members
        } catch let error as RecordError {
            throw error
        } catch {
            throw RecordError("not a JSON object (\(error))")
        }
        try self.init(object: object, fallbackWord: fallbackWord)
    }

    /// What a drawing's strokes are, for messages.
    public static let strokeList = "a list of strokes [[x…],[y…]] or [[x…],[y…],[t…]]"

    init(object: [String: JSONValue], fallbackWord: String?) throws(RecordError) {
        guard case let .array(strokesJSON)? = object["drawing"] else {
            throw RecordError(JSONValue.problem(with: object["drawing"], key: "drawing", expected: Self.strokeList))
        }
        let strokes = try Self.strokes(strokesJSON)
        let word: String
        switch object["word"] {
        case let .string(w)?: word = w
        case nil where fallbackWord != nil: word = fallbackWord!
        default: throw RecordError(JSONValue.problem(with: object["word"], key: "word", expected: "the class name"))
        }
        let keyID: String? = switch object["key_id"] {
        case let .string(s)?: s
        case let .number(n)?: JSONValue.number(n).jsonText
        default: nil
        }
        if case let .string(s)? = object["countrycode"] { countryCode = s } else { countryCode = nil }
        if case let .string(s)? = object["timestamp"] { timestamp = s } else { timestamp = nil }
        if case let .bool(b)? = object["recognized"] { recognized = b } else { recognized = nil }
        self.word = word
        self.keyID = keyID
        self.drawing = StrokeSketch(strokes: strokes, label: word)
        self.extraFields = object.filter { !Self.knownKeys.contains($0.key) }
    }

    /// Parses Quick, Draw! strokes, `[[[x…],[y…]] or [[x…],[y…],[t…]], …]`, checking every
    /// number (finite, within ±1e9) and that each stroke's arrays have one length.
    public static func strokes(_ json: [JSONValue]) throws(RecordError) -> [Stroke] {
        var strokes: [Stroke] = []
        strokes.reserveCapacity(json.count)
        for (index, strokeJSON) in json.enumerated() {
            strokes.append(try stroke(strokeJSON, index: index))
        }
        return strokes
    }

    private static func stroke(_ json: JSONValue, index: Int) throws(RecordError) -> Stroke {
        guard case let .array(rows) = json, rows.count == 2 || rows.count == 3 else {
            throw RecordError("stroke \(index) is not [[x…],[y…]] or [[x…],[y…],[t…]]")
        }
        var columns: [[Double]] = []
        for (r, row) in rows.enumerated() {
            guard case let .array(values) = row else {
                throw RecordError("stroke \(index): \(["x", "y", "t"][r]) is not a list of numbers")
            }
            var column: [Double] = []
            column.reserveCapacity(values.count)
            for value in values {
                guard case let .number(n) = value, n.magnitude <= SketchLimits.maximumCoordinate else {
                    let shown = if case let .number(n) = value, !n.isFinite { "a number out of range" } else { value.jsonText }
                    throw RecordError("stroke \(index): \(["x", "y", "t"][r]) holds \(shown), not a finite number within ±1e9")
                }
                column.append(n)
            }
            columns.append(column)
        }
        do {
            return try Stroke(xs: columns[0], ys: columns[1], ts: columns.count == 3 ? columns[2] : nil)
        } catch {
            throw RecordError("stroke \(index): \(error)")
        }
    }

    private static func summary(of error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error {
            if let underlying = context.underlyingError { return "\(underlying)" }
            return context.debugDescription
        }
        if case DecodingError.typeMismatch = error { return "expected an object" }
        return "\(error)"
    }

    /// The record as one line of Google's ndjson (fields in Google's order, no newline).
    /// Strokes are written with time when every point has one, as in raw files.
    public var ndjsonLine: String {
        var out = JSONOutput()
        out.raw("{")
        out.key("word", first: true)
        out.string(word)
        if let countryCode {
            out.key("countrycode")
            out.string(countryCode)
        }
        if let timestamp {
            out.key("timestamp")
            out.string(timestamp)
        }
        if let recognized {
            out.key("recognized")
            out.bool(recognized)
        }
        if let keyID {
            out.key("key_id")
            out.string(keyID)
        }
        out.key("drawing")
        out.raw("[")
        for (s, stroke) in drawing.strokes.enumerated() {
            if s > 0 { out.raw(",") }
            out.raw("[")
            Self.writeColumn(stroke.points.map(\.x), to: &out)
            out.raw(",")
            Self.writeColumn(stroke.points.map(\.y), to: &out)
            if stroke.hasTimestamps {
                out.raw(",")
                Self.writeColumn(stroke.points.map { $0.t! }, to: &out)
            }
            out.raw("]")
        }
        out.raw("]")
        for key in extraFields.keys.sorted() {
            out.key(key)
            out.value(extraFields[key]!)
        }
        out.raw("}")
        return out.text
    }

    private static func writeColumn(_ values: [Double], to out: inout JSONOutput) {
        out.raw("[")
        for (i, v) in values.enumerated() {
            if i > 0 { out.raw(",") }
            out.number(v)
        }
        out.raw("]")
    }
}

/// Why one record could not be read (without file and line; see ``FormatError``).
public struct RecordError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
