import Foundation
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

@testable import SketchwiseServer

/// The names the API answers beside its labels: classes from the tables, emoji pictures from
/// CLDR, other pictures by their class.
@Suite struct LocalizedNamesTests {
    /// A localizer whose French class names and CLDR annotations are small fixtures.
    static func withFrench(_ body: (Localizer) throws -> Void) throws {
        let folder = TemporaryFolder()
        let file = folder.url.appendingPathComponent("fr.xml")
        try """
        <annotation cp="🐈">chat | animal de compagnie</annotation>
        <annotation cp="🐈" type="tts">chat</annotation>
        <annotation cp="🍎" type="tts">pomme rouge</annotation>
        """.write(to: file, atomically: true, encoding: .utf8)
        let names = ClassNames(tables: [.french: ["cat": "chat", "apple": "pomme", "house": "maison"]])
        try body(Localizer(classNames: names) { $0 == .french ? [file] : [] })
    }

    @Test func guessesGetTheirClassNames() throws {
        try Self.withFrench { localizer in
            let french = LocalizedNames(localizer: localizer, locale: .french)
            let guesses = french.guesses([Guess(label: "cat", probability: 0.9), Guess(label: "zebra", probability: 0.1)])
            #expect(
                guesses == [
                    GuessBody(label: "cat", display: "chat", probability: 0.9),
                    GuessBody(label: "zebra", display: "zebra", probability: 0.1),
                ])
        }
    }

    @Test func picturesOfEmojiAreNamedByCLDRAndTheOthersByTheirClass() throws {
        try Self.withFrench { localizer in
            let french = LocalizedNames(localizer: localizer, locale: .french)
            #expect(french.pictureTitle(id: "emoji:U+1F408", title: "cat", label: "cat") == "chat")
            #expect(french.pictureTitle(id: "openmoji:1F34E.svg", title: "red apple", label: "apple") == "pomme rouge")
            #expect(french.pictureTitle(id: "openmoji:1F3E0.svg", title: "house", label: "house") == "maison", "CLDR does not name it")
            #expect(french.pictureTitle(id: "lucide:house-plus.svg", title: "house plus", label: "house") == "maison")
            let english = LocalizedNames(localizer: localizer, locale: .english)
            #expect(english.pictureTitle(id: "emoji:U+1F408", title: "cat", label: "cat") == "cat")
            #expect(english.className("cat") == "cat")
        }
    }

    @Test func emojiPicturesTellTheirEmojiFromTheirID() {
        #expect(LibrarySource.emoji(ofPicture: "emoji:U+1F408") == "🐈")
        #expect(LibrarySource.emoji(ofPicture: "openmoji:1F43B-200D-2744-FE0F.svg") == "🐻‍❄️")
        #expect(LibrarySource.emoji(ofPicture: "emoji:U+ZZZ") == nil)
        #expect(LibrarySource.emoji(ofPicture: "clipart:animals/cat.svg") == nil)
    }
}
