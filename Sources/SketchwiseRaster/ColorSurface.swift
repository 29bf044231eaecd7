import CCairo

/// A Cairo ARGB32 image surface (square unless made otherwise) reused from drawing to drawing.
/// Each drawing gets a fresh Cairo context, so an error a drawing leaves in its context never
/// reaches the next one.
final class ColorSurface {
    /// The width (the side of a square surface).
    let side: Int
    let height: Int
    let surface: OpaquePointer
    /// Bytes from one row to the next.
    let stride: Int

    convenience init(side: Int) throws(RasterError) {
        try self.init(width: side, height: side)
    }

    init(width: Int, height: Int) throws(RasterError) {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { throw RasterError("cairo cannot create a \(width)×\(height) colour surface") }
        self.side = width
        self.height = height
        self.surface = surface
        self.stride = Int(cairo_image_surface_get_stride(surface))
    }

    deinit { cairo_surface_destroy(surface) }

    /// Clears the surface to transparent, then calls `body` with a new context on it; returns
    /// `false` when the context ended in an error state.
    func draw<E: Error>(_ body: (OpaquePointer) throws(E) -> Void) throws(E) -> Bool {
        guard let cr = cairo_create(surface) else { return false }
        defer { cairo_destroy(cr) }
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        try body(cr)
        cairo_surface_flush(surface)
        return cairo_status(cr) == CAIRO_STATUS_SUCCESS
    }

    /// A premultiplied ARGB word as *darkness over white* per channel: what the colour takes away
    /// from a white background, 0 (white or transparent) … 255 (black, opaque).
    @inline(__always)
    static func darkness(_ word: UInt32) -> (r: Int32, g: Int32, b: Int32) {
        let a = Int32(word >> 24)
        return (a - Int32((word >> 16) & 0xFF), a - Int32((word >> 8) & 0xFF), a - Int32(word & 0xFF))
    }

    /// Calls `body` with the surface's pixels: premultiplied ARGB words, `stride / 4` per row.
    func withPixels<R>(_ body: (UnsafePointer<UInt32>, Int) -> R) -> R {
        let data = UnsafeRawPointer(cairo_image_surface_get_data(surface)!)
        return body(data.assumingMemoryBound(to: UInt32.self), stride / 4)
    }

    /// The surface encoded as a PNG file's bytes (with transparency).
    func pngBytes() throws(RasterError) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(surface, { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RasterError("cannot encode PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        return sink.bytes
    }
}
