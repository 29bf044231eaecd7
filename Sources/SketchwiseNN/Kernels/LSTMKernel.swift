import Foundation

/// The weights of a (bi)directional LSTM layer, PyTorch gate order i, f, g, o, packed for the
/// fast kernel: both directions' input weights stacked so that one sgemm projects every step.
struct LSTMWeights: Sendable {
    let inputSize, hiddenSize, directions: Int
    /// `[directions·4H, inputSize]`: forward `weight_ih` rows, then backward.
    let weightIH: FloatBuffer
    /// `[directions·4H, H]`: forward `weight_hh` rows, then backward.
    let weightHH: FloatBuffer
    /// `[directions·4H]`: `bias_ih + bias_hh` per direction.
    let bias: FloatBuffer

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
                    for j in 0..<h { sum += w.weightHH[row * h + j] * hidden[j] }
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
                    BLAS.gemv(m: g, n: h, a: recurrent, lda: h, x: output + previous * width + d * h, y: gates, beta: 1)
                }
                updateCell(gates: gates, cell: cells + d * h, hidden: output + t * width + d * h, count: h)
            }
        }
    }

    /// `c = σ(f)·c + σ(i)·tanh(g)`, `h = σ(o)·tanh(c)` for gates laid out `[i | f | g | o]`, each `count` wide.
    @inline(__always)
    static func updateCell(gates: UnsafeMutablePointer<Float>, cell: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>, count: Int) {
        var u = 0
        while u < count {
            let lanes = min(FastMath.Vector.scalarCount, count - u)
            let i = FastMath.sigmoid(FastMath.load(gates + u, count: lanes))
            let f = FastMath.sigmoid(FastMath.load(gates + count + u, count: lanes))
            let c = FastMath.tanh(FastMath.load(gates + 2 * count + u, count: lanes))
            let o = FastMath.sigmoid(FastMath.load(gates + 3 * count + u, count: lanes))
            let newCell = f * FastMath.load(cell + u, count: lanes) + i * c
            FastMath.store(newCell, to: cell + u, count: lanes)
            FastMath.store(o * FastMath.tanh(newCell), to: hidden + u, count: lanes)
            u += lanes
        }
    }
}
