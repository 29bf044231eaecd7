// Int8 products of many rows with one weight matrix (the LSTM's input and recurrent products):
// each row of x quantized to unsigned bytes at run time, the weights per column to signed bytes at
// load and packed four inputs by sixteen columns, exact int32 sums, then scaled back to floats.
// Sums and scaling are the same operations in every variant, so every variant gives the same bits.
#pragma STDC FP_CONTRACT OFF
#include <stdint.h>
#include <string.h>

#include "CKernels.h"
#include "quantize.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/// `acc[j] = Σ_g Σ_q xq[4g + q]·w[(g·np + j)·4 + q]` for `np` columns (a multiple of 16) and
/// `groups` groups of four inputs.
typedef void (*SKInt8Columns)(long np, long groups, const uint8_t *xq, const int8_t *w, int32_t *acc);

/// `quantize_uint8` (quantize.h) or one of its compilations for a wider instruction set.
typedef float (*SKQuantize)(const float *x, long n, long padded, uint8_t *q, int32_t *zero_point);

/// `y[j] (+)= (float)(acc[j] − zero·w_sum[j]) · (x_scale·w_scale[j])` for `n` columns.
typedef void (*SKInt8Scale)(long n, const int32_t *acc, int32_t zero, float x_scale, const float *w_scale,
                            const int32_t *w_sum, float *y, bool accumulate);

static void columns_portable(long np, long groups, const uint8_t *xq, const int8_t *w, int32_t *acc) {
    for (long j = 0; j < np; j++) acc[j] = 0;
    for (long g = 0; g < groups; g++) {
        const uint8_t *x = xq + 4 * g;
        const int8_t *column = w + g * np * 4;
        for (long j = 0; j < np; j++, column += 4) {
            acc[j] += x[0] * column[0] + x[1] * column[1] + x[2] * column[2] + x[3] * column[3];
        }
    }
}

static void scale_portable(long n, const int32_t *acc, int32_t zero, float x_scale, const float *w_scale,
                           const int32_t *w_sum, float *y, bool accumulate) {
    for (long j = 0; j < n; j++) {
        const float value = (float)(acc[j] - zero * w_sum[j]) * (x_scale * w_scale[j]);
        y[j] = accumulate ? y[j] + value : value;
    }
}

#if defined(__x86_64__)
/// AVX2: each group's bytes of 4 columns widened to 16-bit lanes and multiplied with the four
/// inputs in pairs (vpmaddwd); the pairs of a column are added at the end. 8 columns a step.
__attribute__((target("avx2"))) static void columns_avx2(long np, long groups, const uint8_t *xq, const int8_t *w,
                                                         int32_t *acc) {
    for (long j0 = 0; j0 < np; j0 += 8) {
        __m256i low = _mm256_setzero_si256(), high = _mm256_setzero_si256();
        for (long g = 0; g < groups; g++) {
            int32_t four;
            memcpy(&four, xq + 4 * g, 4);
            const __m256i xs = _mm256_cvtepu8_epi16(_mm_set1_epi32(four));
            const int8_t *column = w + (g * np + j0) * 4;
            low = _mm256_add_epi32(low, _mm256_madd_epi16(xs, _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)column))));
            high = _mm256_add_epi32(high,
                                    _mm256_madd_epi16(xs, _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(column + 16)))));
        }
        // low: columns 0–3 as pairs, high: 4–7; hadd gives 0 1 4 5 2 3 6 7.
        const __m256i sums = _mm256_permute4x64_epi64(_mm256_hadd_epi32(low, high), 0xd8);
        _mm256_storeu_si256((__m256i *)(acc + j0), sums);
    }
}

