/// The geometry of one conv2d: `[channels, height, width]` → `[outChannels, outHeight, outWidth]`,
/// weights `[outChannels, channels, k, k]`; `rows` and `columns` (same kernel and stride) differ
/// only in their padding.
struct Conv2DGeometry: Sendable {
    let channels, height, width, outChannels: Int
    let rows, columns: Window

    init(channels: Int, height: Int, width: Int, outChannels: Int, rows: Window, columns: Window) {
        (self.channels, self.height, self.width, self.outChannels) = (channels, height, width, outChannels)
        (self.rows, self.columns) = (rows, columns)
    }

    /// The same window on both axes.
    init(channels: Int, height: Int, width: Int, outChannels: Int, window: Window) {
        self.init(channels: channels, height: height, width: width, outChannels: outChannels, rows: window, columns: window)
    }

    var kernel: Int { rows.kernel }
    var stride: Int { rows.stride }
    var outHeight: Int { rows.outputSize(height) }
    var outWidth: Int { columns.outputSize(width) }
    /// Length of one im2col column: `channels·k·k`.
    var patchSize: Int { channels * kernel * kernel }
    /// A 1×1, stride-1, unpadded convolution reads its input as the im2col matrix directly.
    var isPointwise: Bool { rows == Window(kernel: 1, stride: 1, padding: 0) && columns == rows }
    /// Stride-1 convolutions copy im2col rows from a zero-padded copy of the input.
    var padsInput: Bool { stride == 1 && (paddedHeight > height || paddedWidth > width) }
    var paddedHeight: Int { height + rows.padding + rows.paddingEnd }
    var paddedWidth: Int { width + columns.padding + columns.paddingEnd }
    /// Floats of scratch: the im2col matrix, then the padded input.
    var scratchCount: Int {
        isPointwise ? 0 : patchSize * outHeight * outWidth + (padsInput ? channels * paddedHeight * paddedWidth : 0)
    }
}

/// conv2d: plain loops (reference) and im2col + sgemm (fast).
enum Conv2DKernel {
    /// `out[o, y, x] = bias[o] + Σ w[o, c, i, j] · in[c, y·s − top + i, x·s − left + j]`, one output at a time.
    static func reference(
        _ g: Conv2DGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
    ) {
        let k = g.kernel
        for o in 0..<g.outChannels {
            for y in 0..<g.outHeight {
                for x in 0..<g.outWidth {
                    var sum = bias[o]
                    for c in 0..<g.channels {
                        for i in 0..<k {
                            let sy = y * g.stride - g.rows.padding + i
                            guard sy >= 0, sy < g.height else { continue }
                            for j in 0..<k {
                                let sx = x * g.stride - g.columns.padding + j
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

    /// Row `(c·k + i)·k + j` of the result holds `in[c, y·s − top + i, x·s − left + j]` for every output `(y, x)`.
    /// Stride-1 convolutions use the scratch after the matrix for a zero-padded copy of the input.
    static func im2col(_ g: Conv2DGeometry, input: UnsafePointer<Float>, into matrix: UnsafeMutablePointer<Float>) {
        if g.stride == 1 {
            return im2colUnitStride(g, input: input, into: matrix)
        }
        let (k, s, top, left) = (g.kernel, g.stride, g.rows.padding, g.columns.padding)
        let (outH, outW) = (g.outHeight, g.outWidth)
        var row = matrix
        for c in 0..<g.channels {
            let plane = input + c * g.height * g.width
            for i in 0..<k {
                let ys = g.rows.validOutputs(tap: i, size: g.height, outputs: outH)
                for j in 0..<k {
                    let xs = g.columns.validOutputs(tap: j, size: g.width, outputs: outW)
                    if ys.count < outH || xs.count < outW { row.update(repeating: 0, count: outW * outH) }
                    for y in ys {
                        let (src, dst) = (plane + (y * s - top + i) * g.width - left + j, row + y * outW)
                        for x in xs { dst[x] = src[x * s] }
                    }
                    row += outH * outW
                }
            }
        }
    }

    /// `im2col` for stride 1: the input is copied once into a zero-padded plane (unless unpadded),
    /// then every matrix row is `outHeight` straight copies of `outWidth` floats, without bounds
    /// checks (branchy per-row clipping and memmove calls per row cost more than the copying).
    private static func im2colUnitStride(_ g: Conv2DGeometry, input: UnsafePointer<Float>, into matrix: UnsafeMutablePointer<Float>) {
        let (k, top, left) = (g.kernel, g.rows.padding, g.columns.padding)
        let (outH, outW, width) = (g.outHeight, g.outWidth, g.paddedWidth)
        let planeSize = g.paddedHeight &* width
        let source: UnsafePointer<Float>
        if g.padsInput {
            // (One memset of everything measured faster than zeroing the borders.)
            let padded = matrix + (g.patchSize &* outH &* outW)
            padded.update(repeating: 0, count: g.channels &* planeSize)
            for c in 0..<g.channels {
                for y in 0..<g.height {
                    Rows.copy(
                        input + (c &* g.height &+ y) &* g.width, to: padded + (c &* planeSize &+ (y &+ top) &* width &+ left),
                        count: g.width)
                }
            }
            source = UnsafePointer(padded)
        } else {
            source = input
        }
        var row = matrix
        for c in 0..<g.channels {
            for i in 0..<k {
                for j in 0..<k {
                    let first = source + (c &* planeSize &+ i &* width &+ j)
                    for y in 0..<outH { Rows.copy(first + y &* width, to: row + y &* outW, count: outW) }
                    row += outH &* outW
                }
            }
        }
    }
}
