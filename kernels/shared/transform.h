/// @file transform.h
/// Rigid transforms (unit quaternion + translation) for shape poses (host and device).
#ifndef DFM_TRANSFORM_H
#define DFM_TRANSFORM_H

#include "vec3.h"

/// Unit quaternion (x, y, z, w).
typedef struct dfm_quat {
    float x, y, z, w;
} dfm_quat;

/// Rigid transform: p_world = q * p_local + t.
typedef struct dfm_xform {
    dfm_v3 t;   ///< Translation, m.
    dfm_quat q; ///< Rotation.
} dfm_xform;

/// Builds a quaternion from components (x, y, z, w).
DFM_HD dfm_quat dfm_quat_make(float x, float y, float z, float w) {
    dfm_quat r;
    r.x = x;
    r.y = y;
    r.z = z;
    r.w = w;
    return r;
}
/// The identity rotation.
DFM_HD dfm_quat dfm_quat_identity(void) { return dfm_quat_make(0.0f, 0.0f, 0.0f, 1.0f); }
/// a * b (apply b first).
DFM_HD dfm_quat dfm_quat_mul(dfm_quat a, dfm_quat b) {
    return dfm_quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                         a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
/// Conjugate (inverse of a unit quaternion).
DFM_HD dfm_quat dfm_quat_conj(dfm_quat a) { return dfm_quat_make(-a.x, -a.y, -a.z, a.w); }
/// Normalized quaternion (identity when the norm is ~0).
DFM_HD dfm_quat dfm_quat_normalize(dfm_quat a) {
    float n = sqrtf(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
    if (!(n > 1e-20f)) return dfm_quat_identity();
    return dfm_quat_make(a.x / n, a.y / n, a.z / n, a.w / n);
}
/// Rotates v by q.
DFM_HD dfm_v3 dfm_quat_rotate(dfm_quat q, dfm_v3 v) {
    dfm_v3 u = dfm_v3_make(q.x, q.y, q.z);
    dfm_v3 t = dfm_v3_scale(dfm_v3_cross(u, v), 2.0f);
    return dfm_v3_add(dfm_v3_add(v, dfm_v3_scale(t, q.w)), dfm_v3_cross(u, t));
}
/// Rotates v by the inverse of q.
DFM_HD dfm_v3 dfm_quat_rotate_inv(dfm_quat q, dfm_v3 v) { return dfm_quat_rotate(dfm_quat_conj(q), v); }
/// Normalized linear interpolation along the shorter arc, s in [0, 1].
DFM_HD dfm_quat dfm_quat_nlerp(dfm_quat a, dfm_quat b, float s) {
    float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    float sb = d < 0.0f ? -s : s;
    return dfm_quat_normalize(dfm_quat_make(a.x * (1.0f - s) + b.x * sb, a.y * (1.0f - s) + b.y * sb,
                                            a.z * (1.0f - s) + b.z * sb, a.w * (1.0f - s) + b.w * sb));
}
/// Applies a transform to a point.
DFM_HD dfm_v3 dfm_xform_point(dfm_xform x, dfm_v3 p) { return dfm_v3_add(dfm_quat_rotate(x.q, p), x.t); }
/// Applies the inverse transform to a point.
DFM_HD dfm_v3 dfm_xform_point_inv(dfm_xform x, dfm_v3 p) { return dfm_quat_rotate_inv(x.q, dfm_v3_sub(p, x.t)); }
/// a * b: first b, then a.
DFM_HD dfm_xform dfm_xform_mul(dfm_xform a, dfm_xform b) {
    dfm_xform r;
    r.q = dfm_quat_mul(a.q, b.q);
    r.t = dfm_xform_point(a, b.t);
    return r;
}
/// Interpolates two transforms (linear translation, nlerp rotation), s in [0, 1].
DFM_HD dfm_xform dfm_xform_lerp(dfm_xform a, dfm_xform b, float s) {
    dfm_xform r;
    r.t = dfm_v3_madd(a.t, dfm_v3_sub(b.t, a.t), s);
    r.q = dfm_quat_nlerp(a.q, b.q, s);
    return r;
}

#endif
