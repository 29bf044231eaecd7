import SketchwiseCore

extension StrokeSketch {
    /// The sketch as a standalone SVG document: one polyline per stroke with round caps and joins,
    /// the view box fitted to the bounding box plus `padding`.
    public func svgDocument(padding: Double = 8) -> String {
        let box = boundingBox(padding: padding) ?? Rect(minX: 0, minY: 0, width: 1, height: 1)
        func number(_ v: Double) -> String { JSONValue.number((v * 100).rounded() / 100).jsonText }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="\(number(box.minX)) \(number(box.minY)) \(number(box.width)) \(number(box.height))" width="\(number(box.width))" height="\(number(box.height))">

            """
        if let label { out += "  <title>\(label.xmlEscaped)</title>\n" }
        for stroke in strokes where !stroke.points.isEmpty {
            var points = stroke.points.map { "\(number($0.x)),\(number($0.y))" }
            if points.count == 1 { points.append(points[0]) }
            let c = stroke.color
            let color = "rgb(\(Int(c.red * 255)),\(Int(c.green * 255)),\(Int(c.blue * 255)))"
            out +=
                "  <polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-opacity=\"\(number(c.alpha))\" stroke-width=\"\(number(stroke.width))\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>\n"
        }
        return out + "</svg>\n"
    }
}

extension String {
    /// The text with `&`, `<`, `>` and `"` as XML entities, for an element's text or an attribute.
    public var xmlEscaped: String {
        var out = ""
        for ch in self {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }
}
