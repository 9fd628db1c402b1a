/// @file vbd_bending.h
/// Dihedral-angle bending of one hinge (two triangles sharing an edge), for the per-vertex VBD
/// solve (host and device).
///
/// Math (Newton's VBD conventions; Chen et al. 2024, Vertex Block Descent). A hinge row
/// [o0, o1, v0, v1] maps to x0 = o0, x1 = o1, x2 = v0, x3 = v1, with edge e = x3 - x2 and normals
///   n1 = (x2 - x0) x (x3 - x0),   n2 = (x3 - x1) x (x2 - x1),
///   theta = atan2((n1^ x n2^) . e^, n1^ . n2^)            (0 for a flat hinge, in (-pi, pi]),
/// atan2 being dfm_atan2f on the host (dfm_atan2.h, max 2 ulp; no libm call) and CUDA's atan2f on
/// the device.
/// Energy E = 1/2 k (theta - theta0)^2 with k = ke * L0 (rest edge length; not Grinspun's
/// 3|e|^2/A weighting). The angle gradient is used in closed form:
///   dtheta/dx0 = -|e| n1 / |n1|^2,   dtheta/dx1 = -|e| n2 / |n2|^2,
///   dtheta/dx2 = -((1 - t0) dtheta/dx0 + (1 - t1) dtheta/dx1),
///   dtheta/dx3 = -(t0 dtheta/dx0 + t1 dtheta/dx1),   tk = (xk - x2) . e / |e|^2,
/// which equals the chain rule through the normalised normals in Newton's kernel. The Hessian is
/// Gauss-Newton, k (dtheta)(dtheta)^T (the k (theta - theta0) d2theta term is dropped), so it is PSD
/// and exact at theta = theta0. Damping is absolute: with thetan the angle at the step start and
/// dtheta = wrap(theta - thetan) in (-pi, pi], the dissipation kd L0 / (2h) dtheta^2 gives the force
/// -kd L0 (dtheta / h) dtheta/dx and the Hessian (kd L0 / h) (dtheta/dx)(dtheta/dx)^T.
///
/// Degeneracy is scale-aware (deliberate deviation from Newton's absolute 1e-6 on |n1|, |n2|, |e|,
/// which depends on the scene's length unit): with s2 the largest squared length among the five
/// hinge edges, a hinge is degenerate when |n1| or |n2| <= 1e-6 * s2 (a triangle whose height is
/// below ~1e-6 of its size, close to float rounding), when |e|^2 <= 1e-12 * s2, or when anything
/// is not finite. At unit scale this matches Newton's threshold.
#ifndef DFM_VBD_BENDING_H
#define DFM_VBD_BENDING_H

#include "dfm_atan2.h"
#include "mat33.h"

/// Internal: the intermediate vectors of one hinge evaluation (dfm_bending_hinge_).
typedef struct dfm_hinge_ {
    dfm_v3 e, a0, b1; ///< x3 - x2, x2 - x0, x2 - x1.
    dfm_v3 n1h, n2h;  ///< The two wings' unit normals.
    float le2, le;    ///< |e|^2 and |e|.
    float ln1, ln2;   ///< |n1|, |n2| (unnormalised normals).
} dfm_hinge_;

/// Internal: the hinge angle and the vectors its gradient needs (the file comment's formulas).
/// Returns 1 and fills *g and *theta for a non-degenerate hinge, 0 (outputs untouched) otherwise.
DFM_HD int dfm_bending_hinge_(const dfm_v3 x[4], dfm_hinge_* g, float* theta) {
    dfm_v3 e = dfm_v3_sub(x[3], x[2]);
    dfm_v3 a0 = dfm_v3_sub(x[2], x[0]);
    dfm_v3 b0 = dfm_v3_sub(x[3], x[0]);
    dfm_v3 a1 = dfm_v3_sub(x[3], x[1]);
    dfm_v3 b1 = dfm_v3_sub(x[2], x[1]);
    float le2 = dfm_v3_len2(e);
    float s2 = dfm_fmaxf(dfm_fmaxf(le2, dfm_v3_len2(a0)),
                         dfm_fmaxf(dfm_fmaxf(dfm_v3_len2(b0), dfm_v3_len2(a1)), dfm_v3_len2(b1)));
    if (!isfinite(s2) || !(s2 > 0.0f)) return 0;
    dfm_v3 n1 = dfm_v3_cross(a0, b0);
    dfm_v3 n2 = dfm_v3_cross(a1, b1);
    float ln1 = dfm_v3_len(n1);
    float ln2 = dfm_v3_len(n2);
    float tol = 1e-6f * s2;
    if (!(ln1 > tol) || !(ln2 > tol) || !(le2 > 1e-12f * s2)) return 0;
    float le = sqrtf(le2);
    dfm_v3 n1h = dfm_v3_scale(n1, 1.0f / ln1);
    dfm_v3 n2h = dfm_v3_scale(n2, 1.0f / ln2);
    dfm_v3 eh = dfm_v3_scale(e, 1.0f / le);
#if defined(__CUDA_ARCH__)
    /* The device keeps CUDA's atan2f (its arithmetic unchanged by issue 18, slice 3; 3 ulp in the
     * CUDA programming guide's table, dfm_atan2f 2): CPU/CUDA parity is compared by bounds. */
    float th = atan2f(dfm_v3_dot(dfm_v3_cross(n1h, n2h), eh), dfm_v3_dot(n1h, n2h));
#else
    /* dfm's atan2 (dfm_atan2.h, max 2 ulp): no libm call, and the CPU lanes compute the same body
     * over vectors, so the scalar path and every lane width agree bitwise (docs/perf.md, issue 18
     * slice 3). */
    float th = dfm_atan2f(dfm_v3_dot(dfm_v3_cross(n1h, n2h), eh), dfm_v3_dot(n1h, n2h));
#endif
    if (!isfinite(th)) return 0;
    g->e = e;
    g->a0 = a0;
    g->b1 = b1;
    g->n1h = n1h;
    g->n2h = n2h;
    g->le2 = le2;
    g->le = le;
    g->ln1 = ln1;
    g->ln2 = ln2;
    *theta = th;
    return 1;
}

