import Foundation
import GRDB
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

@testable import SketchwiseLibrary

/// The line-art sources: OpenMoji without its fill layers, Lucide named by file name, Tabler by
/// file name and tags without its interface symbols, and the style a suggestion is drawn from.
@Suite struct LineArtSourceTests {
    static let openMoji = """
        <svg id="emoji" viewBox="0 0 72 72" xmlns="http://www.w3.org/2000/svg">
          <g id="color"><path fill="#ea5a47" d="M10 10h50v50h-50z"/><g id="color-2"><circle cx="36" cy="36" r="5" fill="#fff"/></g></g>
          <g id="skin-shadow"><path fill="#debb90" d="M0 0h5v5z"/></g>
          <g id="hair" />
          <g id="line">
            <g id="line-2"><rect x="10" y="10" width="50" height="50" fill="none" stroke="#000" stroke-width="2"/></g>
          </g>
        </svg>
        """

    @Test func openMojiLineArtKeepsOnlyTheLineLayers() throws {
        let line = try #require(String(bytes: OpenMojiArt.lineDrawing(Array(Self.openMoji.utf8)), encoding: .utf8))
        #expect(!line.contains("#ea5a47") && !line.contains("circle") && !line.contains("debb90") && !line.contains("hair"))
        #expect(line.contains(#"<g id="line">"#) && line.contains(#"<g id="line-2"><rect"#) && line.hasSuffix("</svg>"))
        #expect(line.components(separatedBy: "<g").count == line.components(separatedBy: "</g>").count, "groups stay balanced")
        #expect(OpenMojiArt.lineDrawing([0xFF, 0xFE]) == [0xFF, 0xFE], "what is not text comes back as it is")
    }

    @Test func openMojiFilesAreNamedByTheirEmojiAndVariantsAreLeftOut() {
        #expect(OpenMojiArt.emoji(fileName: "1F34E.svg") == "🍎")
        #expect(OpenMojiArt.emoji(fileName: "1F43B-200D-2744-FE0F.svg") == "🐻\u{200D}❄\u{FE0F}")
        #expect(OpenMojiArt.emoji(fileName: "1F44D-1F3FB.svg") == nil, "skin tone")
        #expect(OpenMojiArt.emoji(fileName: "1F1E9-1F1EA.svg") == nil, "country flag")
        #expect(OpenMojiArt.emoji(fileName: "1F3F4-E0067-E0062-E0065-E006E-E0067-E007F.svg") == nil, "region flag")
        #expect(OpenMojiArt.emoji(fileName: "E0A1.svg") == nil, "OpenMoji's own, unnamed")
        #expect(OpenMojiArt.emoji(fileName: "not-hex.svg") == nil)
    }

    @Test func lucideIconsAreNamedByTheirFileNames() {
        #expect(PictureName.lucide(fileName: "tree-pine.svg") == PictureName(title: "tree pine", keywords: []))
    }

    /// A Tabler outline icon as the wheel carries it: Tabler's comment, then the SVG.
    static func tablerIcon(category: String, tags: String) -> String {
        """
        <!--
        tags: [\(tags)]
        category: \(category)
        version: "1.0"
        -->
        <svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2">
          <path d="M4 21l16 -4" /><path d="M12 15a4 4 0 0 0 4 -4c0 -3 -2 -3 -2 -8c-4 2 -6 5 -6 8a4 4 0 0 0 4 4z" />
        </svg>
        """
    }

