import CKernels

/// A `Dense` layer with int8 weights (``DensePrecision/int8``), made from the folded float layer
/// at load: each weight row is scaled to −127…127 and rounded; each call quantizes its input to
/// unsigned bytes over the input's range and sums the products exactly in int32 (`CKernels`:
/// VNNI, AVX2 or portable C, all with the same result).
struct QuantizedDense: DerivedLayer {
    static let typeName = "dense"
    let inFeatures, outFeatures: Int
    /// Bytes per weight row: `inFeatures` rounded up to 64 (the padding is zero).
    let rowStride: Int
    /// `[outFeatures, rowStride]` signed bytes.
    let weight: AlignedBuffer<Int8>
    /// Each row's scale (its largest magnitude / 127) and the sum of its bytes.
    let rowScale: FloatBuffer
    let rowSum: AlignedBuffer<Int32>
    let bias: FloatBuffer
    let activation: Activation

    static let origin = "an int8 dense layer is made from a dense layer at load"

    init(_ dense: Dense) {
        (inFeatures, outFeatures, bias, activation) = (dense.inFeatures, dense.outputChannels, dense.bias, dense.activation)
        let rowStride = (inFeatures + 63) / 64 * 64
        self.rowStride = rowStride
        var bytes = [Int8](repeating: 0, count: outFeatures * rowStride)
        var scales = [Float](repeating: 0, count: outFeatures), sums = [Int32](repeating: 0, count: outFeatures)
        for o in 0..<outFeatures {
            let row = dense.weight.base + o * dense.inFeatures
            (scales[o], sums[o]) = Int8Columns.quantize(count: dense.inFeatures, { row[$0] }) { p, byte in bytes[o * rowStride + p] = byte }
        }
        weight = AlignedBuffer(bytes)
        rowScale = FloatBuffer(scales)
        rowSum = AlignedBuffer(sums)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try Dense.outputShape(for: inputs, inFeatures: inFeatures, outFeatures: outFeatures)
    }

    /// The quantized input (`rowStride` bytes), then the integer sums.
    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int { rowStride / 4 + outFeatures }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let raw = UnsafeMutableRawPointer(scratch)
        raw.withMemoryRebound(to: UInt8.self, capacity: rowStride) { quantized in
            (raw + rowStride).withMemoryRebound(to: Int32.self, capacity: outFeatures) { sums in
                sk_dense_int8(
                    outFeatures, inFeatures, weight.base, rowStride, rowScale.base, rowSum.base, inputs[0].data, quantized,
                    sums, output.data)
            }
        }
        Epilogue.biasPerColumn(output.data, rows: 1, columns: outFeatures, bias: bias.base, activation: activation)
    }
}