/// Internal: the angle gradient of hinge vertex vi (0..3) from dfm_bending_hinge_'s vectors:
/// dtheta/dx0 = -|e| n1 / |n1|^2, dtheta/dx1 = -|e| n2 / |n2|^2 (the file comment's closed form),
/// the two others from those and t0, t1. Only what vertex vi needs is computed (a visit of the
/// per-vertex solve uses one vertex's gradient), with the same operations as the four together.
DFM_HD dfm_v3 dfm_bending_grad_vertex_(const dfm_hinge_* g, int vi) {
#if defined(__CUDA_ARCH__)
    /* On the GPU all four are computed and one is selected: the threads of a warp visit different
     * corners, and the early returns below diverge (H200, session 10, docs/perf.md: cloth-lift's
     * solve 33.6 ms per step with the select and eager loads, 34.3 ms with the branches and lazy
     * loads). The same operations, so bitwise the same gradient. */
    dfm_v3 g0 = dfm_v3_scale(g->n1h, -g->le / g->ln1);
    dfm_v3 g1 = dfm_v3_scale(g->n2h, -g->le / g->ln2);
    float t0 = -dfm_v3_dot(g->a0, g->e) / g->le2;
    float t1 = -dfm_v3_dot(g->b1, g->e) / g->le2;
    dfm_v3 g2 = dfm_v3_neg(dfm_v3_add(dfm_v3_scale(g0, 1.0f - t0), dfm_v3_scale(g1, 1.0f - t1)));
    dfm_v3 g3 = dfm_v3_neg(dfm_v3_add(dfm_v3_scale(g0, t0), dfm_v3_scale(g1, t1)));
    return vi == 0 ? g0 : (vi == 1 ? g1 : (vi == 2 ? g2 : g3));
#else
    if (vi == 0) return dfm_v3_scale(g->n1h, -g->le / g->ln1);
    dfm_v3 g1 = dfm_v3_scale(g->n2h, -g->le / g->ln2);
    if (vi == 1) return g1;
    dfm_v3 g0 = dfm_v3_scale(g->n1h, -g->le / g->ln1);
    float t0 = -dfm_v3_dot(g->a0, g->e) / g->le2; /* (x0 - x2) . e / |e|^2 */
    float t1 = -dfm_v3_dot(g->b1, g->e) / g->le2; /* (x1 - x2) . e / |e|^2 */
    if (vi == 2) return dfm_v3_neg(dfm_v3_add(dfm_v3_scale(g0, 1.0f - t0), dfm_v3_scale(g1, 1.0f - t1)));
    return dfm_v3_neg(dfm_v3_add(dfm_v3_scale(g0, t0), dfm_v3_scale(g1, t1)));
#endif
}

/// Internal: hinge geometry. Returns 1 and fills the angle and the angle gradient of all four
/// vertices when the hinge is non-degenerate, 0 (outputs untouched) otherwise. grad may be NULL.
DFM_HD int dfm_bending_geom_(const dfm_v3 x[4], float* theta, dfm_v3 grad[4]) {
    dfm_hinge_ g;
    if (!dfm_bending_hinge_(x, &g, theta)) return 0;
    if (grad)
        for (int k = 0; k < 4; ++k) grad[k] = dfm_bending_grad_vertex_(&g, k);
    return 1;
}

/// Dihedral angle of the hinge in rad, in (-pi, pi], using the convention of the file comment
/// (x[0] = o0, x[1] = o1, x[2] = v0, x[3] = v1; positions in m, any frame). Returns 0 when the
/// hinge is degenerate (scale-aware test of the file comment).
DFM_HD float dfm_dihedral_angle(const dfm_v3 x[4]) {
    float th = 0.0f;
    if (!dfm_bending_geom_(x, &th, (dfm_v3*)0)) return 0.0f;
    return th;
}

