// One instruction set's sgemm, included by kernels_<variant>.c after vector.h, with:
//   SK_GEMM_ROWS     rows of C computed per tile
//   SK_GEMM_VECTORS  vectors per tile row (a tile is SK_GEMM_ROWS × SK_LANES·SK_GEMM_VECTORS)
//
// Blocked like BLIS, smaller: per block of `SK_DEPTH_BLOCK` steps of the inner dimension and
// `SK_COLUMN_BLOCK` columns of `b` (512 KB, kept in L2), each tile of SK_ROWS rows of `a` is
// packed (row-interleaved, so a step of the micro-kernel reads one contiguous group; a transposed
// `a` already is, and is read in place where a tile computes exactly its rows), then
// multiplied with every column panel of the block, read in place (a last panel that ends in a
// partial vector is copied into a zero-padded one of whole vectors once per depth block). A tile's
// sums stay in registers through the block.

#include "kernels.h"

#define SK_ROWS SK_GEMM_ROWS
#define SK_VECTORS SK_GEMM_VECTORS
#define SK_COLUMNS (SK_LANES * SK_VECTORS)
/// Whole panels per column block.
#define SK_BLOCK_COLUMNS (SK_COLUMN_BLOCK / SK_COLUMNS * SK_COLUMNS)

_Static_assert(SK_ROWS <= SK_MAX_ROWS && SK_COLUMNS <= SK_MAX_COLUMNS, "the scratch buffers are too small");

/// `c[rows × columns] = Σ_p a[p·a_step + r] · b[p][j] (+ beta·c)` for one tile of `tile_rows` rows
/// and `vectors` vectors per row (both constants: the body is inlined into one function per
/// shape), over `depth` steps; `rows` ≤ `tile_rows` and `columns` ≤ `vectors`·SK_LANES are stored.
/// `a` is the packed tile (`a_step` SK_ROWS) or a transposed `a` read in place (`a_step` lda).
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(tile_of)(int tile_rows, int vectors, long depth,
                                                                              const float *tile_a, long a_step,
                                                                              const float *b, long ldb, float *c,
                                                                              long ldc, float beta, int rows,
                                                                              int columns) {
    SK_VECTOR sum[SK_ROWS][SK_VECTORS];
    for (int r = 0; r < tile_rows; r++)
        for (int v = 0; v < vectors; v++) sum[r][v] = (SK_VECTOR){0};
    for (long p = 0; p < depth; p++) {
        SK_VECTOR row[SK_VECTORS];
        for (int v = 0; v < vectors; v++) row[v] = SK_NAME(load)(b + p * ldb + v * SK_LANES);
        const float *a = tile_a + p * a_step;
        for (int r = 0; r < tile_rows; r++)
            for (int v = 0; v < vectors; v++) sum[r][v] += row[v] * a[r];
    }
    if (rows == tile_rows && columns == vectors * SK_LANES) {
        for (int r = 0; r < tile_rows; r++)
            for (int v = 0; v < vectors; v++) {
                float *out = c + r * ldc + v * SK_LANES;
                SK_NAME(store)(out, beta == 0 ? sum[r][v] : sum[r][v] + SK_NAME(load)(out) * beta);
            }
        return;
    }
    float tile[SK_ROWS * SK_COLUMNS];
    for (int r = 0; r < tile_rows; r++)
        for (int v = 0; v < vectors; v++) SK_NAME(store)(tile + r * SK_COLUMNS + v * SK_LANES, sum[r][v]);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < columns; j++)
            c[r * ldc + j] = beta == 0 ? tile[r * SK_COLUMNS + j] : tile[r * SK_COLUMNS + j] + beta * c[r * ldc + j];
}

