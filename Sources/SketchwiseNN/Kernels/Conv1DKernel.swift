/// The geometry of one conv1d over a sequence: `[length, channels]` → `[outLength, outChannels]`.
struct Conv1DGeometry: Sendable {
    let length, channels, outChannels: Int
    let window: Window

    var outLength: Int { window.outputSize(length) }
    /// Length of one im2col row: `k·channels`.
    var patchSize: Int { window.kernel * channels }
    /// A kernel-1, stride-1, unpadded convolution reads its input as the im2col matrix directly.
    var isPointwise: Bool { window == Window(kernel: 1, stride: 1, padding: 0) }
    var scratchCount: Int { isPointwise ? 0 : outLength * patchSize }
}

/// conv1d on `[T, C]` rows: plain loops (reference) and im2col + sgemm (fast).
enum Conv1DKernel {
    /// `[O, k·C]` weights (as `pack` returns them) transposed to `[k·C, O]`, the operand of `gemm`.
    static func transposed(packed: [Float], outChannels: Int) -> [Float] {
        let rowLength = packed.count / max(outChannels, 1)
        var result = [Float](repeating: 0, count: packed.count)
        for o in 0..<outChannels {
            for i in 0..<rowLength { result[i * outChannels + o] = packed[o * rowLength + i] }
        }
        return result
    }

    /// PyTorch's `[O, C, k]` weights reordered to `[O, k, C]`, the order of an im2col row.
    static func pack(weight: [Float], outChannels: Int, channels: Int, kernel: Int) -> [Float] {
        var packed = [Float](repeating: 0, count: weight.count)
        for o in 0..<outChannels {
            for c in 0..<channels {
                for j in 0..<kernel {
                    packed[(o * kernel + j) * channels + c] = weight[(o * channels + c) * kernel + j]
                }
            }
        }
        return packed
    }

    /// `out[t, o] = bias[o] + Σ w[o, c, j] · in[t·s − p + j, c]` with PyTorch's `[O, C, k]` weights.
    static func reference(
        _ g: Conv1DGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
    ) {
        let k = g.window.kernel
        for t in 0..<g.outLength {
            for o in 0..<g.outChannels {
                var sum = bias[o]
                for c in 0..<g.channels {
                    for j in 0..<k {
                        let st = t * g.window.stride - g.window.padding + j
                        guard st >= 0, st < g.length else { continue }
                        sum += weight[(o * g.channels + c) * k + j] * input[st * g.channels + c]
                    }
                }
                output[t * g.outChannels + o] = sum
            }
        }
    }

    /// `out[T', O] = im2col(in)[T', k·C] · weight[k·C, O]`, without bias (`weight` is `pack`'s
    /// result `transposed`, so that the sgemm reads its rows in place); `scratch` holds
    /// `g.scratchCount` floats.
    static func gemm(
        _ g: Conv1DGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let matrix: UnsafePointer<Float>
        if g.isPointwise {
            matrix = input
        } else {
            im2col(g, input: input, into: scratch)
            matrix = UnsafePointer(scratch)
        }
        BLAS.gemm(
            m: g.outLength, n: g.outChannels, k: g.patchSize, a: matrix, lda: g.patchSize,
            b: weight, ldb: g.outChannels, c: output, ldc: g.outChannels)
    }

    /// Row `t` of the result is input rows `t·s − p ..< t·s − p + k` side by side, zeros outside the sequence.
    static func im2col(_ g: Conv1DGeometry, input: UnsafePointer<Float>, into matrix: UnsafeMutablePointer<Float>) {
        let c = g.channels
        for t in 0..<g.outLength {
            let first = t * g.window.stride - g.window.padding
            let (low, high) = (max(0, -first), min(g.window.kernel, g.length - first))
            let row = matrix + t * g.patchSize
            guard low < high else {
                row.update(repeating: 0, count: g.patchSize)
                continue
            }
            let taps = low..<high
            row.update(repeating: 0, count: taps.lowerBound * c)
            (row + taps.lowerBound * c).update(from: input + (first + taps.lowerBound) * c, count: taps.count * c)
            (row + taps.upperBound * c).update(repeating: 0, count: (g.window.kernel - taps.upperBound) * c)
        }
    }
}
