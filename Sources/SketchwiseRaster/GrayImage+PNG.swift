import CCairo
import Foundation
import SketchwiseCore

extension GrayImage {
    /// Writes the image as an 8-bit PNG (gray values as they are: white ink on black; use
    /// ``GrayImage/inverted`` for black on white).
    public func writePNG(to path: String) throws(RasterError) {
        guard width > 0, height > 0, pixels.count == width * height else {
            throw RasterError("image of \(width)×\(height) with \(pixels.count) pixels cannot be written")
        }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            throw RasterError("cairo cannot create a \(width)×\(height) surface")
        }
        defer { cairo_surface_destroy(surface) }
        let stride = Int(cairo_image_surface_get_stride(surface))
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        for y in 0..<height {
            let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let v = UInt32(pixels[y * width + x])
                row[x] = v << 16 | v << 8 | v
            }
        }
        cairo_surface_mark_dirty(surface)
        try ChartSurface.writePNG(surface, to: path)
    }
}
