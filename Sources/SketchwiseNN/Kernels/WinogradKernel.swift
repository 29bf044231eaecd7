import CKernels

/// 3×3, stride-1 conv2d as Winograd F(m×m, 3×3), m = `tile` (2 or 4): each m×m block of outputs
/// (a "tile") comes from an (m + 2)×(m + 2) input patch with (m + 2)² products per input channel
/// instead of 9·m², so the sgemms do 2.25× (F(2×2)) or 4× (F(4×4)) fewer multiply-adds. With
/// `V = Bᵀ·d·B` (input patch), `U = G·g·Gᵀ` (filter, at load) and `Y = Aᵀ·(Σ_c U ⊙ V)·A`, the (m + 2)²
/// element positions ξ are independent sgemms `M_ξ[tiles × O] = V_ξ[C × tiles]ᵀ · U_ξ[C × O]` (tiles
/// as rows measured up to 20 % faster than `U·V` when C is small). F(2×2)'s transforms only add and
/// subtract; F(4×4)'s multiply by up to 8 (and G divides by up to 24), so its results stray further
/// from the direct sum: up to 4e-6 of the largest output against 4e-7 (`KernelVariantTests`).
///
/// A 2×2, stride-2 max pooling after the convolution is fused: its windows lie inside the tiles,
/// and only the tiles it reads are computed (the raster CNN's 7×7 → 3×3 layer: 9 tiles of F(2×2),
/// not 16).
struct WinogradGeometry: Sendable {
    let channels, height, width, outChannels, padding: Int
    /// Outputs a side per tile: 2 or 4.
    let tile: Int
    /// Whether a fused pooling follows: an odd last output row or column is then never computed.
    let pooled: Bool

    init(_ g: Conv2DGeometry, tile: Int, pooled: Bool) {
        (channels, height, width, outChannels, padding) = (g.channels, g.height, g.width, g.outChannels, g.rows.padding)
        (self.tile, self.pooled) = (tile, pooled)
    }

    var outHeight: Int { height + 2 * padding - 2 }
    var outWidth: Int { width + 2 * padding - 2 }
    /// The outputs computed: all, or with pooling the even number its windows read.
    var usedHeight: Int { pooled ? outHeight / 2 * 2 : outHeight }
    var usedWidth: Int { pooled ? outWidth / 2 * 2 : outWidth }
    var tilesY: Int { (usedHeight + tile - 1) / tile }
    var tilesX: Int { (usedWidth + tile - 1) / tile }
    var tiles: Int { tilesY * tilesX }
    /// Element positions ξ per tile: `(tile + 2)²`.
    var points: Int { (tile + 2) * (tile + 2) }
    /// Row length of the transformed inputs: 4-tile groups may spill 3 lanes past the end.
    var tileStride: Int { tiles + 4 }
    /// The zero-padded input planes cover every tile's patch (and no more: the last input rows
    /// or columns may be left out); F(4×4) reads up to 14 floats past a row, so 16 more follow.
    var paddedHeight: Int { tile * tilesY + 2 }
    var paddedWidth: Int { tile * tilesX + 2 }
    var paddedCount: Int { channels * paddedHeight * paddedWidth + 16 }
    /// F(4×4) first combines the rows of a tile row's patches: 6 rows of `rowsWidth` floats, whole
    /// groups of 4 tiles and the 4 columns that the last group's patches reach past them.
    var rowsWidth: Int { 4 * ((tilesX + 3) / 4 * 4) + 4 }
    var rowsCount: Int { tile == 4 ? 6 * rowsWidth : 0 }
    var transformedCount: Int { points * channels * tileStride }
    /// The products: one row of `outChannels` per tile (the C output transform loads partial
    /// vectors), a plane per ξ. The planes lie a cache line further apart than their size: the
    /// output transform reads a value from each, and at a power-of-two distance (16 tiles of 128
    /// channels: 8 KB) all 36 fall into one set of the L1 cache, which made it 2.7× slower.
    var productPlaneStride: Int { tiles * outChannels + 16 }
    var productCount: Int { points * productPlaneStride }
    var scratchCount: Int { paddedCount + rowsCount + transformedCount + productCount }
}

