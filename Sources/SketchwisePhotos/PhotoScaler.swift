import CGdkPixbuf
import SketchwiseNN

/// Scales decoded photos with gdk-pixbuf's bilinear filter (which averages over the source
/// pixels when shrinking).
enum PhotoScaler {
    /// `image` scaled, keeping its aspect ratio, so that its shorter side is `shorterSide`.
    static func scaled(_ image: RGBImage, shorterSide: Int) throws(PhotoError) -> RGBImage {
        let size = PhotoDecoder.scaledSize(width: image.width, height: image.height, shorterSide: shorterSide)
        var pixels = image.pixels
        let result: RGBImage? = pixels.withUnsafeMutableBufferPointer { source in
            guard let wrapped = gdk_pixbuf_new_from_data(
                source.baseAddress, GDK_COLORSPACE_RGB, 0, 8, Int32(image.width), Int32(image.height), Int32(image.width * 3), nil, nil)
            else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(wrapped)) }
            guard let scaled = gdk_pixbuf_scale_simple(wrapped, Int32(size.width), Int32(size.height), GDK_INTERP_BILINEAR) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(scaled)) }
            let rowStride = Int(gdk_pixbuf_get_rowstride(scaled))
            guard let data = gdk_pixbuf_read_pixels(scaled), gdk_pixbuf_get_n_channels(scaled) == 3 else { return nil }
            var out = [UInt8](repeating: 0, count: size.width * size.height * 3)
            for y in 0..<size.height {
                for i in 0..<(size.width * 3) { out[y * size.width * 3 + i] = data[y * rowStride + i] }
            }
            return RGBImage(width: size.width, height: size.height, pixels: out)
        }
        guard let result else { throw PhotoError(.unreadable, "the photo cannot be scaled to \(size.width)×\(size.height)") }
        return result
    }
}

/// Writes a model's input tensor from a photo whose shorter side is already `input.resize`.
enum PhotoTensor {
    /// The centre `size × size` square of `image`, as three planes (R, G, B) of
    /// `(v / 255 − mean) / std`.
    static func write(_ image: RGBImage, input: ImageInput, into tensor: UnsafeMutableBufferPointer<Float>) {
        let size = input.size
        let (left, top) = (max(0, (image.width - size) / 2), max(0, (image.height - size) / 2))
        let plane = size * size
        image.pixels.withUnsafeBufferPointer { pixels in
            for c in 0..<3 {
                let scale = Float(1 / (255 * input.std[c])), shift = Float(-input.mean[c] / input.std[c])
                for y in 0..<size {
                    let row = min(image.height - 1, top + y) * image.width
                    let target = c * plane + y * size
                    for x in 0..<size {
                        let value = Float(pixels[(row + min(image.width - 1, left + x)) * 3 + c])
                        tensor[target + x] = value * scale + shift
                    }
                }
            }
        }
    }
}
