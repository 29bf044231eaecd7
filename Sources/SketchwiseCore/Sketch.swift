/// Anything placed on a canvas: a drawing made of strokes, or a picture that replaced one.
public protocol Sketch: Sendable {
    /// What the sketch shows, when known (a Quick, Draw! class or a library item's label).
    var label: String? { get set }
    /// The smallest rectangle holding the sketch, grown by `padding` on every side;
    /// nil for a sketch with nothing in it.
    func boundingBox(padding: Double) -> Rect?
    /// The centre of the bounding box. Setting it moves the whole sketch (every point, or the
    /// picture's origin); an empty sketch has its centre at the origin and does not move.
    var center: Point { get set }
}

extension Sketch {
    /// The bounding box without padding.
    public var boundingBox: Rect? { boundingBox(padding: 0) }
}

/// A drawing as a sequence of strokes, in the order they were drawn.
public struct StrokeSketch: Sketch, Hashable {
    public var strokes: [Stroke]
    public var label: String?

    public init(strokes: [Stroke] = [], label: String? = nil) {
        self.strokes = strokes
        self.label = label
    }

    /// Every point of every stroke, in drawing order.
    public var allPoints: some Sequence<Point> { strokes.lazy.flatMap(\.points) }

    public var pointCount: Int { strokes.reduce(0) { $0 + $1.points.count } }

    public var isEmpty: Bool { pointCount == 0 }

    public func boundingBox(padding: Double = 0) -> Rect? {
        Rect(enclosing: allPoints)?.padded(by: padding)
    }

    public var center: Point {
        get { boundingBox?.center ?? .zero }
        set {
            guard let current = boundingBox?.center else { return }
            translate(dx: newValue.x - current.x, dy: newValue.y - current.y)
        }
    }

    /// Moves every point by (dx, dy).
    public mutating func translate(dx: Double, dy: Double) {
        for s in strokes.indices {
            for p in strokes[s].points.indices {
                strokes[s].points[p] = strokes[s].points[p].offsetBy(dx: dx, dy: dy)
            }
        }
    }

    /// Checks that the sketch can be processed: it has a point, and every coordinate and time is
    /// finite and within ``SketchLimits/maximumCoordinate``.
    public func validate() throws(SketchError) {
        guard !isEmpty else { throw .empty }
        for (s, stroke) in strokes.enumerated() {
            for (i, p) in stroke.points.enumerated() {
                for value in [p.x, p.y, p.t ?? 0] where !(value.magnitude <= SketchLimits.maximumCoordinate) {
                    throw .invalidCoordinate(stroke: s, point: i, value: value)
                }
            }
        }
    }
}

/// A picture standing in for a sketch: an image reference placed at `origin` with `size`.
public struct ImageSketch: Sketch, Hashable {
    /// Where the picture comes from (a library item id, a file path or a URL).
    public var imageReference: String
    public var origin: Point
    public var size: Size
    public var label: String?

    public init(imageReference: String, origin: Point, size: Size, label: String? = nil) {
        self.imageReference = imageReference
        self.origin = origin
        self.size = size
        self.label = label
    }

    public func boundingBox(padding: Double = 0) -> Rect? {
        Rect(minX: origin.x, minY: origin.y, width: size.width, height: size.height).padded(by: padding)
    }

    public var center: Point {
        get { Point(x: origin.x + size.width / 2, y: origin.y + size.height / 2) }
        set { origin = Point(x: newValue.x - size.width / 2, y: newValue.y - size.height / 2) }
    }
}
