import Foundation
import Testing

@testable import SketchwiseNN

/// Every fast kernel agrees with its plain reference.
@Suite struct KernelTests {
    @Test(arguments: [
        (1, 4, 9, 9, Window(kernel: 3, stride: 1, padding: 1)), (3, 5, 8, 7, Window(kernel: 3, stride: 2, padding: 0)),
        (4, 6, 5, 5, Window(kernel: 1, stride: 1, padding: 0)), (2, 3, 6, 6, Window(kernel: 2, stride: 2, padding: 1)),
        (2, 2, 4, 4, Window(kernel: 5, stride: 1, padding: 3)), (3, 2, 7, 9, Window(kernel: 3, stride: 3, padding: 2)),
    ])
    func conv2DIm2colMatchesReference(channels: Int, outChannels: Int, height: Int, width: Int, window: Window) {
        let g = Conv2DGeometry(channels: channels, height: height, width: width, outChannels: outChannels, window: window)
        let input = randomFloats(channels * height * width, seed: 1)
        let weight = randomFloats(outChannels * g.patchSize, seed: 2), bias = randomFloats(outChannels, seed: 3)
        let count = outChannels * g.outHeight * g.outWidth
        var expected = [Float](repeating: .nan, count: count), actual = expected
        var scratch = [Float](repeating: .nan, count: max(g.scratchCount, 1))
        Conv2DKernel.reference(g, input: input, weight: weight, bias: bias, output: &expected)
        Conv2DKernel.gemm(g, input: input, weight: weight, output: &actual, scratch: &scratch)
        Epilogue.biasPerRow(&actual, rows: outChannels, columns: g.outHeight * g.outWidth, bias: bias, activation: .none)
        #expect(maxDifference(actual, expected) <= 1e-5)
    }

    @Test(arguments: [
        (3, 4, 9, 9, 3, 2, Padding2D(top: 0, left: 0, bottom: 1, right: 1)),
        (2, 3, 7, 8, 3, 1, Padding2D(top: 1, left: 2, bottom: 0, right: 1)),
    ])
    func conv2DWithPaddingPerSideMatchesReference(
        channels: Int, outChannels: Int, height: Int, width: Int, kernel: Int, stride: Int, padding: Padding2D
    ) throws {
        let (rows, columns) = try padding.windows(kernel: kernel, stride: stride)
        let g = Conv2DGeometry(channels: channels, height: height, width: width, outChannels: outChannels, rows: rows, columns: columns)
        let input = randomFloats(channels * height * width, seed: 1)
        let weight = randomFloats(outChannels * g.patchSize, seed: 2), bias = randomFloats(outChannels, seed: 3)
        var expected = [Float](repeating: .nan, count: outChannels * g.outHeight * g.outWidth), actual = expected
        var scratch = [Float](repeating: .nan, count: max(g.scratchCount, 1))
        Conv2DKernel.reference(g, input: input, weight: weight, bias: bias, output: &expected)
        Conv2DKernel.gemm(g, input: input, weight: weight, output: &actual, scratch: &scratch)
        Epilogue.biasPerRow(&actual, rows: outChannels, columns: g.outHeight * g.outWidth, bias: bias, activation: .none)
        #expect(maxDifference(actual, expected) <= 1e-5)
        #expect(!WinogradKernel.applies(to: g))
    }

