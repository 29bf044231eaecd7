// The baseline kernels. SSE2 on x86-64, NEON on arm64 (4-float vectors), FMA only on arm64; sgemm tiles of 4 × 8.
#define SK_NAME(x) x##_baseline
#define SK_TARGET
#define SK_LANES 4
#define SK_GEMM_ROWS 4
#define SK_GEMM_VECTORS 2
#include "vector.h"
#include "gemm_kernel.h"
#include "gemv_kernel.h"
#include "lstm_kernel.h"
#include "winograd_kernel.h"
#include "pool_kernel.h"
#include "depthwise_kernel.h"