/// A tile of `tile_rows` rows (a constant) and `vectors` (1…SK_VECTORS) vectors per row: a full
/// panel, or the last one rounded up to whole vectors.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(tile_of_rows)(int tile_rows, int vectors, long depth,
                                                                                   const float *tile_a, long a_step,
                                                                                   const float *b, long ldb, float *c,
                                                                                   long ldc, float beta, int rows,
                                                                                   int columns) {
    switch (vectors) {
#if SK_VECTORS >= 4
    case 4: return SK_NAME(tile_of)(tile_rows, 4, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
#endif
#if SK_VECTORS >= 3
    case 3: return SK_NAME(tile_of)(tile_rows, 3, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
#endif
    case 2: return SK_NAME(tile_of)(tile_rows, 2, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
    default: return SK_NAME(tile_of)(tile_rows, 1, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
    }
}

/// The rows a tile for `rows` (1…SK_ROWS) rows of `a` computes: 1, 2 or 4 where that covers them,
/// else SK_ROWS (a 49-row product computes 49 rows, not 56).
SK_TARGET static inline int SK_NAME(tile_rows)(int rows) {
    if (rows <= 2) return rows;
    return rows <= 4 && SK_ROWS > 4 ? 4 : SK_ROWS;
}

/// A tile for `rows` rows of `a` (see `tile_rows`).
SK_TARGET static void SK_NAME(tile)(int rows, int vectors, long depth, const float *tile_a, long a_step, const float *b,
                                    long ldb, float *c, long ldc, float beta, int columns) {
    switch (SK_NAME(tile_rows)(rows)) {
    case 1: return SK_NAME(tile_of_rows)(1, vectors, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
    case 2: return SK_NAME(tile_of_rows)(2, vectors, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
#if SK_ROWS > 4
    case 4: return SK_NAME(tile_of_rows)(4, vectors, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
#endif
    default: return SK_NAME(tile_of_rows)(SK_ROWS, vectors, depth, tile_a, a_step, b, ldb, c, ldc, beta, rows, columns);
    }
}

SK_TARGET void SK_NAME(sk_sgemm)(long m, long n, long k, const float *a, long lda, bool transpose_a, const float *b,
                                 long ldb, float *c, long ldc, float beta) {
    float *packed_a = sk_gemm_scratch()->packed_a;
    float *last_panel = sk_gemm_scratch()->last_panel;
    const long full_columns = n / SK_COLUMNS * SK_COLUMNS;
    const int last_columns = (int)(n - full_columns);
    // The last, partial panel is copied into one of whole vectors.
    const int last_vectors = (last_columns + SK_LANES - 1) / SK_LANES, last_width = last_vectors * SK_LANES;
    // A last panel of whole vectors is read in place, like the others; only a partial vector needs the copy.
    const bool copies_last_panel = last_columns % SK_LANES != 0;
    // (Row `i`, step `p` of `a` is at a[i·row_step + p·depth_step].)
    const long row_step = transpose_a ? 1 : lda, depth_step = transpose_a ? lda : 1;
    for (long first = 0; first < k; first += SK_DEPTH_BLOCK) {
        const long depth = k - first < SK_DEPTH_BLOCK ? k - first : SK_DEPTH_BLOCK;
        const float block_beta = first == 0 ? beta : 1;
        if (copies_last_panel) {
            for (long p = 0; p < depth; p++) {
                float *panel_row = last_panel + p * last_width;
                memcpy(panel_row, b + (first + p) * ldb + full_columns, (size_t)last_columns * sizeof(float));
                memset(panel_row + last_columns, 0, (size_t)(last_width - last_columns) * sizeof(float));
            }
        }
        for (long block = 0; block < n; block += SK_BLOCK_COLUMNS) {
            const long block_end = n - block < SK_BLOCK_COLUMNS ? n : block + SK_BLOCK_COLUMNS;
            const long full_end = block_end < full_columns ? block_end : full_columns;
            for (long i = 0; i < m; i += SK_ROWS) {
                const int rows = m - i < SK_ROWS ? (int)(m - i) : SK_ROWS;
                const float *source = a + i * row_step + first * depth_step;
                // A transposed `a` already holds each step's rows side by side: read in place when
                // the tile computes exactly its rows (else it would read past them) and the steps
                // are near each other (see SK_IN_PLACE_MAX_STRIDE).
                const bool in_place = transpose_a && lda <= SK_IN_PLACE_MAX_STRIDE && SK_NAME(tile_rows)(rows) == rows;
                const float *tile_a = in_place ? source : packed_a;
                const long a_step = in_place ? lda : SK_ROWS;
                if (!in_place) {
                    for (long p = 0; p < depth; p++) {
                        float *group = packed_a + p * SK_ROWS;
                        for (int r = 0; r < rows; r++) group[r] = source[r * row_step + p * depth_step];
                        for (int r = rows; r < SK_ROWS; r++) group[r] = 0;
                    }
                }
                for (long j = block; j < full_end; j += SK_COLUMNS)
                    SK_NAME(tile)(rows, SK_VECTORS, depth, tile_a, a_step, b + first * ldb + j, ldb, c + i * ldc + j,
                                  ldc, block_beta, SK_COLUMNS);
                if (last_columns > 0 && block_end == n) {
                    const float *panel = copies_last_panel ? last_panel : b + first * ldb + full_columns;
                    SK_NAME(tile)(rows, last_vectors, depth, tile_a, a_step, panel,
                                  copies_last_panel ? last_width : ldb, c + i * ldc + full_columns, ldc, block_beta,
                                  last_columns);
                }
            }
        }
    }
}

#undef SK_ROWS
#undef SK_VECTORS
#undef SK_COLUMNS
#undef SK_BLOCK_COLUMNS
