import CCairo
import CGdkPixbuf
import SketchwiseCore

/// Renders bitmap images (PNG, JPEG, GIF and whatever else gdk-pixbuf's loaders read) by a
/// ``PictureRecipe``, like ``SVGRasterizer`` does SVG documents: the outline at the model's size
/// and a colour thumbnail. Used for pictures that come from outside the library (web search).
/// Reuses its surfaces: not thread-safe, use one per thread.
public final class BitmapRasterizer {
    private let canvas: PictureCanvas
    /// Images with more pixels than this are refused before decoding.
    public static let maximumPixels = 40_000_000

    /// - Throws: ``RasterError`` when a size is out of range or Cairo cannot make a surface.
    public init(size: Int, recipe: PictureRecipe = .outline, thumbnailSize: Int = 96) throws(RasterError) {
        canvas = try PictureCanvas(size: size, recipe: recipe, thumbnailSize: thumbnailSize)
    }

    public var size: Int { canvas.size }

    /// Whether `bytes` start like an image file gdk-pixbuf knows (PNG, JPEG, GIF, WebP, BMP).
    public static func looksLikeImage(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        let signatures: [[UInt8]] = [[0x89, 0x50, 0x4E, 0x47], [0xFF, 0xD8, 0xFF], Array("GIF8".utf8), Array("BM".utf8)]
        if signatures.contains(where: { head.starts(with: $0) }) { return true }
        return head.count == 12 && head.starts(with: Array("RIFF".utf8)) && Array(head[8..<12]) == Array("WEBP".utf8)
    }

    /// Whether an image file of a format ``looksLikeImage(_:)`` knows has all of its bytes: its
    /// end marker (PNG `IEND`, JPEG end of image, GIF trailer) or its declared length (WebP, BMP).
    /// gdk-pixbuf draws a cut-off file as far as it goes; a cut-off download is refused instead.
    public static func isComplete(_ bytes: [UInt8]) -> Bool {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D || bytes[end - 1] == 0x20 { end -= 1 }
        let body = bytes[..<end]
        func littleEndian32(at offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        switch bytes.first {
        case 0x89: return body.count >= 12 && Array(body.suffix(8).prefix(4)) == Array("IEND".utf8)
        case 0xFF: return body.suffix(2).elementsEqual([0xFF, 0xD9])
        case UInt8(ascii: "G"): return body.last == 0x3B
        case UInt8(ascii: "R"): return bytes.count >= 12 && littleEndian32(at: 4) + 8 <= bytes.count
        case UInt8(ascii: "B"): return bytes.count >= 6 && littleEndian32(at: 2) <= bytes.count
        default: return false
        }
    }

    /// Renders the image file in `bytes`.
    /// - Throws: ``PictureError`` for bytes that are not a readable image, a huge image, or one
    ///   that shows nothing against white.
    public func render(_ bytes: [UInt8]) throws(PictureError) -> RenderedPicture {
        let image = try Self.decode(bytes)
        return try canvas.render(width: Double(image.side), height: Double(image.height)) { cr in
            cairo_set_source_surface(cr, image.surface, 0, 0)
            cairo_paint(cr)
        }
    }

    /// The ink of an image file at its own size: 0 where it is white or transparent, 255 where
    /// it is black (the darkness of the image laid on white paper); for photos and scans of drawings.
    /// - Throws: ``PictureError`` for bytes that are not a readable image, or a huge one.
    public static func inkImage(_ bytes: [UInt8]) throws(PictureError) -> GrayImage {
        let image = try decode(bytes)
        let source = UnsafeMutableRawPointer(cairo_image_surface_get_data(image.surface)!).assumingMemoryBound(to: UInt32.self)
        let row = image.stride / 4
        var ink = GrayImage(width: image.side, height: image.height)
        for y in 0..<image.height {
            for x in 0..<image.side {
                // Premultiplied ARGB over white: each channel plus what the alpha leaves of the paper.
                let pixel = source[y * row + x], paper = 255 - Int(pixel >> 24)
                let (r, g, b) = (Int(pixel >> 16 & 0xFF) + paper, Int(pixel >> 8 & 0xFF) + paper, Int(pixel & 0xFF) + paper)
                ink[x, y] = UInt8(255 - min(255, (299 * r + 587 * g + 114 * b) / 1000))
            }
        }
        return ink
    }

    /// The image decoded into a Cairo surface (premultiplied ARGB).
    private static func decode(_ bytes: [UInt8]) throws(PictureError) -> ColorSurface {
        guard looksLikeImage(bytes) else { throw PictureError(.unreadable, "not an image file") }
        guard isComplete(bytes) else { throw PictureError(.unreadable, "the image file is cut off") }
        guard let loader = gdk_pixbuf_loader_new() else { throw PictureError(.unreadable, "gdk-pixbuf has no loader") }
        defer { g_object_unref(loader) }
        var error: UnsafeMutablePointer<GError>?
        let written = bytes.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
        var closeError: UnsafeMutablePointer<GError>?
        let closed = gdk_pixbuf_loader_close(loader, &closeError)
        if error == nil { error = closeError } else if let closeError { g_error_free(closeError) }
        guard written != 0, closed != 0, error == nil, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw PictureError(.unreadable, GLibError.message(consuming: error))
        }
        let (width, height) = (Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)))
        guard width > 0, height > 0, width * height <= maximumPixels else {
            throw PictureError(.noSize, "image of \(width)×\(height) pixels")
        }
        guard gdk_pixbuf_get_colorspace(pixbuf) == GDK_COLORSPACE_RGB, gdk_pixbuf_get_bits_per_sample(pixbuf) == 8 else {
            throw PictureError(.unreadable, "unsupported pixel format")
        }
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowStride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        guard channels == (hasAlpha ? 4 : 3), let source = gdk_pixbuf_read_pixels(pixbuf) else {
            throw PictureError(.unreadable, "unsupported pixel layout")
        }
        let image: ColorSurface
        do { image = try ColorSurface(width: width, height: height) } catch { throw PictureError(.renderFailed, error.description) }
        let target = UnsafeMutableRawPointer(cairo_image_surface_get_data(image.surface)!).assumingMemoryBound(to: UInt32.self)
        let targetRow = image.stride / 4
        for y in 0..<height {
            for x in 0..<width {
                let p = source + y * rowStride + x * channels
                let a = hasAlpha ? UInt32(p[3]) : 255
                let (r, g, b) = (UInt32(p[0]) * a / 255, UInt32(p[1]) * a / 255, UInt32(p[2]) * a / 255)
                target[y * targetRow + x] = a << 24 | r << 16 | g << 8 | b
            }
        }
        cairo_surface_mark_dirty(image.surface)
        return image
    }
}
