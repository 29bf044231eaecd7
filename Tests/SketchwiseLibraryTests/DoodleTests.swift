import Foundation
import GRDB
import SketchwiseCore
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

@testable import SketchwiseLibrary

/// The doodle source: Quick, Draw! drawings as line pictures, the last resort of a class.
@Suite struct DoodleTests {
    static let roof = StrokeSketch(strokes: [
        Stroke(points: [Point(x: 0, y: 100), Point(x: 50, y: 0), Point(x: 100, y: 100)]),
        Stroke(points: [Point(x: 40, y: 60)]),
    ])

    @Test func aDoodleIsADrawingOfCurvesWithTheLineStylesStroke() throws {
        let svg = DoodleArt.svg(Self.roof, label: "barn & <house>")
        #expect(svg.contains(#"viewBox="-4.2 -4.2 108.3 108.3""#), "the ink's box with room for the line")
        #expect(svg.contains(#"stroke-width="4.2""#) && svg.contains(#"fill="none""#) && svg.contains(#"stroke-linecap="round""#))
        #expect(svg.contains("<title>barn &amp; &lt;house&gt;</title>"))
        #expect(svg.contains(#"<path d="M0 100 Q50 0 75 50 L100 100"/>"#), "a curve through the segments' midpoints")
        #expect(svg.contains(#"<path d="M40 60h0"/>"#), "a dot stays a dot")
        let picture = try SVGRasterizer(size: 28).render(Array(svg.utf8))
        #expect(picture.raster.pixels.contains { $0 > 128 }, "the document renders")
    }

    @Test func theSurestDrawingsAreChosenAndNearDuplicatesSkipped() {
        let drawings: [(probability: Float, embedding: [Float], verdict: PictureReviews.Verdict?)] = [
            (0.5, [1, 0], nil), (0.9, [0, 1], nil), (0.8, [0, 0.99], nil), (0.7, [1, 0.1], nil), (0.2, [-1, 0], nil),
        ]
        #expect(DoodleChoice.choose(drawings, count: 3) == [1, 3, 4], "0.8 and 0.5 are near duplicates of ones chosen before them")
        #expect(DoodleChoice.choose(drawings, count: 1) == [1])
        #expect(DoodleChoice.choose([], count: 4).isEmpty)
    }

    @Test func reviewedDrawingsComeFirstAndWrongOnesNever() {
        let drawings: [(probability: Float, embedding: [Float], verdict: PictureReviews.Verdict?)] = [
            (0.9, [1, 0], .wrong), (0.8, [0, 1], nil), (0.3, [-1, 0], .good), (0.2, [0, -1], .good), (0.7, [1, 1], .loose),
        ]
        #expect(DoodleChoice.choose(drawings, count: 3) == [2, 3, 1], "good ones by probability, then the unreviewed")
        #expect(DoodleChoice.choose(drawings, count: 5) == [2, 3, 1], "never one reviewed wrong or loose")
    }

    @Test func aBuildNamesDoodlesByTheirClassFolder() throws {
        let folder = TemporaryFolder()
        let doodles = folder.url.appendingPathComponent("doodles")
        let svg = DoodleArt.svg(Self.roof, label: "barn")
        try LibraryFixtures.write(["barn/1.svg": svg, "house plant/1.svg": svg, "stray.svg": svg], in: doodles)
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        let report = try IndexBuilder(sources: [.doodle], locations: LibraryLocations(doodleFolder: doodles, emojiAnnotations: []))
            .build(into: database, embedder: try LibraryFixtures.embedder())
        #expect(report.items == [.doodle: 2] && report.sources[.doodle]?.unnamed == 1, "a file outside a class folder is left out")
        let barn = try #require(try database.read { try LibraryItem.fetchOne($0, key: "doodle:barn/1.svg") })
        #expect(barn.title == "barn" && barn.license.hasPrefix("CC BY 4.0 (Quick, Draw!"))

        let finder = CandidateFinder(pictures: try database.pictures())
        #expect(finder.candidates(for: "house plant").map(\.picture.id) == ["doodle:house plant/1.svg"])
        #expect(finder.candidates(for: "house").isEmpty, "a doodle draws its own class only")
        let coverage = LibraryCoverage(labels: ["barn", "house"], finder: finder, style: .line)
        #expect(coverage.classes.map(\.total) == [0, 0] && coverage.classes.map(\.doodles) == [1, 0], "doodles are counted apart")
        #expect(coverage.summary.contains("doodles (counted apart): 1 classes without a real picture have doodles"))
    }
}
