import Foundation
import Testing

@testable import SketchwiseNN

/// One test per layer type, with hand-computed values, through the registry as the loader builds layers.
@Suite struct LayerTests {
    /// Builds layer `type` from `params` and `weights` (role → shape and values) and runs it on `inputs`.
    func run(
        _ type: String, params: JSONValue? = nil, weights: [String: ([Int], [Float])] = [:], _ inputs: (Shape, [Float])...
    ) throws -> (shape: Shape, values: [Float]) {
        try forward(make(type, params: params, weights: weights), inputs)
    }

    /// Builds layer `type` from `params` and `weights` (role → shape and values).
    func make(_ type: String, params: JSONValue? = nil, weights: [String: ([Int], [Float])]) throws -> any Layer {
        let url = URL(fileURLWithPath: "/layer-test.safetensors")
        let file = try SafeTensors(data: safetensorsData(weights.map { ($0.key, $0.value.0, $0.value.1) }), url: url)
        let roles = Dictionary(uniqueKeysWithValues: weights.keys.map { ($0, $0) })
        return try LayerRegistry.make(
            LayerSpec(name: type, type: type, inputs: nil, params: params, weights: roles),
            weights: LayerWeights(file: file, roles: roles))
    }

    func close(_ a: [Float], _ b: [Float]) -> Bool { maxDifference(a, b) <= 1e-5 }

    @Test func conv2d() throws {
        let out = try run(
            "conv2d", params: .object(["inChannels": .integer(1), "outChannels": .integer(1), "kernel": .integer(2)]),
            weights: ["weight": ([1, 1, 2, 2], [1, 1, 1, 1]), "bias": ([1], [1])],
            (.image(channels: 1, height: 3, width: 3), [1, 2, 3, 4, 5, 6, 7, 8, 9]))
        #expect(out.shape == .image(channels: 1, height: 2, width: 2) && close(out.values, [13, 17, 25, 29]))
    }

