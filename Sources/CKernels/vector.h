// The variant's vector type and unaligned loads and stores, included first by each kernels_<variant>.c.
#include <string.h>

typedef float SK_NAME(vector) __attribute__((vector_size(SK_LANES * sizeof(float))));
#define SK_VECTOR SK_NAME(vector)

SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(load)(const float *p) {
    SK_VECTOR v;
    memcpy(&v, p, sizeof v);
    return v;
}

SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(store)(float *p, SK_VECTOR v) { memcpy(p, &v, sizeof v); }

/// `lanes` (≤ SK_LANES) floats, zeros in the other lanes.
SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(load_part)(const float *p, long lanes) {
    if (lanes == SK_LANES) return SK_NAME(load)(p);
    SK_VECTOR v = {0};
    for (long lane = 0; lane < lanes; lane++) v[lane] = p[lane];
    return v;
}

/// Stores the first `lanes` (≤ SK_LANES) lanes.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(store_part)(float *p, SK_VECTOR v, long lanes) {
    if (lanes == SK_LANES) return SK_NAME(store)(p, v);
    for (long lane = 0; lane < lanes; lane++) p[lane] = v[lane];
}

/// The sum of the lanes.
SK_TARGET static inline __attribute__((always_inline)) float SK_NAME(lane_sum)(SK_VECTOR v) {
    float sum = 0;
    for (int lane = 0; lane < SK_LANES; lane++) sum += v[lane];
    return sum;
}
