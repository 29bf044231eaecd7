import Foundation
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// Evaluation by model name, in a folder holding only that model, of a model that knows only
/// some classes: only the drawings of its classes are scored, matched by name.
@Suite struct ModelByNameEvaluationTests {
    @Test func aModelOfSomeClassesIsScoredOnItsClassesOnly() throws {
        let folder = TemporaryFolder()
        // Always answers "dog" (its index 1); "airplane" comes first among the official names but is unknown to it.
        try TestModels.writeConstantRaster(name: "few", labels: ["cat", "dog", "pig"], favorite: 1, in: folder.url)
        let line = { (word: String) in #"{"word":"\#(word)","drawing":[[[0,40,80],[0,60,10]]]}"# }
        try ["cat", "airplane", "dog", "dog", "airplane", "pig"].map(line).joined(separator: "\n")
            .write(toFile: folder.path("drawings.ndjson"), atomically: true, encoding: .utf8)
        let (report, counts) = try Evaluation.run(
            source: DrawingSource(path: folder.path("drawings.ndjson")), recognizers: RecognizerSet.load(from: folder.url),
            kind: RecognizerKind.named("few"), subset: .all, policy: BadInputPolicy(skipBad: false))
        #expect(report.model == "few")
        #expect(report.n == 4 && report.drawings == 6 && report.classes == 3 && report.unknownClass == 2)
        #expect(report.top1 == 0.5 && report.top3 == 1)
        #expect(report.perClass["dog"]?.top1 == 1 && report.perClass["cat"]?.top1 == 0 && report.perClass["airplane"] == nil)
        #expect(report.coverage == "scored 4 of 6 drawings: the model knows 3 classes")
        #expect(counts.labels == ["cat", "dog", "pig"] && counts.counts[0][1] == 1)
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(#""unknown_class":2"#) && json.contains(#""drawings":6"#) && json.contains(#""classes":3"#))
    }

    @Test func anUnknownModelNameIsAClearError() throws {
        let folder = TemporaryFolder()
        try TestModels.writeConstantRaster(name: "few", labels: ["cat"], in: folder.url)
        try #"{"word":"cat","drawing":[[[0,40],[0,60]]]}"#.write(toFile: folder.path("cat.ndjson"), atomically: true, encoding: .utf8)
        let error = try #require(throws: RecognitionError.self) {
            try Evaluation.run(
                source: DrawingSource(path: folder.path("cat.ndjson")), recognizers: RecognizerSet.load(from: folder.url),
                kind: RecognizerKind.named("doodlenet"), subset: .all, policy: BadInputPolicy(skipBad: false))
        }
        #expect(error.description.contains("no doodlenet.json in"))
    }
}
