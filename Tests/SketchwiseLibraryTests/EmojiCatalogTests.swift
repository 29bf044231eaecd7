import Foundation
import SketchwiseLibrary
import SketchwiseRaster
import Testing

@Suite struct EmojiCatalogTests {
    let entries = EmojiCatalog.entries()

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
