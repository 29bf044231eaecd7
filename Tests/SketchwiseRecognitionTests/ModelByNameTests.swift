import Foundation
import SketchwiseCore
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// Any model of a models folder answers by its name; the folder needs only the models used.
@Suite struct ModelByNameTests {
    let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 0, y: 0, t: 0), Point(x: 90, y: 40, t: 90), Point(x: 10, y: 80, t: 200)])])

    /// A folder holding only a copy of the bundled raster model, named `name`.
    func folder(holding name: String) throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        for ext in ["json", "safetensors"] {
            try FileManager.default.copyItem(
                at: BundledModels.folder.appendingPathComponent("raster-cnn.\(ext)"),
                to: folder.url.appendingPathComponent("\(name).\(ext)"))
        }
        return folder
    }

    @Test func aFolderWithOneModelAnswersByItsName() throws {
        let folder = try folder(holding: "doodle")
        let set = try RecognizerSet.load(from: folder.url)
        let kind = try #require(RecognizerKind.named("doodle"))
        let recognizer = try set.recognizer(kind)
        #expect(recognizer.kind.rawValue == "doodle" && recognizer.labels.count == 345)
        let bundled = try #require(BundledModels.set)
        #expect(try recognizer.classify(sketch, top: 3) == (try bundled.recognizer(.raster).classify(sketch, top: 3)))
        #expect(try set.model(named: "doodle") === recognizer.members[0], "loaded once, then kept")
        #expect(set.has(kind) && !set.has(.ensemble) && !set.has(.raster))
    }

    @Test func aMissingRoleOrUnknownNameIsAClearErrorNamingTheFile() throws {
        let folder = try folder(holding: "doodle")
        let set = try RecognizerSet.load(from: folder.url)
        for (kind, file) in [
            (RecognizerKind.ensemble, "ensemble.json"), (.raster, "raster-cnn.json"), (.strokes, "stroke-rnn.json"),
            (try #require(RecognizerKind.named("nope")), "nope.json"),
        ] {
            let error = try #require(throws: RecognitionError.self) { try set.recognizer(kind) }
            #expect(error.description.contains("no \(file) in \(folder.url.path)"), "\(error)")
        }
        #expect(throws: RecognitionError.self) { try set.model(named: "../Models/raster-cnn") }
        #expect(throws: RecognitionError.self) { try RecognizerSet.load(from: folder.url.appendingPathComponent("missing")) }
    }

    @Test(arguments: ["", "a/b", "../raster-cnn", ".hidden", "a\\b", "a\nb"])
    func namesMustBePlain(name: String) {
        #expect(RecognizerKind(rawValue: name) == nil)
    }

    @Test func anEnsembleMayListAnyModelOfTheFolder() throws {
        let folder = try folder(holding: "doodle")
        try TestModels.writeConstantRaster(name: "few", labels: ["cat", "dog"], in: folder.url)
        try #"{"members": ["doodle"], "weights": [1]}"#.write(
            to: folder.url.appendingPathComponent("ensemble.json"), atomically: true, encoding: .utf8)
        let set = try RecognizerSet.load(from: folder.url)
        // One member with weight 1: the same guesses (the ensemble renormalises, so the last bits may differ).
        let combined = try set.recognizer(.ensemble).classify(sketch, top: 3)
        let alone = try set.recognizer(RecognizerKind.named("doodle")!).classify(sketch, top: 3)
        #expect(combined.map(\.label) == alone.map(\.label))
        #expect(zip(combined, alone).allSatisfy { abs($0.probability - $1.probability) < 1e-5 })

        try #"{"members": ["doodle", "few"], "weights": [0.5, 0.5]}"#.write(
            to: folder.url.appendingPathComponent("ensemble.json"), atomically: true, encoding: .utf8)
        let error = try #require(throws: RecognitionError.self) { try RecognizerSet.load(from: folder.url).recognizer(.ensemble) }
        #expect(error.description.contains("share their labels"))
    }

    @Test func aModelOfSomeClassesAnswersWithItsLabels() throws {
        let folder = TemporaryFolder()
        try TestModels.writeConstantRaster(name: "few", labels: ["cat", "dog", "pig"], favorite: 1, in: folder.url)
        let recognizer = try RecognizerSet.load(from: folder.url).recognizer(RecognizerKind.named("few")!)
        #expect(recognizer.labels == ["cat", "dog", "pig"])
        let guesses = try recognizer.classify(sketch, top: 5)
        #expect(guesses.count == 3 && guesses[0].label == "dog" && guesses[0].probability > 0.9)
    }

    @Test func aBrokenModelFailsAtOnceUntilItsFilesChange() throws {
        let folder = try folder(holding: "doodle")
        let spec = folder.url.appendingPathComponent("doodle.json")
        let good = try Data(contentsOf: spec)
        let stamp = Date(timeIntervalSince1970: 1_700_000_000)
        try Data("{ not a model".utf8).write(to: spec)
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: spec.path)
        let set = try RecognizerSet.load(from: folder.url)
        let kind = try #require(RecognizerKind.named("doodle"))
        let first = try #require(throws: (any Error).self) { try set.recognizer(kind) }
        // The good spec back under the same date: the failure is remembered, the file not re-read.
        try good.write(to: spec)
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: spec.path)
        let again = try #require(throws: (any Error).self) { try set.recognizer(kind) }
        #expect("\(again)" == "\(first)")
        // A new date: loaded again, and it works.
        try FileManager.default.setAttributes([.modificationDate: stamp.addingTimeInterval(60)], ofItemAtPath: spec.path)
        #expect(try set.recognizer(kind).classify(sketch, top: 1).count == 1)
    }
}
