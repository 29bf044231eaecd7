import Foundation
import SketchwiseLocalization
import Testing

/// The class-name tables that ship, their format, and the class search over them.
@Suite struct ClassNamesTests {
    /// The models' 345 labels, from the bundled raster model's spec.
    static func modelLabels() throws -> [String] {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Models/raster-cnn.json")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: spec)) as? [String: Any]
        return try #require(json?["labels"] as? [String])
    }

    @Test func everyLocaleNamesEveryClass() throws {
        let labels = try Self.modelLabels()
        let names = try ClassNames.bundled()
        #expect(labels.count == 345)
        for locale in AppLocale.allCases where locale != .english {
            #expect(names.labels(in: locale) == Set(labels), "\(locale.tag): the table's labels are not the models'")
            let untranslated = labels.filter { names.name(of: $0, in: locale) == $0 && !$0.allSatisfy(\.isASCII) }
            #expect(untranslated.isEmpty, "\(locale.tag)")
        }
        #expect(names.name(of: "cat", in: .english) == "cat")
        #expect(names.name(of: "cat", in: .german) == "Katze")
        #expect(names.name(of: "cat", in: .french) == "chat")
        #expect(names.name(of: "cat", in: .japanese) != "cat")
    }

    @Test func malformedTablesNameTheirLine() throws {
        #expect(throws: LocalizationError.self) { try ClassNames.parse("label\tname\treviewer\ncat\tKatze\n", named: "de.tsv") }
        #expect(throws: LocalizationError.self) { try ClassNames.parse("label\tname\treviewer\ncat\t\tcldr\n", named: "de.tsv") }
        #expect(throws: LocalizationError.self) {
            try ClassNames.parse("label\tname\treviewer\ncat\tKatze\tcldr\ncat\tKater\tcldr\n", named: "de.tsv")
        }
        do {
            _ = try ClassNames.parse("label\tname\treviewer\ncat\tKatze\tcldr\ndog\n", named: "de.tsv")
            Issue.record("a short line was accepted")
        } catch {
            #expect(error.description.contains("de.tsv line 3"))
        }
        let rows = try? ClassNames.parse("label\tname\treviewer\ncat\tKatze\tcldr\n\n", named: "de.tsv")
        #expect(rows?.map(\.label) == ["cat"] && rows?.map(\.name) == ["Katze"])
    }

    @Test func searchFindsClassesByTheirNameKeywordsAndEnglishLabel() throws {
        let labels = try Self.modelLabels()
        let localizer = Localizer(classNames: try ClassNames.bundled())
        #expect(localizer.classNames.labels == labels)
        #expect(localizer.labels(matching: "chat", in: .french, limit: 3).first == "cat")
        #expect(localizer.labels(matching: "Katze", in: .german, limit: 3).first == "cat")
        #expect(localizer.labels(matching: "katze", in: .german, limit: 3).first == "cat")
        #expect(localizer.labels(matching: localizer.className("cat", in: .japanese), in: .japanese, limit: 3).first == "cat")
        #expect(localizer.labels(matching: "cat", in: .hebrew, limit: 3).first == "cat")
        #expect(localizer.labels(matching: "bicyc", in: .english, limit: 3).first == "bicycle")
        #expect(localizer.labels(matching: "  ", in: .english, limit: 3).isEmpty)
        #expect(localizer.labels(matching: "a", in: .english, limit: 4).count == 4)
    }

    @Test func searchIgnoresAccentsAndCase() throws {
        let names = ClassNames(tables: [.french: ["ice cream": "glace", "bee": "abeille", "elephant": "éléphant"]])
        let search = ClassNameSearch(
            labels: ["ice cream", "bee", "elephant"], names: names, locale: .french, annotations: CLDRAnnotations(files: []),
            english: CLDRAnnotations(files: []))
        #expect(search.labels(matching: "ELEPH", limit: 5) == ["elephant"])
        #expect(search.labels(matching: "Éléphant", limit: 5) == ["elephant"])
        #expect(search.labels(matching: "ab", limit: 5) == ["bee"])
    }

    @Test func cldrKeywordsInTheLocaleFindTheClassOfTheirEmoji() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cldr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let english = folder.appendingPathComponent("en.xml")
        let french = folder.appendingPathComponent("fr.xml")
        try "<annotation cp=\"🐈\">cat | pet</annotation>\n<annotation cp=\"🐈\" type=\"tts\">cat</annotation>\n".write(
            to: english, atomically: true, encoding: .utf8)
        try "<annotation cp=\"🐈\">chat | matou | minou</annotation>\n<annotation cp=\"🐈\" type=\"tts\">chat</annotation>\n"
            .write(to: french, atomically: true, encoding: .utf8)
        let search = ClassNameSearch(
            labels: ["cat", "dog"], names: ClassNames(tables: [:]), locale: .french, annotations: CLDRAnnotations(files: [french]),
            english: CLDRAnnotations(files: [english]))
        #expect(search.labels(matching: "minou", limit: 5) == ["cat"])
        #expect(CLDRAnnotations(files: [french]).name(of: "🐈\u{FE0F}") == "chat")
    }
}
