import Foundation
import SketchwiseLibrary
import SketchwiseSuggestions
import Testing

@Suite struct SuggestionSourceTests {
    /// The names docs/api.md gives for a suggestion's `source`: every library source's, and `web`.
    @Test func aSourceIsWrittenAsTheLibrarySourcesNameOrWeb() throws {
        let all = LibrarySource.allCases.map(SuggestionSource.library) + [.web]
        #expect(all.map(\.rawValue) == ["clipart", "emoji", "openmoji", "lucide", "tabler", "doodle", "web"])
        for source in all {
            #expect(SuggestionSource(rawValue: source.rawValue) == source)
            let json = try JSONEncoder().encode([source])
            #expect(String(decoding: json, as: UTF8.self) == "[\"\(source.rawValue)\"]")
            #expect(try JSONDecoder().decode([SuggestionSource].self, from: json) == [source])
        }
    }

    @Test func anUnknownSourceIsRefused() {
        #expect(SuggestionSource(rawValue: "test") == nil)
        #expect(SuggestionSource(rawValue: "Web") == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([SuggestionSource].self, from: Data(#"["library"]"#.utf8)) }
    }
}
