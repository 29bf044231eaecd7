// Checks every kernel of Sources/CKernels against plain C written from its documented contract, in
// each variant this CPU runs. It exists for the CPUs the Swift tests cannot reach from here:
// scripts/check-arm64-kernels.sh builds it and the kernels for arm64 and runs it under qemu. Exits
// 1 and names the kernel on the first mismatch.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../Sources/CKernels/include/CKernels.h"

static int failures = 0;
static unsigned long long seed = 88172645463325252ULL;

/// A float in [-1, 1) from xorshift64, the same on every CPU.
static float next_random(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (float)(seed >> 40) / (float)(1 << 23) - 1.0f;
}

static float *random_floats(long n) {
    float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (long i = 0; i < n; i++) v[i] = next_random();
    return v;
}

/// Compares `got` with `want` within `tolerance` relative to the larger magnitude (at least 1).
static void expect_close(const char *what, const float *got, const float *want, long n, float tolerance) {
    for (long i = 0; i < n; i++) {
        const float scale = fmaxf(1.0f, fmaxf(fabsf(got[i]), fabsf(want[i])));
        if (!(fabsf(got[i] - want[i]) <= tolerance * scale)) {
            printf("FAIL %s [%s]: element %ld is %.8g, expected %.8g\n", what, sk_variant_name(sk_variant()), i,
                   (double)got[i], (double)want[i]);
            failures++;
            return;
        }
    }
}

static float activate(float v, SKActivation activation) {
    if (activation == SKActivationNone) return v;
    v = v > 0 ? v : 0;
    return activation == SKActivationReLU6 && v > 6 ? 6 : v;
}

static void check_sgemm(long m, long n, long k, bool transpose_a, float beta) {
    float *a = random_floats(m * k), *b = random_floats(k * n), *c = random_floats(m * n);
    float *want = malloc(sizeof(float) * (size_t)(m * n));
    for (long i = 0; i < m; i++) {
        for (long j = 0; j < n; j++) {
            double sum = beta == 0 ? 0 : (double)beta * c[i * n + j];
            for (long p = 0; p < k; p++) sum += (double)(transpose_a ? a[p * m + i] : a[i * k + p]) * b[p * n + j];
            want[i * n + j] = (float)sum;
        }
    }
    sk_sgemm(m, n, k, a, transpose_a ? m : k, transpose_a, b, n, c, n, beta);
    char what[64];
    snprintf(what, sizeof what, "sk_sgemm %ldx%ldx%ld%s", m, n, k, transpose_a ? " transposed" : "");
    expect_close(what, c, want, m * n, 1e-4f);
    free(a), free(b), free(c), free(want);
}

static void check_sgemv_columns(long m, long n, float beta) {
    float *a = random_floats(m * n), *x = random_floats(n), *y = random_floats(m);
    float *want = malloc(sizeof(float) * (size_t)m);
    for (long i = 0; i < m; i++) {
        double sum = beta == 0 ? 0 : (double)beta * y[i];
        for (long p = 0; p < n; p++) sum += (double)a[p * m + i] * x[p];
        want[i] = (float)sum;
    }
    sk_sgemv_columns(m, n, a, m, x, y, beta);
    expect_close("sk_sgemv_columns", y, want, m, 1e-4f);
    free(a), free(x), free(y), free(want);
}

/// Every other input zero, and the weight rows of those NaN: they must not be read.
static void check_sgemv_nonzero_columns(long m, long n) {
    float *a = random_floats(m * n), *x = random_floats(n), *y = random_floats(m);
    float *want = malloc(sizeof(float) * (size_t)m);
    for (long p = 0; p < n; p += 2) {
        x[p] = 0;
        for (long i = 0; i < m; i++) a[p * m + i] = NAN;
    }
    for (long i = 0; i < m; i++) {
        double sum = 0;
        for (long p = 1; p < n; p += 2) sum += (double)a[p * m + i] * x[p];
        want[i] = (float)sum;
    }
    sk_sgemv_nonzero_columns(m, n, a, m, x, y);
    expect_close("sk_sgemv_nonzero_columns", y, want, m, 1e-4f);
    free(a), free(x), free(y), free(want);
}

