import CKernels
import Foundation
import Testing

@testable import SketchwiseNN

/// Int8 dense layers (``DensePrecision/int8``): the C kernel of every variant against the
/// quantized arithmetic written out in Swift (bit for bit: the sums are exact), and the lowered
/// models against float32.
@Suite struct QuantizedDenseTests {
    /// What `sk_dense_int8` documents, step by step: the input quantized over `[min(x, 0), max(x, 0)]`
    /// (ties to even), exact integer sums, scaled back.
    func reference(weight: [Int8], rowStride: Int, scales: [Float], x: [Float], rows: Int) -> [Float] {
        let quantized = quantizedReference(x)
        return (0..<rows).map { i in
            var sum: Int64 = 0
            for (p, q) in quantized.values.enumerated() { sum += q * Int64(weight[i * rowStride + p]) }
            return Float(sum) * (quantized.scale * scales[i])
        }
    }

    /// Rows of 4 and a partial group, inputs shorter than, equal to and longer than 64 bytes, inputs
    /// all positive (after a relu: zero point 0), mixed, and all zero.
    @Test(arguments: [(256, 1152), (345, 256), (5, 70), (3, 64), (1, 1)])
    func everyVariantSumsExactly(rows: Int, columns: Int) {
        let rowStride = (columns + 63) / 64 * 64
        let values = randomFloats(rows * rowStride, seed: 100)
        let weight = values.enumerated().map { $0.offset % rowStride < columns ? Int8($0.element * 127) : 0 }
        let sums = (0..<rows).map { i in Int32((0..<columns).reduce(0) { $0 + Int(weight[i * rowStride + $1]) }) }
        let scales = randomFloats(rows, seed: 101).map { abs($0) / 100 + 1e-3 }
        let mixed = randomFloats(columns, seed: 102).map { $0 * 5 }
        for (name, x) in [("positive", mixed.map { max($0, 0) }), ("mixed", mixed), ("zero", [Float](repeating: 0, count: columns))] {
            let expected = reference(weight: weight, rowStride: rowStride, scales: scales, x: x, rows: rows)
            KernelVariant.forEachSupported { variant in
                var quantized = [UInt8](repeating: 0, count: rowStride), scratch = [Int32](repeating: 0, count: rows)
                var y = [Float](repeating: .nan, count: rows)
                sk_dense_int8(rows, columns, weight, rowStride, scales, sums, x, &quantized, &scratch, &y)
                #expect(y == expected, "\(variant) \(rows)×\(columns) \(name) input")
            }
        }
    }

    /// The parity fixtures' models in int8: every dense layer lowered (and the CNN's convolutions of
    /// 32 or more products per output), logits within 2 % of their range of PyTorch's, and the same
    /// class first.
    @Test(arguments: ["cnn", "seq"])
    func int8ModelsStayNearFloat(model name: String) throws {
        let model = try Model(contentsOf: Fixtures.model(name), densePrecision: .int8)
        #expect(model.densePrecision == .int8)
        #expect(model.program.steps.contains { $0.layer is QuantizedDense } && !model.program.steps.contains { $0.layer is Dense })
        #expect(model.program.steps.allSatisfy { ($0.layer as? LSTM)?.weights.int8 != nil || !($0.layer is LSTM) })
        #expect(model.program.steps.filter { $0.layer is QuantizedConv2D }.count == (name == "cnn" ? 2 : 0))
        let float = try Model(contentsOf: Fixtures.model(name))
        #expect(!float.program.steps.contains { $0.layer is QuantizedDense })
        let session = model.makeSession()
        let cases = Fixtures.cases(name).filter { $0.rows == 1 }
        #expect(!cases.isEmpty)
        for item in cases {
            let logits = try session.run(input: item.input).logits
            let range = (item.logits.max() ?? 0) - (item.logits.min() ?? 0)
            #expect(maxDifference(logits, item.logits) <= 0.02 * range, "\(name): \(logits) vs \(item.logits)")
            #expect(logits.indices.max { logits[$0] < logits[$1] } == item.logits.indices.max { item.logits[$0] < item.logits[$1] })
        }
    }
}
