import Foundation
import Testing

@testable import SketchwiseNN

/// Outputs match PyTorch (training/tools/make_nn_fixtures.py) within 1e-4.
@Suite struct ParityTests {
    @Test(arguments: ["cnn", "seq"])
    func matchesPyTorch(model name: String) throws {
        let model = try Model(contentsOf: Fixtures.model(name))
        let session = model.makeSession()
        let cases = Fixtures.cases(name)
        #expect(cases.count >= 3)
        for item in cases {
            let outputs = try session.run(input: item.input)
            #expect(maxDifference(outputs.logits, item.logits) <= 1e-4, "\(name) logits, \(item.rows) rows")
            #expect(maxDifference(outputs.embedding ?? [], item.embedding) <= 1e-4, "\(name) embedding, \(item.rows) rows")
        }
    }

    @Test func everyLayerTypeIsCoveredByTheFixtures() throws {
        let used = try ["cnn", "seq", "photo/tiny"].flatMap { try Model(contentsOf: Fixtures.model($0)).spec.layers.map(\.type) }
        #expect(Set(LayerRegistry.types.map { $0.typeName }).subtracting(used).isEmpty)
    }

    @Test func specIsExposed() throws {
        let cnn = try Model(contentsOf: Fixtures.model("cnn"))
        #expect(cnn.spec.name == "cnn")
        #expect(cnn.inputShape == .image(channels: 1, height: 20, width: 20))
        #expect(cnn.spec.input.kind == .raster(RasterInput(size: 20, recipe: "quickdraw", scale: 1.0 / 255)))
        #expect(cnn.labels.count == 5 && cnn.logitsCount == 5 && cnn.embeddingCount == 20)
        #expect(cnn.maxLength == nil)
        let seq = try Model(contentsOf: Fixtures.model("seq"))
        #expect(seq.spec.input.kind == .strokes(StrokeInput(maxLength: 40, normalization: .perAxis)))
        #expect(seq.maxLength == 40 && seq.inputShape == .sequence(length: 40, channels: 3))
    }

    @Test func batchNormAndReluAreFoldedIntoConvolutionsAndDense() throws {
        let cnn = try Model(contentsOf: Fixtures.model("cnn"))
        let names = cnn.program.steps.map(\.name)
        // conv1+bn1+relu1+pool1 (max), conv2+bn2+relu2 (then an average pool), conv3+relu3, bn_cat stays
        // (after concat), fc1+bn_fc1+relu_fc1.
        #expect(names.contains("pool1") && !names.contains("relu1") && !names.contains("conv1") && !names.contains("bn1"))
        #expect(names.contains("relu2") && names.contains("pool2"))
        // conv2 (3×3, 6 channels) runs as Winograd; conv1 (1 channel) as im2col + sgemm.
        let conv = { (name: String) in cnn.program.steps.first { $0.name == name }?.layer as? Conv2D }
        #expect(conv("relu2")?.winograd != nil && conv("pool1")?.winograd == nil)
        #expect(names.contains("relu3") && names.contains("bn3") && names.contains("relu3b"))
        #expect(names.contains("bn_cat") && names.contains("relu_fc1") && !names.contains("bn_fc1"))
        #expect(cnn.program.steps.count < cnn.spec.layers.count - 6)
    }

    @Test func outputVariantsAgree() throws {
        let model = try Model(contentsOf: Fixtures.model("seq"))
        let session = model.makeSession()
        let item = Fixtures.cases("seq")[2]
        let copied = try session.run(input: item.input, shape: .sequence(length: item.rows, channels: 3))
        var logits = [Float](repeating: 0, count: model.logitsCount)
        var embedding = [Float](repeating: 0, count: model.embeddingCount ?? 0)
        try item.input.withUnsafeBufferPointer { input in
            let viewed = try session.run(input: input) {
                Array($0.logits) + Array($0.embedding ?? UnsafeBufferPointer(start: nil, count: 0))
            }
            #expect(viewed == copied.logits + (copied.embedding ?? []))
            try logits.withUnsafeMutableBufferPointer { logits in
                try embedding.withUnsafeMutableBufferPointer { embedding in
                    try session.run(input: input, logits: logits, embedding: embedding)
                }
            }
        }
        #expect(logits == copied.logits && embedding == copied.embedding)
    }

    @Test func softmaxGivesProbabilities() {
        let probabilities = Softmax.probabilities([1, 2, 3, 1000])
        #expect(abs(probabilities.reduce(0, +) - 1) < 1e-6)
        #expect(probabilities[3] > 0.999)
        let small = Softmax.probabilities([0, log(3)])
        #expect(abs(small[0] - 0.25) < 1e-6 && abs(small[1] - 0.75) < 1e-6)
    }
}
