import CKernels
import Foundation
import Testing

@testable import SketchwiseNN

/// The int8 products of many rows (``Int8Columns``, `sk_gemm_int8`; the LSTM's under
/// ``DensePrecision/int8``): every variant against the quantized arithmetic written out in Swift,
/// bit for bit, and the int8 LSTM against the float one.
@Suite struct Int8ColumnsTests {
    /// What `sk_gemm_int8` documents for one row: the row quantized over `[min(x, 0), max(x, 0)]`
    /// (ties to even), exact integer sums with each column's bytes, scaled back.
    func reference(_ w: Int8Columns, row x: ArraySlice<Float>) -> [Float] {
        let quantized = quantizedReference(x)
        return (0..<w.columns).map { j in
            var sum: Int64 = 0
            for (p, q) in quantized.values.enumerated() {
                sum += q * Int64(w.packed[((p / 4) * w.paddedColumns + j) * 4 + p % 4])
            }
            return Float(sum) * (quantized.scale * w.scale[j])
        }
    }

    /// Columns in whole and partial blocks of 128, 64 and 16, rows in blocks of four and alone,
    /// inputs in whole and partial groups of four, and a row that is all zero.
    @Test(arguments: [(5, 512, 96), (1, 256, 64), (4, 40, 7), (6, 129, 130), (1, 3, 1)])
    func everyVariantSumsExactly(rows: Int, columns: Int, inputs: Int) {
        let weights = randomFloats(inputs * columns, seed: 200)
        let w = Int8Columns(inputs: inputs, columns: columns) { weights[$0 * columns + $1] }
        var x = randomFloats(rows * inputs, seed: 201).map { $0 * 4 }
        if rows > 2 { for p in 0..<inputs { x[inputs + p] = 0 } }
        let previous = randomFloats(rows * columns, seed: 202)
        KernelVariant.forEachSupported { variant in
            for accumulate in [false, true] {
                var y = accumulate ? previous : [Float](repeating: .nan, count: rows * columns)
                var scratch = [Float](repeating: .nan, count: w.scratchCount)
                w.multiply(rows: rows, x: x, ldx: inputs, y: &y, ldy: columns, accumulate: accumulate, scratch: &scratch)
                for r in 0..<rows {
                    let product = reference(w, row: x[r * inputs..<(r + 1) * inputs])
                    let expected = accumulate ? zip(previous[r * columns..<(r + 1) * columns], product).map(+) : product
                    #expect(Array(y[r * columns..<(r + 1) * columns]) == expected, "\(variant) row \(r) of \(rows)×\(inputs)·\(columns)")
                }
            }
        }
    }

    /// The int8 LSTM stays within 2 % of the float one's output range, on a sequence as long as a
    /// drawing's, in both directions.
    @Test(arguments: [(38, 96, 64, true), (12, 5, 16, false)])
    func int8LSTMStaysNearFloat(length: Int, inputSize: Int, hidden: Int, bidirectional: Bool) {
        let directions = (0..<(bidirectional ? 2 : 1)).map { d in
            (
                weightIH: randomFloats(4 * hidden * inputSize, seed: 60 + UInt64(d)).map { $0 / 4 },
                weightHH: randomFloats(4 * hidden * hidden, seed: 70 + UInt64(d)).map { $0 / 4 },
                biasIH: randomFloats(4 * hidden, seed: 80 + UInt64(d)), biasHH: randomFloats(4 * hidden, seed: 90 + UInt64(d))
            )
        }
        let float = LSTMWeights(inputSize: inputSize, hiddenSize: hidden, pytorch: directions)
        let int8 = float.quantized()
        #expect(float.int8 == nil && int8.int8 != nil)
        let input = randomFloats(length * inputSize, seed: 95).map { max($0 * 2, 0) }
        var expected = [Float](repeating: .nan, count: length * float.outputWidth), actual = expected
        var scratch = [Float](repeating: .nan, count: LSTMKernel.scratchCount(int8, length: length))
        LSTMKernel.reference(float, input: input, length: length, output: &expected)
        LSTMKernel.fast(int8, input: input, length: length, output: &actual, scratch: &scratch)
        let range = (expected.max() ?? 0) - (expected.min() ?? 0)
        #expect(maxDifference(actual, expected) <= 0.02 * range, "\(maxDifference(actual, expected)) of \(range)")
        #expect(maxDifference(actual, expected) > 0, "the int8 products ran")
    }
}
