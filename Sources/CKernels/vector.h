// The variant's vector type, unaligned and partial loads and stores, even and odd lanes, and
// activations; included first by each kernels_<variant>.c.
#include <string.h>
#if SK_LANES == 16 && defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels.h"

typedef float SK_NAME(vector) __attribute__((vector_size(SK_LANES * sizeof(float))));
#define SK_VECTOR SK_NAME(vector)

SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(load)(const float *p) {
    SK_VECTOR v;
    memcpy(&v, p, sizeof v);
    return v;
}

SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(store)(float *p, SK_VECTOR v) { memcpy(p, &v, sizeof v); }

/// `lanes` (≤ SK_LANES) floats, zeros in the other lanes (AVX-512: one masked load; nothing past
/// them is read).
SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(load_part)(const float *p, long lanes) {
    if (lanes == SK_LANES) return SK_NAME(load)(p);
#if SK_LANES == 16 && defined(__x86_64__)
    return (SK_VECTOR)_mm512_maskz_loadu_ps((__mmask16)((1u << lanes) - 1), p);
#else
    SK_VECTOR v = {0};
    for (long lane = 0; lane < lanes; lane++) v[lane] = p[lane];
    return v;
#endif
}

/// Stores the first `lanes` (≤ SK_LANES) lanes (AVX-512: one masked store).
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(store_part)(float *p, SK_VECTOR v, long lanes) {
    if (lanes == SK_LANES) return SK_NAME(store)(p, v);
#if SK_LANES == 16 && defined(__x86_64__)
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << lanes) - 1), (__m512)v);
#else
    for (long lane = 0; lane < lanes; lane++) p[lane] = v[lane];
#endif
}

/// The sum of the lanes.
SK_TARGET static inline __attribute__((always_inline)) float SK_NAME(lane_sum)(SK_VECTOR v) {
    float sum = 0;
    for (int lane = 0; lane < SK_LANES; lane++) sum += v[lane];
    return sum;
}

/// The even and the odd lanes of the 2·SK_LANES floats `low`, `high` (in that order).
#if SK_LANES == 4
#define SK_EVEN_LANES(low, high) __builtin_shufflevector(low, high, 0, 2, 4, 6)
#define SK_ODD_LANES(low, high) __builtin_shufflevector(low, high, 1, 3, 5, 7)
#elif SK_LANES == 8
#define SK_EVEN_LANES(low, high) __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14)
#define SK_ODD_LANES(low, high) __builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15)
#elif SK_LANES == 16
#define SK_EVEN_LANES(low, high)                                                                                     \
    __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define SK_ODD_LANES(low, high)                                                                                      \
    __builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
#endif

/// `act(v)` lane-wise.
SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(activate)(SK_VECTOR v, SKActivation activation) {
    const SK_VECTOR zero = {0};
    switch (activation) {
    case SKActivationReLU: return __builtin_elementwise_max(v, zero);
    case SKActivationReLU6: return __builtin_elementwise_min(__builtin_elementwise_max(v, zero), zero + 6.0f);
    default: return v;
    }
}
