// The AVX-512 kernels. AVX-512F: sgemm tiles of 8 × 48 in 24 of the 32 zmm registers (the
// channel counts of this project's models are multiples of 48 or of 16).
#if defined(__x86_64__)
#define SK_NAME(x) x##_avx512
#define SK_TARGET __attribute__((target("avx512f,fma")))
#define SK_LANES 16
#define SK_GEMM_ROWS 8
#define SK_GEMM_VECTORS 3
#include "vector.h"
#include "gemm_kernel.h"
#include "gemv_kernel.h"
#include "lstm_kernel.h"
#include "winograd_kernel.h"
#include "pool_kernel.h"
#include "depthwise_kernel.h"
#endif
