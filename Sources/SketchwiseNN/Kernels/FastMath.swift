/// Vectorised exp, sigmoid and tanh for the LSTM gates, 16 lanes (measured faster than 4 or 8).
/// Relative error of `exp` ≈ 2e-7; `sigmoid`/`tanh` absolute error < 1e-6, far below the 1e-4
/// parity budget.
enum FastMath {
    typealias Vector = SIMD16<Float>

    /// e^x for x clamped to [-80, 80] (results stay normal: no slow denormals), as 2^n · p(r) with
    /// x = n·ln2 + r, |r| ≤ ln2/2, p of degree 6.
    @inline(__always)
    static func exp(_ x: Vector) -> Vector {
        // (`replacing` inlines to min/max instructions; `pointwiseMin` and `clamped` become calls.)
        let x = x.replacing(with: -80, where: x .< -80).replacing(with: 80, where: x .> 80)
        // Adding 1.5·2²³ + 127 rounds x·log2(e) to the integer n and leaves n + 127 in the low mantissa bits.
        let shifter: Float = 12_582_912 + 127
        let t = x * 1.442_695_04 + shifter
        let n = t - shifter
        let r = x - n * 0.693_359_375 + n * 2.121_944_4e-4
        var p = r * (1 / 720) + 1 / 120
        p = p * r + 1 / 24
        p = p * r + 1 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        let twoToN = unsafeBitCast(unsafeBitCast(t, to: SIMD16<UInt32>.self) &<< 23, to: Vector.self)
        return p * twoToN
    }

    /// 1 / (1 + e^-x).
    @inline(__always)
    static func sigmoid(_ x: Vector) -> Vector { 1 / (1 + exp(-x)) }

    /// 2·sigmoid(2x) − 1.
    @inline(__always)
    static func tanh(_ x: Vector) -> Vector { 2 / (1 + exp(-2 * x)) - 1 }

    /// Loads `count` (≤ 16) floats, zeros in the other lanes.
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, count: Int) -> Vector {
        if count == Vector.scalarCount { return UnsafeRawPointer(p).loadUnaligned(as: Vector.self) }
        var v = Vector()
        for lane in 0..<count { v[lane] = p[lane] }
        return v
    }

    /// Stores the first `count` (≤ 16) lanes.
    @inline(__always)
    static func store(_ v: Vector, to p: UnsafeMutablePointer<Float>, count: Int) {
        if count == Vector.scalarCount { return UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self) }
        for lane in 0..<count { p[lane] = v[lane] }
    }
}
