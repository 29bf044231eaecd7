#ifndef SKETCHWISE_KERNELS_H
#define SKETCHWISE_KERNELS_H

// What the variants share: the sgemm's blocking and scratch, and the table of each variant's kernels.

#include <stdbool.h>

#include "CKernels.h"

/// Steps of the inner dimension per block: a packed tile of `a` (at most 8 rows: 8 KB) stays in
/// L1 while every column panel of `b` streams past it.
#define SK_DEPTH_BLOCK 256
/// Columns of `b` per block (rounded down to whole panels): 256 × 512 floats, 512 KB, which stay
/// in L2 while every tile of `a` passes.
#define SK_COLUMN_BLOCK 512
/// The largest step (floats) of a transposed `a` that the sgemm reads in place rather than packs.
/// Measured: in place was faster for the Winograd products (steps of up to 200 floats) and slower
/// for EfficientNet's pointwise convolutions read as transposed weights (steps of up to 1,280),
/// where every step's few floats cost a cache line of their own.
#define SK_IN_PLACE_MAX_STRIDE 256
/// The largest sgemm tile any variant computes.
#define SK_MAX_ROWS 8
#define SK_MAX_COLUMNS 48

/// Each thread's sgemm packing buffers (56 KB), allocated on its first sgemm and kept until it ends.
typedef struct {
    float packed_a[SK_DEPTH_BLOCK * SK_MAX_ROWS];
    float last_panel[SK_DEPTH_BLOCK * SK_MAX_COLUMNS];
} SKGemmScratch;

SKGemmScratch *sk_gemm_scratch(void);

/// One variant's kernels; see CKernels.h for what each computes.
typedef struct {
    void (*sgemm)(long m, long n, long k, const float *a, long lda, bool transpose_a, const float *b, long ldb, float *c,
                  long ldc, float beta);
    void (*sgemv_columns)(long m, long n, const float *a, long lda, const float *x, float *y, float beta);
    void (*sgemv_nonzero_columns)(long m, long n, const float *a, long lda, const float *x, float *y);
    void (*lstm_update_cell)(const float *gates, const float *bias, float *cell, float *hidden, long count);
    void (*winograd_output)(long tile, long tiles_y, long tiles_x, long out_height, long out_width, long channels,
                            long channel_stride, long plane_stride, const float *products, const float *bias,
                            SKActivation activation, bool pool, float *output);
    void (*max_pool_2x2_bias)(const float *x, long channels, long height, long width, const float *bias,
                              SKActivation activation, float *output);
    void (*depthwise_channel)(const float *phases, long phase_width, long phase_count, long stride, long kernel,
                              long out_height, long out_width, const float *filter, float bias,
                              SKActivation activation, float *output);
} SKKernelTable;

#define SK_DECLARE_VARIANT(variant)                                                                                   \
    void sk_sgemm_##variant(long m, long n, long k, const float *a, long lda, bool transpose_a, const float *b,        \
                            long ldb, float *c, long ldc, float beta);                                                \
    void sk_sgemv_columns_##variant(long m, long n, const float *a, long lda, const float *x, float *y, float beta); \
    void sk_sgemv_nonzero_columns_##variant(long m, long n, const float *a, long lda, const float *x, float *y);    \
    void sk_lstm_update_cell_##variant(const float *gates, const float *bias, float *cell, float *hidden, long count); \
    void sk_winograd_output_##variant(long tile, long tiles_y, long tiles_x, long out_height, long out_width,      \
                                      long channels, long channel_stride, long plane_stride, const float *products, \
                                      const float *bias, SKActivation activation, bool pool, float *output);        \
    void sk_max_pool_2x2_bias_##variant(const float *x, long channels, long height, long width, const float *bias,  \
                                        SKActivation activation, float *output);                       \
    void sk_depthwise_channel_##variant(const float *phases, long phase_width, long phase_count, long stride,       \
                                        long kernel, long out_height, long out_width, const float *filter,         \
                                        float bias, SKActivation activation, float *output);

SK_DECLARE_VARIANT(baseline)
SK_DECLARE_VARIANT(avx2)
SK_DECLARE_VARIANT(avx512)

#endif
