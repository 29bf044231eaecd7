import CGdkPixbuf
import SketchwiseRaster
import SketchwiseWork

/// Decodes PNG and JPEG photos with gdk-pixbuf, its cost bounded before it is paid. Only those two
/// loaders are ever used on the bytes (never one chosen by sniffing, such as SVG or TIFF). A
/// ``PhotoDecodePlan`` checks the header and the layout against the limits first: each side,
/// the aspect ratio, the pixels, a JPEG's scans and the decode's memory; a cut-off file is
/// refused. The decoder is then asked for no more than the plan's size (a JPEG is decoded at a
/// reduced scale), fed a slice at a time, and stopped between slices when the work's
/// ``SketchwiseWork/StopSignal`` is raised (its deadline passed). EXIF orientation is applied
/// (phone photos are stored sideways); transparent pixels are laid on white. Thread-safe.
public enum PhotoDecoder {
    /// Most bytes given to the decoder at a time (a JPEG's slices also end where each scan
    /// starts): the stop signal is checked between them.
    static let sliceSize = 16 << 10

    /// The photo in `bytes` at its own size.
    /// - Throws: ``PhotoError``: `.unsupportedFormat`, `.tooLarge` or `.unreadable`.
    public static func decode(_ bytes: [UInt8], limits: PhotoLimits = PhotoLimits()) throws(PhotoError) -> RGBImage {
        let plan = try PhotoDecodePlan(bytes, limits: limits)
        return try withDecoded(bytes, plan: plan) { decoded throws(PhotoError) in
            let upright = try PhotoScaler.upright(decoded)
            defer { PhotoScaler.release(upright) }
            return try PhotoScaler.rgb(upright)
        }
    }

    /// The centre square of the photo in `bytes` (as long as its shorter side), upright, scaled to
    /// `side` × `side`: what an image classifier takes (torchvision's `Resize(side)` then
    /// `CenterCrop`, cropped first). The photo is decoded at a smaller size where it is larger,
    /// never a larger one.
    /// - Throws: ``PhotoError``: `.unsupportedFormat`, `.tooLarge` or `.unreadable`.
    public static func decodeSquare(_ bytes: [UInt8], side: Int, limits: PhotoLimits = PhotoLimits()) throws(PhotoError) -> RGBImage {
        let plan = try PhotoDecodePlan(bytes, square: side, limits: limits)
        return try withDecoded(bytes, plan: plan) { decoded throws(PhotoError) in
            let square = try PhotoScaler.centreSquare(of: decoded, side: side)
            defer { PhotoScaler.release(square) }
            let upright = try PhotoScaler.upright(square)
            defer { PhotoScaler.release(upright) }
            return try PhotoScaler.rgb(upright)
        }
    }

    /// Decodes the photo as `plan` says and hands `body` the decoder's pixbuf (the loader's own,
    /// valid within `body`).
    private static func withDecoded<T>(
        _ bytes: [UInt8], plan: PhotoDecodePlan, _ body: (OpaquePointer) throws(PhotoError) -> T
    ) throws(PhotoError) -> T {
        let format = plan.header.format.rawValue
        var error: UnsafeMutablePointer<GError>?
        guard let loader = gdk_pixbuf_loader_new_with_type(format, &error) else {
            throw PhotoError(.unreadable, "no \(format) decoder: \(GLibError.message(consuming: error))")
        }
        defer { g_object_unref(loader) }
        if plan.shrinks {
            guard let width = Int32(exactly: plan.decodedWidth), let height = Int32(exactly: plan.decodedHeight) else {
                throw PhotoError(.tooLarge, "the photo cannot be decoded at \(plan.decodedWidth)×\(plan.decodedHeight) pixels")
            }
            gdk_pixbuf_loader_set_size(loader, width, height)
        }
        var (offset, written, stopped) = (0, true, false)
        var scanStarts = plan.scanStarts.makeIterator(), nextScan = scanStarts.next()
        bytes.withUnsafeBufferPointer { data in
            guard let start = data.baseAddress else { return }
            while written, offset < plan.end {
                if StopSignal.shouldStop {
                    stopped = true
                    return
                }
                while let scan = nextScan, scan <= offset { nextScan = scanStarts.next() }
                let sliceEnd = min(offset + sliceSize, nextScan ?? plan.end, plan.end)
                written = gdk_pixbuf_loader_write(loader, start + offset, gsize(sliceEnd - offset), &error) != 0
                offset = sliceEnd
            }
        }
        var closeError: UnsafeMutablePointer<GError>?
        let closed = gdk_pixbuf_loader_close(loader, &closeError) != 0
        if error == nil { error = closeError } else if let closeError { g_error_free(closeError) }
        if stopped {
            if let error { g_error_free(error) }
            throw PhotoError(.tooLarge, "decoding the photo was stopped after \(offset) of \(plan.end) bytes: it took too long")
        }
        let upper = format.uppercased()
        guard written, closed, error == nil, let decoded = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw PhotoError(.unreadable, "the \(upper) file cannot be decoded: \(GLibError.message(consuming: error))")
        }
        return try body(decoded)
    }
}
