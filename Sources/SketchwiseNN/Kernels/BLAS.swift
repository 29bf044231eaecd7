import COpenBLAS

/// Row-major single-precision BLAS calls (OpenBLAS), with as many threads as the app chose
/// (``BLASThreads``).
enum BLAS {
    /// OpenBLAS (0.3.16+, AVX-512 kernels) multiplies products of at most this many `m·n·k` with
    /// its small-matrix kernels, which read the operands in place instead of packing them first;
    /// only for `b` not transposed (its "NN" case; "TN" is refused for most of our shapes).
    static let smallProduct = 1_000_000

    /// `c[m×n] = a[m×k]·b[k×n] + beta·c`, with `a` (`k×m`) or `b` (`n×k`) stored transposed when asked.
    ///
    /// Without transpose, a product a little too large for OpenBLAS's small-matrix kernels is cut
    /// into blocks of rows (multiples of 8) that each fit: on this project's shapes (conv2d
    /// 48×196×288, LSTM projections T×512×128, conv1d T×96×192, ...) that measured 10–25 %
    /// faster than one packed call, and lay-outs that avoid the transpose 5–50 % faster.
    static func gemm(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int, transposeA: Bool = false,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool = false,
        c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float = 0
    ) {
        let rowProduct = n * k
        if !transposeA, !transposeB, m * rowProduct > smallProduct, rowProduct <= smallProduct / 8, m * rowProduct <= 64 * smallProduct {
            let block = smallProduct / rowProduct / 8 * 8
            var row = 0
            while row < m {
                let rows = min(block, m - row)
                call(m: rows, n: n, k: k, a: a + row * lda, lda: lda, transposeA: false, b: b, ldb: ldb, transposeB: false,
                     c: c + row * ldc, ldc: ldc, beta: beta)
                row += rows
            }
            return
        }
        call(m: m, n: n, k: k, a: a, lda: lda, transposeA: transposeA, b: b, ldb: ldb, transposeB: transposeB, c: c, ldc: ldc, beta: beta)
    }

    @inline(__always)
    private static func call(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, transposeA: Bool, b: UnsafePointer<Float>, ldb: Int,
        transposeB: Bool, c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float
    ) {
        cblas_sgemm(
            CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
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
