import Foundation
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

/// The byte-level JSON parser against Foundation's decoder, and its refusals.
@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }
    func decoded(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test(arguments: [
        #"{"word":"cat","drawing":[[[1,2,3],[4,5,6],[0,16,33]]],"recognized":true,"x":null}"#,
        #"  [ -0, 0.5, -12.25e-3, 1E+2, 123456789012345678, 9007199254740993, 1e308 ]  "#,
        #"{"s":"tab\tquote\" slash\/ back\\ \u00e9 \ud83d\ude00 é 😀","e":"","n":{"deep":[[[]]],"o":{}}}"#,
        #""just a string""#, "true", "false", "null", "42",
    ])
    func agreesWithFoundation(_ text: String) throws {
        #expect(try parse(text) == decoded(text))
    }

    @Test func agreesWithFoundationOnEveryRealDrawing() throws {
        guard SharedData.isAvailable else { print(SharedData.skipMessage); return }
        var lines = 0
        for name in ["cat", "house", "The Eiffel Tower"] {
            let text = try String(contentsOf: SharedData.quickDraw("raw/\(name).ndjson"), encoding: .utf8)
            for line in text.split(separator: "\n") {
                #expect(try parse(String(line)) == decoded(String(line)))
                lines += 1
            }
        }
        #expect(lines > 30)
    }

    @Test(arguments: [
        ("", "unexpected end"), ("{", "member name"), (#"{"a" 1}"#, "expected :"), ("[1,]", "unexpected character"),
        ("[1 2]", "expected , or ]"), ("[NaN]", "unexpected character"), ("[Infinity]", "unexpected character"),
        ("[01]", "expected , or ]"), ("[1.]", "bad number"), ("[-]", "bad number"), ("[1e]", "bad number"),
        (#"["a\qb"]"#, "unknown escape"), (#"["\ud800"]"#, "unpaired surrogate"), (#"["\u12"]"#, #"bad \u escape"#),
        ("[\"a\nb\"]", "control character"), ("[\"abc", "unterminated"), ("{} {}", "after the JSON value"), ("tru", "unexpected"),
    ])
    func refusesWhatIsNotJSON(_ text: String, _ reason: String) {
        do {
            _ = try JSONValue.parse(Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.reason.contains(reason), "\(text): \(error)")
        }
    }

    @Test(arguments: ["", "plain", "say \"hi\"", "back\\slash", "line\nfeed\r\ttab", "bell\u{07}\u{1F}end",
                      "🌀 spiral — ünïcode", "\"", "\u{00}"])
    func writtenStringsParseBackUnchanged(text: String) throws {
        let written = JSONValue.object(["title": .string(text)]).jsonText
        #expect(try parse(written) == .object(["title": .string(text)]))
        #expect(!written.utf8.contains(where: { $0 < 0x20 }), "control characters are escaped: \(written)")
        #expect(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: String] == ["title": text])
    }

    @Test func refusesDeepNestingInsteadOfOverflowingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try parse(deep) }
        let fine = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(try parse(fine) != .null)
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func hugeExponentsBecomeInfinityAndRecordsRefuseThem() throws {
        #expect(try parse("[1e400]") == .array([.number(.infinity)]))
        #expect(throws: RecordError.self) { try QuickDrawRecord(json: Data(#"{"word":"a","drawing":[[[1e400],[0]]]}"#.utf8)) }
    }
}
