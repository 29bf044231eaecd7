import Foundation
import Testing

@testable import SketchwiseNN

/// EfficientNet-Lite models imported from PyTorch state dicts (`training/import_model.py`) answer
/// like PyTorch within 1e-4: a tiny one with random weights (`Fixtures/photo`, written by
/// `training/tools/make_photo_fixtures.py`), and the published EfficientNet-Lite0 where
/// `scripts/fetch-photo-model.sh` installed it with the PyTorch logits of `training/photo_parity.py`
/// (skipped, with a message, where it did not).
@Suite struct PhotoParityTests {
    /// Where the fetch script puts photo models: `$SKETCHWISE_PHOTO_MODELS`, else the default.
    static let installedModels = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["SKETCHWISE_PHOTO_MODELS"] ?? "/usr/local/share/sketchwise/photo-models")

    @Test func tinyEfficientNetMatchesPyTorch() throws {
        let folder = Fixtures.folder.appendingPathComponent("photo")
        let model = try Model(contentsOf: folder.appendingPathComponent("tiny.json"))
        #expect(
            model.spec.input.kind
                == .image(
                    ImageInput(
                        size: 40, resize: 46, mean: [127.0 / 255, 127.0 / 255, 127.0 / 255],
                        std: [128.0 / 255, 128.0 / 255, 128.0 / 255])))
        try expectParity(
            model, cases: Fixtures.cases("tiny", in: try SafeTensors(contentsOf: folder.appendingPathComponent("expected.safetensors"))))
        // Every batchnorm and relu6 is folded into its convolution; the adds stay.
        let kept = Set(model.program.steps.map { type(of: $0.layer).typeName })
        #expect(kept == ["conv2d", "depthwise_conv2d", "add", "globalavgpool2d", "dense"])
    }

    @Test func efficientNetLite0MatchesPyTorch() throws {
        let spec = Self.installedModels.appendingPathComponent("efficientnet-lite0.json")
        let parity = Self.installedModels.appendingPathComponent("efficientnet-lite0.parity.safetensors")
        guard FileManager.default.fileExists(atPath: spec.path), FileManager.default.fileExists(atPath: parity.path) else {
            print(
                "PhotoParityTests: skipped: no efficientnet-lite0.json and .parity.safetensors in \(Self.installedModels.path) "
                    + "(scripts/fetch-photo-model.sh, then python3 training/photo_parity.py)")
            return
        }
        let model = try Model(contentsOf: spec)
        #expect(model.labels.count == 1000 && model.inputShape == .image(channels: 3, height: 224, width: 224))
        try expectParity(model, cases: Fixtures.cases("efficientnet-lite0", in: try SafeTensors(contentsOf: parity)))
    }

    func expectParity(_ model: Model, cases: [(input: [Float], rows: Int, logits: [Float], embedding: [Float])]) throws {
        #expect(cases.count >= 3)
        let session = model.makeSession()
        var worst: Float = 0
        for (i, item) in cases.enumerated() {
            let difference = maxDifference(try session.run(input: item.input).logits, item.logits)
            #expect(difference <= 1e-4, "\(model.spec.name), case \(i)")
            worst = max(worst, difference)
        }
        print("PhotoParityTests: \(model.spec.name): largest logit difference to PyTorch \(worst) over \(cases.count) inputs")
    }
}
