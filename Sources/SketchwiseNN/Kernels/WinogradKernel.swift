import CKernels

/// 3×3, stride-1 conv2d as Winograd F(2×2, 3×3): each 2×2 block of outputs ("tile") comes from a
/// 4×4 input patch with 16 products per input channel instead of 36, so the sgemms do 2.25× fewer
/// multiply-adds (on the raster CNN's 32→48 and 48→64 layers: 23 + 14 µs of sgemm instead of
/// 47 + 26 µs). With `V = Bᵀ·d·B` (input patch), `U = G·g·Gᵀ` (filter, at load) and
/// `Y = Aᵀ·(Σ_c U ⊙ V)·A`, the 16 element positions ξ are 16 independent sgemms
/// `M_ξ[tiles × O] = V_ξ[C × tiles]ᵀ · U_ξ[C × O]` (tiles as rows measured up to 20 % faster than
/// `U·V` when C is small). The transforms only add and subtract (and halve, in G), so the result
/// stays within a few float roundings of the direct sum.
///
/// A 2×2, stride-2 max pooling after the convolution is fused: its windows are exactly the tiles,
/// and only the tiles it keeps are computed (the raster CNN's 7×7 → 3×3 layer: 9 tiles, not 16).
struct WinogradGeometry: Sendable {
    let channels, height, width, outChannels, padding: Int
    /// Whether a fused pooling follows: an odd last output row or column is then never computed.
    let pooled: Bool

    init(_ g: Conv2DGeometry, pooled: Bool) {
        (channels, height, width, outChannels, padding) = (g.channels, g.height, g.width, g.outChannels, g.rows.padding)
        self.pooled = pooled
    }

    var outHeight: Int { height + 2 * padding - 2 }
    var outWidth: Int { width + 2 * padding - 2 }
    var tilesY: Int { pooled ? outHeight / 2 : (outHeight + 1) / 2 }
    var tilesX: Int { pooled ? outWidth / 2 : (outWidth + 1) / 2 }
    var tiles: Int { tilesY * tilesX }
    /// Row length of the transformed inputs: 4-tile groups may spill 3 lanes past the end.
    var tileStride: Int { tiles + 4 }
    /// The zero-padded input planes cover every tile's 4×4 patch (and no more: the last input row
    /// or column may be left out).
    var paddedHeight: Int { 2 * tilesY + 2 }
    var paddedWidth: Int { 2 * tilesX + 2 }
    var paddedCount: Int { channels * paddedHeight * paddedWidth + 8 }
    var transformedCount: Int { 16 * channels * tileStride }
    /// The products: one row of `outChannels` per tile (the C output transform loads partial vectors).
    var productCount: Int { 16 * tiles * outChannels }
    var scratchCount: Int { paddedCount + transformedCount + productCount }
}

enum WinogradKernel {
    /// Whether `g` is a convolution the Winograd path computes (3×3, stride 1, the same padding on
    /// every side) and is worth it for (with fewer than 4 input channels the sgemms are too thin).
    static func applies(to g: Conv2DGeometry) -> Bool {
        g.kernel == 3 && g.stride == 1 && g.rows == g.columns && g.rows.padding == g.rows.paddingEnd
            && g.channels >= 4 && g.outHeight >= 2 && g.outWidth >= 2
    }

    /// `U_ξ = (G·g·Gᵀ)_ξ` for every input and output channel: `[16, C, O]` from PyTorch's `[O, C, 3, 3]`.
    static func transformFilters(_ weight: [Float], outChannels: Int, channels: Int) -> [Float] {
        var result = [Float](repeating: 0, count: 16 * outChannels * channels)
        for o in 0..<outChannels {
            for c in 0..<channels {
                let w = (0..<9).map { Double(weight[(o * channels + c) * 9 + $0]) }
                // G·g: 4×3, then (G·g)·Gᵀ: 4×4.
                var gg = [Double](repeating: 0, count: 12)
                for j in 0..<3 {
                    let (a, b, d) = (w[j], w[3 + j], w[6 + j])
                    (gg[j], gg[3 + j], gg[6 + j], gg[9 + j]) = (a, (a + b + d) / 2, (a - b + d) / 2, d)
                }
                for i in 0..<4 {
                    let (a, b, d) = (gg[3 * i], gg[3 * i + 1], gg[3 * i + 2])
                    let row = [a, (a + b + d) / 2, (a - b + d) / 2, d]
                    for j in 0..<4 { result[((4 * i + j) * channels + c) * outChannels + o] = Float(row[j]) }
                }
            }
        }
        return result
    }

