import CKernels
import Foundation
import Synchronization
import Testing

@testable import SketchwiseNN

/// The C kernels of every variant this CPU runs, against naive sums in Double, and the variant choice
/// against the CPU's flags. Each test forces the variants on its own thread only, so the suites
/// that run meanwhile keep theirs.
@Suite struct KernelVariantTests {
    /// On Linux, the widest variant whose flags `/proc/cpuinfo` lists (the kernel lists only
    /// instruction sets the OS saves the registers of).
    @Test func theChosenVariantIsTheWidestTheCPUHas() throws {
        #expect(KernelVariant.baseline.isSupported)
        #if os(Linux) && arch(x86_64)
            let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            let flags = Set(info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
            let expected: KernelVariant =
                flags.isSuperset(of: ["avx512f", "fma"]) ? .avx512 : flags.isSuperset(of: ["avx2", "fma"]) ? .avx2 : .baseline
            #expect(KernelVariant.bestSupported == expected)
        #endif
        for variant in KernelVariant.allCases where !variant.isSupported {
            #expect(!variant.force())
            #expect(variant.forcedOnThisThread { true } == nil)
        }
    }

    /// A variant forced on one thread is what that thread runs until the body ends, and only there.
    @Test func aVariantForcedOnAThreadLeavesTheOthersAlone() {
        let processWide = KernelVariant.current
        let ran: Void? = KernelVariant.baseline.forcedOnThisThread {
            #expect(KernelVariant.current == .baseline)
            let elsewhere = Mutex<KernelVariant?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread {
                elsewhere.withLock { $0 = KernelVariant.current }
                done.signal()
            }.start()
            done.wait()
            #expect(elsewhere.withLock { $0 } == processWide)
        }
        #expect(ran != nil)
        #expect(KernelVariant.current == processWide)
    }

    /// Shapes with partial tiles on both sides (last tiles of 1, 2 and 5 rows: a transposed `a` is
    /// read in place for the first two, packed for the third, and packed throughout when its steps
    /// are far apart, m = 300), more than one block of the inner dimension (256) and of columns
    /// (512), a single row and a single column; `a` plain and transposed; beta 0 and ½.
    @Test(arguments: [
        (40, 300, 100), (9, 700, 300), (130, 64, 150), (1, 33, 7), (17, 1, 513), (49, 192, 96), (16, 384, 192), (13, 100, 37),
        (300, 40, 20),
    ])
    func gemmMatchesNaiveSums(m: Int, n: Int, k: Int) {
        let a = randomFloats(m * k, seed: 70), b = randomFloats(k * n, seed: 71), start = randomFloats(m * n, seed: 72)
        KernelVariant.forEachSupported { variant in
            for transposeA in [false, true] {
                for beta: Float in [0, 0.5] {
                    var expected = [Float](repeating: 0, count: m * n)
                    for i in 0..<m {
                        for j in 0..<n {
                            var sum = Double(beta) * Double(start[i * n + j])
                            for p in 0..<k { sum += Double(a[transposeA ? p * m + i : i * k + p]) * Double(b[p * n + j]) }
                            expected[i * n + j] = Float(sum)
                        }
                    }
                    var actual = beta == 0 ? [Float](repeating: .nan, count: m * n) : start
                    BLAS.gemm(
                        m: m, n: n, k: k, a: a, lda: transposeA ? m : k, transposeA: transposeA, b: b, ldb: n, c: &actual, ldc: n,
                        beta: beta)
                    #expect(
                        actual.allSatisfy(\.isFinite) && maxDifference(actual, expected) <= 1e-4,
                        "\(variant) \(m)×\(n)×\(k) transposeA \(transposeA) beta \(beta)")
                }
            }
        }
    }

