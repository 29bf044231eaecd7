import CKernels

/// Row-major single-precision products by the runtime's own kernels (`CKernels`: the variant for
/// this CPU, ``KernelVariant``), one thread per call.
///
/// They replaced OpenBLAS's because OpenBLAS's speed on this runtime's small products depended on
/// the kernel set it picked for the CPU, and on `OPENBLAS_CORETYPE` (issue 39: on one machine 2.2×
/// slower than ONNX Runtime with one setting, on another 2.9× slower with the other).
enum BLAS {
    /// `c[m×n] = a[m×k]·b[k×n] + beta·c`, with `a` stored as its `k×m` transpose when asked.
    static func gemm(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int, transposeA: Bool = false,
        b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float = 0
    ) {
        sk_sgemm(m, n, k, a, lda, transposeA, b, ldb, c, ldc, beta)
    }

    /// `y[m] = a[m×n]·x[n] + beta·y` with `a` stored as its `n×m` transpose.
    static func gemv(
        m: Int, n: Int, transposedA a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>,
        beta: Float = 0
    ) {
        sk_sgemv_columns(m, n, a, lda, x, y, beta)
    }

    /// `y[m] = a[m×n]·x[n]` with `a` stored as its `n×m` transpose, summed over the `x[p]` that are
    /// not zero: the rows of `a` for the others are never read.
    static func gemvOfNonzeroInputs(
        m: Int, n: Int, transposedA a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>
    ) {
        sk_sgemv_nonzero_columns(m, n, a, lda, x, y)
    }
}
