import COpenBLAS

/// Row-major single-precision BLAS calls (OpenBLAS), always single-threaded: throughput comes
/// from parallel sessions, not from threads inside one inference.
enum BLAS {
    /// Evaluated once, before the first call (`Model` touches it at load).
    static let singleThreaded: Void = openblas_set_num_threads(1)

    /// `c[m×n] = a[m×k]·b[k×n] + beta·c`, with `b` stored transposed (`n×k`) when asked.
    static func gemm(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool = false,
        c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float = 0
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
            blasint(m), blasint(n), blasint(k), 1, a, blasint(lda), b, blasint(ldb), beta, c, blasint(ldc))
    }

    /// `y[m] = a[m×n]·x[n] + beta·y`; with `transposeA`, `a` is stored as its `n×m` transpose.
    static func gemv(
        m: Int, n: Int, a: UnsafePointer<Float>, lda: Int, transposeA: Bool = false,
        x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, beta: Float = 0
    ) {
        if transposeA {
            cblas_sgemv(CblasRowMajor, CblasTrans, blasint(n), blasint(m), 1, a, blasint(lda), x, 1, beta, y, 1)
        } else {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, blasint(m), blasint(n), 1, a, blasint(lda), x, 1, beta, y, 1)
        }
    }
}