enum WinogradKernel {
    /// Whether `g` is a convolution the Winograd path computes (3×3, stride 1, the same padding on
    /// every side) and is worth it for (with fewer than 4 input channels the sgemms are too thin).
    static func applies(to g: Conv2DGeometry) -> Bool {
        g.kernel == 3 && g.stride == 1 && g.rows == g.columns && g.rows.padding == g.rows.paddingEnd
            && g.channels >= 4 && g.outHeight >= 2 && g.outWidth >= 2
    }

    /// The tile for `g`: F(4×4) where its sgemms do fewer multiply-adds than F(2×2)'s and still have
    /// 8 or more tiles as rows (fewer run far below the core's peak), else F(2×2). The raster CNNs'
    /// 14×14 layers take F(4×4) (16 tiles of 36 products against 49 of 16); their pooled 7×7 layers
    /// tie (4 × 36 against 9 × 16) and keep F(2×2), whose transforms cost less.
    static func tile(for g: Conv2DGeometry, pooled: Bool) -> Int {
        let (two, four) = (WinogradGeometry(g, tile: 2, pooled: pooled), WinogradGeometry(g, tile: 4, pooled: pooled))
        return four.tiles >= 8 && four.tiles * four.points < two.tiles * two.points ? 4 : 2
    }

    /// G, a row per patch position: F(2×2) interpolates at 0, ±1 and ∞, F(4×4) at 0, ±1, ±2 and ∞.
    private static let g2: [[Double]] = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
    private static let g4: [[Double]] = [
        [1.0 / 4, 0, 0], [-1.0 / 6, -1.0 / 6, -1.0 / 6], [-1.0 / 6, 1.0 / 6, -1.0 / 6], [1.0 / 24, 1.0 / 12, 1.0 / 6],
        [1.0 / 24, -1.0 / 12, 1.0 / 6], [0, 0, 1],
    ]

    /// `U_ξ = (G·g·Gᵀ)_ξ` for every input and output channel: `[(tile + 2)², C, O]` from PyTorch's
    /// `[O, C, 3, 3]`, computed in Double.
    static func transformFilters(_ weight: [Float], tile: Int, outChannels: Int, channels: Int) -> [Float] {
        let g = tile == 4 ? g4 : g2
        let side = tile + 2
        var result = [Float](repeating: 0, count: side * side * outChannels * channels)
        for o in 0..<outChannels {
            for c in 0..<channels {
                let w = (0..<9).map { Double(weight[(o * channels + c) * 9 + $0]) }
                // G·w: side×3, then (G·w)·Gᵀ: side×side.
                let gw: [[Double]] = g.map { row in (0..<3).map { j in row[0] * w[j] + row[1] * w[3 + j] + row[2] * w[6 + j] } }
                for i in 0..<side {
                    for j in 0..<side {
                        let value = gw[i][0] * g[j][0] + gw[i][1] * g[j][1] + gw[i][2] * g[j][2]
                        result[((side * i + j) * channels + c) * outChannels + o] = Float(value)
                    }
                }
            }
        }
        return result
    }

