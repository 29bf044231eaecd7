import SketchwiseCore

/// One row of Sketch-RNN's stroke-3 format: an offset from the previous point and whether the
/// pen is lifted after this point.
public struct Stroke3Row: Hashable, Sendable {
    public var dx: Double
    public var dy: Double
    public var penLifted: Bool

    public init(dx: Double, dy: Double, penLifted: Bool) {
        self.dx = dx
        self.dy = dy
        self.penLifted = penLifted
    }
}

extension StrokeSketch {
    /// A sketch from stroke-3 rows; the first offset is taken from the origin.
    public init(stroke3 rows: [Stroke3Row], label: String? = nil) {
        var strokes: [Stroke] = []
        var current: [Point] = []
        var x = 0.0, y = 0.0
        for row in rows {
            x += row.dx
            y += row.dy
            current.append(Point(x: x, y: y))
            if row.penLifted {
                strokes.append(Stroke(points: current))
                current = []
            }
        }
        if !current.isEmpty { strokes.append(Stroke(points: current)) }
        self.init(strokes: strokes, label: label)
    }

    /// The sketch as stroke-3 rows; the first offset is from the origin, so the conversion is
    /// lossless (time stamps aside). Empty strokes are left out.
    public var stroke3: [Stroke3Row] {
        var rows: [Stroke3Row] = []
        rows.reserveCapacity(pointCount)
        var previous = Point.zero
        for stroke in strokes where !stroke.points.isEmpty {
            for (i, p) in stroke.points.enumerated() {
                rows.append(Stroke3Row(dx: p.x - previous.x, dy: p.y - previous.y, penLifted: i == stroke.points.count - 1))
                previous = p
            }
        }
        return rows
    }
}

/// Sketch-RNN's stroke-5 format: `(dx, dy, p1, p2, p3)` with p1 = pen stays down, p2 = pen lifted
/// after this point, p3 = the sketch has ended (padding rows).
public enum Stroke5 {
    /// Rows padded with end-of-sketch rows `(0, 0, 0, 0, 1)` to `length`; longer input is cut.
    public static func encode(_ rows: [Stroke3Row], length: Int) -> [[Double]] {
        (0..<length).map { i in
            guard i < rows.count else { return [0, 0, 0, 0, 1] }
            let r = rows[i]
            return [r.dx, r.dy, r.penLifted ? 0 : 1, r.penLifted ? 1 : 0, 0]
        }
    }

    /// The stroke-3 rows up to the first end-of-sketch row.
    public static func decode(_ rows: [[Double]]) -> [Stroke3Row] {
        var out: [Stroke3Row] = []
        for row in rows where row.count == 5 {
            if row[4] > 0.5 { break }
            out.append(Stroke3Row(dx: row[0], dy: row[1], penLifted: row[3] > 0.5))
        }
        return out
    }
}

extension NPYArray {
    /// Reads an `(n, 3)` stroke-3 array (any integer or float type).
    public func stroke3Rows() throws(RecordError) -> [Stroke3Row] {
        guard shape.count == 2, shape[1] == 3, let values = doubles() else {
            throw RecordError("stroke-3 arrays have shape (n, 3), not \(shape)")
        }
        return (0..<shape[0]).map { Stroke3Row(dx: values[3 * $0], dy: values[3 * $0 + 1], penLifted: values[3 * $0 + 2] != 0) }
    }

    /// An `(n, 3)` int16 stroke-3 array, as Sketch-RNN stores drawings; offsets are rounded.
    /// - Throws: when an offset does not fit in 16 bits.
    public init(stroke3 rows: [Stroke3Row]) throws(RecordError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 6)
        for row in rows {
            for value in [row.dx.rounded(), row.dy.rounded(), row.penLifted ? 1 : 0] {
                guard let v = Int16(exactly: value) else { throw RecordError("stroke-3 offset \(value) does not fit in int16") }
                withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
            }
        }
        self.init(shape: [rows.count, 3], elementType: .int16, bytes: bytes)
    }
}
