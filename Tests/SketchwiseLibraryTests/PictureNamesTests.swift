import Foundation
import GRDB
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// The names of indexed pictures, as the list of a person's shortcuts shows them.
@Suite struct PictureNamesTests {
    let folder = TemporaryFolder()

    /// A library of three pictures, each guessed by the raster model as an apple.
    func library() throws -> LibraryDatabase {
        let database = try LibraryDatabase(path: folder.path("library.sqlite"))
        try database.pool.write { db in
            for (id, title) in [("emoji:U+1F408", "cat"), ("lucide:house.svg", "House"), ("lucide:cable.svg", "cable")] {
                try LibraryItem(
                    id: id, source: id.hasPrefix("emoji") ? .emoji : .lucide, path: "/x", title: title, sourceTitle: nil, keywords: [],
                    license: "", thumbnail: Data(), aspect: 1, raster: GrayImage(width: 1, height: 1, pixels: [0]), embedding: [],
                    topClasses: [Guess(label: "apple", probability: 0.9)],
                    file: FileStamp(fileHash: "", fileSize: 0, fileModified: 0, pipeline: "")
                ).insert(db)
            }
        }
        return database
    }

    /// A localizer that names cats and houses in French, the cat emoji from a CLDR fixture.
    func french() throws -> Localizer {
        let file = folder.url.appendingPathComponent("fr.xml")
        try #"<annotation cp="🐈" type="tts">chat</annotation>"#.write(to: file, atomically: true, encoding: .utf8)
        let names = ClassNames(tables: [.french: ["house": "maison", "apple": "pomme"]])
        return Localizer(classNames: names) { $0 == .french ? [file] : [] }
    }

    @Test func picturesAreNamedByTheirTitleNeverByTheModelsGuess() throws {
        let database = try library(), localizer = try french()
        let labels = ["emoji:U+1F408", "lucide:house.svg", "lucide:cable.svg", "lucide:gone.svg", "🐈"]
        // French: the emoji by CLDR, a title that is a class by the class's name, another title as it is.
        #expect(
            try database.pictureNames(ids: labels, localizer: localizer, in: .french)
                == ["emoji:U+1F408": "chat", "lucide:house.svg": "maison", "lucide:cable.svg": "cable"])
        #expect(
            try database.pictureNames(ids: labels, localizer: localizer, in: .english)
                == ["emoji:U+1F408": "cat", "lucide:house.svg": "House", "lucide:cable.svg": "cable"])
        #expect(try database.pictureNames(ids: [], localizer: localizer, in: .french).isEmpty)
    }
}