    @Test(arguments: [
        (8, 5, 14, 14, 1), (8, 3, 7, 7, 1), (9, 4, 6, 9, 1), (4, 2, 5, 4, 0), (16, 3, 9, 7, 2), (8, 4, 3, 3, 1), (5, 6, 2, 2, 1),
        (6, 7, 17, 11, 1),
    ])
    func conv2DWinogradMatchesReference(channels: Int, outChannels: Int, height: Int, width: Int, padding: Int) {
        let g = Conv2DGeometry(
            channels: channels, height: height, width: width, outChannels: outChannels,
            window: Window(kernel: 3, stride: 1, padding: padding))
        #expect(WinogradKernel.applies(to: g))
        let input = randomFloats(channels * height * width, seed: 7).map { $0 * 2 }
        let weight = randomFloats(outChannels * g.patchSize, seed: 8), bias = randomFloats(outChannels, seed: 9)
        var expected = [Float](repeating: .nan, count: outChannels * g.outHeight * g.outWidth)
        Conv2DKernel.reference(g, input: input, weight: weight, bias: bias, output: &expected)
        let pool = Window(kernel: 2, stride: 2, padding: 0)
        let (pooledHeight, pooledWidth) = (pool.outputSize(g.outHeight), pool.outputSize(g.outWidth))
        var pooledExpected = [Float](repeating: .nan, count: outChannels * pooledHeight * pooledWidth)
        PoolKernel.pool2D(
            .max, input: expected.map { max($0, 0) }, channels: outChannels, height: g.outHeight, width: g.outWidth, window: pool,
            output: &pooledExpected)
        for tile in [2, 4] {
            let filters = WinogradKernel.transformFilters(weight, tile: tile, outChannels: outChannels, channels: channels)
            func convolved(pool: Bool, activation: Activation, count: Int) -> [Float] {
                var actual = [Float](repeating: .nan, count: count)
                var scratch = [Float](repeating: .nan, count: WinogradGeometry(g, tile: tile, pooled: pool).scratchCount)
                WinogradKernel.forward(
                    g, tile: tile, input: input, filters: filters, bias: bias, activation: activation, pool: pool, output: &actual,
                    scratch: &scratch)
                return actual
            }
            let tolerance = Self.winogradTolerance(tile: tile, outputs: expected)
            let plain = convolved(pool: false, activation: .none, count: expected.count)
            #expect(maxDifference(plain, expected) <= tolerance, "F(\(tile)×\(tile))")
            // Fused relu and 2×2/2 max pooling.
            let pooled = convolved(pool: true, activation: .relu, count: pooledExpected.count)
            #expect(maxDifference(pooled, pooledExpected) <= tolerance, "F(\(tile)×\(tile)) pooled")
        }
    }

    /// How far Winograd may stray from the direct sum: F(4×4)'s transforms multiply by up to 8 and
    /// round more (measured: up to 4e-6 of the largest output, against 4e-7 for F(2×2)).
    static func winogradTolerance(tile: Int, outputs: [Float]) -> Float {
        tile == 4 ? 1e-5 * max(outputs.map(abs).max() ?? 1, 1) : 2e-5
    }

    /// F(4×4) where it saves multiply-adds and keeps 8 tiles or more, else F(2×2).
    @Test(arguments: [
        (28, false, 4), (14, true, 4), (14, false, 4), (7, true, 2), (7, false, 2), (3, false, 2), (8, true, 2), (10, true, 4),
    ])
    func winogradTileSavesWork(size: Int, pooled: Bool, tile: Int) {
        let g = Conv2DGeometry(
            channels: 32, height: size, width: size, outChannels: 64, window: Window(kernel: 3, stride: 1, padding: 1))
        #expect(WinogradKernel.tile(for: g, pooled: pooled) == tile)
    }

    @Test(arguments: [
        (1, 4, 9, 9, Window(kernel: 2, stride: 2, padding: 0)), (2, 3, 11, 7, Window(kernel: 3, stride: 2, padding: 0)),
        (3, 2, 6, 6, Window(kernel: 2, stride: 1, padding: 0)),
    ])
    func conv2DPoolingEpilogueMatchesReference(channels: Int, outChannels: Int, height: Int, width: Int, pool: Window) {
        let g = Conv2DGeometry(
            channels: channels, height: height, width: width, outChannels: outChannels, window: Window(kernel: 3, stride: 1, padding: 1))
        let input = randomFloats(channels * height * width, seed: 11)
        let weight = randomFloats(outChannels * g.patchSize, seed: 12), bias = randomFloats(outChannels, seed: 13)
        var unpooled = [Float](repeating: .nan, count: outChannels * g.outHeight * g.outWidth), conv = unpooled
        var scratch = [Float](repeating: .nan, count: max(g.scratchCount, 1))
        Conv2DKernel.reference(g, input: input, weight: weight, bias: bias, output: &conv)
        Conv2DKernel.gemm(g, input: input, weight: weight, output: &unpooled, scratch: &scratch)
        let count = outChannels * pool.outputSize(g.outHeight) * pool.outputSize(g.outWidth)
        for activation in [Activation.none, .relu, .relu6] {
            var expected = [Float](repeating: .nan, count: count), actual = expected
            PoolKernel.pool2D(
                .max, input: conv.map(activation.apply), channels: outChannels,
                height: g.outHeight, width: g.outWidth, window: pool, output: &expected)
            Epilogue.maxPoolBias(
                unpooled, channels: outChannels, height: g.outHeight, width: g.outWidth, window: pool,
                bias: bias, activation: activation, output: &actual)
            #expect(maxDifference(actual, expected) <= 1e-5)
        }
    }