    @Test func tablerIconsAreNamedByFileAndTagsAndSymbolsAreLeftOut() {
        let campfire = TablerIcon(fileName: "campfire.svg", header: Self.tablerIcon(category: "Map", tags: "camping, bonfire, Wood"))
        #expect(campfire.depictsAThing && campfire.category == "Map")
        #expect(campfire.name == PictureName(title: "campfire", keywords: ["camping", "bonfire", "wood"]))
        let lighthouse = TablerIcon(fileName: "building-lighthouse.svg", header: Self.tablerIcon(category: "Buildings", tags: "light, sea"))
        #expect(lighthouse.name.title == "lighthouse", "a group word is not part of what the icon draws")
        #expect(TablerIcon(fileName: "ball-basketball.svg", header: "").name.title == "basketball")
        #expect(TablerIcon(fileName: "building.svg", header: "").name.title == "building", "a group word alone is the name")
        #expect(!TablerIcon(fileName: "campfire-off.svg", header: Self.tablerIcon(category: "Map", tags: "camping")).depictsAThing)
        #expect(!TablerIcon(fileName: "table.svg", header: Self.tablerIcon(category: "Database", tags: "spreadsheet")).depictsAThing)
        #expect(!TablerIcon(fileName: "arrow-left.svg", header: Self.tablerIcon(category: "Arrows", tags: "left")).depictsAThing)
        let bare = TablerIcon(fileName: "windmill.svg", header: "<svg/>")
        #expect(bare.depictsAThing && bare.tags.isEmpty && bare.category == nil, "an icon without Tabler's comment is kept")
    }

    @Test func aBuildIndexesLineArtFromLinkedFoldersWithNamesAndLicenses() throws {
        let folder = TemporaryFolder()
        let openmoji = folder.url.appendingPathComponent("openmoji-17"), lucide = folder.url.appendingPathComponent("lucide-1")
        try LibraryFixtures.write(["1F34E.svg": Self.openMoji, "1F44D-1F3FB.svg": Self.openMoji, "E0A1.svg": Self.openMoji], in: openmoji)
        try LibraryFixtures.write(
            [
                "cat.svg":
                    #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2"><circle cx="12" cy="12" r="8"/></svg>"#
            ], in: lucide)
        let tabler = folder.url.appendingPathComponent("tabler")
        try LibraryFixtures.write(
            [
                "campfire.svg": Self.tablerIcon(category: "Map", tags: "camping, bonfire"),
                "campfire-off.svg": Self.tablerIcon(category: "Map", tags: "camping"),
                "arrow-left.svg": Self.tablerIcon(category: "Arrows", tags: "left"),
            ], in: tabler)
        let linked = folder.url.appendingPathComponent("openmoji")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: openmoji)
        let locations = LibraryLocations(openmojiFolder: linked, lucideFolder: lucide, tablerFolder: tabler, emojiAnnotations: [])
        let database = try LibraryDatabase(path: folder.path("index.sqlite"))
        let report = try IndexBuilder(sources: [.openmoji, .lucide, .tabler], locations: locations).build(
            into: database, embedder: try LibraryFixtures.embedder())
        #expect(report.items == [.openmoji: 1, .lucide: 1, .tabler: 1])
        #expect(report.sources[.openmoji]?.unnamed == 2)
        #expect(report.sources[.tabler]?.symbols == 2)
        let campfire = try #require(try database.read { try LibraryItem.fetchOne($0, key: "tabler:campfire.svg") })
        #expect(campfire.title == "campfire" && campfire.keywords == ["camping", "bonfire"] && campfire.license.hasPrefix("MIT"))
        let apple = try #require(try database.read { try LibraryItem.fetchOne($0, key: "openmoji:1F34E.svg") })
        #expect(apple.title == "red apple" && apple.license.hasPrefix("CC BY-SA 4.0"))
        let cat = try #require(try database.read { try LibraryItem.fetchOne($0, key: "lucide:cat.svg") })
        #expect(cat.title == "cat" && cat.license.hasPrefix("ISC") && cat.raster.contains { $0 > 128 })

        let images = PictureImages(database: database)
        let line = try #require(try images.picture(id: apple.id)), color = try #require(try images.picture(id: apple.id, color: true))
        #expect(line.bytes != color.bytes, "the colour mode draws the fill layers too")
    }
}
