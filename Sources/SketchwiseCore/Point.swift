/// A pen position: screen-style coordinates (x to the right, y downwards) and an optional
/// time stamp in milliseconds since the drawing began.
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double
    /// Milliseconds since the first point of the drawing, when the source recorded time.
    public var t: Double?

    public init(x: Double, y: Double, t: Double? = nil) {
        self.x = x
        self.y = y
        self.t = t
    }

    public static let zero = Point(x: 0, y: 0)

    /// The same point moved by (dx, dy); the time stamp is kept.
    public func offsetBy(dx: Double, dy: Double) -> Point {
        Point(x: x + dx, y: y + dy, t: t)
    }

    /// Euclidean distance to another point (time is ignored).
    public func distance(to other: Point) -> Double {
        let dx = other.x - x, dy = other.y - y
        return (dx * dx + dy * dy).squareRoot()
    }
}
