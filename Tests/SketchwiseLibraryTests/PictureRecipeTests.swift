import Foundation
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRaster
import Testing

/// The picture recipe: outlines with the sketch pen, fitted like sketches.
@Suite struct PictureRecipeTests {
    let rasterizer: SVGRasterizer

    init() throws {
        rasterizer = try SVGRasterizer(size: 28)
    }

    func render(_ body: String, width: Double = 100, height: Double = 100) throws -> GrayImage {
        try rasterizer.render(Array(LibraryFixtures.svg(body, width: width, height: height).utf8)).raster
    }

    /// Columns and rows holding ink above `level`.
    func extent(_ image: GrayImage, above level: UInt8 = 64) -> (columns: [Int], rows: [Int]) {
        let n = image.width
        return (
            (0..<n).filter { x in (0..<n).contains { image[x, $0] > level } },
            (0..<n).filter { y in (0..<n).contains { image[$0, y] > level } }
        )
    }

    @Test func aFilledShapeBecomesItsOutline() throws {
        let image = try render(#"<rect x="0" y="0" width="100" height="100" fill="black"/>"#)
        #expect(image[14, 14] == 0 && image[8, 20] == 0, "the inside stays empty")
        #expect(image[14, 2] > 100 && image[2, 14] > 100 && image[25, 14] > 100, "the border is inked")
    }

    @Test func theInkBoxIsFittedLikeASketchAspectKeptAndCentered() throws {
        let image = try render(#"<rect x="0" y="40" width="200" height="50" fill="black"/>"#, width: 200, height: 100)
        let (columns, rows) = extent(image)
        #expect((23...26).contains(columns.count), "the long side spans 255/304 of the frame: \(columns)")
        #expect((6...9).contains(rows.count), "aspect 4:1 kept: \(rows)")
        #expect(abs(columns.first! + columns.last! - 27) <= 1, "centred across")
        #expect(abs(rows.first! + rows.last! - 27) <= 1, "centred down")
    }

    @Test func whiteSpaceAroundTheDrawingDoesNotMatter() throws {
        let tight = try render(#"<circle cx="50" cy="50" r="50" fill="orange"/>"#)
        let loose = try render(
            #"<rect width="400" height="400" fill="white"/><circle cx="300" cy="100" r="50" fill="orange"/>"#, width: 400, height: 400)
        let difference = zip(tight.pixels, loose.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +)
        let ink = tight.pixels.map(Int.init).reduce(0, +)
        #expect(Double(difference) < 0.2 * Double(ink))
    }

    @Test func thePenHasTheWidthOfTheSketchPen() throws {
        let picture = try render(#"<line x1="0" y1="50" x2="100" y2="50" stroke="black" stroke-width="0.5"/>"#)
        let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 0, y: 0), Point(x: 100, y: 0)])])
        let drawn = try SketchRasterizer(size: 28).render(sketch)
        let ratio = Double(picture.pixels.map(Int.init).reduce(0, +)) / Double(drawn.pixels.map(Int.init).reduce(0, +))
        #expect(ratio > 0.8 && ratio < 1.3, "ink of a picture line / ink of the same sketch line: \(ratio)")
    }

    @Test func aDrawingWithoutAPageIsRenderedByItsInk() throws {
        let square = #"<rect x="0" y="0" width="100" height="100" fill="black"/>"#
        let noPage = "<svg xmlns='http://www.w3.org/2000/svg'><g transform='translate(40 7)'>\(square)</g></svg>"
        #expect(try rasterizer.render(Array(noPage.utf8)).raster == render(square))
    }

    @Test func colorBoundariesAreEdges() throws {
        let image = try render(##"<rect width="50" height="100" fill="#ff0000"/><rect x="50" width="50" height="100" fill="#00ff00"/>"##)
        #expect((12...15).contains { image[$0, 14] > 100 }, "the red–green border is a line")
    }

    @Test func renderingIsRepeatable() throws {
        let body = #"<path d="M10 90 L50 10 L90 90 Z" fill="yellow" stroke="black"/>"#
        let first = try render(body)
        _ = try render(#"<circle cx="50" cy="50" r="30"/>"#)
        #expect(try render(body) == first)
    }

    @Test func theThumbnailIsAPNGOfTheAskedSize() throws {
        let picture = try SVGRasterizer(size: 28, thumbnailSize: 64).render(Array(LibraryFixtures.shapes["circle"]!.utf8))
        let png = picture.thumbnailPNG
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 64 && height == 64)
    }

    @Test(arguments: [
        ("", PictureError.Reason.unreadable),
        ("garbage", .unreadable),
        ("<svg xmlns='http://www.w3.org/2000/svg'></svg>", .noSize),
        (LibraryFixtures.svg("<rect width='100' height='100' fill='white'/>"), .blank),
        (LibraryFixtures.svg(""), .blank),
        (LibraryFixtures.svg("<rect width='100' height='100' fill='#fafafa'/>"), .blank),
    ])
    func badDocumentsAreErrorsWithAReason(text: String, reason: PictureError.Reason) {
        #expect {
            try rasterizer.render(Array(text.utf8))
        } throws: { error in
            (error as? PictureError)?.reason == reason
        }
    }

    @Test func emojiAreFittedAndOutlinedTheSameWay() throws {
        guard LibraryFixtures.hasEmojiFont else { print(LibraryFixtures.emojiMissing); return }
        let emoji = try EmojiRasterizer(fontPath: LibraryLocations.debianEmojiFont.path, size: 28)
        let apple = try emoji.render("🍎").raster
        let (columns, rows) = extent(apple)
        #expect(max(columns.count, rows.count) >= 22 && max(columns.count, rows.count) <= 26)
        #expect(abs(columns.first! + columns.last! - 27) <= 1 && abs(rows.first! + rows.last! - 27) <= 1)
        #expect(throws: PictureError.self) { try emoji.render("A") }
        #expect(throws: RasterError.self) { try EmojiRasterizer(fontPath: "/nonexistent.ttf", size: 28) }
    }
}