/// AVX-512 VNNI, four rows at once: each load of 4 inputs by 64 columns serves the four rows
/// (16 sums in registers), so that the weights are read from the cache a quarter as often.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void columns_vnni_4rows(long np, long groups, const uint8_t *xq,
                                                                                       long ldq, const int8_t *w,
                                                                                       int32_t *acc, long ldacc) {
    for (long j0 = 0; j0 < np; j0 += 64) {
        const int vectors = np - j0 >= 64 ? 4 : (int)((np - j0) / 16);
        __m512i sum[4][4];
        for (int r = 0; r < 4; r++)
            for (int v = 0; v < 4; v++) sum[r][v] = _mm512_setzero_si512();
        for (long g = 0; g < groups; g++) {
            const int8_t *column = w + (g * np + j0) * 4;
            __m512i ws[4];
            for (int v = 0; v < 4; v++) ws[v] = v < vectors ? _mm512_loadu_si512(column + 64 * v) : _mm512_setzero_si512();
            for (int r = 0; r < 4; r++) {
                int32_t four;
                memcpy(&four, xq + r * ldq + 4 * g, 4);
                const __m512i xs = _mm512_set1_epi32(four);
                for (int v = 0; v < 4; v++) sum[r][v] = _mm512_dpbusd_epi32(sum[r][v], xs, ws[v]);
            }
        }
        for (int r = 0; r < 4; r++)
            for (int v = 0; v < vectors; v++) _mm512_storeu_si512(acc + r * ldacc + j0 + 16 * v, sum[r][v]);
    }
}

/// AVX-512 VNNI: 4 inputs by 16 columns per instruction (vpdpbusd), 128 columns a step.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void columns_vnni(long np, long groups, const uint8_t *xq,
                                                                                 const int8_t *w, int32_t *acc) {
    long j0 = 0;
    for (; j0 + 128 <= np; j0 += 128) {
        __m512i sum[8];
        for (int v = 0; v < 8; v++) sum[v] = _mm512_setzero_si512();
        for (long g = 0; g < groups; g++) {
            int32_t four;
            memcpy(&four, xq + 4 * g, 4);
            const __m512i xs = _mm512_set1_epi32(four);
            const int8_t *column = w + (g * np + j0) * 4;
            for (int v = 0; v < 8; v++) sum[v] = _mm512_dpbusd_epi32(sum[v], xs, _mm512_loadu_si512(column + 64 * v));
        }
        for (int v = 0; v < 8; v++) _mm512_storeu_si512(acc + j0 + 16 * v, sum[v]);
    }
    for (; j0 < np; j0 += 16) {
        __m512i sum = _mm512_setzero_si512();
        for (long g = 0; g < groups; g++) {
            int32_t four;
            memcpy(&four, xq + 4 * g, 4);
            sum = _mm512_dpbusd_epi32(sum, _mm512_set1_epi32(four), _mm512_loadu_si512(w + (g * np + j0) * 4));
        }
        _mm512_storeu_si512(acc + j0, sum);
    }
}

/// `scale_portable` a vector of `LANES` columns at a time (the same operations, so the same bits).
#define SK_INT8_SCALE(NAME, LANES, TARGET)                                                                          \
    TARGET static void NAME(long n, const int32_t *acc, int32_t zero, float x_scale, const float *w_scale,           \
                            const int32_t *w_sum, float *y, bool accumulate) {                                       \
        typedef float floats __attribute__((vector_size(LANES * sizeof(float))));                                    \
        typedef int32_t ints __attribute__((vector_size(LANES * sizeof(int32_t))));                                  \
        long j = 0;                                                                                                  \
        for (; j + LANES <= n; j += LANES) {                                                                         \
            ints sums, column_sums;                                                                                  \
            floats scales, out;                                                                                      \
            memcpy(&sums, acc + j, sizeof sums);                                                                     \
            memcpy(&column_sums, w_sum + j, sizeof column_sums);                                                     \
            memcpy(&scales, w_scale + j, sizeof scales);                                                             \
            floats value = __builtin_convertvector(sums - zero * column_sums, floats) * (x_scale * scales);         \
            if (accumulate) {                                                                                        \
                memcpy(&out, y + j, sizeof out);                                                                     \
                value = out + value;                                                                                 \
            }                                                                                                        \
            memcpy(y + j, &value, sizeof value);                                                                     \
        }                                                                                                            \
        scale_portable(n - j, acc + j, zero, x_scale, w_scale + j, w_sum + j, y + j, accumulate);                    \
    }

SK_INT8_SCALE(scale_avx2, 8, __attribute__((target("avx2"))))
SK_INT8_SCALE(scale_avx512, 16, __attribute__((target("avx512f"))))

/// `quantize_uint8` compiled for a wider instruction set (AVX-512F alone, as the variant is
/// chosen): its vectors then fill wider registers, with the same bytes as every variant.
#define SK_QUANTIZE(NAME, TARGET)                                                                                   \
    TARGET static float NAME(const float *x, long n, long padded, uint8_t *q, int32_t *zero_point) {                \
        return quantize_uint8(x, n, padded, q, zero_point);                                                          \
    }

