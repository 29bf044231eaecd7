import CKernels
import Foundation
import Testing

@testable import SketchwiseNN

/// Int8 convolutions (``DensePrecision/int8``): the quantizer of every variant against the
/// arithmetic written out in Swift, bit for bit, and `QuantizedConv2D` against the float
/// convolution it is lowered from, with the same bits in every variant.
@Suite struct QuantizedConv2DTests {
    /// A conv2d with random weights and biases, `padding` on every side or `[top, left, bottom,
    /// right]`, and a relu and a max pooling folded in as the loader folds them.
    func convolution(
        channels: Int, outChannels: Int, kernel: Int, stride: Int, padding: [Int], relu: Bool, pool: Int?
    ) throws -> Conv2D {
        let url = URL(fileURLWithPath: "/conv-test.safetensors")
        let weight = randomFloats(outChannels * channels * kernel * kernel, seed: 300).map { $0 / Float(kernel) }
        let tensors = [
            ("weight", [outChannels, channels, kernel, kernel], weight), ("bias", [outChannels], randomFloats(outChannels, seed: 301)),
        ]
        let file = try SafeTensors(data: safetensorsData(tensors), url: url)
        let roles = ["weight": "weight", "bias": "bias"]
        let params = JSONValue.object([
            "inChannels": .integer(channels), "outChannels": .integer(outChannels), "kernel": .integer(kernel),
            "stride": .integer(stride), "padding": padding.count == 1 ? .integer(padding[0]) : .array(padding.map { .integer($0) }),
        ])
        var layer = try LayerRegistry.make(
            LayerSpec(name: "conv", type: "conv2d", inputs: nil, params: params, weights: roles),
            weights: LayerWeights(file: file, roles: roles))
        let empty = LayerWeights(file: file, roles: [:])
        if relu {
            let spec = LayerSpec(name: "relu", type: "relu", inputs: nil, params: nil, weights: [:])
            let activation = try LayerRegistry.make(spec, weights: empty)
            layer = try #require(layer.fused(with: activation))
        }
        if let pool {
            let window = JSONValue.object(["kernel": .integer(pool), "stride": .integer(2)])
            let spec = LayerSpec(name: "pool", type: "maxpool2d", inputs: nil, params: window, weights: [:])
            let maxPool = try LayerRegistry.make(spec, weights: empty)
            layer = try #require(layer.fused(with: maxPool))
        }
        return try #require(layer as? Conv2D)
    }

    /// The raster CNNs' wide layers (pooled, odd sizes), strides and paddings (per side too: a
    /// TensorFlow "same" and an uneven one), a 1×1 and a 5×5 kernel, channel counts off the kernels'
    /// blocks of 4 and 16, and a 3×3 pooling window.
    @Test(arguments: [
        (32, 64, 3, 1, [1], 14, true, 2), (64, 128, 3, 1, [1], 7, true, 2), (7, 20, 5, 2, [2], 13, false, nil),
        (40, 24, 1, 1, [0], 6, true, nil), (9, 33, 3, 2, [0], 11, true, 3), (16, 16, 2, 2, [0, 0, 1, 1], 9, true, nil),
        (12, 24, 3, 1, [1, 0, 2, 1], 8, true, 2),
    ] as [(Int, Int, Int, Int, [Int], Int, Bool, Int?)])
    func int8ConvolutionStaysNearFloat(
        channels: Int, outChannels: Int, kernel: Int, stride: Int, padding: [Int], size: Int, relu: Bool, pool: Int?
    ) throws {
        let float = try convolution(
            channels: channels, outChannels: outChannels, kernel: kernel, stride: stride, padding: padding, relu: relu, pool: pool)
        let int8 = try #require(QuantizedConv2D(float))
        let input = (Shape.image(channels: channels, height: size, width: size + 1), randomFloats(channels * size * (size + 1), seed: 302))
        let expected = try forward(float, [input])
        let range = (expected.values.max() ?? 0) - (expected.values.min() ?? 0)
        var outputs: [[Float]] = []
        try KernelVariant.forEachSupported { variant in
            let result = try forward(int8, [input])
            #expect(result.shape == expected.shape)
            #expect(maxDifference(result.values, expected.values) <= 0.02 * range, "\(variant): int8 strays from float")
            outputs.append(result.values)
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] }, "every variant gives the same bits")
    }

    /// Convolutions with fewer than 32 products per output (an image model's first layer) stay float.
    @Test func thinConvolutionsStayFloat() throws {
        let thin = try convolution(channels: 1, outChannels: 32, kernel: 3, stride: 1, padding: [1], relu: true, pool: 2)
        #expect(QuantizedConv2D(thin) == nil)
        #expect(DensePrecision.int8.lowered(thin) is Conv2D)
        let wide = try convolution(channels: 4, outChannels: 8, kernel: 3, stride: 1, padding: [1], relu: false, pool: nil)
        #expect(DensePrecision.int8.lowered(wide) is QuantizedConv2D)
    }

    /// `sk_quantize_uint8` in every variant: whole and partial vectors of 16, values of both signs,
    /// all positive, all zero, and NaN (left out of the range).
    @Test(arguments: [0, 5, 16, 37, 100])
    func everyVariantQuantizesAsWrittenOut(count: Int) {
        let mixed = randomFloats(count, seed: 303).map { $0 * 3 }
        var withNaN = mixed
        if count > 3 { withNaN[3] = .nan }
        for (name, x) in [("mixed", mixed), ("positive", mixed.map { max($0, 0) }), ("zero", mixed.map { _ in 0 }), ("NaN", withNaN)] {
            let expected = quantizedReference(x)
            KernelVariant.forEachSupported { variant in
                var bytes = [UInt8](repeating: 0, count: max(count, 1))
                var zeroPoint: Int32 = -1
                let scale = sk_quantize_uint8(x, count, count, &bytes, &zeroPoint)
                #expect(scale == expected.scale && Int64(zeroPoint) == expected.zeroPoint, "\(variant) \(name)")
                #expect(bytes.prefix(count).map { Int64($0) - Int64(zeroPoint) } == expected.values, "\(variant) \(name)")
            }
        }
    }
}