/// `Aᵀ·x` of Winograd F(tile×tile, 3×3), from its matrix: 2 or 4 values from tile + 2.
static void winograd_a_transpose(int tile, const float *x, long step, float *out) {
    static const float a2[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    static const float a4[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
    for (int i = 0; i < tile; i++) {
        float sum = 0;
        for (int k = 0; k < tile + 2; k++) sum += (tile == 2 ? a2[i][k] : a4[i][k]) * x[k * step];
        out[i] = sum;
    }
}

static void check_winograd_output(long tile, long tiles_y, long tiles_x, long out_height, long out_width,
                                  long channels, bool pool, SKActivation activation) {
    const long stride = channels + 3, rows = tiles_y * tiles_x, side = tile + 2, plane_stride = rows * stride + 5;
    float *products = random_floats(side * side * plane_stride), *bias = random_floats(channels);
    float *got = calloc((size_t)(channels * out_height * out_width), sizeof(float));
    float *want = calloc((size_t)(channels * out_height * out_width), sizeof(float));
    for (long ty = 0; ty < tiles_y; ty++) {
        for (long tx = 0; tx < tiles_x; tx++) {
            for (long c = 0; c < channels; c++) {
                float m[6][6], t[4][6], y[4][4];
                for (long xi = 0; xi < side * side; xi++)
                    m[xi / side][xi % side] = products[xi * plane_stride + (ty * tiles_x + tx) * stride + c];
                float column[4];
                for (int j = 0; j < side; j++) {  // Aᵀ·M
                    winograd_a_transpose((int)tile, &m[0][j], 6, column);
                    for (int i = 0; i < tile; i++) t[i][j] = column[i];
                }
                for (int i = 0; i < tile; i++) winograd_a_transpose((int)tile, t[i], 1, y[i]);  // ·A
                const long per_tile = pool ? tile / 2 : tile;
                for (int i = 0; i < per_tile; i++) {
                    for (int j = 0; j < per_tile; j++) {
                        const long oy = ty * per_tile + i, ox = tx * per_tile + j;
                        if (oy >= out_height || ox >= out_width) continue;
                        const float value = pool ? fmaxf(fmaxf(y[2 * i][2 * j], y[2 * i][2 * j + 1]),
                                                         fmaxf(y[2 * i + 1][2 * j], y[2 * i + 1][2 * j + 1]))
                                                 : y[i][j];
                        want[(c * out_height + oy) * out_width + ox] = activate(value + bias[c], activation);
                    }
                }
            }
        }
    }
    sk_winograd_output(tile, tiles_y, tiles_x, out_height, out_width, channels, stride, plane_stride, products, bias,
                       activation, pool, got);
    char what[64];
    snprintf(what, sizeof what, "sk_winograd_output F(%ld)%s", tile, pool ? " pooled" : "");
    expect_close(what, got, want, channels * out_height * out_width, 1e-4f);
    free(products), free(bias), free(got), free(want);
}

static void check_max_pool(long channels, long height, long width, SKActivation activation) {
    float *x = random_floats(channels * height * width), *bias = random_floats(channels);
    const long oh = height / 2, ow = width / 2;
    float *got = malloc(sizeof(float) * (size_t)(channels * oh * ow + 1)), *want = malloc(sizeof(float) * (size_t)(channels * oh * ow + 1));
    for (long c = 0; c < channels; c++) {
        for (long y = 0; y < oh; y++) {
            for (long x2 = 0; x2 < ow; x2++) {
                const float *p = x + (c * height + 2 * y) * width + 2 * x2;
                const float top = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[width], p[width + 1]));
                want[(c * oh + y) * ow + x2] = activate(top + bias[c], activation);
            }
        }
    }
    sk_max_pool_2x2_bias(x, channels, height, width, bias, activation, got);
    expect_close("sk_max_pool_2x2_bias", got, want, channels * oh * ow, 0);
    free(x), free(bias), free(got), free(want);
}

