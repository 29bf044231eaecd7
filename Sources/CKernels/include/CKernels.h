#ifndef SKETCHWISE_CKERNELS_H
#define SKETCHWISE_CKERNELS_H

/// The inference runtime's hot kernels in C, each compiled once per instruction set (baseline,
/// AVX2 + FMA, AVX-512) and chosen once, at first use, from the features of the CPU it runs on.
/// The baseline variant builds everywhere (x86-64, arm64); the others only on x86-64.

#include <stdbool.h>
#include <stdint.h>

/// The instruction sets a kernel variant is compiled for, widest last.
typedef enum {
    SKVariantBaseline = 0,
    SKVariantAVX2 = 1,
    SKVariantAVX512 = 2,
} SKVariant;

/// The variant the kernels run on the calling thread: the one forced on this thread, else the one
/// forced process-wide, else the widest this CPU and its OS support.
SKVariant sk_variant(void);

/// The widest variant this CPU and its OS support.
SKVariant sk_best_supported_variant(void);

/// Its name: "baseline", "avx2" or "avx512".
const char *sk_variant_name(SKVariant variant);

/// Makes the kernels run `variant` from now on, process-wide (tests, benchmarks); false, and
/// nothing changes, when this CPU cannot run it.
bool sk_force_variant(SKVariant variant);

/// Makes the kernels run `variant` on the calling thread only, whatever the process-wide choice
/// (tests compare variants while other work runs); false, and nothing changes, when this CPU
/// cannot run it. `sk_release_thread_variant` undoes it.
bool sk_force_thread_variant(SKVariant variant);

/// Lets the calling thread run the process-wide variant again.
void sk_release_thread_variant(void);

/// `c[m×n] = a[m×k]·b[k×n] + beta·c`, row-major, single-threaded; `a` is stored as its `k×m`
/// transpose when `transpose_a`. With `beta` 0, `c` is only written.
void sk_sgemm(long m, long n, long k, const float *a, long lda, bool transpose_a, const float *b, long ldb, float *c,
              long ldc, float beta);

/// `y[m] = a[m×n]·x[n] + beta·y`, single-threaded, with `a` stored as its `n×m` transpose
/// (row-major). With `beta` 0, `y` is only written.
void sk_sgemv_columns(long m, long n, const float *a, long lda, const float *x, float *y, float beta);

/// `y[m] = a[m×n]·x[n]` with `a` stored as its `n×m` transpose, summed over the `x[r]` that are not
/// zero only: the rows of the others are never read (a zero adds nothing, even against an infinite
/// weight). `y` is only written.
void sk_sgemv_nonzero_columns(long m, long n, const float *a, long lda, const float *x, float *y);

/// What follows a convolution inside its output pass.
typedef enum {
    SKActivationNone = 0,
    SKActivationReLU = 1,
    /// `min(max(x, 0), 6)`.
    SKActivationReLU6 = 2,
} SKActivation;

/// Winograd F(`tile`×`tile`, 3×3)'s output transform, `tile` 2 or 4: `Aᵀ·M·A` of every tile of
/// `products` ((tile + 2)² planes ξ, `plane_stride` floats apart, of `tiles_y·tiles_x` rows of
/// `channel_stride` floats, a row per tile, `channels` used), then `act(y + bias)` into `output`
/// (`[channels][out_height][out_width]`), or with `pool` the 2×2 maxima of each tile's outputs
/// (`tile / 2` a side per tile); values past `output`'s edges are dropped.
void sk_winograd_output(long tile, long tiles_y, long tiles_x, long out_height, long out_width, long channels,
                        long channel_stride, long plane_stride, const float *products, const float *bias,
                        SKActivation activation, bool pool, float *output);

/// `output[c][y][x] = act(max of x[c][2y…2y+1][2x…2x+1] + bias[c])` for `[channels][height][width]`
/// (floor: an odd last row or column is dropped).
void sk_max_pool_2x2_bias(const float *x, long channels, long height, long width, const float *bias,
                          SKActivation activation, float *output);

