import SketchwiseCore
import SketchwiseWork

/// Google's Quick, Draw! simplification, reproducing its published "simplified" drawings point
/// for point from the raw ones.
///
/// Every step is IEEE double arithmetic in exactly this order (the order matters for the last
/// bit, and the last bit decides rounding and which point RDP keeps):
/// 1. The bounding box over all points; `extent` = the longer side.
/// 2. Each point becomes `((x − minX) · 255) / extent` (multiply first, then divide); with no
///    extent every point is (0, 0).
/// 3. Each stroke is resampled at 1-unit arc length: the first point, then for t = 1, 2, 3 … below
///    the stroke's length the point `p_j·(1 − f) + p_{j+1}·f` on the segment j holding t, where
///    `f = (t − cum_j) / len_j`; then always the stroke's last point (so a one-point stroke has two).
/// 4. Ramer–Douglas–Peucker with ε = 2 on the resampled points, iteratively: the first point of
///    largest perpendicular distance to the line through the range's ends is kept when that
///    distance is above ε.
/// 5. Coordinates are rounded to the nearest integer, ties to even. No stroke is dropped.
public struct GoogleSimplifier: Sendable {
    /// The longer side after scaling.
    public static let targetExtent = 255.0
    /// RDP's tolerance, in scaled units.
    public static let epsilon = 2.0
    /// A drawing whose strokes, scaled, are longer than this in total is not resampled: RDP runs
    /// on its own points (the same shape, not Google's exact points). Resampling at 1 unit would
    /// make millions of points from a few thousand zig-zags across the box, which a legal sketch
    /// of 20,000 points can be; real drawings are far shorter (a few thousand units).
    public static let maximumScaledLength = 200_000.0

    public init() {}

    /// The simplified drawing: integer coordinates in 0…255, no time stamps, label and stroke
    /// style kept.
    /// Work asked to stop (``SketchwiseWork/StopSignal``) ends between strokes, leaving the rest
    /// unsimplified: its caller has been answered already.
    /// - Throws: ``SketchError`` for an empty drawing or unusable coordinates.
    public func simplify(_ sketch: StrokeSketch) throws(SketchError) -> StrokeSketch {
        try sketch.validate()
        guard let box = sketch.boundingBox else { throw .empty }
        let extent = max(box.width, box.height)
        let scaled = sketch.strokes.map { stroke in
            stroke.points.map { p -> (x: Double, y: Double) in
                extent == 0 ? (0, 0) : (((p.x - box.minX) * Self.targetExtent) / extent,
                                        ((p.y - box.minY) * Self.targetExtent) / extent)
            }
        }
        let resamples = scaled.reduce(0) { $0 + Self.length(of: $1) } <= Self.maximumScaledLength
        var result = sketch
        let stop = StopSignal.current
        for (s, points) in scaled.enumerated() where stop?.isRaised != true {
            let kept = Self.ramerDouglasPeucker(resamples ? Self.resample(points) : points)
            result.strokes[s].points = kept.map {
                Point(x: $0.x.rounded(.toNearestOrEven), y: $0.y.rounded(.toNearestOrEven))
            }
        }
        return result
    }

    /// The sketch as Google simplifies it: unchanged when it is simplified already
    /// (``isSimplified(_:)``), else ``simplify(_:)``'s result.
    public func simplifiedIfNeeded(_ sketch: StrokeSketch) throws(SketchError) -> StrokeSketch {
        Self.isSimplified(sketch) ? sketch : try simplify(sketch)
    }

    /// Whether a sketch looks like Google's simplified output already: integer coordinates within
    /// 0…255 and no time stamps (raw pen input always has them). Simplifying such a sketch again
    /// would move points, so callers skip it.
    public static func isSimplified(_ sketch: StrokeSketch) -> Bool {
        !sketch.isEmpty && sketch.allPoints.allSatisfy {
            $0.t == nil && $0.x == $0.x.rounded() && $0.y == $0.y.rounded() && (0...255).contains($0.x) && (0...255).contains($0.y)
        }
    }

    private static func length(of points: [(x: Double, y: Double)]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { sum, pair in
            let dx = pair.1.x - pair.0.x, dy = pair.1.y - pair.0.y
            return sum + (dx * dx + dy * dy).squareRoot()
        }
    }

    /// Step 3: points every 1 unit of arc length, then the last point.
    static func resample(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        guard let first = points.first, let last = points.last else { return [] }
        var segment = [Double](), cumulative = [0.0]
        segment.reserveCapacity(points.count)
        cumulative.reserveCapacity(points.count)
        for i in 0..<(points.count - 1) {
            let dx = points[i + 1].x - points[i].x, dy = points[i + 1].y - points[i].y
            let d = (dx * dx + dy * dy).squareRoot()
            segment.append(d)
            cumulative.append(cumulative[i] + d)
        }
        let total = cumulative[points.count - 1]
        var out = [first]
        out.reserveCapacity(Int(total) + 2)
        var j = 0
        var k = 1
        var t = 1.0
        while t < total {
            while cumulative[j + 1] <= t { j += 1 }
            let f = (t - cumulative[j]) / segment[j]
            let a = points[j], b = points[j + 1]
            out.append((a.x * (1.0 - f) + b.x * f, a.y * (1.0 - f) + b.y * f))
            k += 1
            t = Double(k)
        }
        out.append(last)
        return out
    }

    /// Step 4: iterative RDP (an explicit stack: no recursion depth to overflow).
    static func ramerDouglasPeucker(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        let n = points.count
        guard n >= 3 else { return points }
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true
        keep[n - 1] = true
        var stack = [(0, n - 1)]
        while let (s, e) = stack.popLast() {
            guard e - s >= 2 else { continue }
            let a = points[s], b = points[e]
            let ex = b.x - a.x, ey = b.y - a.y
            let norm = (ey * ey).addingProduct(ex, ex).squareRoot()
            var maxDistance = -1.0
            var index = -1
            for i in (s + 1)..<e {
                let sx = a.x - points[i].x, sy = a.y - points[i].y
                let d = norm == 0 ? (sx * sx + sy * sy).squareRoot() : abs(ex * sy - ey * sx) / norm
                if d > maxDistance {
                    maxDistance = d
                    index = i
                }
            }
            if maxDistance > epsilon {
                keep[index] = true
                stack.append((s, index))
                stack.append((index, e))
            }
        }
        return zip(points, keep).compactMap { $1 ? $0 : nil }
    }
}
