// Which variant of the kernels runs (the widest the CPU and its OS support, by cpuid and xgetbv,
// or one a test or benchmark forced), and the entry points, which call that variant's kernels.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "CKernels.h"
#include "kernels.h"

#if defined(__x86_64__)
#include <cpuid.h>

/// The register state the OS saves on a switch (XCR0), read only when the CPU says it may be.
static unsigned long long saved_state(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return 0;
    unsigned low, high;
    __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((unsigned long long)high << 32) | low;
}

SKVariant sk_best_supported_variant(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return SKVariantBaseline;
    const bool fma = ecx & bit_FMA;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return SKVariantBaseline;
    const unsigned long long state = saved_state();
    const bool ymm = (state & 0x6) == 0x6;     // SSE and AVX state
    const bool zmm = (state & 0xe6) == 0xe6;   // and the opmask and upper ZMM state
    if (zmm && fma && (ebx & bit_AVX512F)) return SKVariantAVX512;
    if (ymm && fma && (ebx & bit_AVX2)) return SKVariantAVX2;
    return SKVariantBaseline;
}
#else
SKVariant sk_best_supported_variant(void) { return SKVariantBaseline; }
#endif

/// -1 until first use.
static _Atomic int chosen = -1;

/// The variant forced on this thread; -1 when none is.
static _Thread_local int chosen_on_thread = -1;

SKVariant sk_variant(void) {
    if (chosen_on_thread >= 0) return (SKVariant)chosen_on_thread;
    int variant = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (variant < 0) {
        variant = (int)sk_best_supported_variant();
        atomic_store_explicit(&chosen, variant, memory_order_relaxed);
    }
    return (SKVariant)variant;
}

bool sk_force_variant(SKVariant variant) {
    if (variant < SKVariantBaseline || variant > sk_best_supported_variant()) return false;
    atomic_store_explicit(&chosen, (int)variant, memory_order_relaxed);
    return true;
}

bool sk_force_thread_variant(SKVariant variant) {
    if (variant < SKVariantBaseline || variant > sk_best_supported_variant()) return false;
    chosen_on_thread = (int)variant;
    return true;
}

void sk_release_thread_variant(void) { chosen_on_thread = -1; }

const char *sk_variant_name(SKVariant variant) {
    switch (variant) {
    case SKVariantAVX512: return "avx512";
    case SKVariantAVX2: return "avx2";
    default: return "baseline";
    }
}

/// Frees a thread's scratch when the thread ends.
static pthread_key_t scratch_key;
static pthread_once_t scratch_key_once = PTHREAD_ONCE_INIT;

static void make_scratch_key(void) { pthread_key_create(&scratch_key, free); }

SKGemmScratch *sk_gemm_scratch(void) {
    // Allocated on a thread's first sgemm, so that the many threads that never run one (the
    // server's event loops, say) carry 8 bytes of it, not 56 KB.
    static _Thread_local SKGemmScratch *scratch;
    if (!scratch) {
        pthread_once(&scratch_key_once, make_scratch_key);
        scratch = aligned_alloc(64, sizeof *scratch);
        if (!scratch) abort();  // as Swift does when an allocation fails
        pthread_setspecific(scratch_key, scratch);
    }
    return scratch;
}

#define SK_TABLE(variant)                                                                                            \
    {sk_sgemm_##variant, sk_sgemv_columns_##variant, sk_sgemv_nonzero_columns_##variant, sk_lstm_update_cell_##variant, \
     sk_winograd_output_##variant, sk_max_pool_2x2_bias_##variant, sk_depthwise_channel_##variant}

/// The kernels of each variant, indexed by SKVariant.
static const SKKernelTable tables[] = {
    SK_TABLE(baseline),
#if defined(__x86_64__)
    SK_TABLE(avx2),
    SK_TABLE(avx512),
#endif
};

void sk_sgemm(long m, long n, long k, const float *a, long lda, bool transpose_a, const float *b, long ldb, float *c,
              long ldc, float beta) {
    tables[sk_variant()].sgemm(m, n, k, a, lda, transpose_a, b, ldb, c, ldc, beta);
}

void sk_sgemv_columns(long m, long n, const float *a, long lda, const float *x, float *y, float beta) {
    tables[sk_variant()].sgemv_columns(m, n, a, lda, x, y, beta);
}

void sk_sgemv_nonzero_columns(long m, long n, const float *a, long lda, const float *x, float *y) {
    tables[sk_variant()].sgemv_nonzero_columns(m, n, a, lda, x, y);
}

void sk_lstm_update_cell(const float *gates, const float *bias, float *cell, float *hidden, long count) {
    tables[sk_variant()].lstm_update_cell(gates, bias, cell, hidden, count);
}

void sk_winograd_output(long tile, long tiles_y, long tiles_x, long out_height, long out_width, long channels,
                        long channel_stride, long plane_stride, const float *products, const float *bias,
                        SKActivation activation, bool pool, float *output) {
    tables[sk_variant()].winograd_output(tile, tiles_y, tiles_x, out_height, out_width, channels, channel_stride,
                                         plane_stride, products, bias, activation, pool, output);
}

void sk_max_pool_2x2_bias(const float *x, long channels, long height, long width, const float *bias,
                          SKActivation activation, float *output) {
    tables[sk_variant()].max_pool_2x2_bias(x, channels, height, width, bias, activation, output);
}

void sk_depthwise_channel(const float *phases, long phase_width, long phase_count, long stride, long kernel,
                          long out_height, long out_width, const float *filter, float bias, SKActivation activation,
                          float *output) {
    tables[sk_variant()].depthwise_channel(phases, phase_width, phase_count, stride, kernel, out_height, out_width,
                                           filter, bias, activation, output);
}
