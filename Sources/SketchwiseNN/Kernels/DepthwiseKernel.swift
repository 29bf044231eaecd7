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
    /// Floats of scratch: the phase planes of one channel, and 4 more that a row of fewer than 4
    /// outputs reads past its end (into lanes it does not store).
    var scratchCount: Int { stride * phaseCount + 4 }
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
    /// planes in `scratch` (`g.scratchCount` floats), then 8 or 4 outputs of a row at a time
    /// accumulate all `k²` taps in registers, each tap a contiguous load. A row's last 4 outputs
    /// are computed again, overlapping the ones before, instead of one by one; a row of fewer than
    /// 4 stores only its own lanes.
    static func forward(
        _ g: DepthwiseGeometry, input: UnsafePointer<Float>, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        activation: Activation, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        // The padding stays zero: only the cells the input covers are written below.
        scratch.update(repeating: 0, count: g.scratchCount)
        let (k, outH, outW, phaseWidth) = (g.kernel, g.outHeight, g.outWidth, g.phaseWidth)
        for c in 0..<g.channels {
            spread(input + c &* g.height &* g.width, g, into: scratch)
            let filter = weight + c &* k &* k
            let b = bias[c]
            let plane = output + c &* outH &* outW
            for y in 0..<outH {
                let out = plane + y &* outW
                let top = UnsafePointer(scratch + y &* g.stride &* phaseWidth)
                var x = 0
                while x &+ 8 <= outW {
                    let sum = accumulate(SIMD8(repeating: b), g, top: top + x, filter: filter)
                    UnsafeMutableRawPointer(out + x).storeBytes(of: activate8(sum, activation), as: SIMD8<Float>.self)
                    x &+= 8
                }
                while x < outW {
                    let first = min(x, max(outW &- 4, 0))
                    let sum = Epilogue.activate4(accumulate(SIMD4(repeating: b), g, top: top + first, filter: filter), activation)
                    if outW >= 4 {
                        UnsafeMutableRawPointer(out + first).storeBytes(of: sum, as: SIMD4<Float>.self)
                    } else {
                        for lane in 0..<outW { out[lane] = sum[lane] }
                    }
                    x = first &+ 4
                }
            }
        }
    }

    /// `sum + Σ w[i, j] · taps`, for the outputs whose first tap is at `top` in phase plane 0:
    /// tap `(i, j)` is in phase plane `j mod s`, row `i`, `j / s` columns on.
    @inline(__always)
    private static func accumulate<V: SIMD>(_ sum: V, _ g: DepthwiseGeometry, top: UnsafePointer<Float>, filter: UnsafePointer<Float>) -> V
    where V.Scalar == Float {
        var sum = sum
        let (k, s, phaseWidth, phaseCount) = (g.kernel, g.stride, g.phaseWidth, g.phaseCount)
        for i in 0..<k {
            var phase = top + i &* phaseWidth
            for r in 0..<min(s, k) {
                var (j, m) = (r, 0)
                while j < k {
                    sum += filter[i &* k &+ j] * UnsafeRawPointer(phase + m).loadUnaligned(as: V.self)
                    (j, m) = (j &+ s, m &+ 1)
                }
                phase += phaseCount
            }
        }
        return sum
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

    @inline(__always)
    private static func activate8(_ v: SIMD8<Float>, _ activation: Activation) -> SIMD8<Float> {
        SIMD8(lowHalf: Epilogue.activate4(v.lowHalf, activation), highHalf: Epilogue.activate4(v.highHalf, activation))
    }

}