    @Test func conv2dWithPaddingPerSide() throws {
        // [top, left, bottom, right] = [0, 0, 1, 1]: TensorFlow's "same" for a 2×2, stride-2 kernel on 3×3.
        let params = JSONValue.object([
            "inChannels": .integer(1), "outChannels": .integer(1), "kernel": .integer(2), "stride": .integer(2),
            "padding": .array([.integer(0), .integer(0), .integer(1), .integer(1)]),
        ])
        let out = try run(
            "conv2d", params: params, weights: ["weight": ([1, 1, 2, 2], [1, 1, 1, 1])],
            (.image(channels: 1, height: 3, width: 3), [1, 2, 3, 4, 5, 6, 7, 8, 9]))
        #expect(out.shape == .image(channels: 1, height: 2, width: 2) && close(out.values, [12, 9, 15, 9]))
        for padding: JSONValue in [.array([.integer(0), .integer(1)]), .array([.integer(0), .integer(0), .integer(-1), .integer(0)])] {
            #expect(throws: LayerProblem.self) {
                try run(
                    "conv2d",
                    params: .object(["inChannels": .integer(1), "outChannels": .integer(1), "kernel": .integer(2), "padding": padding]),
                    weights: ["weight": ([1, 1, 2, 2], [1, 1, 1, 1])],
                    (.image(channels: 1, height: 3, width: 3), Array(repeating: 1, count: 9)))
            }
        }
    }

    @Test func depthwiseConv2d() throws {
        // Channel 0 sums its 2×2 windows, channel 1 takes the top-left value times 10, plus a bias; padding 1 at the bottom and right.
        let params = JSONValue.object([
            "channels": .integer(2), "kernel": .integer(2), "stride": .integer(2),
            "padding": .array([.integer(0), .integer(0), .integer(1), .integer(1)]),
        ])
        let out = try run(
            "depthwise_conv2d", params: params,
            weights: ["weight": ([2, 1, 2, 2], [1, 1, 1, 1, 10, 0, 0, 0]), "bias": ([2], [0, 1])],
            (.image(channels: 2, height: 3, width: 3), [1, 2, 3, 4, 5, 6, 7, 8, 9] + [1, 2, 3, 4, 5, 6, 7, 8, 9]))
        #expect(out.shape == .image(channels: 2, height: 2, width: 2) && close(out.values, [12, 9, 15, 9, 11, 31, 71, 91]))
        #expect(throws: LayerProblem.self) {
            try run(
                "depthwise_conv2d", params: .object(["channels": .integer(2), "kernel": .integer(2)]),
                weights: ["weight": ([2, 2, 2, 2], Array(repeating: 1, count: 16))],
                (.image(channels: 2, height: 3, width: 3), Array(repeating: 1, count: 18)))
        }
        #expect(throws: LayerProblem.self) {
            try run(
                "depthwise_conv2d", params: .object(["channels": .integer(0), "kernel": .integer(2)]),
                (.image(channels: 2, height: 3, width: 3), Array(repeating: 1, count: 18)))
        }
    }

    @Test func conv1d() throws {
        let out = try run(
            "conv1d",
            params: .object(["inChannels": .integer(1), "outChannels": .integer(1), "kernel": .integer(3), "padding": .integer(1)]),
            weights: ["weight": ([1, 1, 3], [1, 2, 3])], (.sequence(length: 3, channels: 1), [1, 10, 100]))
        #expect(out.shape == .sequence(length: 3, channels: 1) && close(out.values, [32, 321, 210]))
    }

    @Test func batchnorm() throws {
        let weights: [String: ([Int], [Float])] = [
            "gamma": ([2], [2, 1]), "beta": ([2], [1, 0]), "mean": ([2], [1, -1]), "variance": ([2], [4, 1]),
        ]
        let params = JSONValue.object(["channels": .integer(2), "epsilon": .number(0)])
        #expect(close(try run("batchnorm", params: params, weights: weights, (.vector(2), [3, 1])).values, [3, 2]))
        #expect(
            close(
                try run("batchnorm", params: params, weights: weights, (.sequence(length: 2, channels: 2), [3, 1, 1, 0])).values,
                [3, 2, 1, 1]))
        #expect(
            close(
                try run("batchnorm", params: params, weights: weights, (.image(channels: 2, height: 1, width: 2), [3, 1, 1, 0])).values,
                [3, 1, 2, 1]))
    }

    @Test func relu() throws {
        #expect(try run("relu", (.vector(3), [-1, 0, 2])).values == [0, 0, 2])
    }

    @Test func relu6() throws {
        #expect(try run("relu6", (.vector(5), [-1, 0, 2, 6, 7.5])).values == [0, 0, 2, 6, 6])
    }

    @Test func tanhLayer() throws {
        let x: [Float] = [-1000, -20, -1, -0.5, 0, 1e-7, 0.5, 1, 3, 20, 1000]
        let out = try run("tanh", (.sequence(length: 1, channels: x.count), x))
        #expect(out.shape == .sequence(length: 1, channels: x.count))
        #expect(maxDifference(out.values, x.map { Float(Foundation.tanh(Double($0))) }) <= 1e-6)
        #expect(out.values.first == -1 && out.values.last == 1)
    }

    @Test func pooling() throws {
        let image = (Shape.image(channels: 1, height: 3, width: 4), (1...12).map(Float.init))
        let params = JSONValue.object(["kernel": .integer(2)])
        let maxed = try run("maxpool2d", params: params, image), averaged = try run("avgpool2d", params: params, image)
        #expect(maxed.shape == .image(channels: 1, height: 1, width: 2) && maxed.values == [6, 8])
        #expect(averaged.values == [3.5, 5.5])
        let overlapping = try run("maxpool2d", params: .object(["kernel": .integer(2), "stride": .integer(1)]), image)
        #expect(overlapping.shape == .image(channels: 1, height: 2, width: 3) && overlapping.values == [6, 7, 8, 10, 11, 12])
    }

    @Test func globalavgpool2d() throws {
        let out = try run("globalavgpool2d", (.image(channels: 2, height: 1, width: 2), [1, 2, 3, 5]))
        #expect(out.shape == .vector(2) && out.values == [1.5, 4])
    }

    @Test func flatten() throws {
        let out = try run("flatten", (.image(channels: 2, height: 1, width: 2), [1, 2, 3, 4]))
        #expect(out.shape == .vector(4) && out.values == [1, 2, 3, 4])
    }

    /// As read from the spec, and as a program runs it (`SparseInputDense`: the weights transposed,
    /// zero inputs skipped).
    @Test func dense() throws {
        let dense = try make(
            "dense", params: .object(["inFeatures": .integer(3), "outFeatures": .integer(2)]),
            weights: ["weight": ([2, 3], [1, 2, 3, 0, 1, 0]), "bias": ([2], [1, -1])])
        let planned = [Shape.vector(3)].withUnsafeBufferPointer { dense.planned(for: $0) }
        #expect(planned is SparseInputDense)
        for layer in [dense, planned] {
            #expect(try forward(layer, [(.vector(3), [1, 1, 1])]).values == [7, 0])
            #expect(try forward(layer, [(.vector(3), [2, 0, 1])]).values == [6, -1])
        }
    }

    @Test func lstm() throws {
        // One unit, one input: every gate pre-activation is x·1 + h·0.5 + 0.1 (+ 0 for the second bias).
        let weights: [String: ([Int], [Float])] = [
            "weightIH": ([4, 1], [1, 1, 1, 1]), "weightHH": ([4, 1], [0.5, 0.5, 0.5, 0.5]), "biasIH": ([4], [0.1, 0.1, 0.1, 0.1]),
        ]
        let out = try run(
            "lstm", params: .object(["inputSize": .integer(1), "hiddenSize": .integer(1)]), weights: weights,
            (.sequence(length: 2, channels: 1), [1, -2]))
        func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }
        var (h, c): (Float, Float) = (0, 0), expected: [Float] = []
        for x: Float in [1, -2] {
            let a = x + 0.5 * h + 0.1
            c = sigmoid(a) * c + sigmoid(a) * tanh(a)
            h = sigmoid(a) * tanh(c)
            expected.append(h)
        }
        #expect(out.shape == .sequence(length: 2, channels: 1) && close(out.values, expected))
    }

    @Test func timeReductions() throws {
        let sequence = (Shape.sequence(length: 3, channels: 2), [Float]([1, -1, 2, -5, 6, 0]))
        #expect(try run("sumtime", sequence) == (.vector(2), [9, -6]))
        #expect(try run("meantime", sequence) == (.vector(2), [3, -2]))
        #expect(try run("maxtime", sequence) == (.vector(2), [6, 0]))
    }

    @Test func concat() throws {
        #expect(try run("concat", (.vector(2), [1, 2]), (.vector(1), [3]), (.vector(2), [4, 5])).values == [1, 2, 3, 4, 5])
    }

    @Test func add() throws {
        #expect(try run("add", (.vector(2), [1, 2]), (.vector(2), [10, 20]), (.vector(2), [100, 200])).values == [111, 222])
        #expect(throws: LayerProblem.self) { try run("add", (.vector(2), [1, 2]), (.vector(3), [1, 2, 3])) }
    }

    @Test func softmax() throws {
        #expect(close(try run("softmax", (.vector(2), [0, log(3)])).values, [0.25, 0.75]))
    }

    @Test func l2normalize() throws {
        #expect(close(try run("l2normalize", (.vector(2), [3, 4])).values, [0.6, 0.8]))
        #expect(try run("l2normalize", (.vector(2), [0, 0])).values == [0, 0])
    }

    @Test func shapeMismatchesAreReported() {
        #expect(throws: LayerProblem.self) {
            try run(
                "dense", params: .object(["inFeatures": .integer(3), "outFeatures": .integer(1)]),
                weights: ["weight": ([1, 3], [1, 1, 1])], (.vector(4), [1, 1, 1, 1]))
        }
        #expect(throws: LayerProblem.self) {
            try run("maxpool2d", params: .object(["kernel": .integer(3)]), (.image(channels: 1, height: 2, width: 2), [1, 2, 3, 4]))
        }
        #expect(throws: LayerProblem.self) { try run("sumtime", (.vector(2), [1, 2])) }
    }
}
