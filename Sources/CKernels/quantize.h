// Quantizing floats to unsigned bytes for the int8 products: gemm_int8.c compiles it for each
// variant and exports the chosen one as `sk_quantize_uint8`, which every int8 kernel calls.
#ifndef SK_QUANTIZE_H
#define SK_QUANTIZE_H

#include <stdint.h>
#include <string.h>

/// `v` rounded to the nearest integer, ties to even: adding and subtracting 1.5·2²³ leaves no
/// fraction bits (plain float arithmetic, so it vectorises, unlike a call of lrintf). `v` is first
/// clamped to ±2²², NaN to −2²², so that the conversion is always defined.
static inline __attribute__((always_inline)) int32_t round_to_int(float v) {
    v = v >= -4194304.0f ? v : -4194304.0f;
    v = v <= 4194304.0f ? v : 4194304.0f;
    const float shifted = v + 12582912.0f;
    return (int32_t)(shifted - 12582912.0f);
}

/// Sixteen floats, ints and bytes: the compiler splits them into the registers of the instruction
/// set the including function is compiled for.
typedef float sk_floats16 __attribute__((vector_size(64)));
typedef int32_t sk_ints16 __attribute__((vector_size(64)));
typedef uint8_t sk_bytes16 __attribute__((vector_size(16)));

/// `MASK ? A : B` lane by lane for `sk_floats16`, the `MASK` lanes all ones or all zeros (as
/// comparisons give them). A macro: a function taking 64-byte vectors would change the ABI with
/// the instruction set.
#define SK_SELECT16(MASK, A, B) ((sk_floats16)(((MASK) & (sk_ints16)(A)) | (~(MASK) & (sk_ints16)(B))))

/// `x[0..<n]` quantized to unsigned bytes over `[min(x, 0), max(x, 0)]`:
/// `q[p] = clamp(round(x[p] · (1 / scale)) + zero_point, 0, 255)` with `zero_point` in 0…255;
/// `q[n..<padded]` = zero_point (the value 0). Returns `scale` and sets `zero_point`. Sixteen values
/// at a time, then one by one, each lane with the same comparisons and arithmetic as the scalar
/// loops (a NaN is left out of the range and becomes −2²² before the clamp), so every instruction
/// set gives the same bytes.
static inline __attribute__((always_inline)) float quantize_uint8(const float *x, long n, long padded, uint8_t *q,
                                                                  int32_t *zero_point) {
    sk_floats16 lows = {0}, highs = {0};
    long p = 0;
    for (; p + 16 <= n; p += 16) {
        sk_floats16 v;
        memcpy(&v, x + p, sizeof v);
        lows = SK_SELECT16(v < lows, v, lows);
        highs = SK_SELECT16(v > highs, v, highs);
    }
    float low = 0, high = 0;
    for (int lane = 0; lane < 16; lane++) {
        low = lows[lane] < low ? lows[lane] : low;
        high = highs[lane] > high ? highs[lane] : high;
    }
    for (; p < n; p++) {
        low = x[p] < low ? x[p] : low;
        high = x[p] > high ? x[p] : high;
    }
    const float scale = high > low ? (high - low) / 255 : 1;
    const float inverse = 1 / scale;
    // Within 0…255 but for an infinite or vanishing range (the product is then NaN or infinite).
    int32_t zero = round_to_int(-low * inverse);
    zero = zero < 0 ? 0 : zero > 255 ? 255 : zero;
    const sk_floats16 lowest = (sk_floats16){0} - 4194304.0f, highest = (sk_floats16){0} + 4194304.0f;
    for (p = 0; p + 16 <= n; p += 16) {
        sk_floats16 v;
        memcpy(&v, x + p, sizeof v);
        v = v * inverse;
        v = SK_SELECT16(v >= lowest, v, lowest);
        v = SK_SELECT16(v <= highest, v, highest);
        const sk_ints16 rounded = __builtin_convertvector((v + 12582912.0f) - 12582912.0f, sk_ints16) + zero;
        const sk_ints16 clamped = __builtin_elementwise_min(__builtin_elementwise_max(rounded, (sk_ints16){0}),
                                                            (sk_ints16){0} + 255);
        const sk_bytes16 bytes = __builtin_convertvector(clamped, sk_bytes16);
        memcpy(q + p, &bytes, sizeof bytes);
    }
    for (; p < n; p++) {
        const int32_t value = round_to_int(x[p] * inverse) + zero;
        q[p] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
    for (p = n; p < padded; p++) q[p] = (uint8_t)zero;
    *zero_point = zero;
    return scale;
}

#endif