    /// The convolution without bias into `output` (`[O, outH, outW]`), or, with `pool`, max-pooled
    /// 2×2/2 with `bias` and `activation` applied (`[O, outH/2, outW/2]`); without `pool` the bias and
    /// activation are applied too. `scratch` holds `WinogradGeometry(g, pooled: pool).scratchCount` floats.
    static func forward(
        _ g: Conv2DGeometry, input: UnsafePointer<Float>, filters: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        activation: Activation, pool: Bool, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let w = WinogradGeometry(g, pooled: pool)
        let padded = scratch
        let transformed = padded + w.paddedCount
        let products = transformed + w.transformedCount
        pad(w, input: input, into: padded)
        transformInput(w, padded: padded, into: transformed)
        for xi in 0..<16 {
            BLAS.gemm(
                m: w.tiles, n: w.outChannels, k: w.channels,
                a: transformed + xi * w.channels * w.tileStride, lda: w.tileStride, transposeA: true,
                b: filters + xi * w.channels * w.outChannels, ldb: w.outChannels,
                c: products + xi * w.tiles * w.outChannels, ldc: w.outChannels)
        }
        // The output transform, bias, activation and pooling: `CKernels`, a vector of channels at a time.
        let (outHeight, outWidth) = pool ? (w.tilesY, w.tilesX) : (w.outHeight, w.outWidth)
        sk_winograd_output(
            w.tilesY, w.tilesX, outHeight, outWidth, w.outChannels, w.outChannels, products, bias, activation.kernelValue, pool,
            output)
    }

    /// The input planes with `padding` zeros around them (and more at the bottom and right, up to
    /// the last tile's patch), cut to the tiles' patches. (One memset of everything measured faster
    /// than zeroing the borders.)
    private static func pad(_ w: WinogradGeometry, input: UnsafePointer<Float>, into padded: UnsafeMutablePointer<Float>) {
        padded.update(repeating: 0, count: w.paddedCount)
        let (pw, p) = (w.paddedWidth, w.padding)
        let (rows, columns) = (min(w.height, w.paddedHeight - p), min(w.width, pw - p))
        for c in 0..<w.channels {
            for y in 0..<rows {
                let source = input + (c &* w.height &+ y) &* w.width
                Rows.copy(source, to: padded + ((c &* w.paddedHeight &+ y &+ p) &* pw &+ p), count: columns)
            }
        }
    }

    /// `V_ξ[c, tile] = (Bᵀ·d·B)_ξ` for every input channel and tile, 4 tiles of a tile row at a time
    /// (the 4×4 patches of neighbouring tiles overlap by 2 columns: even and odd lanes of 8 floats).
    private static func transformInput(_ w: WinogradGeometry, padded: UnsafePointer<Float>, into v: UnsafeMutablePointer<Float>) {
        typealias V4 = SIMD4<Float>
        let (pw, stride) = (w.paddedWidth, w.tileStride)
        let planeStride = w.channels &* stride
        for c in 0..<w.channels {
            let plane = padded + c &* w.paddedHeight &* pw
            for ty in 0..<w.tilesY {
                var tx = 0
                while tx < w.tilesX {
                    // Row r of the patches: columns 0…3 of 4 tiles, lanes = tiles.
                    @inline(__always) func row(_ r: Int) -> (V4, V4, V4, V4) {
                        let line = plane + ((2 &* ty &+ r) &* pw &+ 2 &* tx)
                        let (a, b) = (Rows.load8(line), Rows.load8(line + 2))
                        return (a.evenHalf, a.oddHalf, b.evenHalf, b.oddHalf)
                    }
                    let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3))
                    // Bᵀ·d: rows d0 − d2, d1 + d2, d2 − d1, d1 − d3 (per column).
                    let t0 = (r0.0 - r2.0, r0.1 - r2.1, r0.2 - r2.2, r0.3 - r2.3)
                    let t1 = (r1.0 + r2.0, r1.1 + r2.1, r1.2 + r2.2, r1.3 + r2.3)
                    let t2 = (r2.0 - r1.0, r2.1 - r1.1, r2.2 - r1.2, r2.3 - r1.3)
                    let t3 = (r1.0 - r3.0, r1.1 - r3.1, r1.2 - r3.2, r1.3 - r3.3)
                    let base = v + (c &* stride &+ ty &* w.tilesX &+ tx)
                    // (·)·B: the same on the columns; ξ = 4·row + column.
                    @inline(__always) func store(_ t: (V4, V4, V4, V4), _ i: Int) {
                        let out = base + (4 &* i) &* planeStride
                        store4(t.0 - t.2, out)
                        store4(t.1 + t.2, out + planeStride)
                        store4(t.2 - t.1, out + 2 &* planeStride)
                        store4(t.1 - t.3, out + 3 &* planeStride)
                    }
                    store(t0, 0)
                    store(t1, 1)
                    store(t2, 2)
                    store(t3, 3)
                    tx &+= 4
                }
            }
        }
    }

    @inline(__always)
    private static func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }
}
