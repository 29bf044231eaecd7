import CKernels
import Foundation

/// The weights of a (bi)directional LSTM layer, PyTorch gate order i, f, g, o, packed for the
/// fast kernel: both directions' input weights side by side so that one sgemm projects every step.
struct LSTMWeights: Sendable {
    let inputSize, hiddenSize, directions: Int
    /// `[inputSize, directions·4H]`: the transpose of forward `weight_ih` rows, then backward ones
    /// (the sgemm reads `b` rows in place).
    let weightIH: FloatBuffer
    /// `directions × [H, 4H]`: each direction's `weight_hh` transposed (the sgemv then keeps the
    /// 4H gates in registers while it adds each hidden unit's row).
    let weightHH: FloatBuffer
    /// `[directions·4H]`: `bias_ih + bias_hh` per direction.
    let bias: FloatBuffer
    /// The same products in int8 (``DensePrecision/int8``), or nil for float32.
    private(set) var int8: LSTMInt8Products?

    /// Packs PyTorch's per-direction tensors (`weight_ih [4H, in]`, `weight_hh [4H, H]`, `bias_ih`,
    /// `bias_hh [4H]`; forward first).
    init(inputSize: Int, hiddenSize h: Int, pytorch directions: [(weightIH: [Float], weightHH: [Float], biasIH: [Float], biasHH: [Float])])
    {
        self.inputSize = inputSize
        self.hiddenSize = h
        self.directions = directions.count
        let stacked = directions.flatMap(\.weightIH), rows = directions.count * 4 * h
        weightIH = FloatBuffer((0..<stacked.count).map { stacked[($0 % rows) * inputSize + $0 / rows] })
        weightHH = FloatBuffer(directions.flatMap { d in (0..<h * 4 * h).map { d.weightHH[($0 % (4 * h)) * h + $0 / (4 * h)] } })
        bias = FloatBuffer(directions.flatMap { zip($0.biasIH, $0.biasHH).map(+) })
    }

    /// These weights with their products in int8: the input projection of both directions as
    /// one matrix, each direction's recurrent one apart (float32 still past
    /// ``Int8Columns/maximumInputs``).
    func quantized() -> LSTMWeights {
        guard max(inputSize, hiddenSize) <= Int8Columns.maximumInputs else { return self }
        var copy = self
        let (rows, g, h) = (directions * gateCount, gateCount, hiddenSize)
        copy.int8 = LSTMInt8Products(
            projection: Int8Columns(inputs: inputSize, columns: rows) { weightIH[$0 * rows + $1] },
            recurrent: (0..<directions).map { d in Int8Columns(inputs: h, columns: g) { weightHH[d * g * h + $0 * g + $1] } })
        return copy
    }

    /// Gate rows per direction (4H).
    var gateCount: Int { 4 * hiddenSize }
    /// Width of an output row (`directions·H`).
    var outputWidth: Int { directions * hiddenSize }
}

/// An LSTM's products in int8: `projection` `[inputSize, directions·4H]` and each direction's
/// `recurrent` `[H, 4H]`.
struct LSTMInt8Products: Sendable {
    let projection: Int8Columns
    let recurrent: [Int8Columns]

    /// Scratch floats either product needs.
    var scratchCount: Int { max(projection.scratchCount, recurrent.map(\.scratchCount).max() ?? 0) }
}

