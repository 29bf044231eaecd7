// One instruction set's sgemv of a transposed matrix, included by kernels_<variant>.c after vector.h.
//
// `sk_sgemv_columns`: y[j] = Σ_r x[r]·a[r][j], a chunk of y (16 vectors) held in registers while
// every row of `a` is added into it (the LSTM's recurrent product: 64 rows of 256 gates).
// `sk_sgemv_nonzero_columns`: the same over the rows whose x[r] is not zero (a dense layer after a
// ReLU: two thirds of its inputs are zero, and their weight rows are never read).

#define SK_CHUNK_VECTORS 16
#define SK_CHUNK (SK_LANES * SK_CHUNK_VECTORS)
/// Rows of `x` listed at a time by `sk_sgemv_nonzero_columns` (the list: 8 KB, in L1).
#define SK_LISTED_ROWS 1024

/// `y[j] = Σ_q x[r_q]·a[r_q][j] + beta·y[j]` for the `count` rows `r_q = rows[q]`, or `r_q = q`
/// when `rows` is NULL.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(add_rows)(long m, long count, const long *rows,
                                                                               const float *a, long lda, const float *x,
                                                                               float *y, float beta) {
    long j = 0;
    for (; j + SK_CHUNK <= m; j += SK_CHUNK) {
        SK_VECTOR sum[SK_CHUNK_VECTORS];
        for (int v = 0; v < SK_CHUNK_VECTORS; v++) sum[v] = beta == 0 ? (SK_VECTOR){0} : SK_NAME(load)(y + j + v * SK_LANES) * beta;
        for (long q = 0; q < count; q++) {
            const long r = rows ? rows[q] : q;
            const float *row = a + r * lda + j;
            for (int v = 0; v < SK_CHUNK_VECTORS; v++) sum[v] += SK_NAME(load)(row + v * SK_LANES) * x[r];
        }
        for (int v = 0; v < SK_CHUNK_VECTORS; v++) SK_NAME(store)(y + j + v * SK_LANES, sum[v]);
    }
    // The last, partial chunk: a vector at a time, the last one partial.
    for (; j < m; j += SK_LANES) {
        const long lanes = m - j < SK_LANES ? m - j : SK_LANES;
        SK_VECTOR sum = beta == 0 ? (SK_VECTOR){0} : SK_NAME(load_part)(y + j, lanes) * beta;
        for (long q = 0; q < count; q++) {
            const long r = rows ? rows[q] : q;
            sum += SK_NAME(load_part)(a + r * lda + j, lanes) * x[r];
        }
        SK_NAME(store_part)(y + j, sum, lanes);
    }
}

SK_TARGET void SK_NAME(sk_sgemv_columns)(long m, long n, const float *a, long lda, const float *x, float *y, float beta) {
    SK_NAME(add_rows)(m, n, NULL, a, lda, x, y, beta);
}

SK_TARGET void SK_NAME(sk_sgemv_nonzero_columns)(long m, long n, const float *a, long lda, const float *x, float *y) {
    long rows[SK_LISTED_ROWS];
    long start = 0;
    do {
        const long end = n - start < SK_LISTED_ROWS ? n : start + SK_LISTED_ROWS;
        long count = 0;
        for (long r = start; r < end; r++) {
            rows[count] = r;
            count += x[r] != 0;
        }
        SK_NAME(add_rows)(m, count, rows, a, lda, x, y, start == 0 ? 0 : 1);
        start = end;
    } while (start < n);
}

#undef SK_CHUNK_VECTORS
#undef SK_CHUNK
#undef SK_LISTED_ROWS
