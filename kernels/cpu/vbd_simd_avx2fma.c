/// @file vbd_simd_avx2fma.c
/// The lane kernels at W = 8 with FMA contraction (-mavx2 -mfma -ffp-contract=fast,
/// CMakeLists.txt): a second arithmetic order, NOT bitwise the scalar path, only run when asked
/// for (DFM_CPU_SIMD=avx2-fma; vbd_simd.c). It measures what FMA is worth and bounds the
/// difference (tests/cpu/test_cpu_simd_bitwise.c `fma`, docs/perf.md). vbd_simd_lanes.h carries
/// the parallelism review P1-P4.
#define DFM_SIMD_W 8
#define DFM_SIMD_NAME(x) dfm_cpu_simd8f_##x
#include "vbd_simd_lanes.h"