/// One channel of a depthwise convolution: `output[y][x] = act(bias + Σ filter[i][j] · in(y·s + i,
/// x·s + j))` (`out_height × out_width`), from the channel's zero-padded input spread over `stride`
/// phase planes of `phase_count` floats, rows of `phase_width`: phase r holds the padded columns r,
/// r + stride, r + 2·stride, …
void sk_depthwise_channel(const float *phases, long phase_width, long phase_count, long stride, long kernel,
                          long out_height, long out_width, const float *filter, float bias, SKActivation activation,
                          float *output);

/// One LSTM step's cell and hidden state for `count` units: `c = σ(f)·c + σ(i)·tanh(g)`,
/// `h = σ(o)·tanh(c)`, from the gates (`gates + bias`, laid out `[i | f | g | o]`, each `count`
/// wide; PyTorch's order). Within a few float roundings of the exact functions (1e-6).
void sk_lstm_update_cell(const float *gates, const float *bias, float *cell, float *hidden, long count);

/// Whether the int8 products use AVX-512 VNNI (vpdpbusd): the AVX-512 variant runs on a CPU that
/// has it. Otherwise they use AVX2 (widened to 16 bits) or portable C, with the same results.
bool sk_int8_uses_vnni(void);

/// One int8 dense layer without bias: `y[i] ≈ Σ_p w[i][p]·x[p]`, as
/// `x_scale·w_scale[i]·Σ_p (q(x)[p] − zero_point)·w[i][p]` with exact integer sums, where `q(x)`
/// is `x` in unsigned bytes over `[min(x, 0), max(x, 0)]` (rounded to nearest, ties to even).
/// `w` holds `m` rows of `ldw` signed bytes (`ldw` a multiple of 64 and at least `n`, zero padded);
/// `w_sum[i]` is row i's sum. Scratch: `xq` (`ldw` bytes), `sums` (`m` ints).
void sk_dense_int8(long m, long n, const int8_t *w, long ldw, const float *w_scale, const int32_t *w_sum,
                   const float *x, uint8_t *xq, int32_t *sums, float *y);

/// `m` rows times one int8 weight matrix: `y[r][j] (+)= Σ_p x[r][p]·W[p][j]` for `k` inputs and `n`
/// columns, as `x_scale·w_scale[j]·Σ_p (q(x[r])[p] − zero_point)·w[p][j]` with exact integer sums,
/// each row quantized as in `sk_dense_int8`. `w` is packed four inputs by `np` columns (`n` rounded
/// up to 16, zero padded): `w[(g·np + j)·4 + q]` is input `4g + q` of column j (inputs past `k` zero);
/// `w_sum[j]` is column j's sum. Adds to `y` when `accumulate`. Scratch: `xq` (4 times `k` rounded
/// up to 4 bytes), `acc` (`4·np` ints): rows go four at a time.
void sk_gemm_int8(long m, long n, long k, const float *x, long ldx, const int8_t *w, long np, const float *w_scale,
                  const int32_t *w_sum, uint8_t *xq, int32_t *acc, float *y, long ldy, bool accumulate);

/// `x[0..<n]` in unsigned bytes over `[min(x, 0), max(x, 0)]`, as every int8 product quantizes its
/// input: `q[p] = clamp(round(x[p] · (1 / scale)) + zero_point, 0, 255)`; `q[n..<padded]` =
/// zero_point. Returns `scale`. Compiled for the chosen variant, with the same bytes in each.
float sk_quantize_uint8(const float *x, long n, long padded, uint8_t *q, int32_t *zero_point);

/// `sk_gemm_int8` (without accumulating) for rows already quantized with one scale and zero point
/// (`sk_quantize_uint8` of the values they were gathered from): `m` rows of `xq`, `ldq` bytes apart
/// (`ldq` at least `k` rounded up to 4; the bytes past `k` meet zero weights). Scratch: `acc`
/// (`4·np` ints).
void sk_gemm_uint8(long m, long n, long k, const uint8_t *xq, long ldq, int32_t zero_point, float x_scale,
                   const int8_t *w, long np, const float *w_scale, const int32_t *w_sum, int32_t *acc, float *y,
                   long ldy);

#endif
