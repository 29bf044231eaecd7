/// A width and a height.
public struct Size: Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// An axis-aligned rectangle; `minX`/`minY` is its top-left corner in screen coordinates.
public struct Rect: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var width: Double
    public var height: Double

    public init(minX: Double, minY: Double, width: Double, height: Double) {
        self.minX = minX
        self.minY = minY
        self.width = width
        self.height = height
    }

    /// The rectangle of the given size centred on `center`.
    public init(center: Point, size: Size) {
        self.init(minX: center.x - size.width / 2, minY: center.y - size.height / 2,
                  width: size.width, height: size.height)
    }

    /// The smallest rectangle holding every point, or nil when there are none.
    public init?<S: Sequence>(enclosing points: S) where S.Element == Point {
        var iterator = points.makeIterator()
        guard let first = iterator.next() else { return nil }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        while let p = iterator.next() {
            minX = Swift.min(minX, p.x); maxX = Swift.max(maxX, p.x)
            minY = Swift.min(minY, p.y); maxY = Swift.max(maxY, p.y)
        }
        self.init(minX: minX, minY: minY, width: maxX - minX, height: maxY - minY)
    }

    public var maxX: Double { minX + width }
    public var maxY: Double { minY + height }
    public var size: Size { Size(width: width, height: height) }
    public var center: Point { Point(x: minX + width / 2, y: minY + height / 2) }

    /// The rectangle grown by `amount` on every side (shrunk when negative, never below zero size).
    public func padded(by amount: Double) -> Rect {
        Rect(minX: minX - amount, minY: minY - amount,
             width: Swift.max(0, width + 2 * amount), height: Swift.max(0, height + 2 * amount))
    }

    /// Whether the point lies inside or on the border.
    public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
    }
}
