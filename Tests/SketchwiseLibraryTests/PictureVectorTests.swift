import Foundation
import GRDB
import SketchwiseCore
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

@testable import SketchwiseLibrary

/// Line pictures drawn with a chosen line weight, and SVG pictures as documents cropped like
/// their images (for exports that keep vectors).
@Suite struct PictureVectorTests {
    let folder = TemporaryFolder()
    /// A Lucide-like icon: a 12×16 outlined box in a 24×24 page, lines 2 wide.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="black" stroke-width="2">
          <rect x="6" y="4" width="12" height="16"/>
        </svg>
        """

    /// A library of the icon as Lucide and the same file as clip art (not a line source).
    private func images() throws -> PictureImages {
        let path = folder.path("box.svg")
        try Self.icon.write(toFile: path, atomically: true, encoding: .utf8)
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        for (id, source) in [("lucide:box.svg", LibrarySource.lucide), ("clipart:box.svg", .clipart)] {
            let item = LibraryItem(
                id: id, source: source, path: path, title: "box", sourceTitle: nil, keywords: [], license: "ISC",
                thumbnail: Data([0x89]), aspect: 0.78, raster: GrayImage(width: 1, height: 1, pixels: [0]), embedding: [1],
                topClasses: [], file: FileStamp(fileHash: "0", fileSize: 1, fileModified: 0, pipeline: "p")
            )
            try database.pool.write { db in try item.insert(db) }
        }
        return PictureImages(database: database, maxSide: 200)
    }

    /// The viewBox of a document's root as four numbers.
    private func viewBox(_ document: Data) throws -> [Double] {
        let text = try #require(String(data: document, encoding: .utf8))
        let value = try #require(text.firstMatch(of: /viewBox="([^"]+)"/)).1
        return value.split(separator: " ").compactMap { Double($0) }
    }

    @Test func aLineWeightSetsEveryStrokeAndKeepsThePicturesCrop() throws {
        let images = try images()
        let plain = try #require(try images.picture(id: "lucide:box.svg"))
        let thin = try #require(try images.picture(id: "lucide:box.svg", weight: LineWeight(share: 0.01)))
        #expect((thin.width, thin.height) == (plain.width, plain.height), "the same crop, so the same aspect and place")
        #expect(thin.bytes != plain.bytes)
        let vector = try #require(try images.vector(id: "lucide:box.svg", weight: LineWeight(share: 0.01)))
        let text = try #require(String(data: vector, encoding: .utf8))
        // The ink box is 14×18 user units (the box and half its 2-unit lines): 1 % of 18 is 0.18.
        let match = try #require(text.firstMatch(of: /stroke-width:([0-9.]+)px/))
        let width = try #require(Double(match.1))
        #expect(abs(width - 0.18) < 0.02, "\(width)")
        let clipart = try #require(try images.vector(id: "clipart:box.svg", weight: LineWeight(share: 0.01)))
        #expect(String(data: clipart, encoding: .utf8)?.contains("stroke-width:") == false, "only line pictures take a weight")
    }

    @Test func theVectorIsTheDocumentCroppedToTheBoxItsImageShows() throws {
        let images = try images()
        let vector = try #require(try images.vector(id: "lucide:box.svg"))
        let box = try viewBox(vector)
        // The ink, found on a 64-pixel probe of the 24-unit page: 5…19 × 3…21, to within a probe pixel.
        for (found, expected) in zip(box, [5.0, 3, 14, 18]) { #expect(abs(found - expected) <= 0.8, "\(box)") }
        let rendered = try SVGRasterizer(size: 28).picture([UInt8](vector), maxSide: 200)
        let image = try #require(try images.picture(id: "lucide:box.svg"))
        #expect(abs(rendered.width - image.width) <= 2 && rendered.height == image.height, "\(rendered.width)×\(rendered.height)")
        #expect(try images.vector(id: "lucide:none.svg") == nil)
    }

    @Test func rootTagsThatCannotBeNestedAreRefused() throws {
        #expect(SVGRootTag(Array(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8)) == nil, "an empty document")
        let entities = #"<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/></svg>"#
        #expect(SVGRootTag(Array(entities.utf8)) == nil, "entities of its own")
        #expect(SVGRootTag(Array("<html>no</html>".utf8)) == nil)
        let quoted = #"<?xml version="1.0"?><svg width='10mm' data-x="a>b" height="5"><path d="M0 0"/></svg><!-- end -->"#
        let root = try #require(SVGRootTag(Array(quoted.utf8)))
        let box = Rect(minX: 1, minY: 1, width: 2, height: 3)
        let cropped = String(decoding: root.cropped(pageWidth: 37.8, pageHeight: 5, to: box), as: UTF8.self)
        let nested = #"<svg data-x="a>b" x="0" y="0" width="37.8" height="5"><path d="M0 0"/></svg></svg>"#
        #expect(cropped.contains(nested), "\(cropped)")
        #expect(cropped.contains(#"viewBox="1 1 2 3""#))
    }
}
