import Foundation
import SketchwiseTestSupport
import Testing

@testable import SketchwiseNN

/// The loader rejects every broken or mismatched file with a typed error naming the file.
@Suite struct LoaderTests {
    /// The error loading the tiny model after `edit`, checked to name `file`.
    func rejection(in file: String, _ edit: (inout TinyModel) -> Void) -> ModelError? {
        let folder = TemporaryFolder()
        var model = TinyModel()
        edit(&model)
        do {
            _ = try model.load(in: folder)
            Issue.record("the model loaded")
            return nil
        } catch let error as ModelError {
            #expect(error.file.lastPathComponent == file)
            #expect(error.description.hasPrefix(folder.url.appendingPathComponent(file).path + ": "))
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func theTinyModelLoadsAndRuns() throws {
        let folder = TemporaryFolder()
        let model = try TinyModel().load(in: folder)
        let outputs = try model.makeSession().run(input: [0.1, 0.2, 0.3, 0.4])
        #expect(outputs.logits.count == 2 && outputs.embedding?.count == 3)
    }

    @Test func missingFiles() throws {
        let folder = TemporaryFolder()
        #expect(throws: ModelError.self) { try Model(contentsOf: folder.url.appendingPathComponent("absent.json")) }
        #expect(rejection(in: "tiny.safetensors") { $0.weightsTransform = { $0 = Data() } }?.kind == .header)
        #expect(rejection(in: "tiny.safetensors") { $0.weightsTransform = { $0 = $0.prefix(5) } }?.kind == .header)
    }

    @Test func truncatedWeights() {
        let cut = rejection(in: "tiny.safetensors") { $0.weightsTransform = { $0 = $0.dropLast(4) } }
        #expect(cut?.kind == .offsets)
        #expect(cut?.problem.contains("truncated") == true)
        #expect(rejection(in: "tiny.safetensors") { $0.weightsTransform = { $0 = $0.prefix(40) } }?.kind == .header)
    }

    @Test func badHeader() {
        #expect(
            rejection(in: "tiny.safetensors") { model in
                model.weightsTransform = { data in data.replaceSubrange(8..<9, with: [UInt8(ascii: "[")]) }
            }?.kind == .header)
        #expect(
            rejection(in: "tiny.safetensors") {
                $0.weightsTransform = { $0.replaceSubrange(0..<8, with: [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]) }
            }?.kind == .header)
        #expect(
            rejection(in: "tiny.safetensors") { $0.headerTransform = { $0["fc1.bias"] = ["dtype": "F32", "shape": [3]] } }?.kind == .header)
    }

    @Test func offsetsOutOfRangeOrOverlapping() {
        #expect(
            rejection(in: "tiny.safetensors") { model in
                model.headerTransform = { $0["fc2.bias"] = ["dtype": "F32", "shape": [2], "data_offsets": [1000, 1008]] }
            }?.kind == .offsets)
        #expect(
            rejection(in: "tiny.safetensors") { model in
                model.headerTransform = { $0["fc2.bias"] = ["dtype": "F32", "shape": [2], "data_offsets": [0, 8]] }
            }?.kind == .offsets)
        #expect(
            rejection(in: "tiny.safetensors") { model in
                model.headerTransform = { $0["fc2.bias"] = ["dtype": "F32", "shape": [3], "data_offsets": [84, 92]] }
            }?.kind == .offsets)
    }

    @Test func wrongDtype() {
        let error = rejection(in: "tiny.safetensors") { model in
            model.headerTransform = { $0["fc2.bias"] = ["dtype": "F64", "shape": [1], "data_offsets": [84, 92]] }
        }
        #expect(error?.kind == .dtype)
        #expect(error?.problem.contains("F64") == true)
    }

    @Test func tensorShapeDiffersFromSpec() {
        let error = rejection(in: "tiny.safetensors") { $0.tensors[0] = ("fc1.weight", [4, 3], randomFloats(12, seed: 1)) }
        #expect(error?.kind == .tensorShape)
        #expect(error?.problem.contains("fc1") == true)
    }

    @Test func missingTensor() {
        let error = rejection(in: "tiny.safetensors") { $0.tensors.removeLast() }
        #expect(error?.kind == .missingTensor)
        #expect(error?.problem.contains("fc2.bias") == true)
    }

    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func nonFiniteWeight(value: Float) {
        #expect(rejection(in: "tiny.safetensors") { $0.tensors[2].values[4] = value }?.kind == .nonFinite)
    }

    @Test func unknownLayerType() {
        let error = rejection(in: "tiny.json") { $0.editLayer(2) { $0["type"] = "gelu" } }
        #expect(error?.kind == .unknownLayer)
        #expect(error?.problem.contains("gelu") == true)
    }

    @Test func badInputsReference() {
        #expect(rejection(in: "tiny.json") { $0.editLayer(4) { $0["inputs"] = ["nowhere"] } }?.kind == .inputs)
        #expect(rejection(in: "tiny.json") { $0.editLayer(1) { $0["inputs"] = ["relu"] } }?.kind == .inputs)
        #expect(rejection(in: "tiny.json") { $0.editLayer(4) { $0["inputs"] = ["relu", "embedding"] } }?.kind == .inputs)
    }

    @Test func labelCountDiffersFromLogits() {
        let error = rejection(in: "tiny.json") { $0.spec["labels"] = ["a", "b", "c"] }
        #expect(error?.kind == .labels)
        #expect(error?.problem.contains("3 labels") == true)
    }

    @Test func layerShapeMismatch() {
        let error = rejection(in: "tiny.json") { model in
            model.spec["input"] = ["kind": "raster", "raster": ["size": 3, "recipe": "quickdraw", "scale": 1]]
        }
        #expect(error?.kind == .layerShape)
        #expect(error?.problem.contains("fc1") == true)
    }

    @Test func invalidSpecs() {
        #expect(rejection(in: "tiny.json") { $0.spec["format"] = "onnx" }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.spec["formatVersion"] = 2 }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.spec.removeValue(forKey: "labels") }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.spec["input"] = ["kind": "audio"] }?.kind == .spec)
        #expect(
            rejection(in: "tiny.json") { model in
                model.spec["input"] = ["kind": "raster", "raster": ["size": 100_000, "recipe": "quickdraw", "scale": 1]]
            }?.kind == .spec)
        for (channels, shape) in [
            (["ink", "ink"], [2, 2, 2]), ([], [0, 2, 2]), (["paint"], [1, 2, 2]), (["ink", "order"], [1, 2, 2]),
        ] {
            #expect(
                rejection(in: "tiny.json") { model in
                    model.spec["input"] = [
                        "kind": "raster", "shape": shape,
                        "raster": ["size": 2, "recipe": "quickdraw", "scale": 1, "channels": channels],
                    ]
                }?.kind == .spec, "raster channels \(channels) with shape \(shape)")
        }
        for rotations: [Any] in [[], [0, 0], [0, 200], [0, "ten"]] {
            #expect(
                rejection(in: "tiny.json") { model in
                    var input = model.spec["input"] as? [String: Any] ?? [:]
                    input["embeddingRotations"] = rotations
                    model.spec["input"] = input
                }?.kind == .spec, "embeddingRotations \(rotations)")
        }
        #expect(rejection(in: "tiny.json") { $0.spec["outputs"] = ["logits": "fc9"] }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.spec["outputs"] = ["logits": "fc2", "embedding": "nowhere"] }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.spec["outputs"] = ["logits": "flat"] }?.kind == .labels)
        #expect(rejection(in: "tiny.json") { $0.editLayer(3) { $0["name"] = "fc1" } }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.editLayer(2) { $0["weights"] = ["weight": "fc1.weight"] } }?.kind == .spec)
        #expect(rejection(in: "tiny.json") { $0.editLayer(1) { $0["weights"] = ["bias": "fc1.bias"] } }?.kind == .spec)
    }

    @Test func invalidParams() {
        let missing = rejection(in: "tiny.json") { $0.editLayer(1) { $0["params"] = ["inFeatures": 4] } }
        #expect(missing?.kind == .params)
        #expect(missing?.problem.contains("outFeatures") == true)
        #expect(rejection(in: "tiny.json") { $0.editLayer(1) { $0["params"] = ["inFeatures": 4, "outFeatures": -3] } }?.kind == .params)
        #expect(rejection(in: "tiny.json") { $0.editLayer(1) { $0["params"] = ["inFeatures": "4", "outFeatures": 3] } }?.kind == .params)
        #expect(
            rejection(in: "tiny.json") { $0.editLayer(1) { $0["params"] = ["inFeatures": 4, "outFeatures": 1 << 40] } }?.kind == .params)
    }

    @Test func notJSONSpec() throws {
        let folder = TemporaryFolder()
        try TinyModel().load(in: folder).spec.name.write(
            to: folder.url.appendingPathComponent("tiny.json"), atomically: true, encoding: .utf8)
        do {
            _ = try Model(contentsOf: folder.url.appendingPathComponent("tiny.json"))
            Issue.record("loaded")
        } catch {
            #expect(error.kind == .spec && error.problem.contains("not valid JSON"))
        }
    }
}
