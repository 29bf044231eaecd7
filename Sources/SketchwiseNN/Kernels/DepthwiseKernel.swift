import CKernels

/// The geometry of one depthwise_conv2d: `[channels, height, width]` → `[channels, outHeight,
/// outWidth]`, one `k×k` filter per channel.
struct DepthwiseGeometry: Sendable {
    let channels, height, width: Int
    /// The vertical and horizontal windows (the same kernel and stride).
    let rows, columns: Window

    var kernel: Int { rows.kernel }
    var stride: Int { rows.stride }
    var outHeight: Int { rows.outputSize(height) }
    var outWidth: Int { columns.outputSize(width) }
    /// Rows of the zero-padded plane that some output reads.
    var paddedHeight: Int { (outHeight - 1) * stride + kernel }
    /// Columns of each of the `stride` phase planes: phase `r` holds the padded plane's columns
    /// `r, r + stride, r + 2·stride, …`, so that every tap reads a contiguous run.
    var phaseWidth: Int { outWidth + (kernel - 1) / stride }
    var phaseCount: Int { paddedHeight * phaseWidth }
    /// Floats of scratch: the phase planes of one channel.
    var scratchCount: Int { stride * phaseCount }
}

/// depthwise_conv2d: plain loops (reference) and the fast kernel.
enum DepthwiseKernel {
    /// `out[c, y, x] = bias[c] + Σ w[c, i, j] · in[c, y·s − top + i, x·s − left + j]`, one output at a time.
    static func reference(
        _ g: DepthwiseGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
    ) {
        let k = g.kernel
        for c in 0..<g.channels {
            for y in 0..<g.outHeight {
                for x in 0..<g.outWidth {
                    var sum = bias[c]
                    for i in 0..<k {
                        let sy = y * g.stride - g.rows.padding + i
                        guard sy >= 0, sy < g.height else { continue }
                        for j in 0..<k {
                            let sx = x * g.stride - g.columns.padding + j
                            guard sx >= 0, sx < g.width else { continue }
                            sum += weight[(c * k + i) * k + j] * input[(c * g.height + sy) * g.width + sx]
                        }
                    }
                    output[(c * g.outHeight + y) * g.outWidth + x] = sum
                }
            }
        }
    }

    /// `act(reference)`, channel by channel: the channel's input is spread over zero-padded phase
    /// planes in `scratch` (`g.scratchCount` floats), then `CKernels` computes a vector of a row's
    /// outputs at a time, all `k²` taps in registers, each tap a contiguous load (a row's last
    /// outputs again as a whole vector overlapping the one before, or a partial one).
    static func forward(
        _ g: DepthwiseGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        activation: Activation, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        // The padding stays zero: only the cells the input covers are written below.
        scratch.update(repeating: 0, count: g.scratchCount)
        let (k, outH, outW) = (g.kernel, g.outHeight, g.outWidth)
        for c in 0..<g.channels {
            spread(input + c &* g.height &* g.width, g, into: scratch)
            sk_depthwise_channel(
                scratch, g.phaseWidth, g.phaseCount, g.stride, k, outH, outW, weight + c &* k &* k, bias[c], activation.kernelValue,
                output + c &* outH &* outW)
        }
    }

    /// Writes one channel's plane into the phase planes, shifted by the padding (rows and columns
    /// that no output reads are left out): phase `r`, column `m` gets input column `r + s·m − left`.
    @inline(__always)
    private static func spread(_ plane: UnsafePointer<Float>, _ g: DepthwiseGeometry, into phases: UnsafeMutablePointer<Float>) {
        let (s, left, phaseWidth, width) = (g.stride, g.columns.padding, g.phaseWidth, g.width)
        for y in 0..<min(g.height, g.paddedHeight &- g.rows.padding) {
            let source = plane + y &* width
            let row = phases + (y &+ g.rows.padding) &* phaseWidth
            if s == 1 {
                Rows.copy(source, to: row + left, count: min(width, phaseWidth &- left))
                continue
            }
            for r in 0..<s {
                // The phase columns whose input column lies in 0..<width.
                let first = max(0, (left &- r &+ s &- 1) / s)
                let end = min(phaseWidth, (width &+ left &- r &+ s &- 1) / s)
                guard first < end else { continue }
                let (destination, start) = (row + r &* g.phaseCount, source + (r &- left))
                for m in first..<end { destination[m] = start[s &* m] }
            }
        }
    }
}
