/// @file vbd_simd_avx2.c
/// The lane kernels at W = 8 (AVX2): vbd_simd_lanes.h, whose opening comment carries the
/// parallelism review P1-P4. Compiled with -mavx2 -mfma -ffp-contract=off (CMakeLists.txt): the
/// FMA units are not used, so every lane's arithmetic is the scalar path's; only called when the
/// CPU reports AVX2 and FMA (vbd_simd.c).
#define DFM_SIMD_W 8
#define DFM_SIMD_NAME(x) dfm_cpu_simd8_##x
#include "vbd_simd_lanes.h"
