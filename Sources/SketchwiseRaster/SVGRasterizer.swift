import CRSVG
import SketchwiseCore

/// Renders SVG documents with librsvg by a ``PictureRecipe`` into N×N outlines (ink 255 on 0)
/// and colour thumbnails. External files an SVG refers to are not loaded. Reuses its surfaces:
/// not thread-safe, use one per thread.
public final class SVGRasterizer {
    private let canvas: PictureCanvas

    /// - Throws: ``RasterError`` when a size is out of range or Cairo cannot make a surface.
    public init(size: Int, recipe: PictureRecipe = .outline, thumbnailSize: Int = 96) throws(RasterError) {
        canvas = try PictureCanvas(size: size, recipe: recipe, thumbnailSize: thumbnailSize)
    }

    public var size: Int { canvas.size }

    /// Renders the SVG document in `bytes`: its page (size in pixels, else viewBox), or, for a
    /// document without either, the whole drawing by its ink extents.
    /// - Throws: ``PictureError`` for a document librsvg cannot read, one with neither a page nor
    ///   ink, one that shows nothing, or one whose drawing fails.
    public func render(_ bytes: [UInt8]) throws(PictureError) -> RenderedPicture {
        try withDocument(bytes) { width, height, _, drawing throws(PictureError) in
            try canvas.render(width: width, height: height, drawing)
        }
    }

    /// The document drawn in colour, cropped to its ink (or to `crop`, a box on its page), longer
    /// side `maxSide` pixels.
    /// - Throws: ``PictureError`` as ``render(_:)``.
    public func picture(_ bytes: [UInt8], maxSide: Int, crop: Rect? = nil) throws(PictureError) -> PicturePNG {
        try withDocument(bytes) { width, height, _, drawing throws(PictureError) in
            try canvas.picture(width: width, height: height, maxSide: maxSide, crop: crop, drawing)
        }
    }

    /// The document's page and the box of its ink on that page (what ``picture(_:maxSide:)``
    /// crops to), or nil for a document with neither a page size nor a viewBox.
    /// - Throws: ``PictureError`` as ``render(_:)``.
    public func extent(_ bytes: [UInt8]) throws(PictureError) -> PictureExtent? {
        try withDocument(bytes) { width, height, onPage, drawing throws(PictureError) -> PictureExtent? in
            guard onPage else { return nil }
            return PictureExtent(pageWidth: width, pageHeight: height, ink: try canvas.inkBox(width: width, height: height, drawing))
        }
    }

    /// Reads the document and calls `body` with its size, whether that is its page (else its ink
    /// extents) and how to draw it.
    private func withDocument<T>(
        _ bytes: [UInt8], _ body: (Double, Double, Bool, PictureCanvas.Drawing) throws(PictureError) -> T
    ) throws(PictureError) -> T {
        guard !bytes.isEmpty else { throw PictureError(.unreadable, "empty file") }
        var error: UnsafeMutablePointer<GError>?
        let handle = bytes.withUnsafeBufferPointer { rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        guard let handle else { throw PictureError(.unreadable, GLibError.message(consuming: error)) }
        defer { g_object_unref(handle) }
        if let (width, height) = Self.pageSize(handle) {
            let drawing = Self.drawing(width: width, height: height) { rsvg_handle_render_document(handle, $0, $1, $2) }
            return try body(width, height, true, drawing)
        }
        var ink = RsvgRectangle(), logical = RsvgRectangle()
        guard rsvg_handle_get_geometry_for_element(handle, nil, &ink, &logical, &error) != 0 else {
            throw PictureError(.noSize, GLibError.message(consuming: error))
        }
        guard ink.width > 0, ink.height > 0 else { throw PictureError(.noSize, "no size, no viewBox and no ink") }
        return try body(
            ink.width, ink.height, false,
            Self.drawing(width: ink.width, height: ink.height) { rsvg_handle_render_element(handle, $0, nil, $1, $2) })
    }

    /// A picture of `width`×`height` that librsvg draws with `draw` into a viewport of that size
    /// (the context, the viewport, the error).
    private static func drawing(
        width: Double, height: Double,
        _ draw: @escaping (OpaquePointer, UnsafePointer<RsvgRectangle>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> gboolean
    ) -> PictureCanvas.Drawing {
        { cr throws(PictureError) in
            var viewport = RsvgRectangle(x: 0, y: 0, width: width, height: height)
            var error: UnsafeMutablePointer<GError>?
            guard draw(cr, &viewport, &error) != 0 else { throw PictureError(.renderFailed, GLibError.message(consuming: error)) }
        }
    }

    /// The page's size in pixels when the document gives one, else its viewBox's.
    private static func pageSize(_ handle: UnsafeMutablePointer<RsvgHandle>) -> (Double, Double)? {
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) != 0, width > 0, height > 0 {
            return (width, height)
        }
        var hasWidth: gboolean = 0, hasHeight: gboolean = 0, hasViewBox: gboolean = 0
        var w = RsvgLength(), h = RsvgLength(), viewBox = RsvgRectangle()
        rsvg_handle_get_intrinsic_dimensions(handle, &hasWidth, &w, &hasHeight, &h, &hasViewBox, &viewBox)
        guard hasViewBox != 0, viewBox.width > 0, viewBox.height > 0 else { return nil }
        return (viewBox.width, viewBox.height)
    }
}
