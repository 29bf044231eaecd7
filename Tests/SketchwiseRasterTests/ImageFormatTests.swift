import Foundation
import SketchwiseCore
import SketchwiseRaster
import Testing

/// The image formats that `detect`, `similarity` and `fewshot --runs` promise beyond PNG and JPEG.
@Suite struct ImageFormatTests {
    /// A lossless WebP (48 × 32: a ring and a line, black on white), read through gdk-pixbuf's WebP
    /// loader (Debian's `webp-pixbuf-loader`, which scripts/install-deps.sh installs).
    @Test func aWebPImageIsReadAsInk() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/circle-and-line.webp")
        let ink = try BitmapRasterizer.inkImage([UInt8](try Data(contentsOf: url)))
        #expect(ink.width == 48 && ink.height == 32)
        #expect(ink[0, 0] == 0 && ink[18, 16] == 0, "paper and the ring's inside are blank")
        #expect(ink[7, 16] > 128 && ink[39, 16] > 128, "the ring's left side and the line are ink")
    }
}