    @Test(arguments: [
        (9, 3, 4, Window(kernel: 5, stride: 1, padding: 2)), (7, 2, 3, Window(kernel: 3, stride: 2, padding: 0)),
        (5, 4, 2, Window(kernel: 1, stride: 1, padding: 0)), (3, 2, 2, Window(kernel: 3, stride: 1, padding: 4)),
        (1, 3, 5, Window(kernel: 5, stride: 1, padding: 2)),
    ])
    func conv1DIm2colMatchesReference(length: Int, channels: Int, outChannels: Int, window: Window) {
        let g = Conv1DGeometry(length: length, channels: channels, outChannels: outChannels, window: window)
        let input = randomFloats(length * channels, seed: 4)
        let weight = randomFloats(outChannels * g.patchSize, seed: 5), bias = randomFloats(outChannels, seed: 6)
        let packed = Conv1DKernel.pack(weight: weight, outChannels: outChannels, channels: channels, kernel: window.kernel)
        var expected = [Float](repeating: .nan, count: g.outLength * outChannels), actual = expected
        var scratch = [Float](repeating: .nan, count: max(g.scratchCount, 1))
        Conv1DKernel.reference(g, input: input, weight: weight, bias: bias, output: &expected)
        let transposed = Conv1DKernel.transposed(packed: packed, outChannels: outChannels)
        Conv1DKernel.gemm(g, input: input, weight: transposed, output: &actual, scratch: &scratch)
        Epilogue.biasPerColumn(&actual, rows: g.outLength, columns: outChannels, bias: bias, activation: .none)
        #expect(maxDifference(actual, expected) <= 1e-5)
    }

    /// (Hidden sizes 40 and 64 split the recurrent sgemv in parts, in alternating order.)
    @Test(arguments: [
        (1, 3, 5, true), (6, 4, 10, true), (17, 7, 16, false), (9, 2, 8, true), (3, 5, 19, false), (7, 3, 64, true), (6, 5, 40, false),
    ])
    func lstmGemmMatchesReference(length: Int, inputSize: Int, hidden: Int, bidirectional: Bool) {
        let directions = (0..<(bidirectional ? 2 : 1)).map { d in
            (
                weightIH: randomFloats(4 * hidden * inputSize, seed: 10 + UInt64(d)),
                weightHH: randomFloats(4 * hidden * hidden, seed: 20 + UInt64(d)),
                biasIH: randomFloats(4 * hidden, seed: 30 + UInt64(d)), biasHH: randomFloats(4 * hidden, seed: 40 + UInt64(d))
            )
        }
        let w = LSTMWeights(inputSize: inputSize, hiddenSize: hidden, pytorch: directions)
        let input = randomFloats(length * inputSize, seed: 50).map { $0 * 3 }
        var expected = [Float](repeating: .nan, count: length * w.outputWidth), actual = expected
        var scratch = [Float](repeating: .nan, count: LSTMKernel.scratchCount(w, length: length))
        #expect(hidden < 40 || LSTMKernel.recurrentPartRows(w) < hidden)
        LSTMKernel.reference(w, input: input, length: length, output: &expected)
        LSTMKernel.fast(w, input: input, length: length, output: &actual, scratch: &scratch)
        #expect(maxDifference(actual, expected) <= 1e-5)
    }

    @Test func windowValidOutputsMatchBruteForce() {
        for kernel in 1...5 {
            for stride in 1...3 {
                for padding in 0...4 {
                    for size in 1...9 {
                        let window = Window(kernel: kernel, stride: stride, padding: padding)
                        let outputs = window.outputSize(size)
                        for tap in 0..<kernel {
                            let brute = (0..<outputs).filter { (0..<size).contains($0 * stride - padding + tap) }
                            #expect(Array(window.validOutputs(tap: tap, size: size, outputs: outputs)) == brute)
                        }
                    }
                }
            }
        }
    }
}
