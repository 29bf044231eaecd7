import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseNN
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

@Suite struct RecognizerTests {
    let models = try! #require(BundledModels.set, "the bundled models in Models/ must load")

    func circle(points: Int = 40) -> StrokeSketch {
        StrokeSketch(strokes: [Stroke(points: (0..<points).map { i in
            let a = Double(i) / Double(points - 1) * 2 * .pi
            return Point(x: 100 + 80 * cos(a), y: 100 + 80 * sin(a), t: Double(i) * 16)
        })])
    }

    @Test func everyRecognizerGivesNormalisedRankedGuesses() throws {
        for kind in RecognizerKind.allCases {
            let guesses = try models.recognizer(kind).classify(circle(), top: 5)
            #expect(guesses.count == 5)
            #expect(zip(guesses, guesses.dropFirst()).allSatisfy { $0.probability >= $1.probability })
            let all = try models.recognizer(kind).logProbabilities(circle()).values.map { Double($0).exp() }
            #expect(abs(all.reduce(0, +) - 1) < 1e-3, "\(kind): probabilities sum to \(all.reduce(0, +))")
        }
        #expect(models.raster.labels.count == 345)
        #expect(models.strokes.labels == models.raster.labels)
    }

    @Test func anEmptySketchIsAClearError() {
        for kind in RecognizerKind.allCases {
            #expect(throws: SketchError.empty) { try models.recognizer(kind).classify(StrokeSketch()) }
        }
    }

    @Test func aSingleDotGivesLowConfidenceGuesses() throws {
        let dot = StrokeSketch(strokes: [Stroke(points: [Point(x: 5, y: 5, t: 0)])])
        for kind in RecognizerKind.allCases {
            let guesses = try models.recognizer(kind).classify(dot, top: 3)
            #expect(guesses.count == 3)
            #expect(guesses[0].probability < 0.9, "\(kind) is sure of a dot: \(guesses[0])")
        }
    }

    @Test func aHundredThousandPointSketchIsRecognisedInBoundedTime() throws {
        let start = ContinuousClock.now
        let guesses = try models.recognizer(.ensemble).classify(circle(points: 100_000), top: 1)
        #expect(guesses.count == 1)
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func bitmapsGoOnlyToTheRasterModel() throws {
        let image = GrayImage(width: 28, height: 28)
        #expect(try models.recognizer(.raster).logProbabilities(image).values.count == 345)
        #expect(throws: RecognitionError.self) { try models.recognizer(.strokes).logProbabilities(image) }
        #expect(throws: RecognitionError.self) { try models.raster.logProbabilities(GrayImage(width: 10, height: 10)) }
    }

    @Test func embeddingsAreUnitVectors() throws {
        let embedding = try models.recognizer(.ensemble).embedding(circle())
        let norm = embedding.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
        #expect(abs(norm - 1) < 1e-4)
    }

    @Test func concurrentRequestsGetTheSameAnswers() async throws {
        let expected = try models.recognizer(.ensemble).logProbabilities(circle()).values
        let recognizer = models.recognizer(.ensemble)
        let sketch = circle()
        let results = try await withThrowingTaskGroup(of: [Float].self) { group in
            for _ in 0..<16 { group.addTask { try recognizer.logProbabilities(sketch).values } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func liveRecognitionAnswersAfterEveryStrokeAndUndo() throws {
        var live = LiveRecognition(recognizer: models.recognizer(.ensemble), top: 3)
        let first = try live.add(Stroke(points: [Point(x: 0, y: 0, t: 0), Point(x: 100, y: 0, t: 100)]))
        #expect(first.count == 3)
        let second = try live.add(Stroke(points: [Point(x: 0, y: 50, t: 300), Point(x: 100, y: 50, t: 400)]))
        #expect(second.count == 3)
        #expect(try live.add(Stroke(points: [])) == second)
        #expect(try live.removeLastStroke() == first)
        #expect(try live.removeLastStroke() == [])
    }

    @Test func aModelOfTheWrongKindIsRejectedWhenLoading() throws {
        let folder = TemporaryFolder()
        for (from, to) in [("stroke-rnn", "raster-cnn"), ("raster-cnn", "stroke-rnn")] {
            for ext in ["json", "safetensors"] {
                try FileManager.default.copyItem(at: BundledModels.folder.appendingPathComponent("\(from).\(ext)"),
                                                 to: folder.url.appendingPathComponent("\(to).\(ext)"))
            }
        }
        try FileManager.default.copyItem(at: BundledModels.folder.appendingPathComponent("ensemble.json"), to: folder.url.appendingPathComponent("ensemble.json"))
        #expect(throws: RecognitionError.self) { try RecognizerSet.load(from: folder.url) }
    }

    @Test func aCorruptModelFileIsAClearError() throws {
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(at: BundledModels.folder.appendingPathComponent("raster-cnn.json"), to: folder.url.appendingPathComponent("m.json"))
        let weights = try Data(contentsOf: BundledModels.folder.appendingPathComponent("raster-cnn.safetensors"))
        try weights.prefix(weights.count / 2).write(to: folder.url.appendingPathComponent("m.safetensors"))
        #expect(throws: ModelError.self) { try ModelRecognizer(contentsOf: folder.url.appendingPathComponent("m.json")) }
    }
}

extension Double {
    func exp() -> Double { Foundation.exp(self) }
}
