// One instruction set's LSTM cell update, included by kernels_<variant>.c after vector.h.
//
// With eₓ = e^−x: σ(x) = 1 / (1 + eₓ) and tanh(x) = (1 − e₂ₓ) / (1 + e₂ₓ), so that
// c' = (c·(1 + eᵢ)(1 + e₂g) + (1 − e₂g)(1 + e_f)) / ((1 + e_f)(1 + eᵢ)(1 + e₂g)) and
// h = (1 − e₂c') / ((1 + eₒ)(1 + e₂c')): two divisions instead of five. Every exponent is clamped
// to ≤ 29 so that a product of three such factors stays below Float's largest value; σ and tanh
// are then already within 3e-13 of 0 or ±1.

typedef unsigned SK_NAME(bits) __attribute__((vector_size(SK_LANES * sizeof(float))));

/// e^(−scale·x) for x clamped to [−29/scale, 80/scale], as 2^n · p(r) with −scale·x = n·ln2 + r,
/// |r| ≤ ln2/2, p the degree-5 minimax polynomial of e^r there (relative error 1.6e-7); results stay
/// normal (no slow denormals).
SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(exp_negative)(SK_VECTOR x, float scale) {
    const SK_VECTOR low = (SK_VECTOR){0} + (-29.0f / scale), high = (SK_VECTOR){0} + (80.0f / scale);
    x = __builtin_elementwise_min(__builtin_elementwise_max(x, low), high);
    // Adding 1.5·2²³ + 127 rounds to the integer n and leaves n + 127 in the low mantissa bits.
    const float shifter = 12582912.0f + 127.0f;
    const SK_VECTOR t = x * (-1.44269504f * scale) + shifter;
    const SK_VECTOR n = t - shifter;
    // q = −r (ln2 in two parts: n times the first is exact).
    const SK_VECTOR q = x * scale + n * 0.693359375f - n * 2.1219444e-4f;
    SK_VECTOR p = q * -0.00829032f + 0.04189793f;
    p = p * q - 0.16667636f;
    p = p * q + 0.4999915f;
    p = p * q - 0.9999997f;
    p = p * q + 1.0f;
    const SK_NAME(bits) two_to_n = (SK_NAME(bits))t << 23;
    return p * (SK_VECTOR)two_to_n;
}

SK_TARGET void SK_NAME(sk_lstm_update_cell)(const float *gates, const float *bias, float *cell, float *hidden, long count) {
    for (long u = 0; u < count; u += SK_LANES) {
        const long lanes = count - u < SK_LANES ? count - u : SK_LANES;
#define SK_GATE(k) (SK_NAME(load_part)(gates + (k) * count + u, lanes) + SK_NAME(load_part)(bias + (k) * count + u, lanes))
        const SK_VECTOR ei = 1.0f + SK_NAME(exp_negative)(SK_GATE(0), 1);
        const SK_VECTOR ef = 1.0f + SK_NAME(exp_negative)(SK_GATE(1), 1);
        const SK_VECTOR eg = SK_NAME(exp_negative)(SK_GATE(2), 2);
        const SK_VECTOR eo = 1.0f + SK_NAME(exp_negative)(SK_GATE(3), 1);
#undef SK_GATE
        const SK_VECTOR ig = ei * (1.0f + eg);
        const SK_VECTOR new_cell = (SK_NAME(load_part)(cell + u, lanes) * ig + (1.0f - eg) * ef) / (ef * ig);
        SK_NAME(store_part)(cell + u, new_cell, lanes);
        const SK_VECTOR ec = SK_NAME(exp_negative)(new_cell, 2);
        SK_NAME(store_part)(hidden + u, (1.0f - ec) / (eo * (1.0f + ec)), lanes);
    }
}
