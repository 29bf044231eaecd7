import Foundation
import SketchwiseTestSupport
import Testing

@testable import SketchwiseNN

/// The parity fixtures written by training/tools/make_nn_fixtures.py.
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func model(_ name: String) -> URL { folder.appendingPathComponent("\(name).json") }

    /// PyTorch's inputs and outputs.
    static let expected: SafeTensors = {
        do {
            return try SafeTensors(contentsOf: folder.appendingPathComponent("expected.safetensors"))
        } catch {
            fatalError("cannot read the expected outputs: \(error)")
        }
    }()

    /// `(input, logits, embedding)` of every case of `model` in `file` (`<model>.input.<i>`, ...).
    static func cases(_ model: String, in file: SafeTensors = expected) -> [(
        input: [Float], rows: Int, logits: [Float], embedding: [Float]
    )] {
        (0...).lazy.prefix { file.entries["\(model).input.\($0)"] != nil }.map { i in
            (
                file.floats("\(model).input.\(i)") ?? [], file.entries["\(model).input.\(i)"]?.shape[0] ?? 0,
                file.floats("\(model).logits.\(i)") ?? [], file.floats("\(model).embedding.\(i)") ?? []
            )
        }
    }
}

/// Largest absolute difference; infinite when the counts differ.
func maxDifference(_ a: some Collection<Float>, _ b: some Collection<Float>) -> Float {
    guard a.count == b.count else { return .infinity }
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}

/// Runs `layer` on `inputs` (shapes and values) with scratch and output filled with NaN first.
func forward(_ layer: any Layer, _ inputs: [(Shape, [Float])]) throws -> (shape: Shape, values: [Float]) {
    let shapes = inputs.map(\.0)
    let shape = try shapes.withUnsafeBufferPointer { try layer.outputShape(for: $0) }
    let scratchCount = shapes.withUnsafeBufferPointer { layer.scratchCount(for: $0) }
    let tensors = inputs.map { input in
        let data = UnsafeMutablePointer<Float>.allocate(capacity: max(input.1.count, 1))
        data.initialize(from: input.1, count: input.1.count)
        return Tensor(data: data, shape: input.0)
    }
    defer { for tensor in tensors { tensor.data.deallocate() } }
    var output = [Float](repeating: .nan, count: shape.count)
    var scratch = [Float](repeating: .nan, count: max(scratchCount, 1))
    output.withUnsafeMutableBufferPointer { out in
        scratch.withUnsafeMutableBufferPointer { scratch in
            tensors.withUnsafeBufferPointer {
                layer.forward($0, into: Tensor(data: out.baseAddress!, shape: shape), scratch: scratch.baseAddress!)
            }
        }
    }
    return (shape, output)
}

/// What the int8 kernels document for quantizing `x`, written out: unsigned bytes over
/// `[min(x, 0), max(x, 0)]` (NaN left out of the range), rounded to nearest, ties to even; each
/// value is returned less the zero point.
func quantizedReference(_ x: some Collection<Float>) -> (values: [Int64], zeroPoint: Int64, scale: Float) {
    let finite = x.filter { !$0.isNaN }
    let (low, high) = (min(finite.min() ?? 0, 0), max(finite.max() ?? 0, 0))
    let scale: Float = high > low ? (high - low) / 255 : 1
    let inverse = 1 / scale
    let zero = Int64((-low * inverse).rounded(.toNearestOrEven))
    let values = x.map { value in
        let scaled = value.isNaN ? -4_194_304 : min(max(value * inverse, -4_194_304), 4_194_304)
        return min(max(Int64(scaled.rounded(.toNearestOrEven)) + zero, 0), 255) - zero
    }
    return (values, zero, scale)
}

/// Deterministic pseudo-random floats in -1…1.
func randomFloats(_ count: Int, seed: UInt64) -> [Float] {
    var state = seed &* 6364136223846793005 &+ 1442695040888963407
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
    }
}

/// A safetensors file: u64 header length, JSON header, F32 data (as the exporter writes it).
func safetensorsData(_ tensors: [(name: String, shape: [Int], values: [Float])], header transform: (inout [String: Any]) -> Void = { _ in })
    -> Data
{
    TestModels.safetensors(tensors, header: transform)
}

/// A small valid model written to a temporary folder: dense 4→3 → relu → dense 3→2 (logits),
/// l2normalize embedding. `spec` and `tensors` can be altered before writing.
struct TinyModel {
    var spec: [String: Any] = [
        "format": "sketchwise-model", "formatVersion": 1, "name": "tiny", "version": "1",
        "input": ["kind": "raster", "shape": [1, 2, 2], "raster": ["size": 2, "recipe": "quickdraw", "scale": 1.0 / 255]],
        "labels": ["a", "b"],
        "outputs": ["logits": "fc2", "embedding": "embedding"],
        "layers": [
            ["name": "flat", "type": "flatten"],
            [
                "name": "fc1", "type": "dense", "params": ["inFeatures": 4, "outFeatures": 3],
                "weights": ["weight": "fc1.weight", "bias": "fc1.bias"],
            ],
            ["name": "relu", "type": "relu"],
            ["name": "embedding", "type": "l2normalize"],
            [
                "name": "fc2", "type": "dense", "inputs": ["relu"], "params": ["inFeatures": 3, "outFeatures": 2],
                "weights": ["weight": "fc2.weight", "bias": "fc2.bias"],
            ],
        ] as [[String: Any]],
    ]
    var tensors: [(name: String, shape: [Int], values: [Float])] = [
        ("fc1.weight", [3, 4], randomFloats(12, seed: 1)), ("fc1.bias", [3], randomFloats(3, seed: 2)),
        ("fc2.weight", [2, 3], randomFloats(6, seed: 3)), ("fc2.bias", [2], randomFloats(2, seed: 4)),
    ]
    var headerTransform: (inout [String: Any]) -> Void = { _ in }
    /// Applied to the finished weights file.
    var weightsTransform: (inout Data) -> Void = { _ in }

    /// Changes layer `index` of the spec.
    mutating func editLayer(_ index: Int, _ edit: (inout [String: Any]) -> Void) {
        var layers = spec["layers"] as? [[String: Any]] ?? []
        edit(&layers[index])
        spec["layers"] = layers
    }

    /// Writes `tiny.json` and `tiny.safetensors` into `folder` and loads them.
    func load(in folder: TemporaryFolder) throws -> Model {
        let url = folder.url.appendingPathComponent("tiny.json")
        try JSONSerialization.data(withJSONObject: spec, options: [.sortedKeys]).write(to: url)
        var weights = safetensorsData(tensors, header: headerTransform)
        weightsTransform(&weights)
        try weights.write(to: folder.url.appendingPathComponent("tiny.safetensors"))
        return try Model(contentsOf: url)
    }
}

extension KernelVariant {
    /// Runs `body` once for each variant this CPU runs, with that variant's kernels forced on the
    /// calling thread only, so that suites running meanwhile keep theirs.
    static func forEachSupported(_ body: (KernelVariant) throws -> Void) rethrows {
        for variant in allCases where variant.isSupported {
            let ran: Void? = try variant.forcedOnThisThread { try body(variant) }
            #expect(ran != nil, "\(variant) is supported but could not be forced")
        }
    }
}
