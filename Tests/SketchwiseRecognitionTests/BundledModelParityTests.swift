import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// The bundled models against PyTorch: fixtures written by training/fixtures.py hold synthetic
/// drawings, the model input PyTorch's side prepared from them, and PyTorch's logits and
/// embeddings. Proves the runtime (input → outputs, ≤ 1e-4), the preprocessing (drawing →
/// input) and the answer over the spec's views (test-time augmentation) agree with training.
@Suite struct BundledModelParityTests {
    struct Fixture: Decodable {
        struct Case: Decodable {
            struct Input: Decodable {
                var shape: [Int]
                var data: [Float]
            }
            var name: String
            var kind: String
            var strokes: [[[Double]]]?
            var input: Input
            var logits: [Float]
            var embedding: [Float]
            /// Log-probabilities averaged over the spec's views (test-time augmentation).
            var answer: [Float]
            /// An embedding-only model's embedding of the drawing over the spec's
            /// `embeddingRotations`.
            var sketchEmbedding: [Float]?
        }
        var model: String
        var tolerance: Float
        var cases: [Case]
    }

    static let folder = SharedData.packageRoot.appendingPathComponent("Tests/SketchwiseNNTests/Fixtures/parity")

    /// The bundled models that guess, each with a parity fixture.
    static let recognizers = [
        "raster-cnn", "raster-cnn-lite", "stroke-rnn", "stroke-rnn-plain", "raster-cnn-order", "raster-cnn-mid", "raster-cnn-wide",
    ]

    func fixture(_ name: String) throws -> Fixture {
        try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: Self.folder.appendingPathComponent("\(name).json")))
    }

    func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        a.count == b.count ? zip(a, b).map { abs($0 - $1) }.max() ?? 0 : .infinity
    }

    @Test(arguments: recognizers)
    func runtimeOutputsEqualPyTorch(model name: String) throws {
        let fixture = try fixture(name)
        let model = try Model(contentsOf: BundledModels.folder.appendingPathComponent("\(name).json"))
        let session = model.makeSession()
        #expect(fixture.cases.count >= 5)
        for c in fixture.cases {
            let shape = try #require(Shape(c.input.shape))
            let outputs = try session.run(input: c.input.data, shape: shape)
            #expect(maxDifference(outputs.logits, c.logits) <= fixture.tolerance, "\(name) \(c.name): logits")
            #expect(maxDifference(outputs.embedding ?? [], c.embedding) <= fixture.tolerance, "\(name) \(c.name): embedding")
        }
    }

    @Test(arguments: recognizers)
    func preprocessingAndAnswersEqualTraining(model name: String) throws {
        let fixture = try fixture(name)
        let recognizer = try ModelRecognizer(contentsOf: BundledModels.folder.appendingPathComponent("\(name).json"))
        let drawings = fixture.cases.filter { $0.kind == "drawing" && !($0.strokes ?? []).isEmpty }
        #expect(drawings.count >= 4)
        for c in drawings {
            let sketch = StrokeSketch(strokes: try (c.strokes ?? []).map { try Stroke(xs: $0[0], ys: $0[1]) })
            let (values, shape) = try recognizer.modelInput(for: sketch)
            #expect(shape.dims == c.input.shape, "\(name) \(c.name): shape")
            #expect(maxDifference(values, c.input.data) <= 1e-6, "\(name) \(c.name): input")
            let answer = try recognizer.logProbabilities(sketch).values
            #expect(maxDifference(answer, c.answer) <= fixture.tolerance, "\(name) \(c.name): answer over the views")
        }
    }

    /// The bundled models with int8 products (`--dense-precision int8`), loaded through a
    /// recogniser set as the CLI and server load them: on every fixture the same class first as
    /// PyTorch and probabilities within 0.02 of PyTorch's. (The accuracy change on the validation
    /// split is in docs/runtime.md.)
    @Test(arguments: recognizers)
    func int8ProductsKeepTheAnswers(model name: String) throws {
        let fixture = try fixture(name)
        let recognizer = try RecognizerSet(folder: BundledModels.folder, densePrecision: .int8).model(named: name)
        #expect(recognizer.model.densePrecision == .int8)
        let drawings = fixture.cases.filter { $0.kind == "drawing" && !($0.strokes ?? []).isEmpty }
        #expect(drawings.count >= 4)
        for c in drawings {
            let sketch = StrokeSketch(strokes: try (c.strokes ?? []).map { try Stroke(xs: $0[0], ys: $0[1]) })
            let answer = try recognizer.logProbabilities(sketch).values
            let top = { (values: [Float]) in values.indices.max { values[$0] < values[$1] } }
            #expect(top(answer) == top(c.answer), "\(name) \(c.name): the first class")
            #expect(maxDifference(answer.map(exp), c.answer.map(exp)) <= 0.02, "\(name) \(c.name): probabilities")
        }
    }

    /// `auto`, the CLI's default precision: the models that only guess in int8 where the CPU has
    /// VNNI (float32 elsewhere); raster-cnn and sketch-embedding, whose embeddings are compared with
    /// stored float32 ones (the picture index, taught shortcuts), in float32.
    @Test func autoPrecisionKeepsTheStoredEmbeddingsInFloat32() throws {
        let set = RecognizerSet(folder: BundledModels.folder, densePrecision: .auto)
        let guessing: DensePrecision = KernelVariant.int8UsesVNNI ? .int8 : .float32
        for name in ["raster-cnn-wide", "stroke-rnn-plain", RecognizerSet.strokeModel] {
            #expect(try set.model(named: name).model.densePrecision == guessing, "\(name)")
        }
        for name in [RecognizerSet.rasterModel, RecognizerSet.shortcutEmbeddingModel] {
            #expect(try set.model(named: name).model.densePrecision == .float32, "\(name)")
        }
    }

    /// The embedding-only model of personal shortcuts: runtime, preprocessing and the embedding
    /// over its rotations against PyTorch, and no guesses asked of it.
    @Test func shortcutEmbeddingEqualsPyTorch() throws {
        let name = RecognizerSet.shortcutEmbeddingModel
        let fixture = try fixture(name)
        let recognizer = try ModelRecognizer(contentsOf: BundledModels.folder.appendingPathComponent("\(name).json"))
        #expect(!recognizer.model.hasLogits)
        #expect(recognizer.model.spec.input.embeddingRotations.count > 1, "the drawing is embedded turned by several angles")
        let session = recognizer.model.makeSession()
        #expect(fixture.cases.count >= 5)
        for c in fixture.cases {
            let shape: Shape = try #require(Shape(c.input.shape))
            let outputs = try session.run(input: c.input.data, shape: shape)
            #expect(maxDifference(outputs.embedding ?? [], c.embedding) <= fixture.tolerance, "\(c.name): embedding")
            guard c.kind == "drawing", let strokes = c.strokes else { continue }
            let sketch = StrokeSketch(strokes: try strokes.map { try Stroke(xs: $0[0], ys: $0[1]) })
            #expect(maxDifference(try recognizer.modelInput(for: sketch).values, c.input.data) <= 1e-6, "\(c.name): input")
            let turned = try #require(c.sketchEmbedding)
            #expect(maxDifference(try recognizer.embedding(sketch), turned) <= fixture.tolerance, "\(c.name): embedding of the drawing")
            #expect(maxDifference(turned, c.embedding) > 1e-3, "\(c.name): the turned views change the embedding")
            #expect(throws: RecognitionError.self) { try recognizer.logProbabilities(sketch) }
        }
    }
}
