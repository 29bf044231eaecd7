import CGdkPixbuf

/// Cuts and scales photos with gdk-pixbuf: the centre square, scaled with the bilinear filter
/// (which averages over the source pixels when shrinking). Only the square is ever scaled up,
/// never a whole photo, so what is allocated is bounded by the square's side.
enum PhotoScaler {
    /// The centre square of `image` (its shorter side), scaled to `side` × `side`.
    static func centreSquare(_ image: RGBImage, side: Int) throws(PhotoError) -> RGBImage {
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height),
            let rowBytes = Int32(exactly: image.width * 3), width > 0, height > 0
        else { throw PhotoError(.tooLarge, "the photo of \(image.width)×\(image.height) pixels cannot be scaled") }
        let result = image.pixels.withUnsafeBufferPointer { source -> Result<RGBImage, PhotoError> in
            let wrapped = gdk_pixbuf_new_from_data(source.baseAddress, GDK_COLORSPACE_RGB, 0, 8, width, height, rowBytes, nil, nil)
            guard let wrapped else {
                return .failure(PhotoError(.unreadable, "the photo cannot be scaled"))
            }
            defer { release(wrapped) }
            return Result { () throws(PhotoError) -> RGBImage in
                let square = try centreSquare(of: wrapped, side: side)
                defer { release(square) }
                return try rgb(square)
            }
        }
        return try result.get()
    }

    /// The centre square of `pixbuf` (its shorter side) scaled to `side` × `side`, keeping the
    /// EXIF orientation the decoder read: a new reference, for ``release(_:)``.
    static func centreSquare(of pixbuf: OpaquePointer, side: Int) throws(PhotoError) -> OpaquePointer {
        let (width, height) = (gdk_pixbuf_get_width(pixbuf), gdk_pixbuf_get_height(pixbuf))
        let shorter = min(width, height)
        guard shorter > 0, let target = Int32(exactly: side), target > 0,
            let square = gdk_pixbuf_new_subpixbuf(pixbuf, (width - shorter) / 2, (height - shorter) / 2, shorter, shorter)
        else { throw PhotoError(.unreadable, "the centre of the \(width)×\(height) photo cannot be cut out") }
        var result = square
        if shorter != target {
            defer { release(square) }
            guard let scaled = gdk_pixbuf_scale_simple(square, target, target, GDK_INTERP_BILINEAR) else {
                throw PhotoError(.unreadable, "the photo cannot be scaled to \(side)×\(side)")
            }
            result = scaled
        }
        if let orientation = gdk_pixbuf_get_option(pixbuf, "orientation") { _ = gdk_pixbuf_set_option(result, "orientation", orientation) }
        return result
    }

    /// The pixbuf turned upright as its EXIF orientation says: a new reference, for ``release(_:)``.
    static func upright(_ pixbuf: OpaquePointer) throws(PhotoError) -> OpaquePointer {
        guard let upright = gdk_pixbuf_apply_embedded_orientation(pixbuf) else {
            throw PhotoError(.unreadable, "the photo cannot be turned upright")
        }
        return upright
    }

    /// The pixbuf's pixels as RGB, alpha laid on white.
    static func rgb(_ pixbuf: OpaquePointer) throws(PhotoError) -> RGBImage {
        let (width, height) = (Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowStride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        guard width > 0, height > 0, gdk_pixbuf_get_colorspace(pixbuf) == GDK_COLORSPACE_RGB,
            gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels == (hasAlpha ? 4 : 3), rowStride >= width * channels,
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

    /// Gives back a reference to a pixbuf.
    static func release(_ pixbuf: OpaquePointer) {
        g_object_unref(UnsafeMutableRawPointer(pixbuf))
    }
}
