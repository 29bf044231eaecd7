import SketchwiseCore

/// A drawing as the stroke model reads it: rows of `(Δx, Δy, pen-up)` — the offset from the
/// previous point and 1 where the pen is lifted after this point — normalised, cut or zero-padded
/// to a fixed number of rows (the design of TensorFlow's Quick, Draw! RNN tutorial).
public struct StrokeSequence: Hashable, Sendable {
    /// `rows × 3` values, row-major; rows after ``validRows`` are zero.
    public var values: [Float]
    /// How many rows hold the drawing (the rest is padding).
    public var validRows: Int

    public var rows: Int { values.count / 3 }
}

/// How coordinates are scaled before offsets are taken.
public enum SequenceNormalization: String, Sendable, Codable, CaseIterable {
    /// x and y each scaled to 0…1 by their own range (the tutorial's choice; changes the aspect).
    case perAxis
    /// Both scaled by the longer side, so the aspect ratio is kept.
    case uniform
}

/// Turns sketches into ``StrokeSequence``s and back.
public struct StrokeSequenceEncoder: Hashable, Sendable {
    /// Rows in every sequence; longer drawings are cut, shorter ones padded (the seed uses 75).
    public var length: Int
    public var normalization: SequenceNormalization

    public init(length: Int = 75, normalization: SequenceNormalization = .perAxis) {
        self.length = length
        self.normalization = normalization
    }

    /// Encodes a sketch (normally Google-simplified first). Follows the tutorial: points are
    /// concatenated stroke by stroke, each carrying pen-up = 1 on its stroke's last point;
    /// coordinates are normalised, each row becomes the difference to the previous point, and the
    /// first row (which has no predecessor) is dropped.
    public func encode(_ sketch: StrokeSketch) -> StrokeSequence {
        var values = [Float](repeating: 0, count: length * 3)
        guard let box = sketch.boundingBox, length > 0 else { return StrokeSequence(values: values, validRows: 0) }
        let (scaleX, scaleY): (Double, Double)
        switch normalization {
        case .perAxis:
            scaleX = box.width > 0 ? box.width : 1
            scaleY = box.height > 0 ? box.height : 1
        case .uniform:
            let side = max(box.width, box.height)
            (scaleX, scaleY) = side > 0 ? (side, side) : (1, 1)
        }
        var previous: (x: Double, y: Double)?
        var row = 0
        outer: for stroke in sketch.strokes {
            for (i, p) in stroke.points.enumerated() {
                let x = (p.x - box.minX) / scaleX, y = (p.y - box.minY) / scaleY
                defer { previous = (x, y) }
                guard let last = previous else { continue }
                guard row < length else { break outer }
                values[3 * row] = Float(x - last.x)
                values[3 * row + 1] = Float(y - last.y)
                values[3 * row + 2] = i == stroke.points.count - 1 ? 1 : 0
                row += 1
            }
        }
        return StrokeSequence(values: values, validRows: row)
    }

    /// The drawing a sequence describes, in normalised units, starting at the origin. Inverse of
    /// ``encode(_:)`` up to normalisation, the dropped first point and cutting.
    public static func decode(_ sequence: StrokeSequence) -> StrokeSketch {
        var strokes: [Stroke] = []
        var current = [Point.zero]
        var x = 0.0, y = 0.0
        for row in 0..<sequence.validRows {
            x += Double(sequence.values[3 * row])
            y += Double(sequence.values[3 * row + 1])
            current.append(Point(x: x, y: y))
            if sequence.values[3 * row + 2] > 0.5 {
                strokes.append(Stroke(points: current))
                current = []
            }
        }
        if !current.isEmpty { strokes.append(Stroke(points: current)) }
        return StrokeSketch(strokes: strokes)
    }
}
