// One instruction set's depthwise convolution of one channel, included by kernels_<variant>.c after
// vector.h. The channel's zero-padded input is spread over `stride` phase planes (phase r holds
// the padded columns r, r + stride, …), so that every tap of a vector of outputs is one
// contiguous load.

/// `bias + Σ filter[i][j] · tap(i, j)` for the `lanes` outputs whose first tap is at `top` in
/// phase plane 0: tap (i, j) is in phase plane j mod stride, row i, j / stride columns on.
SK_TARGET static inline __attribute__((always_inline)) SK_VECTOR SK_NAME(depthwise_sum)(const float *top, long lanes,
                                                                                       long phase_width,
                                                                                       long phase_count, long stride,
                                                                                       long kernel, const float *filter,
                                                                                       float bias) {
    SK_VECTOR sum = (SK_VECTOR){0} + bias;
    const long phases = stride < kernel ? stride : kernel;
    for (long i = 0; i < kernel; i++) {
        const float *phase = top + i * phase_width;
        for (long r = 0; r < phases; r++, phase += phase_count)
            for (long j = r, m = 0; j < kernel; j += stride, m++)
                sum += filter[i * kernel + j] * SK_NAME(load_part)(phase + m, lanes);
    }
    return sum;
}

SK_TARGET void SK_NAME(sk_depthwise_channel)(const float *phases, long phase_width, long phase_count, long stride,
                                            long kernel, long out_height, long out_width, const float *filter,
                                            float bias, SKActivation activation, float *output) {
    for (long y = 0; y < out_height; y++) {
        const float *top = phases + y * stride * phase_width;
        float *out = output + y * out_width;
        long x = 0;
        for (; x + SK_LANES <= out_width; x += SK_LANES) {
            const SK_VECTOR sum =
                SK_NAME(depthwise_sum)(top + x, SK_LANES, phase_width, phase_count, stride, kernel, filter, bias);
            SK_NAME(store)(out + x, SK_NAME(activate)(sum, activation));
        }
        if (x == out_width) continue;
        // The last outputs: a whole vector again, overlapping the one before, or a partial one
        // when the row is shorter than a vector.
        const long first = out_width >= SK_LANES ? out_width - SK_LANES : 0;
        const long lanes = out_width - first;
        const SK_VECTOR sum =
            SK_NAME(depthwise_sum)(top + first, lanes, phase_width, phase_count, stride, kernel, filter, bias);
        SK_NAME(store_part)(out + first, SK_NAME(activate)(sum, activation), lanes);
    }
}
