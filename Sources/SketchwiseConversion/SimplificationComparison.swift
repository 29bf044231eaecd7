import SketchwiseCore
import SketchwiseFormats
import SketchwisePreprocess

/// How closely our simplification of raw drawings reproduces reference simplified drawings
/// (Google's), matched by `key_id`.
public struct SimplificationComparison: Sendable, Codable, Equatable {
    /// Drawings present in both, compared.
    public var pairs = 0
    /// Pairs reproduced exactly: same strokes, every point equal.
    public var exact = 0
    /// Per drawing: the mean distance of each point to the other drawing's polylines, averaged over
    /// both directions (0 when exact). Median, 95th percentile and mean over drawings, in units of
    /// the 0…255 frame (≈ pixels).
    public var medianDistance = 0.0
    public var p95Distance = 0.0
    public var meanDistance = 0.0
    /// Mean over drawings of (our point count / reference point count).
    public var pointCountRatio = 0.0

    public var exactShare: Double { pairs > 0 ? Double(exact) / Double(pairs) : 0 }

    public init() {}

    /// Simplifies every raw drawing of `raw` that has a `key_id` also found in `reference`, and
    /// compares. Drawings that cannot be simplified count as pairs that are not exact, at the
    /// largest distance (255).
    public static func run(raw: DrawingSource, reference: DrawingSource) throws -> SimplificationComparison {
        var google: [String: StrokeSketch] = [:]
        try reference.forEach(onError: { throw $0 }) { drawing in
            if case let .strokes(record) = drawing.content, let key = record.keyID { google[key] = record.drawing }
        }
        let simplifier = GoogleSimplifier()
        var distances: [Double] = []
        var ratios: [Double] = []
        var result = SimplificationComparison()
        try raw.forEach(onError: { throw $0 }) { drawing in
            guard case let .strokes(record) = drawing.content, let key = record.keyID, let theirs = google[key] else { return }
            result.pairs += 1
            guard let ours = try? simplifier.simplify(record.drawing) else {
                distances.append(255)
                ratios.append(0)
                return
            }
            if ours.strokes.map(\.points) == theirs.strokes.map(\.points) { result.exact += 1 }
            distances.append((meanDistance(from: ours, to: theirs) + meanDistance(from: theirs, to: ours)) / 2)
            ratios.append(Double(ours.pointCount) / Double(max(theirs.pointCount, 1)))
        }
        guard !distances.isEmpty else { return result }
        distances.sort()
        result.medianDistance = distances[distances.count / 2]
        result.p95Distance = distances[min(distances.count - 1, Int((Double(distances.count) * 0.95).rounded(.down)))]
        result.meanDistance = distances.reduce(0, +) / Double(distances.count)
        result.pointCountRatio = ratios.reduce(0, +) / Double(ratios.count)
        return result
    }

    /// The mean over the points of `a` of the distance to the nearest stroke polyline of `b`.
    static func meanDistance(from a: StrokeSketch, to b: StrokeSketch) -> Double {
        let points = Array(a.allPoints)
        guard !points.isEmpty, !b.isEmpty else { return points.isEmpty && b.isEmpty ? 0 : 255 }
        let total = points.reduce(0.0) { sum, p in
            sum + b.strokes.lazy.filter { !$0.points.isEmpty }.map { distance(from: p, to: $0.points) }.min()!
        }
        return total / Double(points.count)
    }

    /// Distance from `p` to a polyline (a single point counts as a polyline of length zero).
    static func distance(from p: Point, to polyline: [Point]) -> Double {
        guard polyline.count > 1 else { return p.distance(to: polyline[0]) }
        var best = Double.infinity
        for (a, b) in zip(polyline, polyline.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y
            let lengthSquared = dx * dx + dy * dy
            let t = lengthSquared == 0 ? 0 : min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared))
            best = min(best, p.distance(to: Point(x: a.x + t * dx, y: a.y + t * dy)))
        }
        return best
    }
}
