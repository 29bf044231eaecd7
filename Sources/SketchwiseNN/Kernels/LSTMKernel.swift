import Foundation

/// The weights of a (bi)directional LSTM layer, PyTorch gate order i, f, g, o, packed for the
/// fast kernel: both directions' input weights stacked so that one sgemm projects every step.
struct LSTMWeights: Sendable {
    let inputSize, hiddenSize, directions: Int
    /// `[directions·4H, inputSize]`: forward `weight_ih` rows, then backward.
    let weightIH: FloatBuffer
    /// `directions × [H, 4H]`: each direction's `weight_hh` transposed (a faster sgemv layout).
    let weightHH: FloatBuffer
    /// `[directions·4H]`: `bias_ih + bias_hh` per direction.
    let bias: FloatBuffer

    /// Packs PyTorch's per-direction tensors (`weight_ih [4H, in]`, `weight_hh [4H, H]`, `bias_ih`,
    /// `bias_hh [4H]`; forward first).
    init(inputSize: Int, hiddenSize h: Int, pytorch directions: [(weightIH: [Float], weightHH: [Float], biasIH: [Float], biasHH: [Float])]) {
        self.inputSize = inputSize
        self.hiddenSize = h
        self.directions = directions.count
        weightIH = FloatBuffer(directions.flatMap(\.weightIH))
        weightHH = FloatBuffer(directions.flatMap { d in (0..<h * 4 * h).map { d.weightHH[($0 % (4 * h)) * h + $0 / (4 * h)] } })
        bias = FloatBuffer(directions.flatMap { zip($0.biasIH, $0.biasHH).map(+) })
    }

    /// Gate rows per direction (4H).
    var gateCount: Int { 4 * hiddenSize }
    /// Width of an output row (`directions·H`).
    var outputWidth: Int { directions * hiddenSize }
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
                    for i in 0..<w.inputSize { sum += w.weightIH[row * w.inputSize + i] * input[t * w.inputSize + i] }
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

    /// Floats of scratch `fast` needs: the projected inputs of every step plus the cell states.
    static func scratchCount(_ w: LSTMWeights, length: Int) -> Int {
        length * w.directions * w.gateCount + w.outputWidth
    }

    /// Input projections of all steps and directions as one sgemm, then per step one sgemv with the
    /// recurrent weights into the projected row and a fused, vectorised gate update.
    static func fast(
        _ w: LSTMWeights, input: UnsafePointer<Float>, length: Int,
        output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let (h, g, width) = (w.hiddenSize, w.gateCount, w.outputWidth)
        let rowWidth = w.directions * g
        let projected = scratch
        let cells = projected + length * rowWidth
        BLAS.gemm(
            m: length, n: rowWidth, k: w.inputSize, a: input, lda: w.inputSize,
            b: w.weightIH.base, ldb: w.inputSize, transposeB: true, c: projected, ldc: rowWidth)
        Epilogue.biasPerColumn(projected, rows: length, columns: rowWidth, bias: w.bias.base, activation: .none)
        cells.update(repeating: 0, count: width)
        for d in 0..<w.directions {
            let recurrent = w.weightHH.base + d * g * h
            for step in 0..<length {
                let t = d == 0 ? step : length - 1 - step
                let gates = projected + t * rowWidth + d * g
                if step > 0 {
                    let previous = d == 0 ? t - 1 : t + 1
                    BLAS.gemv(m: g, n: h, a: recurrent, lda: g, transposeA: true, x: output + previous * width + d * h, y: gates, beta: 1)
                }
                updateCell(gates: gates, cell: cells + d * h, hidden: output + t * width + d * h, count: h)
            }
        }
    }

    /// `c = σ(f)·c + σ(i)·tanh(g)`, `h = σ(o)·tanh(c)` for gates laid out `[i | f | g | o]`, each `count` wide.
    static func updateCell(gates: UnsafeMutablePointer<Float>, cell: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>, count: Int) {
        let width = FastMath.Vector.scalarCount
        var u = 0
        while u + width <= count {
            updateCell(gates: gates + u, cell: cell + u, hidden: hidden + u, stride: count, lanes: width)
            u += width
        }
        if u < count { updateCell(gates: gates + u, cell: cell + u, hidden: hidden + u, stride: count, lanes: count - u) }
    }

    /// `updateCell` for `lanes` units; the gates of one unit are `stride` apart.
    @inline(__always)
    private static func updateCell(
        gates: UnsafeMutablePointer<Float>, cell: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>,
        stride: Int, lanes: Int
    ) {
        let i = FastMath.sigmoid(FastMath.load(gates, count: lanes))
        let f = FastMath.sigmoid(FastMath.load(gates + stride, count: lanes))
        let c = FastMath.tanh(FastMath.load(gates + 2 * stride, count: lanes))
        let o = FastMath.sigmoid(FastMath.load(gates + 3 * stride, count: lanes))
        let newCell = f * FastMath.load(cell, count: lanes) + i * c
        FastMath.store(newCell, to: cell, count: lanes)
        FastMath.store(o * FastMath.tanh(newCell), to: hidden, count: lanes)
    }
}
