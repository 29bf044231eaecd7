import CCairo
import Foundation
import SketchwiseCore
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

@Suite struct RasterizerTests {
    func sketch(_ strokes: [[(Double, Double)]]) -> StrokeSketch {
        StrokeSketch(strokes: strokes.map { Stroke(points: $0.map { Point(x: $0.0, y: $0.1) }) })
    }

    @Test func anEmptySketchRendersBlank() throws {
        let image = try SketchRasterizer(size: 28).render(StrokeSketch())
        #expect(image.pixels.allSatisfy { $0 == 0 })
    }

    @Test func aDotIsARoundBlobInTheCenter() throws {
        let image = try SketchRasterizer(size: 28).render(sketch([[(5, 5)]]))
        let inked = image.pixels.enumerated().filter { $0.element > 0 }.map(\.offset)
        #expect(!inked.isEmpty)
        let xs = inked.map { $0 % 28 }, ys = inked.map { $0 / 28 }
        #expect(Set(xs).isSubset(of: 12...15) && Set(ys).isSubset(of: 12...15))
    }

    @Test func theDrawingIsFittedWithItsAspectKeptAndCentered() throws {
        let image = try SketchRasterizer(size: 28).render(sketch([[(0, 0), (1000, 0)]]))
        let rows = (0..<28).filter { y in (0..<28).contains { image[$0, y] > 127 } }
        let columns = (0..<28).filter { x in (0..<28).contains { image[x, $0] > 127 } }
        #expect(rows.count <= 2, "a horizontal line stays thin: rows \(rows)")
        #expect(columns.count >= 23 && columns.count <= 25, "the long side spans 255/304 of the frame")
        #expect(columns.first! + columns.last! == 27, "centred")
    }

    @Test func scaleAndOffsetDoNotChangeTheRender() throws {
        let r = try SketchRasterizer(size: 28)
        let a = sketch([[(0, 0), (40, 30), (10, 50)], [(5, 5)]])
        let b = sketch([[(1000, 2000), (1080, 2060), (1020, 2100)], [(1010, 2010)]])
        #expect(r.render(a) == r.render(b))
    }

    @Test func renderingIntoABufferReusesTheSurfaceWithoutLeftovers() throws {
        let r = try SketchRasterizer(size: 28)
        let first = r.render(sketch([[(0, 0), (10, 10)]]))
        _ = r.render(sketch([[(0, 10), (10, 0)], [(3, 3)]]))
        var buffer = [UInt8](repeating: 99, count: 28 * 28)
        buffer.withUnsafeMutableBufferPointer { r.render(sketch([[(0, 0), (10, 10)]]), into: $0) }
        #expect(buffer == first.pixels)
    }

    @Test func sizesOutsideTheRangeAreErrors() {
        #expect(throws: RasterError.self) { try SketchRasterizer(size: 0) }
        #expect(throws: RasterError.self) { try SketchRasterizer(size: 100_000) }
    }

    @Test func pngFilesReadBackWithTheSameValues() throws {
        let folder = TemporaryFolder()
        let image = try SketchRasterizer(size: 28).render(sketch([[(0, 0), (10, 10), (20, 0)]]))
        try image.inverted.writePNG(to: folder.path("a.png"))
        let surface = cairo_image_surface_create_from_png(folder.path("a.png"))
        defer { cairo_surface_destroy(surface) }
        #expect(cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS)
        #expect(cairo_image_surface_get_width(surface) == 28)
        let data = try #require(cairo_image_surface_get_data(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let readBack = (0..<28 * 28).map { i in
            UnsafeRawPointer(data + (i / 28) * stride).load(fromByteOffset: (i % 28) * 4, as: UInt32.self) & 0xFF
        }
        #expect(readBack == image.inverted.pixels.map(UInt32.init))
        #expect(throws: RasterError.self) { try image.writePNG(to: "/nonexistent/dir/a.png") }
    }

    @Test func displayPNGUsesTheStrokeColors() throws {
        let folder = TemporaryFolder()
        var s = sketch([[(0, 0), (100, 50)]])
        s.strokes[0].color = Color(red: 1, green: 0, blue: 0)
        try s.writeDisplayPNG(to: folder.path("d.png"), longerSide: 100, padding: 10)
        let surface = cairo_image_surface_create_from_png(folder.path("d.png"))
        defer { cairo_surface_destroy(surface) }
        #expect(cairo_image_surface_get_width(surface) == 120)
        #expect(cairo_image_surface_get_height(surface) == 70)
        #expect(throws: RasterError.self) { try StrokeSketch().writeDisplayPNG(to: folder.path("e.png")) }
    }
}
