/// An RGBA colour with components in 0…1.
public struct Color: Hashable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let black = Color(red: 0, green: 0, blue: 0)
}

/// One pen-down-to-pen-up movement.
public struct Stroke: Hashable, Sendable {
    public var points: [Point]
    public var color: Color
    /// Line width in the sketch's own coordinate units.
    public var width: Double

    public init(points: [Point], color: Color = .black, width: Double = 3) {
        self.points = points
        self.color = color
        self.width = width
    }

    /// A stroke from parallel coordinate arrays, as the Quick, Draw! formats store them.
    /// - Throws: ``SketchError/mismatchedLengths`` when the arrays differ in length.
    public init(xs: [Double], ys: [Double], ts: [Double]? = nil) throws(SketchError) {
        guard xs.count == ys.count, ts == nil || ts!.count == xs.count else {
            throw .mismatchedLengths(x: xs.count, y: ys.count, t: ts?.count)
        }
        points = (0..<xs.count).map { Point(x: xs[$0], y: ys[$0], t: ts?[$0]) }
        color = .black
        width = 3
    }

    /// Whether every point carries a time stamp.
    public var hasTimestamps: Bool { !points.isEmpty && points.allSatisfy { $0.t != nil } }
}
