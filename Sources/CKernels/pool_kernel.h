// One instruction set's 2×2, stride-2 max pooling with bias and activation (a convolution's
// epilogue), included by kernels_<variant>.c after vector.h.

SK_TARGET void SK_NAME(sk_max_pool_2x2_bias)(const float *x, long channels, long height, long width, const float *bias,
                                            SKActivation activation, float *output) {
    const long out_height = height / 2, out_width = width / 2;
    for (long c = 0; c < channels; c++) {
        const float *plane = x + c * height * width;
        const SK_VECTOR b = (SK_VECTOR){0} + bias[c];
        for (long y = 0; y < out_height; y++) {
            const float *top = plane + 2 * y * width, *bottom = top + width;
            float *out = output + (c * out_height + y) * out_width;
            for (long o = 0; o < out_width; o += SK_LANES) {
                // Outputs o… read inputs 2o…: two vectors of each row, the last ones partial.
                const long lanes = out_width - o < SK_LANES ? out_width - o : SK_LANES;
                const long inputs = 2 * lanes;
                const long low = inputs < SK_LANES ? inputs : SK_LANES, high = inputs - low;
                const SK_VECTOR t0 = SK_NAME(load_part)(top + 2 * o, low), t1 = SK_NAME(load_part)(top + 2 * o + SK_LANES, high);
                const SK_VECTOR u0 = SK_NAME(load_part)(bottom + 2 * o, low),
                                u1 = SK_NAME(load_part)(bottom + 2 * o + SK_LANES, high);
                const SK_VECTOR m = __builtin_elementwise_max(
                    __builtin_elementwise_max(SK_EVEN_LANES(t0, t1), SK_ODD_LANES(t0, t1)),
                    __builtin_elementwise_max(SK_EVEN_LANES(u0, u1), SK_ODD_LANES(u0, u1)));
                SK_NAME(store_part)(out + o, SK_NAME(activate)(m + b, activation), lanes);
            }
        }
    }
}
