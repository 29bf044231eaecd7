import CCairo
import SketchwiseCore
import SketchwiseWork

/// Why a raster cannot be made or written.
public struct RasterError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// How opaque each stroke is drawn.
public enum StrokeShading: Sendable {
    /// Every stroke opaque.
    case uniform
    /// Stroke `i` of `n` (counting strokes with points) at opacity `1 - 0.75 · i / max(n - 1, 1)`:
    /// the first opaque, the last at 0.25, so the image shows which strokes came first.
    case byOrder
}

/// Renders stroke sketches into N×N grayscale images (ink 255 on 0) with a ``RasterRecipe``.
///
/// Owns one Cairo surface that is reused for every render, so rendering allocates nothing
/// beyond the returned image (none with ``render(_:into:)``). Not thread-safe: use one
/// rasteriser per thread.
public final class SketchRasterizer {
    public let size: Int
    public let recipe: RasterRecipe
    private let surface: OpaquePointer
    private let context: OpaquePointer
    private let stride: Int

    /// - Throws: ``RasterError`` when `size` is not in 1…4096 or Cairo cannot make a surface.
    public init(size: Int, recipe: RasterRecipe = .quickDraw) throws(RasterError) {
        guard (1...4096).contains(size) else { throw RasterError("raster size \(size) is outside 1…4096") }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(size), Int32(size)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { throw RasterError("cairo cannot create a \(size)×\(size) surface") }
        guard let context = cairo_create(surface), cairo_status(context) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw RasterError("cairo cannot create a drawing context")
        }
        self.size = size
        self.recipe = recipe
        self.surface = surface
        self.context = context
        self.stride = Int(cairo_image_surface_get_stride(surface))
        cairo_set_antialias(context, CAIRO_ANTIALIAS_BEST)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_width(context, recipe.lineWidth)
        let scale = Double(size) / recipe.view
        cairo_scale(context, scale, scale)
        let shift = (2 * recipe.padding + recipe.lineWidth) / 2.0
        cairo_translate(context, shift, shift)
        cairo_set_source_rgba(context, 0, 0, 0, 1)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// The sketch rendered into a new image. An empty sketch gives a blank image.
    public func render(_ sketch: StrokeSketch, shading: StrokeShading = .uniform) -> GrayImage {
        var image = GrayImage(width: size, height: size)
        image.pixels.withUnsafeMutableBufferPointer { render(sketch, into: $0, shading: shading) }
        return image
    }

    /// Renders into `buffer` (`size * size` bytes, row-major), overwriting it. Work asked to stop
    /// (``SketchwiseWork/StopSignal``) ends between strokes, leaving the image unfinished.
    public func render(_ sketch: StrokeSketch, into buffer: UnsafeMutableBufferPointer<UInt8>, shading: StrokeShading = .uniform) {
        precondition(buffer.count >= size * size, "buffer smaller than size × size")
        let data = cairo_image_surface_get_data(surface)!
        cairo_surface_flush(surface)
        data.initialize(repeating: 0, count: stride * size)
        cairo_surface_mark_dirty(surface)
        if let box = sketch.boundingBox { draw(sketch, box: box, shading: shading) }
        cairo_surface_flush(surface)
        let output = buffer.baseAddress!
        for row in 0..<size {
            (output + row * size).update(from: data + row * stride, count: size)
        }
    }

    /// The most segments stroked as one path. Longer strokes (about 0.5 % of raw Quick, Draw!
    /// strokes) go in pieces, which differ from one path only in antialiased
    /// pixels where the pieces overlap.
    static let segmentsPerPath = 256

    /// The recipe, step for step as Google's `vector_to_raster`: fit the bounding box into the
    /// frame, scale the view to the output (set once, in `init`), one `stroke()` per stroke starting
    /// with a zero-length segment so that single points become round dots.
    private func draw(_ sketch: StrokeSketch, box: Rect, shading: StrokeShading) {
        let cr = context
        let longest = max(box.width, box.height)
        let f = longest > 0 ? recipe.extent / longest : 1.0
        let ox = (recipe.frame - box.width * f) / 2.0
        let oy = (recipe.frame - box.height * f) / 2.0
        let drawn = shading == .byOrder ? sketch.strokes.count { !$0.points.isEmpty } : 0
        defer { cairo_set_source_rgba(cr, 0, 0, 0, 1) }
        let stop = StopSignal.current
        for (index, stroke) in sketch.strokes.lazy.filter({ !$0.points.isEmpty }).enumerated() {
            if stop?.isRaised == true { return }
            if shading == .byOrder {
                cairo_set_source_rgba(cr, 0, 0, 0, 1.0 - 0.75 * Double(index) / Double(max(drawn - 1, 1)))
            }
            let first = stroke.points[0]
            let u0 = (first.x - box.minX) * f + ox, v0 = (first.y - box.minY) * f + oy
            cairo_move_to(cr, u0, v0)
            cairo_line_to(cr, u0, v0)
            var segments = 0
            for p in stroke.points.dropFirst() {
                let u = (p.x - box.minX) * f + ox, v = (p.y - box.minY) * f + oy
                cairo_line_to(cr, u, v)
                segments += 1
                if segments == Self.segmentsPerPath {
                    // Cairo's cost grows with the square of a path's segments: a 20,000-point
                    // scribble took 5 s as one path. Round caps meet like a round join.
                    cairo_stroke(cr)
                    cairo_move_to(cr, u, v)
                    segments = 0
                    if stop?.isRaised == true { return }
                }
            }
            cairo_stroke(cr)
        }
    }
}