static void check_depthwise(long stride, long kernel, long out_height, long out_width, SKActivation activation) {
    const long padded_height = (out_height - 1) * stride + kernel, padded_width = (out_width - 1) * stride + kernel;
    const long phase_width = (padded_width + stride - 1) / stride, phase_count = padded_height * phase_width;
    float *input = random_floats(padded_height * padded_width), *filter = random_floats(kernel * kernel);
    float *phases = calloc((size_t)(stride * phase_count), sizeof(float));
    for (long y = 0; y < padded_height; y++) {
        for (long x = 0; x < padded_width; x++) phases[(x % stride) * phase_count + y * phase_width + x / stride] = input[y * padded_width + x];
    }
    float *got = malloc(sizeof(float) * (size_t)(out_height * out_width)), *want = malloc(sizeof(float) * (size_t)(out_height * out_width));
    const float bias = 0.25f;
    for (long y = 0; y < out_height; y++) {
        for (long x = 0; x < out_width; x++) {
            double sum = bias;
            for (long i = 0; i < kernel; i++) {
                for (long j = 0; j < kernel; j++) sum += (double)filter[i * kernel + j] * input[(y * stride + i) * padded_width + x * stride + j];
            }
            want[y * out_width + x] = activate((float)sum, activation);
        }
    }
    sk_depthwise_channel(phases, phase_width, phase_count, stride, kernel, out_height, out_width, filter, bias, activation, got);
    expect_close("sk_depthwise_channel", got, want, out_height * out_width, 1e-5f);
    free(input), free(filter), free(phases), free(got), free(want);
}

static float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

static void check_lstm_cell(long count) {
    float *gates = random_floats(4 * count), *bias = random_floats(4 * count), *cell = random_floats(count);
    float *hidden = malloc(sizeof(float) * (size_t)count), *want_cell = malloc(sizeof(float) * (size_t)count);
    float *want_hidden = malloc(sizeof(float) * (size_t)count);
    for (long u = 0; u < count; u++) {
        for (long g = 0; g < 4; g++) gates[g * count + u] *= 4;  // past the linear middle of σ and tanh
        const float i = sigmoid(gates[u] + bias[u]), f = sigmoid(gates[count + u] + bias[count + u]);
        const float g = tanhf(gates[2 * count + u] + bias[2 * count + u]), o = sigmoid(gates[3 * count + u] + bias[3 * count + u]);
        want_cell[u] = f * cell[u] + i * g;
        want_hidden[u] = o * tanhf(want_cell[u]);
    }
    sk_lstm_update_cell(gates, bias, cell, hidden, count);
    expect_close("sk_lstm_update_cell (cell)", cell, want_cell, count, 1e-6f);
    expect_close("sk_lstm_update_cell (hidden)", hidden, want_hidden, count, 1e-6f);
    free(gates), free(bias), free(cell), free(hidden), free(want_cell), free(want_hidden);
}

/// Symmetric int8 weights of `count` values and their scale.
static float random_int8(int8_t *w, long count) {
    for (long i = 0; i < count; i++) w[i] = (int8_t)lrintf(next_random() * 127);
    return 0.01f;
}

