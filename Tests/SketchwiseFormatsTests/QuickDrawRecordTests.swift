import Foundation
import SketchwiseCore
import SketchwiseFormats
import Testing

@Suite struct QuickDrawRecordTests {
    let rawLine =
        #"{"word":"cat","countrycode":"BR","timestamp":"2017-03-26 18:43:54.78083 UTC","recognized":true,"key_id":"4647694628814848","drawing":[[[959,950.5,935],[285,286,288],[0,17,35]],[[10],[20],[40]]],"extra":{"a":[1,2.5]}}"#

    @Test func rawRecordsKeepEveryFieldAndTime() throws {
        let record = try QuickDrawRecord(json: Data(rawLine.utf8))
        #expect(record.word == "cat")
        #expect(record.countryCode == "BR")
        #expect(record.recognized == true)
        #expect(record.keyID == "4647694628814848")
        #expect(record.drawing.label == "cat")
        #expect(record.drawing.strokes.count == 2)
        #expect(record.drawing.strokes[0].points[1] == Point(x: 950.5, y: 286, t: 17))
        #expect(record.extraFields["extra"] == .object(["a": .array([.number(1), .number(2.5)])]))
    }

    @Test func writingThenReadingGivesTheSameRecord() throws {
        let record = try QuickDrawRecord(json: Data(rawLine.utf8))
        let line = record.ndjsonLine
        #expect(
            line.hasPrefix(
                #"{"word":"cat","countrycode":"BR","timestamp":"2017-03-26 18:43:54.78083 UTC","recognized":true,"key_id":"4647694628814848","drawing":[[[959,950.5,935],[285,286,288],[0,17,35]]"#
            ))
        #expect(try QuickDrawRecord(json: Data(line.utf8)) == record)
    }

    @Test func simplifiedRecordsHaveNoTime() throws {
        let record = try QuickDrawRecord(json: Data(#"{"word":"cat","drawing":[[[0,255],[10,20]]]}"#.utf8))
        #expect(!record.drawing.strokes[0].hasTimestamps)
        #expect(record.ndjsonLine == #"{"word":"cat","drawing":[[[0,255],[10,20]]]}"#)
    }

    @Test func theFileNameStandsInForAMissingWord() throws {
        let record = try QuickDrawRecord(json: Data(#"{"drawing":[]}"#.utf8), fallbackWord: "tree")
        #expect(record.word == "tree")
        #expect(throws: RecordError.self) { try QuickDrawRecord(json: Data(#"{"drawing":[]}"#.utf8)) }
    }

    @Test(arguments: [
        ("{\"word\":\"cat\",\"drawing\":[[[1,2],[3]]]}", "x has 2 values, y has 1"),
        ("{\"word\":\"cat\",\"drawing\":[[[1,2],[3,4],[5]]]}", "t has 1"),
        ("{\"word\":\"cat\",\"drawing\":[[[1e400],[3]]]}", "out of range"),
        ("{\"word\":\"cat\",\"drawing\":[[[1e300],[3]]]}", "not a finite number"),
        ("{\"word\":\"cat\",\"drawing\":[[[NaN],[3]]]}", "not a JSON object"),
        ("{\"word\":\"cat\",\"drawing\":[[[\"1\"],[3]]]}", "not a finite number"),
        ("{\"word\":\"cat\",\"drawing\":[[[1],[3],[4],[5]]]}", "stroke 0 is not"),
        ("{\"word\":\"cat\"}", "missing \"drawing\""),
        ("{\"word\":\"cat\",\"drawing\":\"x\"}", "\"drawing\" must be a list of strokes [[x…],[y…]] or [[x…],[y…],[t…]], not a string"),
        ("{\"word\":5,\"drawing\":[[[1],[2]]]}", "\"word\" must be the class name, not a number"),
        ("{\"word\":\"cat\",\"drawing\":[[[1],[2]]]", "not a JSON object"),
        ("[1,2]", "not a JSON object"),
        ("", "not a JSON object"),
    ])
    func malformedRecordsAreRejectedWithAReason(line: String, reason: String) {
        do {
            _ = try QuickDrawRecord(json: Data(line.utf8))
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }
}