/// LSTM over a `[T, inputSize]` sequence with zero initial state → `[T, directions·H]`, each row the
/// forward then the backward hidden state (as PyTorch).
enum LSTMKernel {
    /// Plain loops with libm, one step and one gate at a time. Allocates; for tests.
    static func reference(_ w: LSTMWeights, input: UnsafePointer<Float>, length: Int, output: UnsafeMutablePointer<Float>) {
        let (h, g) = (w.hiddenSize, w.gateCount)
        func sigmoid(_ x: Float) -> Float { 1 / (1 + Foundation.exp(-x)) }
        for d in 0..<w.directions {
            var hidden = [Float](repeating: 0, count: h)
            var cell = [Float](repeating: 0, count: h)
            var gates = [Float](repeating: 0, count: g)
            for step in 0..<length {
                let t = d == 0 ? step : length - 1 - step
                for r in 0..<g {
                    let row = d * g + r
                    var sum = w.bias[row]
                    for i in 0..<w.inputSize { sum += w.weightIH[i * w.directions * g + row] * input[t * w.inputSize + i] }
                    for j in 0..<h { sum += w.weightHH[d * g * h + j * g + r] * hidden[j] }
                    gates[r] = sum
                }
                for u in 0..<h {
                    let (i, f) = (sigmoid(gates[u]), sigmoid(gates[h + u]))
                    let (c, o) = (Foundation.tanh(gates[2 * h + u]), sigmoid(gates[3 * h + u]))
                    cell[u] = f * cell[u] + i * c
                    hidden[u] = o * Foundation.tanh(cell[u])
                    output[t * w.outputWidth + d * h + u] = hidden[u]
                }
            }
        }
    }

    /// Floats of scratch `fast` needs: the projected inputs of every step plus the cell states (and
    /// the int8 products' own).
    static func scratchCount(_ w: LSTMWeights, length: Int) -> Int {
        length * w.directions * w.gateCount + w.outputWidth + (w.int8?.scratchCount ?? 0)
    }

    /// Input projections of all steps and directions as one sgemm, then per step the recurrent
    /// sgemv into the projected row and a fused, vectorised gate update (which also adds the biases).
    /// With ``LSTMWeights/int8`` both products are int8 (`sk_gemm_int8`).
    static func fast(
        _ w: LSTMWeights, input: UnsafePointer<Float>, length: Int,
        output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let (h, g, width) = (w.hiddenSize, w.gateCount, w.outputWidth)
        let rowWidth = w.directions * g
        let projected = scratch
        let cells = projected + length * rowWidth
        let int8Scratch = cells + width
        if let int8 = w.int8 {
            int8.projection.multiply(
                rows: length, x: input, ldx: w.inputSize, y: projected, ldy: rowWidth, accumulate: false, scratch: int8Scratch)
        } else {
            BLAS.gemm(
                m: length, n: rowWidth, k: w.inputSize, a: input, lda: w.inputSize,
                b: w.weightIH.base, ldb: rowWidth, c: projected, ldc: rowWidth)
        }
        cells.update(repeating: 0, count: width)
        let partRows = recurrentPartRows(w)
        for d in 0..<w.directions {
            let recurrent = w.weightHH.base + d * g * h
            let bias = w.bias.base + d * g
            for step in 0..<length {
                let t = d == 0 ? step : length - 1 - step
                let gates = projected + t * rowWidth + d * g
                if step > 0 {
                    let previous = output + (d == 0 ? t - 1 : t + 1) * width + d * h
                    if let int8 = w.int8 {
                        int8.recurrent[d].multiply(rows: 1, x: previous, ldx: h, y: gates, ldy: g, accumulate: true, scratch: int8Scratch)
                    } else {
                        // The recurrent weights (64 KB per direction at H = 64) stream from L2 every step;
                        // in parts of 16 KB whose order reverses every step, the parts read last are
                        // still in L1 when the next step starts with them (measured −7 % per sequence).
                        var first = 0
                        while first < h {
                            let rows = min(partRows, h - first)
                            let start = step & 1 == 0 ? first : h - first - rows
                            BLAS.gemv(
                                m: g, n: rows, transposedA: recurrent + start * g, lda: g, x: previous + start, y: gates, beta: 1)
                            first += rows
                        }
                    }
                }
                sk_lstm_update_cell(gates, bias, cells + d * h, output + t * width + d * h, h)
            }
        }
    }

    /// Hidden units per recurrent sgemv: 16 KB of weights, at most 8 calls per step.
    static func recurrentPartRows(_ w: LSTMWeights) -> Int {
        max(4096 / w.gateCount, (w.hiddenSize + 7) / 8, 1)
    }
}
