import Foundation
import SketchwiseLibrary
import SketchwiseRaster
import Testing

@Suite struct EmojiCatalogTests {
    /// Named by Unicode names alone, whatever is installed.
    let entries = EmojiCatalog.entries(names: EmojiNames(files: []))

    func entry(_ value: UInt32) -> EmojiEntry? {
        entries.first { $0.scalar.value == value }
    }

    @Test func pictureEmojiAreNamedByTheirUnicodeNames() throws {
        let grinning = try #require(entry(0x1F600))
        #expect(grinning.title == "grinning face")
        #expect(grinning.code == "U+1F600")
        let smiling = try #require(entry(0x1F601))
        #expect(smiling.keywords == ["grinning", "face", "smiling", "eyes"])
    }

    @Test func textStyleEmojiAreIncluded() {
        #expect(entry(0x2600)?.title == "black sun with rays")
        #expect(entry(0x2708)?.title == "airplane")
    }

    @Test func cldrNamesAndKeywordsComeFirstWhenInstalled() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cldr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("en.xml")
        try """
            <ldml><annotations>
                <annotation cp="☀">bright | rays | space | sun | sunny | weather</annotation>
                <annotation cp="☀" type="tts">sun</annotation>
                <annotation cp="🐻‍❄">arctic | bear | polar bear | white</annotation>
                <annotation cp="🐻‍❄" type="tts">polar bear</annotation>
                <annotation cp="&amp;" type="tts">ampersand</annotation>
                <annotation cp="broken
            </annotations></ldml>
            """.write(to: file, atomically: true, encoding: .utf8)
        let names = EmojiNames(files: [file, folder.appendingPathComponent("missing.xml")])
        #expect(names.entry("☀️") == PictureName(title: "sun", keywords: ["bright", "rays", "space", "sunny", "weather"]))
        #expect(names.entry("🐻\u{200D}❄\u{FE0F}")?.title == "polar bear", "sequences are named, with or without FE0F")
        #expect(names.entry("&")?.title == "ampersand")
        #expect(names.entry("✈")?.title == "airplane", "Unicode names fill what CLDR leaves out")
        #expect(names.entry("🐻\u{200D}🔥") == nil, "an unnamed sequence has no entry")
        let catalog = EmojiCatalog.entries(names: names)
        #expect(catalog.first { $0.scalar.value == 0x2600 }?.title == "sun")
    }

    @Test func keycapBasesModifiersAndFlagLettersAreLeftOut() {
        #expect(entry(0x23) == nil && entry(0x30) == nil, "# and 0 are emoji only as keycap bases")
        #expect(entry(0x1F3FB) == nil, "skin-tone modifier")
        #expect(entry(0x1F1E6) == nil, "regional indicator A")
        #expect(!entries.contains { $0.scalar.properties.isEmojiModifier || $0.scalar.value < 0x80 })
    }

    @Test func theCatalogIsLargeAndWithoutRepeats() {
        #expect(entries.count > 1300)
        #expect(Set(entries.map(\.scalar)).count == entries.count)
    }

    @Test func notoColorEmojiHasGlyphsForAlmostAll() throws {
        guard LibraryFixtures.hasEmojiFont else { print(LibraryFixtures.emojiMissing); return }
        let font = try EmojiRasterizer(fontPath: LibraryLocations.debianEmojiFont.path, size: 28)
        let missing = entries.filter { !font.hasGlyph($0.scalar) }
        #expect(missing.count < entries.count / 20, "missing: \(missing.prefix(20).map(\.code))")
        #expect(font.hasGlyph("🍎") && !font.hasGlyph("A"))
    }
}
