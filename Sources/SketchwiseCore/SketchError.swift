/// Why a drawing cannot be used as given.
public enum SketchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stroke's x, y (and t) arrays have different lengths.
    case mismatchedLengths(x: Int, y: Int, t: Int?)
    /// A coordinate is NaN, infinite or beyond ``SketchLimits/maximumCoordinate``.
    case invalidCoordinate(stroke: Int, point: Int, value: Double)
    /// The drawing has no points at all.
    case empty

    public var description: String {
        switch self {
        case let .mismatchedLengths(x, y, t):
            let tPart = t.map { ", t has \($0)" } ?? ""
            return "stroke arrays differ in length: x has \(x) values, y has \(y)\(tPart)"
        case let .invalidCoordinate(stroke, point, value):
            return "stroke \(stroke), point \(point): coordinate \(value) is not a finite number within ±1e9"
        case .empty:
            return "the drawing has no points"
        }
    }
}

/// Bounds every drawing must respect before it is processed.
public enum SketchLimits {
    /// Coordinates beyond ±1e9 are rejected: no screen or tablet produces them, and their
    /// differences would lose all precision or overflow in later arithmetic.
    public static let maximumCoordinate = 1e9
}
