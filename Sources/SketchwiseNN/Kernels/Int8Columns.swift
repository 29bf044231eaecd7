import CKernels

/// A weight matrix `W [k, n]` in int8 for `sk_gemm_int8` (``DensePrecision/int8``): each column
/// scaled to −127…127 and rounded, packed four inputs by 16 columns, with each column's scale and
/// byte sum. Rows of floats times it give `y ≈ x·W` with exact integer sums.
struct Int8Columns: Sendable {
    let inputs, columns: Int
    /// `columns` rounded up to 16 (the padding is zero).
    let paddedColumns: Int
    let packed: AlignedBuffer<Int8>
    let scale: FloatBuffer
    let sum: AlignedBuffer<Int32>

    /// Inputs at most: the integer sums and their zero-point correction then stay within Int32.
    static let maximumInputs = 8192

    /// Quantizes `weight(p, j)` for inputs `p < inputs` and columns `j < columns`.
    init(inputs: Int, columns: Int, weight: (_ input: Int, _ column: Int) -> Float) {
        precondition(inputs <= Self.maximumInputs, "an int8 product takes at most \(Self.maximumInputs) inputs")
        (self.inputs, self.columns) = (inputs, columns)
        let paddedColumns = (columns + 15) / 16 * 16
        self.paddedColumns = paddedColumns
        let groups = (inputs + 3) / 4
        var bytes = [Int8](repeating: 0, count: groups * paddedColumns * 4)
        var scales = [Float](repeating: 1, count: paddedColumns), sums = [Int32](repeating: 0, count: paddedColumns)
        for j in 0..<columns {
            (scales[j], sums[j]) = Self.quantize(count: inputs, { weight($0, j) }) { p, byte in
                bytes[((p / 4) * paddedColumns + j) * 4 + p % 4] = byte
            }
        }
        packed = AlignedBuffer(bytes)
        scale = FloatBuffer(scales)
        sum = AlignedBuffer(sums)
    }

    /// `count` weights in signed bytes, symmetric: scaled so that the largest magnitude is 127 (by 1
    /// when all are zero) and rounded to nearest, ties to even; each byte goes to `store`. Returns
    /// the scale and the bytes' sum. (`QuantizedDense` quantizes its rows the same way.)
    static func quantize(count: Int, _ value: (Int) -> Float, store: (Int, Int8) -> Void) -> (scale: Float, sum: Int32) {
        let largest = (0..<count).reduce(Float(0)) { max($0, abs(value($1))) }
        let scale = largest > 0 ? largest / 127 : 1
        var sum: Int32 = 0
        for p in 0..<count {
            let byte = Int8(clamping: Int((value(p) / scale).rounded(.toNearestOrEven)))
            store(p, byte)
            sum += Int32(byte)
        }
        return (scale, sum)
    }

    /// Scratch floats `multiply` needs: four quantized rows and their integer sums.
    var scratchCount: Int { 4 * ((inputs + 3) / 4 + paddedColumns) }

    /// `y[r] (+)= x[r]·W` for `rows` rows of `x` (`inputs` floats, `ldx` apart) into rows of `y`
    /// (`ldy` apart); adds to `y` when `accumulate`.
    func multiply(
        rows: Int, x: UnsafePointer<Float>, ldx: Int, y: UnsafeMutablePointer<Float>, ldy: Int, accumulate: Bool,
        scratch: UnsafeMutablePointer<Float>
    ) {
        let raw = UnsafeMutableRawPointer(scratch)
        let quantizedBytes = 4 * ((inputs + 3) / 4 * 4)
        raw.withMemoryRebound(to: UInt8.self, capacity: quantizedBytes) { quantized in
            (raw + quantizedBytes).withMemoryRebound(to: Int32.self, capacity: 4 * paddedColumns) { sums in
                sk_gemm_int8(
                    rows, columns, inputs, x, ldx, packed.base, paddedColumns, scale.base, sum.base, quantized, sums, y, ldy,
                    accumulate)
            }
        }
    }

    /// `y[r] = x[r]·W` for `rows` rows already quantized to bytes with one `scale` and `zeroPoint`
    /// (`sk_quantize_uint8`), `stride` bytes apart (at least `inputs` rounded up to 4).
    func multiply(
        rows: Int, quantized: UnsafePointer<UInt8>, stride: Int, scale x: Float, zeroPoint: Int32,
        y: UnsafeMutablePointer<Float>, ldy: Int, scratch: UnsafeMutablePointer<Float>
    ) {
        UnsafeMutableRawPointer(scratch).withMemoryRebound(to: Int32.self, capacity: 4 * paddedColumns) { sums in
            sk_gemm_uint8(
                rows, columns, inputs, quantized, stride, zeroPoint, x, packed.base, paddedColumns, scale.base, sum.base, sums, y,
                ldy)
        }
    }
}
