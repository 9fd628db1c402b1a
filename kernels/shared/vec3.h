/// @file vec3.h
/// 3-vector of floats and its operations (host and device).
#ifndef DFM_VEC3_H
#define DFM_VEC3_H

#include "dfm_hd.h"

/// A 3-vector in whatever frame and unit the caller uses.
typedef struct dfm_v3 {
    float x, y, z;
} dfm_v3;

/// Builds a vector from its components.
DFM_HD dfm_v3 dfm_v3_make(float x, float y, float z) {
    dfm_v3 r;
    r.x = x;
    r.y = y;
    r.z = z;
    return r;
}
/// Loads a vector from three consecutive floats.
DFM_HD dfm_v3 dfm_v3_load(const float* p) { return dfm_v3_make(p[0], p[1], p[2]); }
/// Stores a vector into three consecutive floats.
DFM_HD void dfm_v3_store(dfm_v3 a, float* p) {
    p[0] = a.x;
    p[1] = a.y;
    p[2] = a.z;
}
/// The zero vector.
DFM_HD dfm_v3 dfm_v3_zero(void) { return dfm_v3_make(0.0f, 0.0f, 0.0f); }
/// a + b.
DFM_HD dfm_v3 dfm_v3_add(dfm_v3 a, dfm_v3 b) { return dfm_v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
/// a - b.
DFM_HD dfm_v3 dfm_v3_sub(dfm_v3 a, dfm_v3 b) { return dfm_v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
/// s * a.
DFM_HD dfm_v3 dfm_v3_scale(dfm_v3 a, float s) { return dfm_v3_make(a.x * s, a.y * s, a.z * s); }
/// a + s * b.
DFM_HD dfm_v3 dfm_v3_madd(dfm_v3 a, dfm_v3 b, float s) {
    return dfm_v3_make(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}
/// -a.
DFM_HD dfm_v3 dfm_v3_neg(dfm_v3 a) { return dfm_v3_make(-a.x, -a.y, -a.z); }
/// Dot product.
DFM_HD float dfm_v3_dot(dfm_v3 a, dfm_v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/// Cross product a x b.
DFM_HD dfm_v3 dfm_v3_cross(dfm_v3 a, dfm_v3 b) {
    return dfm_v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/// Squared length.
DFM_HD float dfm_v3_len2(dfm_v3 a) { return dfm_v3_dot(a, a); }
/// Length.
DFM_HD float dfm_v3_len(dfm_v3 a) { return sqrtf(dfm_v3_dot(a, a)); }
/// a / |a|, or zero when |a| is below 1e-30.
DFM_HD dfm_v3 dfm_v3_normalize(dfm_v3 a) {
    float l = dfm_v3_len(a);
    return l > 1e-30f ? dfm_v3_scale(a, 1.0f / l) : dfm_v3_zero();
}
/// Component i (0, 1 or 2).
DFM_HD float dfm_v3_get(dfm_v3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
/// True when every component is finite.
DFM_HD int dfm_v3_isfinite(dfm_v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

#endif
