import CGdkPixbuf
import SketchwiseRaster

/// A decoded photo: 8-bit RGB triples, row by row, upright.
public struct RGBImage: Sendable, Equatable {
    public let width, height: Int
    /// `width × height × 3` bytes.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "an RGB image needs 3 bytes per pixel")
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }
}

/// Decodes PNG and JPEG photos with gdk-pixbuf. Only those two loaders are ever used on the bytes
/// (never one chosen by sniffing, such as SVG or TIFF); the size the header declares is checked
/// against the limits before decoding, and a cut-off file is refused; a JPEG that will be scaled down is decoded at a reduced
/// scale; EXIF orientation is applied (phone photos are stored sideways); transparent pixels are
/// laid on white. Thread-safe.
public enum PhotoDecoder {
    /// The photo in `bytes`, scaled (keeping its aspect ratio) so that its shorter side is
    /// `shorterSide` pixels, or at its own size when nil.
    /// - Throws: ``PhotoError``: `.unsupportedFormat`, `.tooLarge` or `.unreadable`.
    public static func decode(_ bytes: [UInt8], shorterSide: Int? = nil, limits: PhotoLimits = PhotoLimits()) throws(PhotoError) -> RGBImage {
        guard bytes.count <= limits.maximumBytes else {
            throw PhotoError(.tooLarge, "the photo has \(bytes.count) bytes, more than the \(limits.maximumBytes) allowed")
        }
        let header = try PhotoHeader(bytes)
        guard header.width <= limits.maximumPixels / header.height else {
            throw PhotoError(.tooLarge, "the photo is \(header.width)×\(header.height) pixels, more than the \(limits.maximumPixels) allowed")
        }
        // gdk-pixbuf draws a cut-off file as far as it goes, the rest grey.
        guard BitmapRasterizer.isComplete(bytes) else { throw PhotoError(.unreadable, "the \(header.format.rawValue.uppercased()) file is cut off") }
        var error: UnsafeMutablePointer<GError>?
        guard let loader = gdk_pixbuf_loader_new_with_type(header.format.rawValue, &error) else {
            throw PhotoError(.unreadable, "no \(header.format.rawValue) decoder: \(GLibError.message(consuming: error))")
        }
        defer { g_object_unref(loader) }
        if let shorterSide {
            let size = scaledSize(width: header.width, height: header.height, shorterSide: shorterSide)
            gdk_pixbuf_loader_set_size(loader, Int32(size.width), Int32(size.height))
        }
        let written = bytes.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
        var closeError: UnsafeMutablePointer<GError>?
        let closed = gdk_pixbuf_loader_close(loader, &closeError)
        if error == nil { error = closeError } else if let closeError { g_error_free(closeError) }
        guard written != 0, closed != 0, error == nil, let decoded = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw PhotoError(.unreadable, "the \(header.format.rawValue.uppercased()) file cannot be decoded: \(GLibError.message(consuming: error))")
        }
        guard let upright = gdk_pixbuf_apply_embedded_orientation(decoded) else {
            throw PhotoError(.unreadable, "the photo cannot be turned upright")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(upright)) }
        return try rgb(upright)
    }

    /// `width × height` scaled so that the shorter side is `shorterSide` (the longer one rounded
    /// down, as torchvision's `Resize` does).
    public static func scaledSize(width: Int, height: Int, shorterSide: Int) -> (width: Int, height: Int) {
        if width <= height { return (shorterSide, max(1, height * shorterSide / width)) }
        return (max(1, width * shorterSide / height), shorterSide)
    }

    /// The pixbuf's pixels as RGB, alpha laid on white.
    private static func rgb(_ pixbuf: OpaquePointer) throws(PhotoError) -> RGBImage {
        let (width, height) = (Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowStride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        guard width > 0, height > 0, gdk_pixbuf_get_colorspace(pixbuf) == GDK_COLORSPACE_RGB,
            gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels == (hasAlpha ? 4 : 3),
            let source = gdk_pixbuf_read_pixels(pixbuf)
        else { throw PhotoError(.unreadable, "the photo has an unsupported pixel layout") }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                let row = source + y * rowStride
                for x in 0..<width {
                    let (p, q) = (row + x * channels, (y * width + x) * 3)
                    guard hasAlpha else {
                        (target[q], target[q + 1], target[q + 2]) = (p[0], p[1], p[2])
                        continue
                    }
                    let (alpha, paper) = (UInt32(p[3]), 255 - UInt32(p[3]))
                    for c in 0..<3 { target[q + c] = UInt8((UInt32(p[c]) * alpha + 255 * paper + 127) / 255) }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}
