// One instruction set's Winograd F(2×2, 3×3) output transform, included by kernels_<variant>.c
// after vector.h. The products are laid out [ξ][tile][channel] (16 planes of `plane_stride`
// floats, a row of `channel_stride` per tile), so a vector holds consecutive output channels of
// one tile; the outputs are [channel][y][x].

/// `Aᵀ·M·A` of one tile for `lanes` channels from `m` (its row in plane ξ = 0): the outputs
/// (y00, y01, y10, y11).
SK_TARGET static inline __attribute__((always_inline)) void SK_NAME(tile_outputs)(const float *m, long plane_stride,
                                                                                   long lanes, SK_VECTOR y[4]) {
    SK_VECTOR at[16];
    for (int xi = 0; xi < 16; xi++) at[xi] = SK_NAME(load_part)(m + xi * plane_stride, lanes);
    // Aᵀ·M: rows m0 + m1 + m2 and m1 − m2 − m3 (per column), then the same on the columns.
    SK_VECTOR s0[4], s1[4];
    for (int j = 0; j < 4; j++) {
        s0[j] = at[j] + at[4 + j] + at[8 + j];
        s1[j] = at[4 + j] - at[8 + j] - at[12 + j];
    }
    y[0] = s0[0] + s0[1] + s0[2];
    y[1] = s0[1] - s0[2] - s0[3];
    y[2] = s1[0] + s1[1] + s1[2];
    y[3] = s1[1] - s1[2] - s1[3];
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

SK_TARGET void SK_NAME(sk_winograd_output)(long tiles_y, long tiles_x, long out_height, long out_width,
                                           long channels, long channel_stride, const float *products,
                                           const float *bias, SKActivation activation, bool pool, float *output) {
    const long plane_stride = tiles_y * tiles_x * channel_stride, plane = out_height * out_width;
    for (long ty = 0; ty < tiles_y; ty++) {
        for (long tx = 0; tx < tiles_x; tx++) {
            const float *row = products + (ty * tiles_x + tx) * channel_stride;
            for (long o = 0; o < channels; o += SK_LANES) {
                const long lanes = channels - o < SK_LANES ? channels - o : SK_LANES;
                const SK_VECTOR b = SK_NAME(load_part)(bias + o, lanes);
                SK_VECTOR y[4];
                SK_NAME(tile_outputs)(row + o, plane_stride, lanes, y);
                if (pool) {
                    const SK_VECTOR pooled = __builtin_elementwise_max(__builtin_elementwise_max(y[0], y[1]),
                                                                       __builtin_elementwise_max(y[2], y[3]));
                    SK_NAME(scatter)(output + o * plane + ty * out_width + tx, plane,
                                     SK_NAME(activate)(pooled + b, activation), lanes);
                    continue;
                }
                for (int k = 0; k < 4; k++) {
                    const long yy = 2 * ty + k / 2, xx = 2 * tx + k % 2;
                    if (yy < out_height && xx < out_width)
                        SK_NAME(scatter)(output + o * plane + yy * out_width + xx, plane,
                                         SK_NAME(activate)(y[k] + b, activation), lanes);
                }
            }
        }
    }
}
