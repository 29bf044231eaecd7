import Foundation
import SketchwiseCore

/// Omniglot's stroke text format: a `START` line, then `x,y,t_ms` lines, a `BREAK` line after
/// each stroke. Omniglot's y axis points up; Sketchwise flips it to screen coordinates (y down).
public enum OmniglotStrokes {
    public static func parse(_ text: String, label: String?) throws(RecordError) -> StrokeSketch {
        var strokes: [Stroke] = []
        var current: [Point] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            switch line {
            case "", "START": continue
            case "BREAK":
                if !current.isEmpty { strokes.append(Stroke(points: current)) }
                current = []
            default:
                let fields = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard fields.count == 3, let x = fields[0], let y = fields[1], let t = fields[2],
                      [x, y, t].allSatisfy({ $0.magnitude <= SketchLimits.maximumCoordinate })
                else { throw RecordError("line \(index + 1): expected START, BREAK or finite x,y,t but found \"\(line.prefix(80))\"") }
                current.append(Point(x: x, y: -y, t: t))
            }
        }
        if !current.isEmpty { strokes.append(Stroke(points: current)) }
        return StrokeSketch(strokes: strokes, label: label)
    }

    /// The sketch in Omniglot's text format (y flipped back up).
    public static func text(of sketch: StrokeSketch) -> String {
        var out = "START\n"
        for stroke in sketch.strokes {
            for p in stroke.points { out += "\(p.x),\(-p.y),\(p.t.map { JSONValue.number($0).jsonText } ?? "0")\n" }
            out += "BREAK\n"
        }
        return out
    }
}