/// Bending energy in J: 1/2 ke L0 (theta - rest_angle)^2, with x in m (x[0] = o0, x[1] = o1,
/// x[2] = v0, x[3] = v1), rest_angle in rad (same convention as dfm_dihedral_angle, no wrapping),
/// rest_length L0 in m and ke in N (= J/m; Newton's edge_ke). Returns 0 for a degenerate hinge,
/// which contributes nothing (consistent with dfm_bending_force_hessian).
DFM_HD float dfm_bending_energy(const dfm_v3 x[4], float rest_angle, float rest_length, float ke) {
    float th = 0.0f;
    if (!dfm_bending_geom_(x, &th, (dfm_v3*)0)) return 0.0f;
    float d = th - rest_angle;
    return 0.5f * ke * rest_length * d * d;
}

/// Angle of the hinge at the step start, for dfm_bending_force_hessian_thn: the angle in rad, or
/// NaN when that hinge is degenerate (then no damping is added).
DFM_HD float dfm_bending_start_angle(const dfm_v3 xn[4]) {
    float th = 0.0f;
    if (!dfm_bending_geom_(xn, &th, (dfm_v3*)0)) return NAN;
    return th;
}

/// The hinge's coefficients that stay constant over an advance, for
/// dfm_bending_force_hessian_coef (P3: once per hinge and advance instead of once per visit):
/// coef[0] = k = ke * rest_length in N*m, coef[1] = kd * rest_length / h in N*m (0 when kd == 0 or
/// h <= 0: no damping). rest_length in m, ke in N, kd in N*s, h in s.
DFM_HD void dfm_bending_coef(float rest_length, float ke, float kd, float h, float coef[2]) {
    coef[0] = ke * rest_length;
    coef[1] = 0.0f;
    if (kd != 0.0f && h > 0.0f) coef[1] = kd * rest_length / h;
}

/// dfm_bending_force_hessian_thn with the coefficients from dfm_bending_coef (bitwise the same
/// result; damping is added when coef[1] != 0 and thn is not NaN).
DFM_HD void dfm_bending_force_hessian_coef(const dfm_v3 x[4], float thn, float rest_angle, const float coef[2], int vi,
                                           dfm_v3* f, dfm_m33* H) {
    if (vi < 0 || vi > 3) return;
    float th = 0.0f;
    dfm_hinge_ hg;
    if (!dfm_bending_hinge_(x, &hg, &th)) return;
    dfm_v3 g = dfm_bending_grad_vertex_(&hg, vi);
    const float k = coef[0], kdl = coef[1];
    float c = k * (th - rest_angle); /* dE/dtheta */
    float hc = k;
    if (kdl != 0.0f && !isnan(thn)) {
        const float pi = 3.14159265358979f;
        float d = th - thn;
        if (d > pi)
            d -= 2.0f * pi;
        else if (d <= -pi)
            d += 2.0f * pi;
        c += kdl * d;
        hc += kdl;
    }
    *f = dfm_v3_madd(*f, g, -c);
    *H = dfm_m33_add_outer(*H, g, g, hc);
}

/// dfm_bending_force_hessian with the step-start angle `thn` given (from
/// dfm_bending_start_angle, NaN = degenerate) instead of recomputed from the step-start
/// positions: the angle is computed once per hinge and advance instead of once per incident
/// vertex and iteration (bitwise the same result).
DFM_HD void dfm_bending_force_hessian_thn(const dfm_v3 x[4], float thn, float rest_angle, float rest_length, float ke,
                                          float kd, float h, int vi, dfm_v3* f, dfm_m33* H) {
    float coef[2];
    dfm_bending_coef(rest_length, ke, kd, h, coef);
    dfm_bending_force_hessian_coef(x, thn, rest_angle, coef, vi, f, H);
}

/// Adds (+=) to *f the force on hinge vertex vi (0..3 = o0, o1, v0, v1) in N and to *H its
/// Gauss-Newton Hessian block k (dtheta/dx_vi)(dtheta/dx_vi)^T in N/m, k = ke * rest_length.
/// x: current positions in m; xn: positions at the step start in m (read only when kd != 0 and
/// h > 0; may be NULL otherwise); rest_angle in rad; rest_length in m; ke in N; kd: absolute
/// damping coefficient in N*s (Newton's edge_kd; dissipation kd L0/(2h) wrap(theta - thetan)^2);
/// h: step length in s. Adds nothing when the current hinge is degenerate or vi is out of range;
/// adds no damping when the step-start hinge is degenerate.
DFM_HD void dfm_bending_force_hessian(const dfm_v3 x[4], const dfm_v3 xn[4], float rest_angle, float rest_length,
                                      float ke, float kd, float h, int vi, dfm_v3* f, dfm_m33* H) {
    float thn = (kd != 0.0f && h > 0.0f) ? dfm_bending_start_angle(xn) : NAN;
    dfm_bending_force_hessian_thn(x, thn, rest_angle, rest_length, ke, kd, h, vi, f, H);
}

#endif
