import Foundation
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// `eval --prefixes`: scores after a share of each drawing's strokes.
@Suite struct PrefixEvaluationTests {
    @Test func aShareKeepsTheCeilingOfItsStrokesAndAtLeastOne() {
        typealias Score = EvaluationReport.PrefixScore
        #expect([0.25, 0.5, 0.75, 1].map { Score.strokesKept($0, of: 4) } == [1, 2, 3, 4])
        #expect([0.25, 0.5, 0.75, 1].map { Score.strokesKept($0, of: 3) } == [1, 2, 3, 3])
        #expect(Score.strokesKept(0.3, of: 10) == 3)
        #expect(Score.strokesKept(0.01, of: 5) == 1)
        #expect(Score.strokesKept(0.5, of: 1) == 1)
        let sketch = StrokeSketch(strokes: (0..<5).map { Stroke(points: [Point(x: Double($0), y: 0)]) }, label: "cat")
        let cut = Score.cut(sketch, to: 0.5)
        #expect(cut.strokes == Array(sketch.strokes.prefix(3)) && cut.label == "cat")
    }

    @Test func aListOfSharesIsParsedAndAnythingOutsideZeroToOneIsRefused() throws {
        #expect(try EvaluationReport.PrefixScore.parseList("0.25,0.5, 0.75,1") == [0.25, 0.5, 0.75, 1])
        for bad in ["0", "1.5", "-0.5", "half", "", "0.5,,1", "nan"] {
            let error = try #require(throws: RecordError.self, "\(bad)") { try EvaluationReport.PrefixScore.parseList(bad) }
            #expect(error.description.contains("not a share of strokes in (0, 1]"))
        }
    }

    @Test func eachShareGetsARowOfStrokeDrawingsAndBitmapsAreLeftOut() throws {
        let folder = TemporaryFolder()
        try TestModels.writeConstantRaster(name: "few", labels: ["cat", "dog", "pig"], favorite: 1, in: folder.url)
        let data = folder.path("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let line = { (word: String) in #"{"word":"\#(word)","drawing":[[[0,40],[0,60]],[[5,9],[1,2]],[[40,0],[0,60]],[[3,3],[9,9]]]}"# }
        try ["cat", "dog", "dog", "pig"].map(line).joined(separator: "\n")
            .write(toFile: (data as NSString).appendingPathComponent("drawings.ndjson"), atomically: true, encoding: .utf8)
        try NPYArray(shape: [2, 16], elementType: .uint8, bytes: [UInt8](repeating: 9, count: 2 * 16))
            .write(to: (data as NSString).appendingPathComponent("dog.npy"))
        let (report, _) = try Evaluation.run(
            source: DrawingSource(path: data), recognizers: RecognizerSet.load(from: folder.url),
            kind: RecognizerKind.named("few"), subset: .all, policy: BadInputPolicy(skipBad: false), prefixes: [0.25, 0.5, 1])
        #expect(report.n == 6 && report.top1 == 4.0 / 6)
        let rows = try #require(report.prefixes)
        #expect(rows.map(\.prefix) == [0.25, 0.5, 1])
        #expect(rows.allSatisfy { $0.n == 4 && $0.top1 == 0.5 && $0.top3 == 1 })
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(#""prefixes":[{"#) && json.contains(#""prefix":0.25"#))
    }

    @Test func withoutSharesTheReportHasNoPrefixRows() throws {
        let folder = TemporaryFolder()
        try TestModels.writeConstantRaster(name: "few", labels: ["cat"], in: folder.url)
        try #"{"word":"cat","drawing":[[[0,40],[0,60]]]}"#.write(toFile: folder.path("cat.ndjson"), atomically: true, encoding: .utf8)
        let (report, _) = try Evaluation.run(
            source: DrawingSource(path: folder.path("cat.ndjson")), recognizers: RecognizerSet.load(from: folder.url),
            kind: RecognizerKind.named("few"), subset: .all, policy: BadInputPolicy(skipBad: false))
        #expect(report.prefixes == nil)
        #expect(!String(decoding: try JSONEncoder().encode(report), as: UTF8.self).contains("prefixes"))
    }
}
