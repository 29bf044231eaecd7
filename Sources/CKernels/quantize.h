// Quantizing floats to unsigned bytes for the int8 products (dense_int8.c, gemm_int8.c): the
// same rounding and range in every kernel and variant.
#ifndef SK_QUANTIZE_H
#define SK_QUANTIZE_H

#include <stdint.h>

/// `v` rounded to the nearest integer, ties to even: adding and subtracting 1.5·2²³ leaves no
/// fraction bits (plain float arithmetic, so it vectorises, unlike a call of lrintf). `v` is first
/// clamped to ±2²², NaN to −2²², so that the conversion is always defined.
static inline int32_t round_to_int(float v) {
    v = v >= -4194304.0f ? v : -4194304.0f;
    v = v <= 4194304.0f ? v : 4194304.0f;
    const float shifted = v + 12582912.0f;
    return (int32_t)(shifted - 12582912.0f);
}

/// `x[0..<n]` quantized to unsigned bytes over `[min(x, 0), max(x, 0)]`:
/// `q[p] = clamp(round(x[p] / scale) + zero_point, 0, 255)`; `q[n..<padded]` = zero_point (the
/// value 0). Returns `scale` and sets `zero_point`.
static inline float quantize_uint8(const float *x, long n, long padded, uint8_t *q, int32_t *zero_point) {
    float low = 0, high = 0;
    for (long p = 0; p < n; p++) {
        low = x[p] < low ? x[p] : low;
        high = x[p] > high ? x[p] : high;
    }
    const float scale = high > low ? (high - low) / 255 : 1;
    const float inverse = 1 / scale;
    const int32_t zero = round_to_int(-low * inverse);
    for (long p = 0; p < n; p++) {
        const int32_t value = round_to_int(x[p] * inverse) + zero;
        q[p] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
    for (long p = n; p < padded; p++) q[p] = (uint8_t)zero;
    *zero_point = (int32_t)zero;
    return scale;
}

#endif
