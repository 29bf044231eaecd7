import Foundation
import SketchwiseCore
import SketchwiseFormats

/// A Quick, Draw! drawing as a picture of the line style: its strokes smoothed into curves and
/// drawn black with the stroke share of the line icons, for the `doodle` source (the last resort
/// of a class no picture set draws).
public enum DoodleArt {
    /// The line width as a share of the picture's longer side: half the icons' 2 of 24, as a
    /// drawing has more detail than an icon (OpenMoji's line art draws 2 of 72).
    public static let strokeShare = 1.0 / 24

    /// The SVG document of `sketch`, titled `label`. Each stroke becomes one path of quadratic
    /// curves through the midpoints of its segments (a stroke of one point, a dot); the view box
    /// is the ink's box with room for the line.
    public static func svg(_ sketch: StrokeSketch, label: String) -> String {
        let box = sketch.boundingBox() ?? Rect(minX: 0, minY: 0, width: 1, height: 1)
        let side = max(box.width, box.height, 1)
        let width = side * strokeShare
        let view = box.padded(by: width)
        let viewBox = [view.minX, view.minY, view.width, view.height].map(number).joined(separator: " ")
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"\(viewBox)\" fill=\"none\" stroke=\"black\" "
        out += "stroke-width=\"\(number(width))\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
        out += "  <title>\(label.xmlEscaped)</title>\n"
        for stroke in sketch.strokes where !stroke.points.isEmpty {
            out += "  <path d=\"\(path(stroke.points))\"/>\n"
        }
        return out + "</svg>\n"
    }

    /// `M` to the first point, a quadratic curve to each segment's midpoint with the segment's
    /// start as control, and a line to the last point.
    static func path(_ points: [Point]) -> String {
        guard let first = points.first else { return "" }
        var d = "M\(number(first.x)) \(number(first.y))"
        guard points.count > 1 else { return d + "h0" }
        for i in 1..<(points.count - 1) {
            let (control, next) = (points[i], points[i + 1])
            d += " Q\(number(control.x)) \(number(control.y)) \(number((control.x + next.x) / 2)) \(number((control.y + next.y) / 2))"
        }
        let last = points[points.count - 1]
        return d + " L\(number(last.x)) \(number(last.y))"
    }

    private static func number(_ value: Double) -> String { SVGNumber.text(value, decimals: 1) }
}
