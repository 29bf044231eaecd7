import Foundation
import GRDB
import SketchwiseLibrary
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

/// Malformed drawings are skipped, remembered with their reason and counted; the build goes on.
@Suite struct MalformedFileTests {
    let folder = TemporaryFolder()
    var clipart: URL { folder.url.appendingPathComponent("svg") }

    static let malformed: [String: (String, SkipReason)] = [
        "empty.svg": ("", .invalidXML),
        "broken-xml.svg": ("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><g></svg>", .invalidXML),
        "broken-rdf.svg": (
            "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><metadata><rdf:RDF><dc:title>x</rdf:RDF></metadata></svg>",
            .invalidXML
        ),
        "text.svg": ("just some text", .invalidXML),
        "html.svg": ("<html><body>not a drawing</body></html>", .invalidSVG),
        "no-size.svg": ("<svg xmlns='http://www.w3.org/2000/svg'><g/></svg>", .noSize),
        "white.svg": (LibraryFixtures.svg("<rect width='100' height='100' fill='white'/>"), .blank),
    ]

    @Test func malformedFilesAreCountedByReason() throws {
        var files = Self.malformed.mapValues(\.0)
        files["good.svg"] = LibraryFixtures.shapes["house"]
        try LibraryFixtures.write(files, in: clipart)
        try FileManager.default.createSymbolicLink(
            atPath: clipart.appendingPathComponent("broken-link.svg").path, withDestinationPath: "/nonexistent/x.svg")
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        let builder = IndexBuilder(sources: [.clipart], locations: LibraryLocations(clipartFolder: clipart))
        let report = try builder.build(into: database, embedder: try LibraryFixtures.embedder())

        var expected: [SkipReason: Int] = [.unreadable: 1]
        for (_, reason) in Self.malformed.values { expected[reason, default: 0] += 1 }
        #expect(report.sources[.clipart]?.skipped == expected)
        #expect(report.malformed[.clipart] == expected)
        #expect(report.items == [.clipart: 1])
        let skipped = try database.read { try SkippedFile.fetchAll($0) }
        for (name, (_, reason)) in Self.malformed {
            #expect(skipped.first { $0.id == "clipart:\(name)" }?.reason == reason, "\(name)")
        }
        #expect(skipped.allSatisfy { !$0.detail.isEmpty })
        #expect(report.summary.contains("invalid-xml 4"))

        let again = try builder.build(into: database, embedder: try LibraryFixtures.embedder())
        #expect(again.sources[.clipart]?.skipped.isEmpty == true, "known malformed files are not retried")
        #expect(again.malformed[.clipart] == expected, "but still counted")
    }

    @Test func aFixedFileIsIndexedAndNoLongerCounted() throws {
        try LibraryFixtures.write(["a.svg": "<svg"], in: clipart)
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        let builder = IndexBuilder(sources: [.clipart], locations: LibraryLocations(clipartFolder: clipart))
        #expect(try builder.build(into: database, embedder: try LibraryFixtures.embedder()).malformed[.clipart] == [.invalidXML: 1])
        try LibraryFixtures.write(["a.svg": LibraryFixtures.shapes["circle"]!], in: clipart)
        let fixed = try builder.build(into: database, embedder: try LibraryFixtures.embedder())
        #expect(fixed.items == [.clipart: 1] && fixed.malformed[.clipart] == nil)
    }

    @Test func truncatedAndCorruptedDrawingsNeverCrash() throws {
        var documents = Array(LibraryFixtures.shapes.values)
        if LibraryFixtures.hasClipart {
            for name in ["food/fruit/apple.svg", "animals/birds/penguin/tux_didier_fabert_01.svg"] {
                documents.append(try String(contentsOf: LibraryFixtures.clipartFolder.appendingPathComponent(name), encoding: .utf8))
            }
        }
        let rasterizer = try SVGRasterizer(size: 28)
        var generator = SystemRandomNumberGenerator()
        for document in documents {
            let bytes = Array(document.utf8)
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 23)) {
                var damaged = Array(bytes[..<cut])
                if !damaged.isEmpty {
                    damaged[Int.random(in: damaged.indices, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                _ = try? ClipArtMetadata.parse(damaged)
                _ = try? rasterizer.render(damaged)
            }
        }
    }
}
