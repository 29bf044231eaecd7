import Foundation
import GRDB
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

/// Pictures for people: cropped to their ink with their aspect, from SVG, bitmaps and the index.
@Suite struct PictureImageTests {
    let folder = TemporaryFolder()
    /// A 200×100 page with a 120×40 black bar in it: ink aspect 3 (the ink box is found on a
    /// 64-pixel probe, so to within a few per cent).
    let bar = LibraryFixtures.svg(#"<rect x="40" y="30" width="120" height="40" fill="black"/>"#, width: 200, height: 100)

    @Test func svgPicturesAreCroppedToTheirInkWithTheirAspect() throws {
        let rasterizer = try SVGRasterizer(size: 28)
        let picture = try rasterizer.picture(Array(bar.utf8), maxSide: 300)
        #expect(picture.width == 300 && abs(picture.height - 100) <= 8, "\(picture.width)×\(picture.height)")
        #expect(picture.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let rendered = try rasterizer.render(Array(bar.utf8))
        #expect(abs(rendered.aspect - 3) < 0.25, "\(rendered.aspect)")
    }

    @Test func bitmapsAreReadLikeSVGDrawingsAndGarbageIsRefused() throws {
        let png = try SVGRasterizer(size: 28).picture(Array(bar.utf8), maxSide: 120).bytes
        let bitmap = try BitmapRasterizer(size: 28)
        #expect(BitmapRasterizer.looksLikeImage(png))
        let rendered = try bitmap.render(png)
        #expect(abs(rendered.aspect - 3) < 0.25 && rendered.raster.pixels.contains { $0 > 128 })
        let html = Array("<html>no</html>".utf8)
        #expect(!BitmapRasterizer.looksLikeImage(html))
        #expect(throws: PictureError.self) { try bitmap.render(html) }
        #expect(throws: PictureError.self) { try bitmap.render(Array(png.prefix(60))) }
    }

    @Test func theIndexServesThumbnailsAndRendersPicturesFromTheSourceFile() throws {
        let svgPath = folder.path("bar.svg")
        try bar.write(toFile: svgPath, atomically: true, encoding: .utf8)
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        let item = LibraryItem(
            id: "clipart:bar.svg", source: .clipart, path: svgPath, title: "bar", sourceTitle: nil, keywords: [], license: "public domain",
            thumbnail: Data([0x89, 0x50]), aspect: 3, raster: GrayImage(width: 1, height: 1, pixels: [0]), embedding: [1],
            topClasses: [], file: FileStamp(fileHash: "0", fileSize: 1, fileModified: 0, pipeline: "p")
        )
        try database.pool.write { db in try item.insert(db) }
        let images = PictureImages(database: database, maxSide: 90)
        #expect(try images.thumbnail(id: "clipart:bar.svg") == Data([0x89, 0x50]))
        #expect(try images.thumbnail(id: "clipart:none.svg") == nil)
        #expect(try images.picture(id: "clipart:none.svg") == nil)
        let picture = try #require(try images.picture(id: "clipart:bar.svg"))
        #expect(picture.width == 90 && abs(picture.height - 30) <= 3)
        #expect(try database.pictures().first?.aspect == 3)
        try FileManager.default.removeItem(atPath: svgPath)
        #expect(try images.picture(id: "clipart:bar.svg") != nil, "kept in the cache")
    }
}
