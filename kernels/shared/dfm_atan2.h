/// @file dfm_atan2.h
/// dfm_atan2f: dfm's own float atan2 (host and device code), the instance for float of
/// dfm_atan2_body.h (method and special values there). The CPU hinge angle uses it in the scalar
/// path and, through the same body over vectors, in the SSE2 and AVX2 lanes
/// (kernels/cpu/vbd_simd_lanes.h), so every path computes bitwise the same angle without a libm
/// call (issue 18, slice 3, docs/perf.md). Max error against the correctly rounded atan2: 2 ulp,
/// asserted by tests/energy/test_atan2.c (measured 1.65 ulp over 4 x 10^6 random pairs of every
/// sign and exponent range, 1.51 ulp exhaustively over t = |y| / |x| in [0, 1] with |x| or |y| = 1;
/// glibc 2.36's atan2f on the same pairs: 1.37).
#ifndef DFM_ATAN2_H
#define DFM_ATAN2_H

#include <string.h>

#include "dfm_hd.h"

/// Internal: the sign bit of a as 0 or 1.
DFM_HD int dfm_signbit_(float a) {
    unsigned int u;
    memcpy(&u, &a, sizeof u);
    return (int)(u >> 31);
}

#define DFM_ATAN2_FN dfm_atan2f
#define DFM_ATAN2_DECL DFM_HD
#define DFM_ATAN2_T float
#define DFM_ATAN2_SEL(m, a, b) ((m) ? (a) : (b))
#define DFM_ATAN2_SPLAT(c) (c)
#define DFM_ATAN2_ABS(a) fabsf(a)
#define DFM_ATAN2_NEG(a) dfm_signbit_(a)
#define DFM_ATAN2_COPYSIGN(a, b) copysignf((a), (b))
#include "dfm_atan2_body.h"

#endif
