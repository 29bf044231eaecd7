/// Why a drawing cannot be used as given.
public enum SketchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stroke's x, y (and t) arrays have different lengths.
    case mismatchedLengths(x: Int, y: Int, t: Int?)
    /// A coordinate is NaN, infinite or beyond ``SketchLimits/maximumCoordinate``.
    case invalidCoordinate(stroke: Int, point: Int, value: Double)
    /// The drawing has no points at all.
    case empty
    /// The drawing has more strokes than ``SketchSizeLimits/maximumStrokes``.
    case tooManyStrokes(count: Int, limit: Int)
    /// The drawing has more points than ``SketchSizeLimits/maximumPoints``.
    case tooManyPoints(count: Int, limit: Int)

    public var description: String {
        switch self {
        case let .mismatchedLengths(x, y, t):
            let tPart = t.map { ", t has \($0)" } ?? ""
            return "stroke arrays differ in length: x has \(x) values, y has \(y)\(tPart)"
        case let .invalidCoordinate(stroke, point, value):
            return "stroke \(stroke), point \(point): coordinate \(value) is not a finite number within ±1e9"
        case .empty:
            return "the drawing has no points"
        case let .tooManyStrokes(count, limit):
            return "\(count) strokes; at most \(limit) are accepted"
        case let .tooManyPoints(count, limit):
            return "\(count) points; at most \(limit) are accepted"
        }
    }
}

/// Bounds every drawing must respect before it is processed.
public enum SketchLimits {
    /// Coordinates beyond ±1e9 are rejected: no screen or tablet produces them, and their
    /// differences would lose all precision or overflow in later arithmetic.
    public static let maximumCoordinate = 1e9
}

/// How large a sketch may be: the server's request limits, and the command-line tool's (raised
/// with `--max-strokes` and `--max-points`). One stroke may hold all the points.
public struct SketchSizeLimits: Sendable, Equatable {
    public var maximumStrokes: Int
    public var maximumPoints: Int

    public init(maximumStrokes: Int = 256, maximumPoints: Int = 20_000) {
        self.maximumStrokes = maximumStrokes
        self.maximumPoints = maximumPoints
    }

    /// Refuses strokes beyond the limits.
    public func check(_ strokes: [Stroke]) throws(SketchError) {
        guard strokes.count <= maximumStrokes else { throw .tooManyStrokes(count: strokes.count, limit: maximumStrokes) }
        let points = strokes.reduce(0) { $0 + $1.points.count }
        guard points <= maximumPoints else { throw .tooManyPoints(count: points, limit: maximumPoints) }
    }
}
