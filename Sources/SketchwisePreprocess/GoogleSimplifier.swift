import SketchwiseCore

/// Google's Quick, Draw! simplification (provisional; refined against real data).
public struct GoogleSimplifier: Sendable {
    public init() {}

    public func simplify(_ sketch: StrokeSketch) throws(SketchError) -> StrokeSketch {
        try sketch.validate()
        return sketch
    }

    /// Whether a sketch looks like Google's simplified output already: integer coordinates within
    /// 0…255 and no time stamps (raw pen input always has them). Simplifying such a sketch again
    /// would move points, so callers skip it.
    public static func isSimplified(_ sketch: StrokeSketch) -> Bool {
        !sketch.isEmpty && sketch.allPoints.allSatisfy {
            $0.t == nil && $0.x == $0.x.rounded() && $0.y == $0.y.rounded() && (0...255).contains($0.x) && (0...255).contains($0.y)
        }
    }
}
