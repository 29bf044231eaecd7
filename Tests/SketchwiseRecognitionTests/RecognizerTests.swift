import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseNN
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

@Suite struct RecognizerTests {
    let models = try! #require(BundledModels.set, "the bundled models in Models/ must load")

    func circle(points: Int = 40) -> StrokeSketch {
        StrokeSketch(strokes: [
            Stroke(
                points: (0..<points).map { i in
                    let a = Double(i) / Double(points - 1) * 2 * .pi
                    return Point(x: 100 + 80 * cos(a), y: 100 + 80 * sin(a), t: Double(i) * 16)
                })
        ])
    }

    @Test func aTurnedSketchTurnsClockwiseOnScreenAboutItsCentreAndKeepsItsTimes() {
        let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 0, y: 0, t: 5), Point(x: 10, y: 0, t: 9)])])
        let turned = sketch.rotated(byDegrees: 90).strokes[0].points
        #expect(abs(turned[0].x - 5) < 1e-12 && abs(turned[0].y + 5) < 1e-12, "the left end goes up (y points down)")
        #expect(abs(turned[1].x - 5) < 1e-12 && abs(turned[1].y - 5) < 1e-12)
        #expect(turned.map(\.t) == [5, 9])
        #expect(sketch.rotated(byDegrees: 0) == sketch)
    }

    @Test func everyRecognizerGivesNormalizedRankedGuesses() throws {
        for kind in RecognizerKind.roles {
            let guesses = try models.recognizer(kind).classify(circle(), top: 5)
            #expect(guesses.count == 5)
            #expect(zip(guesses, guesses.dropFirst()).allSatisfy { $0.probability >= $1.probability })
            let all = try models.recognizer(kind).logProbabilities(circle()).values.map { Double($0).exp() }
            #expect(abs(all.reduce(0, +) - 1) < 1e-3, "\(kind): probabilities sum to \(all.reduce(0, +))")
        }
        #expect(try models.raster.labels.count == 345)
        #expect(try models.strokes.labels == models.raster.labels)
    }

    @Test func anEmptySketchIsAClearError() {
        for kind in RecognizerKind.roles {
            #expect(throws: SketchError.empty) { try models.recognizer(kind).classify(StrokeSketch()) }
        }
    }

    @Test func aSingleDotGivesLowConfidenceGuesses() throws {
        let dot = StrokeSketch(strokes: [Stroke(points: [Point(x: 5, y: 5, t: 0)])])
        for kind in RecognizerKind.roles {
            let guesses = try models.recognizer(kind).classify(dot, top: 3)
            #expect(guesses.count == 3)
            #expect(guesses[0].probability < 0.9, "\(kind) is sure of a dot: \(guesses[0])")
        }
    }

    @Test func aHundredThousandPointSketchIsRecognizedInBoundedTime() throws {
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
        let recognizer = try models.recognizer(.ensemble)
        let sketch = circle()
        let results = try await withThrowingTaskGroup(of: [Float].self) { group in
            for _ in 0..<16 { group.addTask { try recognizer.logProbabilities(sketch).values } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func aModelOfTheWrongKindIsRejectedWhenLoading() throws {
        let folder = TemporaryFolder()
        for (from, to) in [("stroke-rnn", "raster-cnn"), ("raster-cnn", "stroke-rnn")] {
            for ext in ["json", "safetensors"] {
                try FileManager.default.copyItem(
                    at: BundledModels.folder.appendingPathComponent("\(from).\(ext)"),
                    to: folder.url.appendingPathComponent("\(to).\(ext)"))
            }
        }
        let set = try RecognizerSet.load(from: folder.url)
        #expect(throws: RecognitionError.self) { try set.recognizer(.raster) }
        #expect(throws: RecognitionError.self) { try set.recognizer(.strokes) }
    }

    @Test func aCorruptModelFileIsAClearError() throws {
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(
            at: BundledModels.folder.appendingPathComponent("raster-cnn.json"), to: folder.url.appendingPathComponent("m.json"))
        let weights = try Data(contentsOf: BundledModels.folder.appendingPathComponent("raster-cnn.safetensors"))
        try weights.prefix(weights.count / 2).write(to: folder.url.appendingPathComponent("m.safetensors"))
        #expect(throws: ModelError.self) { try ModelRecognizer(contentsOf: folder.url.appendingPathComponent("m.json")) }
    }
}

extension Double {
    func exp() -> Double { Foundation.exp(self) }
}

/// Test-time views (`input.views` in a model spec): the answers of the listed views are averaged.
@Suite struct ModelViewTests {
    /// A copy of the bundled raster model whose spec lists `views` (none when nil).
    func rasterModel(views: [String]?, in folder: TemporaryFolder) throws -> URL {
        let source = BundledModels.folder
        try FileManager.default.copyItem(
            at: source.appendingPathComponent("raster-cnn.safetensors"),
            to: folder.url.appendingPathComponent("raster-cnn.safetensors"))
        let data = try Data(contentsOf: source.appendingPathComponent("raster-cnn.json"))
        var spec = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var input = try #require(spec["input"] as? [String: Any])
        input["views"] = views
        spec["input"] = input
        let url = folder.url.appendingPathComponent("raster-cnn.json")
        try JSONSerialization.data(withJSONObject: spec).write(to: url)
        return url
    }

    func lopsided() -> GrayImage {
        var image = GrayImage(width: 28, height: 28)
        for y in 4..<24 { image.pixels[y * 28 + 6] = 255 }
        for x in 6..<20 { image.pixels[20 * 28 + x] = 200 }
        return image
    }

    func mirrored(_ image: GrayImage) -> GrayImage {
        var out = image
        for y in 0..<image.height {
            for x in 0..<image.width { out.pixels[y * image.width + x] = image.pixels[y * image.width + image.width - 1 - x] }
        }
        return out
    }

    @Test func bothViewsMakeTheAnswerMirrorInvariant() throws {
        let folder = TemporaryFolder()
        let both = try ModelRecognizer(contentsOf: try rasterModel(views: ["original", "mirrored"], in: folder))
        #expect(both.model.spec.input.views == [.original, .mirrored])
        let image = lopsided()
        let answer = try both.logProbabilities(image).values
        let mirrorAnswer = try both.logProbabilities(mirrored(image)).values
        #expect(zip(answer, mirrorAnswer).allSatisfy { abs($0 - $1) <= 1e-5 })
        let sum = answer.reduce(0.0) { $0 + Foundation.exp(Double($1)) }
        #expect(abs(sum - 1) < 1e-4, "renormalised: probabilities sum to \(sum)")

        let plainFolder = TemporaryFolder()
        let plain = try ModelRecognizer(contentsOf: try rasterModel(views: nil, in: plainFolder))
        #expect(plain.model.spec.input.views == [.original])
        let plainAnswer = try plain.logProbabilities(image).values
        #expect(
            zip(plainAnswer, try plain.logProbabilities(mirrored(image)).values).contains { abs($0 - $1) > 1e-3 },
            "one view: a lopsided image and its mirror image get different answers")
        #expect(try both.embedding(image) == (try plain.embedding(image)), "the embedding is the first view's")
    }

    @Test(arguments: [[], ["original", "original"], ["upside-down"]])
    func badViewListsAreRejected(views: [String]) throws {
        let folder = TemporaryFolder()
        let url = try rasterModel(views: views, in: folder)
        #expect(throws: ModelError.self) { try ModelRecognizer(contentsOf: url) }
    }
}

/// `ensemble.json` may name further models of its folder.
@Suite struct EnsembleMemberTests {
    /// A folder with the bundled models, a copy of the raster model as `raster-copy`, and
    /// `ensemble` as its ensemble.json.
    func folder(ensemble: String) throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        for name in ["raster-cnn", "stroke-rnn"] {
            for ext in ["json", "safetensors"] {
                try FileManager.default.copyItem(
                    at: BundledModels.folder.appendingPathComponent("\(name).\(ext)"),
                    to: folder.url.appendingPathComponent("\(name).\(ext)"))
            }
        }
        let spec = try String(contentsOf: BundledModels.folder.appendingPathComponent("raster-cnn.json"), encoding: .utf8)
        try spec.replacingOccurrences(of: "\"name\": \"raster-cnn\"", with: "\"name\": \"raster-copy\"")
            .write(to: folder.url.appendingPathComponent("raster-copy.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: BundledModels.folder.appendingPathComponent("raster-cnn.safetensors"),
            to: folder.url.appendingPathComponent("raster-copy.safetensors"))
        try ensemble.write(to: folder.url.appendingPathComponent("ensemble.json"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func aThirdMemberIsLoadedFromTheFolderAndBitmapsGoToTheImageReaders() throws {
        let folder = try folder(ensemble: #"{"members": ["raster-cnn", "raster-copy", "stroke-rnn"], "weights": [0.3, 0.3, 0.4]}"#)
        let set = try RecognizerSet.load(from: folder.url)
        #expect(try set.ensemble.members.map(\.name) == ["raster-cnn", "raster-copy", "stroke-rnn"])
        var image = GrayImage(width: 28, height: 28)
        for i in 100..<300 { image.pixels[i] = 255 }
        let alone = try set.recognizer(.raster).logProbabilities(image).values
        let ensemble = try set.recognizer(.ensemble).logProbabilities(image).values
        #expect(zip(alone, ensemble).allSatisfy { abs($0 - $1) <= 1e-4 }, "two copies of one raster model answer as it does")
        let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 0, y: 0, t: 0), Point(x: 90, y: 40, t: 90)])])
        #expect(try set.recognizer(.ensemble).classify(sketch, top: 3).count == 3)
    }

    @Test func bitmapsAreWeighedByTheirOwnWeights() throws {
        let folder = try folder(ensemble: #"{"members": ["raster-cnn", "stroke-rnn"], "weights": [0, 1], "bitmapWeights": [1, 0]}"#)
        let set = try RecognizerSet.load(from: folder.url)
        #expect(try set.ensemble.bitmapWeights == [1, 0])
        var image = GrayImage(width: 28, height: 28)
        for i in 100..<300 { image.pixels[i] = 255 }
        let raster = try set.recognizer(.raster).logProbabilities(image).values
        #expect(zip(raster, try set.recognizer(.ensemble).logProbabilities(image).values).allSatisfy { abs($0 - $1) <= 1e-4 })
        let sketch = StrokeSketch(strokes: [
            Stroke(points: [Point(x: 0, y: 0, t: 0), Point(x: 90, y: 40, t: 90), Point(x: 10, y: 80, t: 200)])
        ])
        let strokes = try set.recognizer(.strokes).logProbabilities(sketch).values
        #expect(
            zip(strokes, try set.recognizer(.ensemble).logProbabilities(sketch).values).allSatisfy { abs($0 - $1) <= 1e-4 },
            "drawings keep the drawing weights")
    }

    @Test(arguments: [
        #"{"members": ["raster-cnn", "no-such-model"], "weights": [0.5, 0.5]}"#,
        #"{"members": ["raster-cnn", "../Models/stroke-rnn"], "weights": [0.5, 0.5]}"#,
        #"{"members": ["raster-cnn", "raster-cnn"], "weights": [0.5, 0.5]}"#,
        #"{"members": ["raster-cnn", "stroke-rnn"], "weights": [1]}"#,
        #"{"members": ["raster-cnn", "stroke-rnn"], "weights": [0.5, 0.5], "bitmapWeights": [1]}"#,
    ])
    func badMemberListsAreClearErrors(ensemble: String) throws {
        let folder = try folder(ensemble: ensemble)
        #expect(throws: RecognitionError.self) { try RecognizerSet.load(from: folder.url).recognizer(.ensemble) }
    }
}

