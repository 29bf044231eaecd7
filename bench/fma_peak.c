// The float32 multiply-add peak of one core: 16 independent chains of vector FMAs (unrolled, so
// that they stay in registers), enough to hide their latency, in the widest vectors the CPU runs
// (AVX-512, else AVX2 + FMA). It is the ceiling against which docs/runtime.md reads the runtime's
// compute-bound kernels. Dev-only, like the rest of bench/.
//
//   cc -O2 -o /tmp/fma_peak bench/fma_peak.c && /tmp/fma_peak
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 16
#define STEPS 20000000L

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/// `NAME()`: multiply-adds per second over `CHAINS` chains of `LANES`-float vectors.
#define PEAK(NAME, TARGET, VECTOR, LANES, SET1, FMADD, STORE)                                       \
    TARGET static double NAME(void) {                                                               \
        VECTOR sum[CHAINS];                                                                         \
        const VECTOR a = SET1(0.999f), b = SET1(0.001f);                                            \
        for (int i = 0; i < CHAINS; i++) sum[i] = SET1((float)i);                                   \
        const double start = seconds();                                                             \
        for (long s = 0; s < STEPS; s++) {                                                          \
            _Pragma("GCC unroll 16") for (int i = 0; i < CHAINS; i++) sum[i] = FMADD(sum[i], a, b); \
        }                                                                                           \
        const double elapsed = seconds() - start;                                                   \
        float lanes[LANES], total = 0;                                                              \
        for (int i = 0; i < CHAINS; i++) {                                                          \
            STORE(lanes, sum[i]);                                                                   \
            for (int j = 0; j < LANES; j++) total += lanes[j];                                      \
        }                                                                                           \
        return total == 0 ? 0 : (double)STEPS * CHAINS * LANES / elapsed;                          \
    }

PEAK(peak_avx512, __attribute__((target("avx512f"))), __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps)
PEAK(peak_avx2, __attribute__((target("avx2,fma"))), __m256, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps)

int main(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        printf("AVX-512: %.1f G float32 multiply-adds per second on one core\n", peak_avx512() / 1e9);
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        printf("AVX2 + FMA: %.1f G float32 multiply-adds per second on one core\n", peak_avx2() / 1e9);
    } else {
        printf("neither AVX-512 nor AVX2 + FMA: nothing measured\n");
        return 1;
    }
    return 0;
}
