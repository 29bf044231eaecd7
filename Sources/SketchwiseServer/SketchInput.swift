import Foundation
import Hummingbird
import NIOCore
import SketchwiseCore
import SketchwiseFormats
import SketchwiseLibrary

/// Request bodies and messages that carry a sketch: Quick, Draw! raw strokes plus options,
/// checked against the limits.
struct SketchInput {
    let limits: ServerLimits

    /// The JSON object of a body or message.
    func object(_ data: Data) throws(APIError) -> [String: JSONValue] {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch { throw APIError(.badRequest, "the body is not JSON: \(error)") }
        guard case let .object(members) = value else { throw APIError(.badRequest, "the body is not a JSON object") }
        return members
    }

    /// The sketch under `key` (`strokes`); a missing key is an error.
    func sketch(_ object: [String: JSONValue], key: String = "strokes") throws(APIError) -> StrokeSketch {
        guard case let .array(json)? = object[key] else {
            throw APIError(.badRequest, JSONValue.problem(with: object[key], key: key, expected: QuickDrawRecord.strokeList))
        }
        return StrokeSketch(strokes: try strokes(json))
    }

    /// Strokes from their JSON, within the limits.
    func strokes(_ json: [JSONValue]) throws(APIError) -> [Stroke] {
        guard json.count <= limits.maximumStrokes else { throw tooManyStrokes(json.count) }
        let strokes: [Stroke]
        do { strokes = try QuickDrawRecord.strokes(json) } catch { throw APIError(.badRequest, error.description) }
        if let empty = strokes.firstIndex(where: { $0.points.isEmpty }) {
            throw APIError(.badRequest, "stroke \(empty) has no points: each stroke is [[x…],[y…]] with at least one point")
        }
        try checkLimits(strokes)
        return strokes
    }

    /// Refuses a sketch with more strokes or points than the limits allow.
    func checkLimits(_ strokes: [Stroke]) throws(APIError) {
        do {
            try limits.sketchSize.check(strokes)
        } catch {
            throw APIError(.tooLarge, error.description)
        }
    }

    private func tooManyStrokes(_ count: Int) -> APIError {
        APIError(.tooLarge, SketchError.tooManyStrokes(count: count, limit: limits.maximumStrokes).description)
    }

    /// A query's options as JSON values (numbers where they parse), for the checks below.
    static func queryObject(_ request: Request, keys: [String]) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for key in keys {
            guard let text = request.uri.queryParameters.get(key) else { continue }
            object[key] = Double(text).map(JSONValue.number) ?? .string(text)
        }
        return object
    }

    /// An optional integer option within `range`.
    func integer(_ object: [String: JSONValue], _ key: String, default value: Int, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let json = object[key], json != .null else { return value }
        guard case let .number(n) = json, n == n.rounded(), range.contains(Int(exactly: n) ?? Int.min) else {
            throw APIError(.badRequest, "\"\(key)\" must be a whole number within \(range.lowerBound)…\(range.upperBound)")
        }
        return Int(n)
    }

    /// The optional `"style"` of the pictures: line, emoji, clipart or all.
    func style(_ object: [String: JSONValue]) throws(APIError) -> PictureStyle? {
        switch object["style"] {
        case nil, .null?: return nil
        case let .string(name)?:
            if let style = PictureStyle(rawValue: name) { return style }
            fallthrough
        default:
            throw APIError(.badRequest, "\"style\" must be one of \(PictureStyle.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The body as a JSON object.
    /// - Throws: `415` unless the body is declared `application/json`; `413` past the size limit
    ///   (at once, closing the connection, for a body declared larger);
    ///   `400` for anything but a JSON object.
    func object(of request: Request) async throws -> [String: JSONValue] {
        let declared = request.headers[.contentType] ?? ""
        guard declared.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else {
            throw APIError(
                .unsupportedMediaType,
                declared.isEmpty
                    ? "the body must be declared Content-Type: application/json"
                    : "the body must be application/json, not \(declared.prefix(100))"
            )
        }
        let buffer = try await Self.body(of: request, upTo: limits.maximumBodyBytes, naming: "the body")
        return try object(Data(buffer.readableBytesView))
    }

    /// The body of a request, at most `maximum` bytes.
    /// - Throws: `413` past the limit, naming the body `what` ("the body", "the photo"); at once,
    ///   closing the connection, for a body declared larger.
    static func body(of request: Request, upTo maximum: Int, naming what: String) async throws -> ByteBuffer {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maximum {
            var error = APIError(.tooLarge, "\(what) is declared \(declared) bytes; at most \(maximum) are accepted")
            error.headers[.connection] = "close"
            throw error
        }
        do {
            return try await request.body.collect(upTo: maximum)
        } catch is NIOTooManyBytesError {
            throw APIError(.tooLarge, "\(what) is larger than \(maximum) bytes")
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.tooLarge, "\(what) is larger than \(maximum) bytes")
        }
    }
}
