/// The geometry of one conv2d: `[channels, height, width]` → `[outChannels, outHeight, outWidth]`,
/// weights `[outChannels, channels, k, k]`.
struct Conv2DGeometry: Sendable {
    let channels, height, width, outChannels: Int
    let window: Window

    var outHeight: Int { window.outputSize(height) }
    var outWidth: Int { window.outputSize(width) }
    /// Length of one im2col column: `channels·k·k`.
    var patchSize: Int { channels * window.kernel * window.kernel }
    /// A 1×1, stride-1, unpadded convolution reads its input as the im2col matrix directly.
    var isPointwise: Bool { window == Window(kernel: 1, stride: 1, padding: 0) }
    /// Floats of scratch for the im2col matrix.
    var scratchCount: Int { isPointwise ? 0 : patchSize * outHeight * outWidth }
}

/// conv2d: plain loops (reference) and im2col + sgemm (fast).
enum Conv2DKernel {
    /// `out[o, y, x] = bias[o] + Σ w[o, c, i, j] · in[c, y·s − p + i, x·s − p + j]`, one output at a time.
    static func reference(
        _ g: Conv2DGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
    ) {
        let k = g.window.kernel
        for o in 0..<g.outChannels {
            for y in 0..<g.outHeight {
                for x in 0..<g.outWidth {
                    var sum = bias[o]
                    for c in 0..<g.channels {
                        for i in 0..<k {
                            let sy = y * g.window.stride - g.window.padding + i
                            guard sy >= 0, sy < g.height else { continue }
                            for j in 0..<k {
                                let sx = x * g.window.stride - g.window.padding + j
                                guard sx >= 0, sx < g.width else { continue }
                                sum += weight[((o * g.channels + c) * k + i) * k + j] * input[(c * g.height + sy) * g.width + sx]
                            }
                        }
                    }
                    output[(o * g.outHeight + y) * g.outWidth + x] = sum
                }
            }
        }
    }

    /// `out[O, H'·W'] = w[O, C·k·k] · im2col(in)[C·k·k, H'·W']`, without bias. `scratch` holds
    /// `g.scratchCount` floats.
    static func gemm(
        _ g: Conv2DGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let columns = g.outHeight * g.outWidth
        let matrix: UnsafePointer<Float>
        if g.isPointwise {
            matrix = input
        } else {
            im2col(g, input: input, into: scratch)
            matrix = UnsafePointer(scratch)
        }
        BLAS.gemm(
            m: g.outChannels, n: columns, k: g.patchSize, a: weight, lda: g.patchSize,
            b: matrix, ldb: columns, c: output, ldc: columns)
    }

    /// Row `(c·k + i)·k + j` of the result holds `in[c, y·s − p + i, x·s − p + j]` for every output `(y, x)`.
    static func im2col(_ g: Conv2DGeometry, input: UnsafePointer<Float>, into matrix: UnsafeMutablePointer<Float>) {
        let (k, s, p) = (g.window.kernel, g.window.stride, g.window.padding)
        let (outH, outW) = (g.outHeight, g.outWidth)
        var row = matrix
        for c in 0..<g.channels {
            let plane = input + c * g.height * g.width
            for i in 0..<k {
                let ys = g.window.validOutputs(tap: i, size: g.height, outputs: outH)
                for j in 0..<k {
                    let xs = g.window.validOutputs(tap: j, size: g.width, outputs: outW)
                    if ys.count < outH || xs.count < outW { row.update(repeating: 0, count: outW * outH) }
                    for y in ys {
                        let src = plane + (y * s - p + i) * g.width - p + j
                        let dst = row + y * outW
                        if s == 1 {
                            (dst + xs.lowerBound).update(from: src + xs.lowerBound, count: xs.count)
                        } else {
                            for x in xs { dst[x] = src[x * s] }
                        }
                    }
                    row += outH * outW
                }
            }
        }
    }
}