/// `x[0..<n]` in unsigned bytes as the int8 kernels document it, one value at a time: over
/// `[min(x, 0), max(x, 0)]` (NaN left out), `q = clamp(round(x · (1 / scale)) + zero_point, 0, 255)`
/// (ties to even; NaN counts as −2²²); `q[n..<padded]` = zero_point. Returns the scale.
static float quantize_uint8(const float *x, long n, long padded, uint8_t *q, int32_t *zero_point) {
    float low = 0, high = 0;
    for (long p = 0; p < n; p++) {
        low = x[p] < low ? x[p] : low;
        high = x[p] > high ? x[p] : high;
    }
    const float scale = high > low ? (high - low) / 255 : 1;
    const float inverse = 1 / scale;
    *zero_point = (int32_t)nearbyintf(-low * inverse);
    for (long p = 0; p < n; p++) {
        const float scaled = x[p] * inverse;
        const long value = (isnan(scaled) ? -4194304 : lrintf(scaled)) + *zero_point;
        q[p] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
    for (long p = n; p < padded; p++) q[p] = (uint8_t)*zero_point;
    return scale;
}

/// `sk_quantize_uint8` on `n` random values, with a NaN and a −0 among them when there is room.
static void check_quantize(long n) {
    float *x = random_floats(n);
    if (n > 20) x[3] = NAN, x[17] = -0.0f;
    uint8_t *got = malloc((size_t)(n > 0 ? n : 1)), *want = malloc((size_t)(n > 0 ? n : 1));
    int32_t got_zero = -1, want_zero;
    const float got_scale = sk_quantize_uint8(x, n, n, got, &got_zero), want_scale = quantize_uint8(x, n, n, want, &want_zero);
    if (got_scale != want_scale || got_zero != want_zero || memcmp(got, want, (size_t)n) != 0) {
        printf("FAIL sk_quantize_uint8 of %ld [%s]\n", n, sk_variant_name(sk_variant()));
        failures++;
    }
    free(x), free(got), free(want);
}

static void check_dense_int8(long m, long n) {
    const long ldw = (n + 63) / 64 * 64;
    int8_t *w = calloc((size_t)(m * ldw), 1);
    float *scale = malloc(sizeof(float) * (size_t)m), *x = random_floats(n), *got = malloc(sizeof(float) * (size_t)m);
    float *want = malloc(sizeof(float) * (size_t)m);
    int32_t *sum = calloc((size_t)m, sizeof(int32_t)), *sums = malloc(sizeof(int32_t) * (size_t)m);
    uint8_t *xq = malloc((size_t)ldw), *ref_q = malloc((size_t)ldw);
    for (long i = 0; i < m; i++) {
        scale[i] = random_int8(w + i * ldw, n) * (float)(i + 1);
        for (long p = 0; p < n; p++) sum[i] += w[i * ldw + p];
    }
    int32_t zero;
    const float x_scale = quantize_uint8(x, n, ldw, ref_q, &zero);
    for (long i = 0; i < m; i++) {
        long long exact = 0;
        for (long p = 0; p < n; p++) exact += (long long)(ref_q[p] - zero) * w[i * ldw + p];
        want[i] = (float)exact * (x_scale * scale[i]);
    }
    sk_dense_int8(m, n, w, ldw, scale, sum, x, xq, sums, got);
    expect_close("sk_dense_int8", got, want, m, 1e-6f);
    free(w), free(scale), free(x), free(got), free(want), free(sum), free(sums), free(xq), free(ref_q);
}

static void check_gemm_int8(long m, long n, long k, bool accumulate) {
    const long np = (n + 15) / 16 * 16, groups = (k + 3) / 4;
    int8_t *columns = malloc((size_t)(k * n)), *w = calloc((size_t)(groups * np * 4), 1);
    float *scale = malloc(sizeof(float) * (size_t)n), *x = random_floats(m * k), *y = random_floats(m * n);
    float *want = malloc(sizeof(float) * (size_t)(m * n));
    int32_t *sum = calloc((size_t)n, sizeof(int32_t)), *acc = malloc(sizeof(int32_t) * (size_t)(4 * np));
    uint8_t *xq = malloc((size_t)(4 * groups * 4)), *ref_q = malloc((size_t)(groups * 4));
    for (long j = 0; j < n; j++) {
        scale[j] = random_int8(columns + j * k, k) * (float)(j % 5 + 1);
        for (long p = 0; p < k; p++) {
            w[((p / 4) * np + j) * 4 + p % 4] = columns[j * k + p];
            sum[j] += columns[j * k + p];
        }
    }
    for (long r = 0; r < m; r++) {
        int32_t zero;
        const float x_scale = quantize_uint8(x + r * k, k, groups * 4, ref_q, &zero);
        for (long j = 0; j < n; j++) {
            long long exact = 0;
            for (long p = 0; p < k; p++) exact += (long long)(ref_q[p] - zero) * columns[j * k + p];
            const float product = (float)exact * (x_scale * scale[j]);
            want[r * n + j] = accumulate ? y[r * n + j] + product : product;
        }
    }
    sk_gemm_int8(m, n, k, x, k, w, np, scale, sum, xq, acc, y, n, accumulate);
    char what[64];
    snprintf(what, sizeof what, "sk_gemm_int8 %ldx%ldx%ld%s", m, n, k, accumulate ? " accumulating" : "");
    expect_close(what, y, want, m * n, 1e-6f);
    free(columns), free(w), free(scale), free(x), free(y), free(want), free(sum), free(acc), free(xq), free(ref_q);
}

/// Rows gathered from one quantized tensor (as an int8 convolution's patches are): `m` rows of `k`
/// bytes, `ldq` apart, with one scale and zero point.
static void check_gemm_uint8(long m, long n, long k) {
    const long np = (n + 15) / 16 * 16, groups = (k + 3) / 4, ldq = groups * 4 + 4;
    int8_t *columns = malloc((size_t)(k * n)), *w = calloc((size_t)(groups * np * 4), 1);
    float *scale = malloc(sizeof(float) * (size_t)n), *x = random_floats(m * k), *y = malloc(sizeof(float) * (size_t)(m * n));
    float *want = malloc(sizeof(float) * (size_t)(m * n));
    int32_t *sum = calloc((size_t)n, sizeof(int32_t)), *acc = malloc(sizeof(int32_t) * (size_t)(4 * np));
    uint8_t *tensor = malloc((size_t)(m * k + 1)), *xq = calloc((size_t)(m * ldq), 1);
    for (long j = 0; j < n; j++) {
        scale[j] = random_int8(columns + j * k, k) * (float)(j % 5 + 1);
        for (long p = 0; p < k; p++) {
            w[((p / 4) * np + j) * 4 + p % 4] = columns[j * k + p];
            sum[j] += columns[j * k + p];
        }
    }
    int32_t zero;
    const float x_scale = quantize_uint8(x, m * k, m * k, tensor, &zero);
    for (long r = 0; r < m; r++) {
        memcpy(xq + r * ldq, tensor + r * k, (size_t)k);
        for (long j = 0; j < n; j++) {
            long long exact = 0;
            for (long p = 0; p < k; p++) exact += (long long)(tensor[r * k + p] - zero) * columns[j * k + p];
            want[r * n + j] = (float)exact * (x_scale * scale[j]);
        }
    }
    sk_gemm_uint8(m, n, k, xq, ldq, zero, x_scale, w, np, scale, sum, acc, y, n);
    char what[64];
    snprintf(what, sizeof what, "sk_gemm_uint8 %ldx%ldx%ld", m, n, k);
    expect_close(what, y, want, m * n, 1e-6f);
    free(columns), free(w), free(scale), free(x), free(y), free(want), free(sum), free(acc), free(tensor), free(xq);
}

static void check_every_kernel(void) {
    const long sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {16, 16, 16}, {17, 33, 9}, {64, 96, 80}, {5, 130, 67}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        check_sgemm(sizes[s][0], sizes[s][1], sizes[s][2], false, 0);
        check_sgemm(sizes[s][0], sizes[s][1], sizes[s][2], true, 1);
        check_sgemv_columns(sizes[s][0], sizes[s][2], 0);
        check_sgemv_columns(sizes[s][0], sizes[s][2], 1);
        check_sgemv_nonzero_columns(sizes[s][0] * 5, sizes[s][2] * 20);
        check_gemm_int8(sizes[s][0], sizes[s][1], sizes[s][2], false);
        check_gemm_int8(sizes[s][0], sizes[s][1], sizes[s][2], true);
        check_gemm_uint8(sizes[s][0], sizes[s][1], sizes[s][2]);
        check_dense_int8(sizes[s][0], sizes[s][2] * 3);
        check_quantize(sizes[s][2] * 5);
    }
    check_winograd_output(2, 4, 4, 7, 7, 19, false, SKActivationReLU);
    check_winograd_output(2, 3, 5, 3, 5, 32, true, SKActivationNone);
    check_winograd_output(4, 2, 2, 7, 7, 19, false, SKActivationReLU6);
    check_winograd_output(4, 4, 3, 7, 5, 33, true, SKActivationReLU);
    check_max_pool(5, 9, 14, SKActivationReLU6);
    check_max_pool(33, 28, 28, SKActivationReLU);
    check_depthwise(1, 3, 9, 13, SKActivationReLU6);
    check_depthwise(2, 5, 7, 6, SKActivationNone);
    check_lstm_cell(1);
    check_lstm_cell(37);
    check_lstm_cell(256);
}

int main(void) {
    int variants = 0;
    for (SKVariant variant = SKVariantBaseline; variant <= SKVariantAVX512; variant++) {
        if (!sk_force_variant(variant)) continue;
        check_every_kernel();
        printf("%s: every kernel checked%s\n", sk_variant_name(variant), failures ? " (failures above)" : "");
        variants++;
    }
    return failures || variants == 0 ? 1 : 0;
}
