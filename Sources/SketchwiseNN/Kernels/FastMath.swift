/// Vectorised exp for the LSTM gates (`LSTMKernel.updateCell` builds σ and tanh from it).
/// Relative error < 5e-7, far below the 1e-4 parity budget. 16 lanes (four SSE registers per
/// value: the baseline x86-64 build has no AVX) measured faster than 4 or 8.
enum FastMath {
    typealias Vector = SIMD16<Float>
    /// `Vector`'s bits.
    typealias Bits = SIMD16<UInt32>

    /// e^x for x clamped to [-80, 80] (results stay normal: no slow denormals), as 2^n · p(r) with
    /// x = n·ln2 + r, |r| ≤ ln2/2, p the degree-5 minimax polynomial of e^r there (relative error
    /// 1.6e-7 in float arithmetic).
    @inline(__always)
    static func exp(_ x: Vector) -> Vector {
        // (These `replacing` forms become single maxps/minps; `pointwiseMin` and `clamped` do not.)
        let low = x.replacing(with: -80, where: x .< -80)
        let x = low.replacing(with: 80, where: low .> 80)
        // Adding 1.5·2²³ + 127 rounds x·log2(e) to the integer n and leaves n + 127 in the low mantissa bits.
        let shifter: Float = 12_582_912 + 127
        let t = x * 1.442_695_04 + shifter
        let n = t - shifter
        let r = x - n * 0.693_359_375 + n * 2.121_944_4e-4
        var p = r * 0.008_290_32 + 0.041_897_93
        p = p * r + 0.166_676_36
        p = p * r + 0.499_991_5
        p = p * r + 0.999_999_7
        p = p * r + 1
        let twoToN = unsafeBitCast(unsafeBitCast(t, to: Bits.self) &<< 23, to: Vector.self)
        return p * twoToN
    }

    /// e^(−x) for x clamped to [−`limit`, 80], or with `double` e^(−2x) for x clamped to
    /// [−`limit`/2, 40]: `exp(-x)` with the negation folded into the constants (no negation
    /// instructions in the LSTM gates).
    @inline(__always)
    static func expNegative(_ x: Vector, double: Bool = false, upTo limit: Float) -> Vector {
        let scale: Float = double ? 2 : 1
        let low = x.replacing(with: -limit / scale, where: x .< -limit / scale)
        let x = low.replacing(with: 80 / scale, where: low .> 80 / scale)
        let shifter: Float = 12_582_912 + 127
        let t = x * (-1.442_695_04 * scale) + shifter
        let n = t - shifter
        // q = −r, where −scale·x = n·ln2 + r (ln2 in two parts: n times the first is exact).
        let q = (double ? x + x : x) + n * 0.693_359_375 - n * 2.121_944_4e-4
        var p = q * -0.008_290_32 + 0.041_897_93
        p = p * q - 0.166_676_36
        p = p * q + 0.499_991_5
        p = p * q - 0.999_999_7
        p = p * q + 1
        let twoToN = unsafeBitCast(unsafeBitCast(t, to: Bits.self) &<< 23, to: Vector.self)
        return p * twoToN
    }

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