/// Raster channels (`input.raster.channels`): the bundled order member reads the plain render
/// and a plane where strokes are shaded by their order.
@Suite struct RasterChannelTests {
    let recognizer = try! ModelRecognizer(contentsOf: BundledModels.folder.appendingPathComponent("raster-cnn-order.json"))

    /// Already in Google's simplified form (0…255, longer side 255), so nothing is simplified again.
    func strokes(_ rows: [Double]) throws -> StrokeSketch {
        StrokeSketch(strokes: try rows.map { try Stroke(xs: [0, 255], ys: [$0, $0]) })
    }

    /// The brightest pixel of `rows` in one plane of a `[2, 28, 28]` input.
    func brightest(_ values: [Float], plane: Int, rows: Range<Int>) -> Float {
        var best: Float = 0
        for row in rows {
            let start = (plane * 28 + row) * 28
            best = max(best, values[start..<(start + 28)].max() ?? 0)
        }
        return best
    }

    @Test func theOrderPlaneShadesLaterStrokesLighter() throws {
        #expect(
            recognizer.model.spec.input.kind
                == .raster(RasterInput(size: 28, recipe: "quickdraw", scale: 1.0 / 255, channels: [.ink, .order])))
        let (values, shape) = try recognizer.modelInput(for: try strokes([0, 200]))
        #expect(shape.dims == [2, 28, 28])
        let (top, bottom) = (0..<14, 14..<28)
        #expect(brightest(values, plane: 0, rows: top) == brightest(values, plane: 0, rows: bottom), "ink: both strokes alike")
        #expect(brightest(values, plane: 1, rows: top) == brightest(values, plane: 0, rows: top), "order: the first stroke opaque")
        let ratio = brightest(values, plane: 1, rows: bottom) / brightest(values, plane: 0, rows: bottom)
        #expect(abs(ratio - 0.25) < 0.02, "order: the last stroke at opacity 0.25, got \(ratio)")
    }

    @Test func bitmapsGoOnlyToModelsOfPlainInkAndTheirSize() throws {
        let image = try SketchRasterizer(size: 28).render(try strokes([0, 200]))
        #expect(!recognizer.readsBitmaps && recognizer.readsImages)
        #expect(throws: RecognitionError.self) { _ = try recognizer.logProbabilities(image) }
        #expect(throws: RecognitionError.self) { _ = try recognizer.embedding(image) }
        let models = try #require(BundledModels.set)
        let readers = try models.ensemble.members.filter(\.readsBitmaps).map(\.name)
        #expect(!readers.contains("raster-cnn-order") && readers.contains("raster-cnn"))
        let answer = try models.ensemble.logProbabilities(image).values
        #expect(answer.allSatisfy { $0.isFinite })
        let other = try SketchRasterizer(size: 36).render(try strokes([0, 200]))
        #expect(try models.raster.reads(image) && !models.raster.reads(other), "bitmaps go only to members of their size")
        #expect(throws: RecognitionError.self) { _ = try models.ensemble.logProbabilities(other) }
    }
}

@Suite struct TopGuessesTests {
    @Test(arguments: [0, 1, 3, 5, 20, 345, 400])
    func topAgreesWithSortingEveryLabel(count: Int) {
        var state: UInt64 = 12345
        let values = (0..<345).map { _ -> Float in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return -Float(state >> 40) / Float(1 << 20)
        }
        let answer = LogProbabilities(labels: (0..<345).map { "class \($0)" }, values: values)
        let sorted = values.indices.sorted { values[$0] > values[$1] || (values[$0] == values[$1] && $0 < $1) }
        #expect(answer.top(count).map(\.label) == sorted.prefix(count).map { "class \($0)" })
    }
}