    /// The convolution without bias into `output` (`[O, outH, outW]`), or, with `pool`, max-pooled
    /// 2×2/2 with `bias` and `activation` applied (`[O, outH/2, outW/2]`); without `pool` the bias and
    /// activation are applied too. `filters` are `transformFilters` for `tile`; `scratch` holds
    /// `WinogradGeometry(g, tile: tile, pooled: pool).scratchCount` floats.
    static func forward(
        _ g: Conv2DGeometry, tile: Int, input: UnsafePointer<Float>, filters: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        activation: Activation, pool: Bool, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let w = WinogradGeometry(g, tile: tile, pooled: pool)
        let padded = scratch
        let rows = padded + w.paddedCount
        let transformed = rows + w.rowsCount
        let products = transformed + w.transformedCount
        pad(w, input: input, into: padded)
        if tile == 4 {
            transformInput4(w, padded: padded, rows: rows, into: transformed)
        } else {
            transformInput2(w, padded: padded, into: transformed)
        }
        for xi in 0..<w.points {
            BLAS.gemm(
                m: w.tiles, n: w.outChannels, k: w.channels,
                a: transformed + xi * w.channels * w.tileStride, lda: w.tileStride, transposeA: true,
                b: filters + xi * w.channels * w.outChannels, ldb: w.outChannels,
                c: products + xi * w.productPlaneStride, ldc: w.outChannels)
        }
        // The output transform, bias, activation and pooling: `CKernels`, a vector of channels at a time.
        let (outHeight, outWidth) = pool ? (w.outHeight / 2, w.outWidth / 2) : (w.outHeight, w.outWidth)
        sk_winograd_output(
            tile, w.tilesY, w.tilesX, outHeight, outWidth, w.outChannels, w.outChannels, w.productPlaneStride, products, bias,
            activation.kernelValue, pool, output)
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

    /// F(2×2): `V_ξ[c, tile] = (Bᵀ·d·B)_ξ` for every input channel and tile, 4 tiles of a tile row
    /// at a time (the 4×4 patches of neighbouring tiles overlap by 2 columns: even and odd lanes of 8
    /// floats).
    private static func transformInput2(_ w: WinogradGeometry, padded: UnsafePointer<Float>, into v: UnsafeMutablePointer<Float>) {
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

    /// F(4×4): `V_ξ[c, tile] = (Bᵀ·d·B)_ξ` for every input channel and tile. For each tile row, the
    /// 6 rows of its patches are combined first across the whole row (into `rows`), then the
    /// columns, 4 tiles at a time: neighbouring patches overlap by 2 columns, so column j of the 4
    /// tiles is every 4th float from j (lanes of 16 floats, halved twice).
    private static func transformInput4(
        _ w: WinogradGeometry, padded: UnsafePointer<Float>, rows: UnsafeMutablePointer<Float>, into v: UnsafeMutablePointer<Float>
    ) {
        let (pw, stride, width) = (w.paddedWidth, w.tileStride, w.rowsWidth)
        let planeStride = w.channels &* stride
        for c in 0..<w.channels {
            let plane = padded + c &* w.paddedHeight &* pw
            for ty in 0..<w.tilesY {
                let top = plane + 4 &* ty &* pw
                var x = 0
                while x < width {
                    @inline(__always) func d(_ k: Int) -> SIMD4<Float> { load4(top + (k &* pw &+ x)) }
                    store6(bTranspose4(d(0), d(1), d(2), d(3), d(4), d(5)), rows + x, stride: width)
                    x &+= 4
                }
                var tx = 0
                while tx < w.tilesX {
                    let base = v + (c &* stride &+ ty &* w.tilesX &+ tx)
                    for r in 0..<6 {
                        let row = rows + (r &* width &+ 4 &* tx)
                        let (a, b) = (load16(row), load16(row + 4))
                        let (even, odd) = (a.evenHalf, a.oddHalf)
                        let t = bTranspose4(
                            even.evenHalf, odd.evenHalf, even.oddHalf, odd.oddHalf, b.evenHalf.evenHalf, b.oddHalf.evenHalf)
                        store6(t, base + (6 &* r) &* planeStride, stride: planeStride)  // ξ = 6·row + column
                    }
                    tx &+= 4
                }
            }
        }
    }

    /// F(4×4)'s `Bᵀ·d` for 6 values d0…d5 (lane-wise): Bᵀ = [4 0 −5 0 1 0; 0 −4 −4 1 1 0;
    /// 0 4 −4 −1 1 0; 0 −2 −1 2 1 0; 0 2 −1 −2 1 0; 0 4 0 −5 0 1].
    @inline(__always)
    private static func bTranspose4(
        _ d0: SIMD4<Float>, _ d1: SIMD4<Float>, _ d2: SIMD4<Float>, _ d3: SIMD4<Float>, _ d4: SIMD4<Float>, _ d5: SIMD4<Float>
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        let (sum12, difference12) = (d1 + d2, d1 - d2)
        let (twiceDifference31, difference42) = (2 * (d3 - d1), d4 - d2)
        return (
            4 * d0 - 5 * d2 + d4,
            d3 + d4 - 4 * sum12,
            d4 - d3 + 4 * difference12,
            difference42 + twiceDifference31,
            difference42 - twiceDifference31,
            4 * d1 - 5 * d3 + d5
        )
    }

    /// Stores 6 vectors `stride` floats apart.
    @inline(__always)
    private static func store6(
        _ t: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), _ p: UnsafeMutablePointer<Float>,
        stride: Int
    ) {
        store4(t.0, p)
        store4(t.1, p + stride)
        store4(t.2, p + 2 &* stride)
        store4(t.3, p + 3 &* stride)
        store4(t.4, p + 4 &* stride)
        store4(t.5, p + 5 &* stride)
    }

    @inline(__always)
    private static func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) }

    @inline(__always)
    private static func load16(_ p: UnsafePointer<Float>) -> SIMD16<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }

    @inline(__always)
    private static func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }
}
