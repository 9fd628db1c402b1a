/// @file vbd_simd_sse2.c
/// The lane kernels at W = 4 (SSE2, the x86-64 baseline): vbd_simd_lanes.h, whose opening
/// comment carries the parallelism review P1-P4. Compiled with -ffp-contract=off (CMakeLists.txt).
#define DFM_SIMD_W 4
#define DFM_SIMD_NAME(x) dfm_cpu_simd4_##x
#include "vbd_simd_lanes.h"