    /// A partial last chunk (16 vectors) and single floats; beta 0 and ½.
    @Test(arguments: [(256, 64), (345, 256), (768, 1000), (37, 100), (1, 5), (300, 1)])
    func gemvMatchesNaiveSums(m: Int, n: Int) {
        let a = randomFloats(m * n, seed: 80), x = randomFloats(n, seed: 81), start = randomFloats(m, seed: 82)
        KernelVariant.forEachSupported { variant in
            for beta: Float in [0, 0.5] {
                let expected = (0..<m).map { i in
                    Float((0..<n).reduce(Double(beta) * Double(start[i])) { $0 + Double(a[$1 * m + i]) * Double(x[$1]) })
                }
                var actual = beta == 0 ? [Float](repeating: .nan, count: m) : start
                BLAS.gemv(m: m, n: n, transposedA: a, lda: m, x: x, y: &actual, beta: beta)
                #expect(
                    actual.allSatisfy(\.isFinite) && maxDifference(actual, expected) <= 1e-4, "\(variant) \(m)×\(n) beta \(beta)")
            }
        }
    }

    /// Inputs two thirds zero (as after a ReLU), none, or all; more than one list of nonzero rows
    /// (1,024) and a partial last chunk. The weight rows of the zero inputs are NaN: never read.
    @Test(arguments: [(256, 1152), (345, 256), (768, 2500), (37, 100), (1, 5), (300, 1)])
    func gemvOfNonzeroInputsReadsOnlyTheirRows(m: Int, n: Int) {
        let values = randomFloats(n, seed: 84)
        for zeros in [0, 2, 3] {
            let x = values.enumerated().map { zeros > 0 && $0.offset % 3 < zeros ? 0 : $0.element }
            var a = randomFloats(m * n, seed: 83)
            for p in 0..<n where x[p] == 0 { a.replaceSubrange(p * m..<(p + 1) * m, with: repeatElement(.nan, count: m)) }
            let read = (0..<n).filter { x[$0] != 0 }
            let expected = (0..<m).map { i in Float(read.reduce(0.0) { $0 + Double(a[$1 * m + i]) * Double(x[$1]) }) }
            KernelVariant.forEachSupported { variant in
                var actual = [Float](repeating: .nan, count: m)
                BLAS.gemvOfNonzeroInputs(m: m, n: n, transposedA: a, lda: m, x: x, y: &actual)
                #expect(
                    actual.allSatisfy(\.isFinite) && maxDifference(actual, expected) <= 1e-4,
                    "\(variant) \(m)×\(n), \(zeros) in 3 inputs zero")
            }
        }
    }

    /// The PyTorch parity fixtures (im2col and Winograd convolutions, LSTM, dense) hold with every variant.
    @Test(arguments: ["cnn", "seq"])
    func everyVariantMatchesPyTorch(model name: String) throws {
        let session = try Model(contentsOf: Fixtures.model(name)).makeSession()
        try KernelVariant.forEachSupported { variant in
            for item in Fixtures.cases(name) {
                let outputs = try session.run(input: item.input)
                #expect(maxDifference(outputs.logits, item.logits) <= 1e-4, "\(variant) \(name) logits, \(item.rows) rows")
                #expect(maxDifference(outputs.embedding ?? [], item.embedding) <= 1e-4, "\(variant) \(name) embedding, \(item.rows) rows")
            }
        }
    }

    /// Winograd convolutions (the output transform is a C kernel) against the plain loops with every
    /// variant and both tiles: odd sizes (dropped edge outputs, pooling that drops the last row and
    /// column), more output channels than a vector and fewer, every activation, pooled or not.
    @Test(arguments: [(8, 5, 7, 7, 1), (9, 20, 6, 9, 1), (16, 35, 9, 7, 2), (6, 17, 14, 13, 1)])
    func winogradMatchesTheReference(channels: Int, outChannels: Int, height: Int, width: Int, padding: Int) {
        let g = Conv2DGeometry(
            channels: channels, height: height, width: width, outChannels: outChannels,
            window: Window(kernel: 3, stride: 1, padding: padding))
        let input = randomFloats(channels * height * width, seed: 93).map { $0 * 2 }
        let weight = randomFloats(outChannels * g.patchSize, seed: 94), bias = randomFloats(outChannels, seed: 95)
        var conv = [Float](repeating: .nan, count: outChannels * g.outHeight * g.outWidth)
        Conv2DKernel.reference(g, input: input, weight: weight, bias: bias, output: &conv)
        let pool = Window(kernel: 2, stride: 2, padding: 0)
        KernelVariant.forEachSupported { variant in
            for tile in [2, 4] {
                let tolerance = KernelTests.winogradTolerance(tile: tile, outputs: conv)
                let filters = WinogradKernel.transformFilters(weight, tile: tile, outChannels: outChannels, channels: channels)
                for activation in [Activation.none, .relu, .relu6] {
                    for pooled in [false, true] {
                        var expected = conv.map(activation.apply)
                        if pooled {
                            var pooledValues = [Float](
                                repeating: .nan, count: outChannels * pool.outputSize(g.outHeight) * pool.outputSize(g.outWidth))
                            PoolKernel.pool2D(
                                .max, input: expected, channels: outChannels, height: g.outHeight, width: g.outWidth, window: pool,
                                output: &pooledValues)
                            expected = pooledValues
                        }
                        var actual = [Float](repeating: .nan, count: expected.count)
                        var scratch = [Float](repeating: .nan, count: WinogradGeometry(g, tile: tile, pooled: pooled).scratchCount)
                        WinogradKernel.forward(
                            g, tile: tile, input: input, filters: filters, bias: bias, activation: activation, pool: pooled,
                            output: &actual, scratch: &scratch)
                        #expect(
                            maxDifference(actual, expected) <= tolerance, "\(variant) F(\(tile)×\(tile)) \(activation) pooled \(pooled)")
                    }
                }
            }
        }
    }

    /// The 2×2 max-pooling epilogue (bias, activation) with every variant, on rows of 1 to more than
    /// two vectors of outputs, odd sizes dropping their last row and column.
    @Test(arguments: [(3, 5, 70), (2, 4, 2), (4, 9, 33), (1, 28, 28)])
    func maxPoolEpilogueMatchesTheReference(channels: Int, height: Int, width: Int) {
        let input = randomFloats(channels * height * width, seed: 96), bias = randomFloats(channels, seed: 97)
        let pool = Window(kernel: 2, stride: 2, padding: 0)
        let count = channels * pool.outputSize(height) * pool.outputSize(width)
        KernelVariant.forEachSupported { variant in
            for activation in [Activation.none, .relu, .relu6] {
                var expected = [Float](repeating: .nan, count: count), actual = expected
                let shifted = (0..<input.count).map { activation.apply(input[$0] + bias[$0 / (height * width)]) }
                PoolKernel.pool2D(.max, input: shifted, channels: channels, height: height, width: width, window: pool, output: &expected)
                Epilogue.maxPoolBias(
                    input, channels: channels, height: height, width: width, window: pool, bias: bias, activation: activation,
                    output: &actual)
                #expect(maxDifference(actual, expected) <= 1e-6, "\(variant) \(activation) \(channels)×\(height)×\(width)")
            }
        }
    }

    /// Depthwise convolutions (a C kernel per channel) against the plain loops with every variant:
    /// strides 1–3, uneven padding, rows shorter than a vector, of whole vectors and with a last
    /// overlapping one, 1×1 outputs.
    @Test(arguments: [
        (3, 9, 9, 3, 1, Padding2D(all: 1)), (5, 16, 16, 3, 2, Padding2D(top: 0, left: 0, bottom: 1, right: 1)),
        (4, 14, 14, 5, 2, Padding2D(top: 1, left: 1, bottom: 2, right: 2)), (2, 7, 7, 5, 1, Padding2D(all: 2)),
        (3, 3, 3, 5, 2, Padding2D(all: 2)), (2, 2, 2, 3, 1, Padding2D(all: 1)), (2, 1, 1, 3, 1, Padding2D(all: 1)),
        (3, 20, 11, 3, 3, Padding2D(top: 2, left: 0, bottom: 1, right: 3)), (2, 6, 13, 4, 1, Padding2D(all: 0)),
        (2, 5, 40, 3, 1, Padding2D(all: 1)), (2, 9, 37, 3, 2, Padding2D(all: 1)), (1, 3, 32, 3, 1, Padding2D(all: 1)),
    ])
    func depthwiseMatchesTheReference(channels: Int, height: Int, width: Int, kernel: Int, stride: Int, padding: Padding2D) throws {
        let (rows, columns) = try padding.windows(kernel: kernel, stride: stride)
        let g = DepthwiseGeometry(channels: channels, height: height, width: width, rows: rows, columns: columns)
        let input = randomFloats(channels * height * width, seed: 21).map { $0 * 4 }
        let weight = randomFloats(channels * kernel * kernel, seed: 22), bias = randomFloats(channels, seed: 23)
        var expected = [Float](repeating: .nan, count: channels * g.outHeight * g.outWidth), actual = expected
        var scratch = [Float](repeating: .nan, count: g.scratchCount)
        DepthwiseKernel.reference(g, input: input, weight: weight, bias: bias, output: &expected)
        KernelVariant.forEachSupported { variant in
            for activation in [Activation.none, .relu, .relu6] {
                DepthwiseKernel.forward(
                    g, input: input, weight: weight, bias: bias, activation: activation, output: &actual, scratch: &scratch)
                #expect(maxDifference(actual, expected.map(activation.apply)) <= 1e-5, "\(variant) \(activation)")
            }
        }
    }

    /// σ and tanh from the clamped polynomial e^x, against Double's, over gates from −40 to 40 (past
    /// the clamps at ±29), with a partial last vector (70 units).
    @Test func lstmCellUpdateMatchesTheExactFunctions() {
        let count = 70
        let gates = randomFloats(4 * count, seed: 90).map { $0 * 40 }, bias = randomFloats(4 * count, seed: 91)
        let start = randomFloats(count, seed: 92).map { $0 * 3 }
        func sigmoid(_ x: Double) -> Double { 1 / (1 + Foundation.exp(-x)) }
        KernelVariant.forEachSupported { variant in
            var cell = start, hidden = [Float](repeating: .nan, count: count)
            sk_lstm_update_cell(gates, bias, &cell, &hidden, count)
            for u in 0..<count {
                let gate = { (k: Int) in Double(gates[k * count + u]) + Double(bias[k * count + u]) }
                let c = sigmoid(gate(1)) * Double(start[u]) + sigmoid(gate(0)) * Foundation.tanh(gate(2))
                let h = sigmoid(gate(3)) * Foundation.tanh(c)
                #expect(abs(Double(cell[u]) - c) <= 1e-5 && abs(Double(hidden[u]) - h) <= 1e-5, "\(variant) unit \(u)")
            }
        }
    }
}
