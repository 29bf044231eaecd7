// The stroke model's float32 kernels on this core, to read against its multiply-add peak
// (bench/fma_peak.c): the sgemm of the LSTMs' input projections at their shapes, and one
// direction's recurrence (H = 64: a 256 × 64 product, then the cell update, per step) as
// LSTMKernel.fast runs it, beside its parts: the recurrent products alone (their 64 KB of weights
// from L2, parts of 16 KB in an order that reverses every step), the same products on 16 KB that
// stay in L1 (the floor without L2), and the cell updates alone. The runtime's own AVX-512
// kernels, compiled in. Dev-only.
//
//   clang -O3 -ISources/CKernels -ISources/CKernels/include -o /tmp/stroke_model_kernels bench/stroke_model_kernels.c
//   /tmp/stroke_model_kernels
#define SK_NAME(x) x##_avx512
#define SK_TARGET __attribute__((target("avx512f,fma")))
#define SK_LANES 16
#define SK_GEMM_ROWS 8
#define SK_GEMM_VECTORS 3
#include "vector.h"
#include "gemm_kernel.h"
#include "gemv_kernel.h"
#include "lstm_kernel.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { HIDDEN = 64, GATES = 4 * HIDDEN, STEPS = 128, PART_ROWS = 16 };

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/// The sgemm's packing buffers (the runtime keeps one per thread; here there is one thread).
SKGemmScratch *sk_gemm_scratch(void) {
    static _Alignas(64) SKGemmScratch scratch;
    return &scratch;
}

static float *random_floats(long n) {
    float *p = aligned_alloc(64, (size_t)n * sizeof(float));
    for (long i = 0; i < n; i++) p[i] = ((float)rand() / (float)RAND_MAX - 0.5f) * 0.3f;
    return p;
}

/// What one run computes: the products, the cell updates, or both.
enum work { PRODUCTS = 1, CELLS = 2, BOTH = 3 };

/// One direction over STEPS steps. `l1_only`: every part of the products reads the same 16 KB.
static void recurrence(enum work work, int l1_only, const float *weights, const float *bias, float *gates, float *hidden,
                       float *cell) {
    for (long step = 0; step < STEPS; step++) {
        float *row = gates + step * GATES;
        if ((work & PRODUCTS) && step > 0) {
            const float *previous = hidden + (step - 1) * HIDDEN;
            for (long first = 0; first < HIDDEN; first += PART_ROWS) {
                const long start = l1_only ? 0 : (step & 1) == 0 ? first : HIDDEN - first - PART_ROWS;
                sk_sgemv_columns_avx512(GATES, PART_ROWS, weights + start * GATES, GATES, previous + first, row, 1);
            }
        }
        if (work & CELLS) sk_lstm_update_cell_avx512(row, bias, cell, hidden + step * HIDDEN, HIDDEN);
    }
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return puts("this CPU has no AVX-512"), 1;
    // The input projections: steps (a sketch's median, the model's longest) × 4H·2 gates × inputs.
    const long shapes[][3] = {{38, 512, 96}, {38, 512, 128}, {128, 512, 96}, {128, 512, 128}};
    for (int s = 0; s < 4; s++) {
        const long m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        float *a = random_floats(m * k), *b = random_floats(k * n), *c = random_floats(m * n);
        double best = 1e9;
        for (int repeat = 0; repeat < 2000; repeat++) {
            const double start = seconds();
            sk_sgemm_avx512(m, n, k, a, k, false, b, n, c, n, 0);
            const double elapsed = seconds() - start;
            if (elapsed < best) best = elapsed;
        }
        char name[64];
        snprintf(name, sizeof name, "sgemm %ld steps × %ld gates × %ld inputs", m, n, k);
        printf("%-42s %.1f G multiply-adds per second\n", name, (double)(m * n * k) / best / 1e9);
        free(a), free(b), free(c);
    }
    float *weights = random_floats(GATES * HIDDEN), *bias = random_floats(GATES), *projected = random_floats(STEPS * GATES);
    float *gates = random_floats(STEPS * GATES), *hidden = random_floats(STEPS * HIDDEN), *cell = random_floats(HIDDEN);
    const struct { const char *name; enum work work; int l1_only; } runs[] = {
        {"recurrence as run (products + cells)", BOTH, 0},
        {"products alone", PRODUCTS, 0},
        {"products alone, weights in L1", PRODUCTS, 1},
        {"cell updates alone", CELLS, 0},
    };
    for (int r = 0; r < 4; r++) {
        double best = 1e9;
        for (int repeat = 0; repeat < 300; repeat++) {
            memcpy(gates, projected, sizeof(float) * STEPS * GATES);
            memset(cell, 0, sizeof(float) * HIDDEN);
            const double start = seconds();
            recurrence(runs[r].work, runs[r].l1_only, weights, bias, gates, hidden, cell);
            const double elapsed = seconds() - start;
            if (elapsed < best) best = elapsed;
        }
        printf("%-40s %.3f µs per step\n", runs[r].name, 1e6 * best / STEPS);
    }
    return 0;
}
