import CCairo
import SketchwiseCore

extension StrokeSketch {
    /// Writes the sketch as people see it — its strokes' own colours and widths, on white — to a
    /// PNG whose longer side is `longerSide` pixels (plus `padding` pixels on every side).
    public func writeDisplayPNG(to path: String, longerSide: Int = 512, padding: Int = 16) throws(RasterError) {
        guard let box = boundingBox else { throw RasterError("an empty sketch has nothing to draw") }
        guard (1...8192).contains(longerSide), (0...1024).contains(padding) else {
            throw RasterError("PNG size \(longerSide) or padding \(padding) out of range")
        }
        let scale = Double(longerSide) / max(box.width, box.height, 1)
        let width = Int((box.width * scale).rounded(.up)) + 2 * padding
        let height = Int((box.height * scale).rounded(.up)) + 2 * padding
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            throw RasterError("cairo cannot create a \(width)×\(height) surface")
        }
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_translate(cr, Double(padding), Double(padding))
        cairo_scale(cr, scale, scale)
        cairo_translate(cr, -box.minX, -box.minY)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        for stroke in strokes where !stroke.points.isEmpty {
            let c = stroke.color
            cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha)
            cairo_set_line_width(cr, stroke.width / min(scale, 1))
            cairo_move_to(cr, stroke.points[0].x, stroke.points[0].y)
            for p in stroke.points { cairo_line_to(cr, p.x, p.y) }
            cairo_stroke(cr)
        }
        cairo_surface_flush(surface)
        try ChartSurface.writePNG(surface, to: path)
    }
}
