import Foundation
import SketchwiseCore

extension StrokeSketch {
    /// The sketch turned by `degrees` about the centre of its bounding box, clockwise on screen
    /// (y points down); times and styles are kept.
    public func rotated(byDegrees degrees: Double) -> StrokeSketch {
        let radians = degrees * .pi / 180
        let (cosine, sine) = (cos(radians), sin(radians))
        let pivot = center
        var turned = self
        for s in turned.strokes.indices {
            for p in turned.strokes[s].points.indices {
                let point = turned.strokes[s].points[p]
                let (dx, dy) = (point.x - pivot.x, point.y - pivot.y)
                turned.strokes[s].points[p] = Point(x: pivot.x + cosine * dx - sine * dy, y: pivot.y + sine * dx + cosine * dy, t: point.t)
            }
        }
        return turned
    }
}
