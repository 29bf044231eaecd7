// Int8 dense layers: the input quantized to unsigned bytes at run time, the weights to signed
// bytes at load, exact int32 sums of their products, then scaled back to floats. The sums are
// exact in every variant, so every variant gives the same bits.
#include <stdatomic.h>
#include <stdint.h>

#include "CKernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/// `sums[i] = Σ_p x[p]·w[i][p]` for `m` rows of `n` bytes (a multiple of 64, zero padded).
typedef void (*SKInt8Dots)(long m, long n, const int8_t *w, const uint8_t *x, int32_t *sums);

static void dots_portable(long m, long n, const int8_t *w, const uint8_t *x, int32_t *sums) {
    for (long i = 0; i < m; i++) {
        const int8_t *row = w + i * n;
        int32_t sum = 0;
        for (long p = 0; p < n; p++) sum += (int32_t)x[p] * row[p];
        sums[i] = sum;
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static int32_t lane_sum_avx2(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

/// AVX2: 16 bytes of each widened to 16-bit lanes, multiplied and added in pairs (vpmaddwd), four
/// rows at a time.
__attribute__((target("avx2"))) static void dots_avx2(long m, long n, const int8_t *w, const uint8_t *x, int32_t *sums) {
    for (long i = 0; i < m; i += 4) {
        const int rows = m - i < 4 ? (int)(m - i) : 4;
        __m256i sum[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
        for (long p = 0; p < n; p += 16) {
            const __m256i xs = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(x + p)));
            for (int r = 0; r < rows; r++) {
                const __m256i ws = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + (i + r) * n + p)));
                sum[r] = _mm256_add_epi32(sum[r], _mm256_madd_epi16(xs, ws));
            }
        }
        for (int r = 0; r < rows; r++) sums[i + r] = lane_sum_avx2(sum[r]);
    }
}

/// AVX-512 VNNI: 64 products of unsigned and signed bytes added into 16 sums per instruction
/// (vpdpbusd), four rows at a time.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void dots_vnni(long m, long n, const int8_t *w,
                                                                              const uint8_t *x, int32_t *sums) {
    for (long i = 0; i < m; i += 4) {
        const int rows = m - i < 4 ? (int)(m - i) : 4;
        __m512i sum[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
        for (long p = 0; p < n; p += 64) {
            const __m512i xs = _mm512_loadu_si512(x + p);
            for (int r = 0; r < rows; r++) sum[r] = _mm512_dpbusd_epi32(sum[r], xs, _mm512_loadu_si512(w + (i + r) * n + p));
        }
        for (int r = 0; r < rows; r++) sums[i + r] = _mm512_reduce_add_epi32(sum[r]);
    }
}

/// Whether the CPU has AVX-512 VNNI and BW; read once (cpuid is slow, under a hypervisor very slow).
static bool cpu_has_vnni(void) {
    static _Atomic int known = -1;
    int has = atomic_load_explicit(&known, memory_order_relaxed);
    if (has < 0) {
        unsigned eax, ebx, ecx, edx;
        has = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_AVX512BW) && (ecx & bit_AVX512VNNI);
        atomic_store_explicit(&known, has, memory_order_relaxed);
    }
    return has;
}

bool sk_int8_uses_vnni(void) { return sk_variant() == SKVariantAVX512 && cpu_has_vnni(); }

static SKInt8Dots chosen_dots(void) {
    if (sk_int8_uses_vnni()) return dots_vnni;
    return sk_variant() >= SKVariantAVX2 ? dots_avx2 : dots_portable;
}
#else
bool sk_int8_uses_vnni(void) { return false; }

static SKInt8Dots chosen_dots(void) { return dots_portable; }
#endif

void sk_dense_int8(long m, long n, const int8_t *w, long ldw, const float *w_scale, const int32_t *w_sum,
                   const float *x, uint8_t *xq, int32_t *sums, float *y) {
    int32_t zero_point;
    const float x_scale = sk_quantize_uint8(x, n, ldw, xq, &zero_point);
    chosen_dots()(m, ldw, w, xq, sums);
    for (long i = 0; i < m; i++) {
        const long long exact = (long long)sums[i] - (long long)zero_point * w_sum[i];
        y[i] = (float)exact * (x_scale * w_scale[i]);
    }
}
