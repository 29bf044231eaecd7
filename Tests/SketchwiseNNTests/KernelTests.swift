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
        Conv1DKernel.gemm(g, input: input, packedWeight: packed, output: &actual, scratch: &scratch)
        Epilogue.biasPerColumn(&actual, rows: g.outLength, columns: outChannels, bias: bias, activation: .none)
        #expect(maxDifference(actual, expected) <= 1e-5)
    }

    @Test(arguments: [(1, 3, 5, true), (6, 4, 10, true), (17, 7, 16, false), (9, 2, 8, true), (3, 5, 19, false)])
    func lstmGemmMatchesReference(length: Int, inputSize: Int, hidden: Int, bidirectional: Bool) {
        let directions = (0..<(bidirectional ? 2 : 1)).map { d in
            (weightIH: randomFloats(4 * hidden * inputSize, seed: 10 + UInt64(d)),
             weightHH: randomFloats(4 * hidden * hidden, seed: 20 + UInt64(d)),
             biasIH: randomFloats(4 * hidden, seed: 30 + UInt64(d)), biasHH: randomFloats(4 * hidden, seed: 40 + UInt64(d)))
        }
        let w = LSTMWeights(inputSize: inputSize, hiddenSize: hidden, pytorch: directions)
        let input = randomFloats(length * inputSize, seed: 50).map { $0 * 3 }
        var expected = [Float](repeating: .nan, count: length * w.outputWidth), actual = expected
        var scratch = [Float](repeating: .nan, count: LSTMKernel.scratchCount(w, length: length))
        LSTMKernel.reference(w, input: input, length: length, output: &expected)
        LSTMKernel.fast(w, input: input, length: length, output: &actual, scratch: &scratch)
        #expect(maxDifference(actual, expected) <= 1e-5)
    }

    @Test func fastMathMatchesLibm() {
        let xs = stride(from: Float(-120), through: 120, by: 0.0173).map { $0 }
        var worstExp: Float = 0, worstSigmoid: Float = 0, worstTanh: Float = 0
        let width = FastMath.Vector.scalarCount
        for start in stride(from: 0, to: xs.count - width, by: width) {
            let x = FastMath.Vector(xs[start..<start + width])
            let (e, s, t) = (FastMath.exp(x), FastMath.sigmoid(x), FastMath.tanh(x))
            for lane in 0..<width {
                let v = Double(x[lane])
                if abs(v) <= 80 { worstExp = max(worstExp, Float(abs(Double(e[lane]) / Foundation.exp(v) - 1))) }
                worstSigmoid = max(worstSigmoid, Float(abs(Double(s[lane]) - 1 / (1 + Foundation.exp(-v)))))
                worstTanh = max(worstTanh, Float(abs(Double(t[lane]) - Foundation.tanh(v))))
            }
        }
        #expect(worstExp < 5e-7 && worstSigmoid < 5e-7 && worstTanh < 1e-6)
    }

    @Test func windowValidOutputsMatchBruteForce() {
        for kernel in 1...5 { for stride in 1...3 { for padding in 0...4 { for size in 1...9 {
            let window = Window(kernel: kernel, stride: stride, padding: padding)
            let outputs = window.outputSize(size)
            for tap in 0..<kernel {
                let brute = (0..<outputs).filter { (0..<size).contains($0 * stride - padding + tap) }
                #expect(Array(window.validOutputs(tap: tap, size: size, outputs: outputs)) == brute)
            }
        } } } }
    }
}
