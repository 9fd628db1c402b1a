/// @file dfm_atan2_body.h
/// The body of dfm's atan2 over one float type, written once and included by each instance:
/// dfm_atan2.h (float, host and device code) and kernels/cpu/vbd_simd_lanes.h (the SSE2 and AVX2
/// lanes). Every instance performs the same IEEE operations in the same order (selects instead of
/// branches, one correctly rounded division, no FMA contraction where the includer compiles with
/// it off), so a lane's result is bitwise the scalar one. No include guard: the includer defines
///   DFM_ATAN2_FN           the function's name,
///   DFM_ATAN2_DECL         its qualifiers (DFM_HD, static inline, ...),
///   DFM_ATAN2_T            the value type (float or a vector of floats),
///   DFM_ATAN2_SPLAT(c)     the float constant c as a DFM_ATAN2_T,
///   DFM_ATAN2_SEL(m, a, b) m ? a : b per lane, m a comparison's result,
///   DFM_ATAN2_ABS(a)       |a| (the sign bit cleared),
///   DFM_ATAN2_NEG(a)       a's sign bit is set (a comparison-like mask; -0 and NaNs with the bit count),
///   DFM_ATAN2_COPYSIGN(a, b) a's magnitude with b's sign bit,
/// and this file undefines them.
///
/// Method: t = min(|x|, |y|) / max(|x|, |y|) in [0, 1]; atan(t) = t + t z P(z), z = t^2, P of
/// degree 7 (minimax for the relative error on [0, 1], Remez exchange in double, error 1.7e-8,
/// coefficients then rounded to float); then pi/2 - atan(t) when |y| > |x|, pi - atan(t) when x's
/// sign bit is set, pi/2 + atan(t) when both, and y's sign; pi and pi/2 are added as a float pair
/// (hi + lo, lo last). Max error against
/// the correctly rounded atan2 (double reference): see dfm_atan2.h (measured by tests/energy/test_atan2.c).
/// Special values: atan2(+-0, +0) = +-0, atan2(+-0, -0) = +-pi, one infinite argument as libm, NaN
/// in -> NaN out; both arguments infinite gives NaN (libm: an odd multiple of pi/4).
#if !defined(DFM_ATAN2_FN) || !defined(DFM_ATAN2_DECL) || !defined(DFM_ATAN2_T) || !defined(DFM_ATAN2_SEL) || \
    !defined(DFM_ATAN2_SPLAT) || !defined(DFM_ATAN2_ABS) || !defined(DFM_ATAN2_NEG) || !defined(DFM_ATAN2_COPYSIGN)
#error "define the DFM_ATAN2_* macros before including dfm_atan2_body.h"
#endif

/// atan2(y, x) in rad, in [-pi, pi] (the conventions of the file comment).
DFM_ATAN2_DECL DFM_ATAN2_T DFM_ATAN2_FN(DFM_ATAN2_T y, DFM_ATAN2_T x) {
    const DFM_ATAN2_T ax = DFM_ATAN2_ABS(x), ay = DFM_ATAN2_ABS(y);
    /* Swapped when |y| > |x|; a NaN in either argument lands in mn or mx and so in t. */
    const DFM_ATAN2_T mn = DFM_ATAN2_SEL(ay > ax, ax, ay);
    const DFM_ATAN2_T mx = DFM_ATAN2_SEL(ay > ax, ay, ax);
    const DFM_ATAN2_T t = mn / DFM_ATAN2_SEL(mx == 0.0f, mx + 1.0f, mx); /* 0 / 1 for x = y = 0 */
    const DFM_ATAN2_T z = t * t;
    DFM_ATAN2_T p = z * 2.92069287e-3f - 1.63679304e-2f;
    p = p * z + 4.32118645e-2f;
    p = p * z - 7.55221457e-2f;
    p = p * z + 1.06660048e-1f;
    p = p * z - 1.42110553e-1f;
    p = p * z + 1.99937728e-1f;
    p = p * z - 3.33331527e-1f;
    const DFM_ATAN2_T r = t + t * (z * p); /* atan(t) in [0, pi/4] */
    /* The first-half-plane angle of (|x|, |y|) or of (x, |y|): r, pi/2 - r (swapped), pi - r (x's
     * sign bit set), pi/2 + r (both), the offset as a float pair hi + lo added last. */
    const DFM_ATAN2_T zero = DFM_ATAN2_SPLAT(0.0f);
    const DFM_ATAN2_T hi = DFM_ATAN2_SEL(ay > ax, DFM_ATAN2_SPLAT(1.57079637e+0f),
                                         DFM_ATAN2_SEL(DFM_ATAN2_NEG(x), DFM_ATAN2_SPLAT(3.14159274e+0f), zero));
    const DFM_ATAN2_T lo = DFM_ATAN2_SEL(ay > ax, DFM_ATAN2_SPLAT(-4.37113901e-8f),
                                         DFM_ATAN2_SEL(DFM_ATAN2_NEG(x), DFM_ATAN2_SPLAT(-8.74227801e-8f), zero));
    const DFM_ATAN2_T sr = DFM_ATAN2_SEL((ay > ax) ^ DFM_ATAN2_NEG(x), -r, r);
    return DFM_ATAN2_COPYSIGN((hi + sr) + lo, y);
}

#undef DFM_ATAN2_FN
#undef DFM_ATAN2_DECL
#undef DFM_ATAN2_T
#undef DFM_ATAN2_SEL
#undef DFM_ATAN2_SPLAT
#undef DFM_ATAN2_ABS
#undef DFM_ATAN2_NEG
#undef DFM_ATAN2_COPYSIGN
