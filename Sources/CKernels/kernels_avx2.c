// The AVX2 + FMA kernels: sgemm tiles of 6 × 16 in 12 of the 16 ymm registers.
#if defined(__x86_64__)
#define SK_NAME(x) x##_avx2
#define SK_TARGET __attribute__((target("avx2,fma")))
#define SK_LANES 8
#define SK_GEMM_ROWS 6
#define SK_GEMM_VECTORS 2
#include "vector.h"
#include "gemm_kernel.h"
#include "gemv_kernel.h"
#include "lstm_kernel.h"
#include "winograd_kernel.h"
#include "pool_kernel.h"
#include "depthwise_kernel.h"
#endif
