/// @file mat33.h
/// Row-major 3x3 float matrix and its operations (host and device).
#ifndef DFM_MAT33_H
#define DFM_MAT33_H

#include "vec3.h"

/// A 3x3 matrix, row-major: m[row][col].
typedef struct dfm_m33 {
    float m[3][3];
} dfm_m33;

/// The zero matrix.
DFM_HD dfm_m33 dfm_m33_zero(void) {
    dfm_m33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = 0.0f;
    return r;
}
/// s * identity.
DFM_HD dfm_m33 dfm_m33_diag(float s) {
    dfm_m33 r = dfm_m33_zero();
    r.m[0][0] = r.m[1][1] = r.m[2][2] = s;
    return r;
}
/// Matrix whose columns are c0, c1, c2.
DFM_HD dfm_m33 dfm_m33_from_cols(dfm_v3 c0, dfm_v3 c1, dfm_v3 c2) {
    dfm_m33 r;
    // clang-format off
    r.m[0][0] = c0.x; r.m[0][1] = c1.x; r.m[0][2] = c2.x;
    r.m[1][0] = c0.y; r.m[1][1] = c1.y; r.m[1][2] = c2.y;
    r.m[2][0] = c0.z; r.m[2][1] = c1.z; r.m[2][2] = c2.z;
    // clang-format on
    return r;
}
/// Column j.
DFM_HD dfm_v3 dfm_m33_col(dfm_m33 a, int j) { return dfm_v3_make(a.m[0][j], a.m[1][j], a.m[2][j]); }
/// Row i.
DFM_HD dfm_v3 dfm_m33_row(dfm_m33 a, int i) { return dfm_v3_make(a.m[i][0], a.m[i][1], a.m[i][2]); }
/// a + b.
DFM_HD dfm_m33 dfm_m33_add(dfm_m33 a, dfm_m33 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += b.m[i][j];
    return a;
}
/// s * a.
DFM_HD dfm_m33 dfm_m33_scale(dfm_m33 a, float s) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] *= s;
    return a;
}
/// a + s * (u v^T).
DFM_HD dfm_m33 dfm_m33_add_outer(dfm_m33 a, dfm_v3 u, dfm_v3 v, float s) {
    float uu[3] = {u.x, u.y, u.z}, vv[3] = {v.x, v.y, v.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += s * uu[i] * vv[j];
    return a;
}
/// a * v.
DFM_HD dfm_v3 dfm_m33_mul_v3(dfm_m33 a, dfm_v3 v) {
    return dfm_v3_make(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                       a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                       a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
/// a * b.
DFM_HD dfm_m33 dfm_m33_mul(dfm_m33 a, dfm_m33 b) {
    dfm_m33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
/// a^T.
DFM_HD dfm_m33 dfm_m33_transpose(dfm_m33 a) {
    dfm_m33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[j][i];
    return r;
}
/// Determinant.
DFM_HD float dfm_m33_det(dfm_m33 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/// Cofactor matrix: cof(a) = det(a) * a^-T, computed without dividing.
DFM_HD dfm_m33 dfm_m33_cofactor(dfm_m33 a) {
    dfm_m33 c;
    c.m[0][0] = a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1];
    c.m[0][1] = a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2];
    c.m[0][2] = a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0];
    c.m[1][0] = a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2];
    c.m[1][1] = a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0];
    c.m[1][2] = a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1];
    c.m[2][0] = a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1];
    c.m[2][1] = a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2];
    c.m[2][2] = a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0];
    return c;
}
/// Inverse; returns 0 and leaves *out untouched when |det| <= min_abs_det.
DFM_HD int dfm_m33_inverse(dfm_m33 a, float min_abs_det, dfm_m33* out) {
    float d = dfm_m33_det(a);
    if (!(fabsf(d) > min_abs_det)) return 0;
    *out = dfm_m33_scale(dfm_m33_transpose(dfm_m33_cofactor(a)), 1.0f / d);
    return 1;
}
/// Trace.
DFM_HD float dfm_m33_trace(dfm_m33 a) { return a.m[0][0] + a.m[1][1] + a.m[2][2]; }

#endif
