import CCairo

/// The canvas of the pictures made for people (heat maps, bar charts): a white RGB surface with
/// a title, written to a PNG file.
enum ChartSurface {
    /// Makes a `width`×`height` white surface titled `title`, lets `body` draw on it (font size
    /// 12, black), and writes it to `path`.
    static func draw(width: Int, height: Int, title: String, to path: String, _ body: (OpaquePointer) -> Void) throws(RasterError) {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { throw RasterError("cairo cannot create a \(width)×\(height) surface") }
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_source_rgb(cr, 0, 0, 0)
        cairo_set_font_size(cr, 16)
        cairo_move_to(cr, 10, 28)
        cairo_show_text(cr, title)
        cairo_set_font_size(cr, 12)
        body(cr)
        cairo_surface_flush(surface)
        try writePNG(surface, to: path)
    }

    /// Writes a surface to a PNG file.
    static func writePNG(_ surface: OpaquePointer, to path: String) throws(RasterError) {
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RasterError("cannot write PNG \(path): \(String(cString: cairo_status_to_string(status)))")
        }
    }
}
