// One instruction set's Winograd output transforms, F(2×2, 3×3) and F(4×4, 3×3), included by
// kernels_<variant>.c after vector.h. The products are laid out [ξ][tile][channel] ((tile + 2)²
// planes `plane_stride` floats apart, a row of `channel_stride` per tile), so a vector holds
// consecutive output channels of one tile; the outputs are [channel][y][x].

/// `Aᵀ·x` for F(2×2, 3×3), Aᵀ = [1 1 1 0; 0 1 −1 −1]: 4 values to 2.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(a2_transpose)(const SK_VECTOR x[4], SK_VECTOR out[2]) {
    out[0] = x[0] + x[1] + x[2];
    out[1] = x[1] - x[2] - x[3];
}

/// `Aᵀ·x` for F(4×4, 3×3), Aᵀ = [1 1 1 1 1 0; 0 1 −1 2 −2 0; 0 1 1 4 4 0; 0 1 −1 8 −8 1]: 6 values to 4.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(a4_transpose)(const SK_VECTOR x[6], SK_VECTOR out[4]) {
    const SK_VECTOR sum12 = x[1] + x[2], difference12 = x[1] - x[2];
    const SK_VECTOR sum34 = x[3] + x[4], difference34 = x[3] - x[4];
    out[0] = x[0] + sum12 + sum34;
    out[1] = difference12 + 2.0f * difference34;
    out[2] = sum12 + 4.0f * sum34;
    out[3] = difference12 + 8.0f * difference34 + x[5];
}

/// `Aᵀ·M·A` of one tile of `tile` (2 or 4, a constant) outputs a side, for `lanes` channels from `m`
/// (its row in plane ξ = 0): the outputs `y[tile·i + j]`.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(tile_outputs)(int tile, const float *m,
                                                                                   long plane_stride, long lanes,
                                                                                   SK_VECTOR *y) {
    const int side = tile + 2;
    // Aᵀ·M: each column of M to `tile` values; then the same on each resulting row.
    SK_VECTOR columns[4][6];
    for (int j = 0; j < side; j++) {
        SK_VECTOR column[6], combined[4];
        for (int i = 0; i < side; i++) column[i] = SK_NAME(load_part)(m + (i * side + j) * plane_stride, lanes);
        if (tile == 2) SK_NAME(a2_transpose)(column, combined);
        else SK_NAME(a4_transpose)(column, combined);
        for (int i = 0; i < tile; i++) columns[i][j] = combined[i];
    }
    for (int i = 0; i < tile; i++) {
        if (tile == 2) SK_NAME(a2_transpose)(columns[i], y + tile * i);
        else SK_NAME(a4_transpose)(columns[i], y + tile * i);
    }
}

/// Stores the first `lanes` lanes of `v` `stride` floats apart (AVX-512: one masked vscatterdps).
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(scatter)(float *out, long stride, SK_VECTOR v,
                                                                              long lanes) {
#if SK_LANES == 16 && defined(__x86_64__)
    const __m512i offsets = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                               _mm512_set1_epi32((int)stride));
    _mm512_mask_i32scatter_ps(out, (__mmask16)((1u << lanes) - 1), offsets, (__m512)v, 4);
#else
    for (long lane = 0; lane < lanes; lane++) out[lane * stride] = v[lane];
#endif
}

/// Every tile of `tile` (a constant) outputs a side; see `sk_winograd_output`.
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(winograd_output_of)(
    int tile, long tiles_y, long tiles_x, long out_height, long out_width, long channels, long channel_stride,
    long plane_stride, const float *products, const float *bias, SKActivation activation, bool pool, float *output) {
    const long plane = out_height * out_width;
    // A tile's outputs, or with `pool` its 2×2 maxima, are `side` × `side` values of the output.
    const int side = pool ? tile / 2 : tile;
    for (long ty = 0; ty < tiles_y; ty++) {
        for (long tx = 0; tx < tiles_x; tx++) {
            const float *row = products + (ty * tiles_x + tx) * channel_stride;
            for (long o = 0; o < channels; o += SK_LANES) {
                const long lanes = channels - o < SK_LANES ? channels - o : SK_LANES;
                const SK_VECTOR b = SK_NAME(load_part)(bias + o, lanes);
                SK_VECTOR y[16];
                SK_NAME(tile_outputs)(tile, row + o, plane_stride, lanes, y);
                for (int i = 0; i < side; i++) {
                    for (int j = 0; j < side; j++) {
                        const long yy = side * ty + i, xx = side * tx + j;
                        if (yy >= out_height || xx >= out_width) continue;
                        SK_VECTOR value = y[tile * i + j];
                        if (pool) {
                            const SK_VECTOR *top = y + tile * 2 * i + 2 * j;
                            value = __builtin_elementwise_max(__builtin_elementwise_max(top[0], top[1]),
                                                              __builtin_elementwise_max(top[tile], top[tile + 1]));
                        }
                        SK_NAME(scatter)(output + o * plane + yy * out_width + xx, plane,
                                         SK_NAME(activate)(value + b, activation), lanes);
                    }
                }
            }
        }
    }
}

SK_TARGET void SK_NAME(sk_winograd_output)(long tile, long tiles_y, long tiles_x, long out_height, long out_width,
                                           long channels, long channel_stride, long plane_stride,
                                           const float *products, const float *bias, SKActivation activation,
                                           bool pool, float *output) {
    if (tile == 4) {
        SK_NAME(winograd_output_of)(4, tiles_y, tiles_x, out_height, out_width, channels, channel_stride, plane_stride,
                                    products, bias, activation, pool, output);
    } else {
        SK_NAME(winograd_output_of)(2, tiles_y, tiles_x, out_height, out_width, channels, channel_stride, plane_stride,
                                    products, bias, activation, pool, output);
    }
}