SK_QUANTIZE(quantize_avx2, __attribute__((target("avx2"))))
SK_QUANTIZE(quantize_avx512, __attribute__((target("avx512f"))))

static SKInt8Columns chosen_columns(void) {
    if (sk_int8_uses_vnni()) return columns_vnni;
    return sk_variant() >= SKVariantAVX2 ? columns_avx2 : columns_portable;
}

static SKInt8Scale chosen_scale(void) {
    if (sk_variant() == SKVariantAVX512) return scale_avx512;
    return sk_variant() >= SKVariantAVX2 ? scale_avx2 : scale_portable;
}

static SKQuantize chosen_quantize(void) {
    if (sk_variant() == SKVariantAVX512) return quantize_avx512;
    return sk_variant() >= SKVariantAVX2 ? quantize_avx2 : quantize_uint8;
}
#else
static SKInt8Columns chosen_columns(void) { return columns_portable; }
static SKInt8Scale chosen_scale(void) { return scale_portable; }
static SKQuantize chosen_quantize(void) { return quantize_uint8; }
#endif

/// Four rows' sums at once where that is faster (VNNI), else row by row.
static void columns_4rows(SKInt8Columns columns, long np, long groups, const uint8_t *xq, long ldq, const int8_t *w,
                          int32_t *acc, long ldacc) {
#if defined(__x86_64__)
    if (columns == columns_vnni) {
        columns_vnni_4rows(np, groups, xq, ldq, w, acc, ldacc);
        return;
    }
#endif
    for (int r = 0; r < 4; r++) columns(np, groups, xq + r * ldq, w, acc + r * ldacc);
}

/// The products of `rows` (4 or 1) quantized rows `ldq` bytes apart, each with its zero point and
/// scale, scaled back into rows of `y`.
static void quantized_rows(long rows, long n, long np, long groups, const uint8_t *xq, long ldq, const int32_t *zero,
                           const float *x_scale, const int8_t *w, const float *w_scale, const int32_t *w_sum,
                           int32_t *acc, float *y, long ldy, bool accumulate) {
    const SKInt8Columns columns = chosen_columns();
    const SKInt8Scale scale = chosen_scale();
    if (rows == 4)
        columns_4rows(columns, np, groups, xq, ldq, w, acc, np);
    else
        columns(np, groups, xq, w, acc);
    for (long i = 0; i < rows; i++) scale(n, acc + i * np, zero[i], x_scale[i], w_scale, w_sum, y + i * ldy, accumulate);
}

void sk_gemm_int8(long m, long n, long k, const float *x, long ldx, const int8_t *w, long np, const float *w_scale,
                  const int32_t *w_sum, uint8_t *xq, int32_t *acc, float *y, long ldy, bool accumulate) {
    const long groups = (k + 3) / 4;
    const SKQuantize quantize = chosen_quantize();
    for (long r = 0; r < m;) {
        const long rows = m - r >= 4 ? 4 : 1;
        int32_t zero[4];
        float x_scale[4];
        for (long i = 0; i < rows; i++) x_scale[i] = quantize(x + (r + i) * ldx, k, 4 * groups, xq + i * 4 * groups, &zero[i]);
        quantized_rows(rows, n, np, groups, xq, 4 * groups, zero, x_scale, w, w_scale, w_sum, acc, y + r * ldy, ldy,
                       accumulate);
        r += rows;
    }
}

float sk_quantize_uint8(const float *x, long n, long padded, uint8_t *q, int32_t *zero_point) {
    return chosen_quantize()(x, n, padded, q, zero_point);
}

void sk_gemm_uint8(long m, long n, long k, const uint8_t *xq, long ldq, int32_t zero_point, float x_scale,
                   const int8_t *w, long np, const float *w_scale, const int32_t *w_sum, int32_t *acc, float *y,
                   long ldy) {
    const long groups = (k + 3) / 4;
    const int32_t zero[4] = {zero_point, zero_point, zero_point, zero_point};
    const float scale[4] = {x_scale, x_scale, x_scale, x_scale};
    for (long r = 0; r < m;) {
        const long rows = m - r >= 4 ? 4 : 1;
        quantized_rows(rows, n, np, groups, xq + r * ldq, ldq, zero, scale, w, w_scale, w_sum, acc, y + r * ldy, ldy,
                       false);
        r += rows;
    }
}
