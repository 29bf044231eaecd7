import CKernels

/// What an int8 convolution (`QuantizedConv2D`) computes around `sk_gemm_uint8`: the input
/// quantized once and laid out as patch rows of bytes (one per computed output position, its
/// `k·k·C` inputs in `(i, j, c)` order), and the product's `[positions, O]` rows turned back into
/// `[O, H', W']` planes with the bias, the activation and a fused max pooling.
///
/// The patches come from a padded channels-last copy of the quantized input (the padding is the
/// zero point, the byte of 0), where the `k` taps of one kernel row are `k·C` consecutive bytes:
/// each patch row is `k` straight copies.
struct Int8Conv2DGeometry: Sendable {
    let convolution: Conv2DGeometry
    /// The fused max pooling's window (1×1, stride 1 without one).
    let pool: Window

    init(_ g: Conv2DGeometry, pool: Window?) {
        convolution = g
        self.pool = pool ?? Window(kernel: 1, stride: 1, padding: 0)
    }

    /// The output planes (pooled).
    var outHeight: Int { pool.outputSize(convolution.outHeight) }
    var outWidth: Int { pool.outputSize(convolution.outWidth) }
    /// The convolution's outputs the pooling reads (an odd last row or column may be left out).
    var computedHeight: Int { (outHeight - 1) * pool.stride + pool.kernel }
    var computedWidth: Int { (outWidth - 1) * pool.stride + pool.kernel }
    var positions: Int { computedHeight * computedWidth }
    /// The padded input rows and columns the computed outputs read.
    var paddedHeight: Int { (computedHeight - 1) * convolution.stride + convolution.kernel }
    var paddedWidth: Int { (computedWidth - 1) * convolution.stride + convolution.kernel }
    /// Bytes per patch row: `k·k·C` rounded up to 4 (`sk_gemm_uint8` reads groups of four).
    var patchStride: Int { (convolution.patchSize + 3) / 4 * 4 }

    /// Bytes of the quantized input, its padded channels-last copy, and the patches, which follow
    /// the other two.
    var inputBytes: Int { convolution.channels * convolution.height * convolution.width }
    var paddedBytes: Int { paddedHeight * paddedWidth * convolution.channels }
    var patchOffset: Int { inputBytes + paddedBytes }
    var byteCount: Int { patchOffset + positions * patchStride }
}

enum Int8Conv2DKernel {
    /// The quantized input's patches at `bytes + w.patchOffset` (`w.byteCount` bytes in all): row
    /// `y·computedWidth + x` holds `q(in[c, y·s − top + i, x·s − left + j])` at byte
    /// `(i·k + j)·C + c`, padding as the zero point. Returns their scale and zero point.
    static func patches(_ w: Int8Conv2DGeometry, input: UnsafePointer<Float>, bytes: UnsafeMutablePointer<UInt8>) -> (
        scale: Float, zeroPoint: Int32
    ) {
        let g = w.convolution
        let (c, k, s, pw) = (g.channels, g.kernel, g.stride, w.paddedWidth)
        let (top, left) = (g.rows.padding, g.columns.padding)
        let (quantized, padded) = (bytes, bytes + w.inputBytes)
        var zeroPoint: Int32 = 0
        let scale = sk_quantize_uint8(input, w.inputBytes, w.inputBytes, quantized, &zeroPoint)
        let zeroByte = UInt8(truncatingIfNeeded: zeroPoint)
        padded.update(repeating: zeroByte, count: w.paddedBytes)
        let rows = max(0, min(g.height, w.paddedHeight - top)), columns = max(0, min(g.width, pw - left))
        for channel in 0..<c {
            for y in 0..<rows {
                let source = quantized + (channel &* g.height &+ y) &* g.width
                let pixel = (y &+ top) &* pw &+ left
                let destination = padded + (pixel &* c &+ channel)
                for x in 0..<columns { destination[x &* c] = source[x] }
            }
        }
        let (run, stride) = (k &* c, w.patchStride)
        var row = bytes + w.patchOffset
        for y in 0..<w.computedHeight {
            for x in 0..<w.computedWidth {
                for i in 0..<k {
                    let pixel = (y &* s &+ i) &* pw &+ x &* s
                    (row + i &* run).update(from: padded + pixel &* c, count: run)
                }
                (row + g.patchSize).update(repeating: zeroByte, count: stride &- g.patchSize)
                row += stride
            }
        }
        return (scale, zeroPoint)
    }

    /// `out[o, y, x] = act(max over the pooling window at (y, x) of products[position, o] + bias[o])`
    /// for the `[positions, O]` products of `patches`' rows.
    static func epilogue(
        _ w: Int8Conv2DGeometry, products: UnsafePointer<Float>, bias: UnsafePointer<Float>, activation: Activation,
        output: UnsafeMutablePointer<Float>
    ) {
        typealias Lanes = SIMD8<Float>
        let o = w.convolution.outChannels
        let (k, s, width) = (w.pool.kernel, w.pool.stride, w.computedWidth)
        let plane = w.outHeight &* w.outWidth
        let vectorEnd = o - o % Lanes.scalarCount
        for y in 0..<w.outHeight {
            for x in 0..<w.outWidth {
                let first = products + ((y &* s) &* width &+ x &* s) &* o
                let out = output + (y &* w.outWidth &+ x)
                var channel = 0
                while channel < vectorEnd {
                    var m = Lanes(repeating: -.infinity)
                    for i in 0..<k {
                        for j in 0..<k {
                            let position = i &* width &+ j
                            let value = Rows.load8(first + (position &* o &+ channel))
                            m.replace(with: value, where: m .< value)
                        }
                    }
                    m = activation.apply(m + Rows.load8(bias + channel))
                    for lane in 0..<Lanes.scalarCount { out[(channel &+ lane) &* plane] = m[lane] }
                    channel &+= Lanes.scalarCount
                }
                for channel in vectorEnd..<o {
                    var m = -Float.infinity
                    for i in 0..<k {
                        for j in 0..<k { m = max(m, first[(i &* width &+ j) &* o &+ channel]) }
                    }
                    out[channel &* plane] = activation.apply(m + bias[channel])
                }
            }
        }
    }
}
