/// @file vbd_membrane.h
/// Stable Neo-Hookean membrane on one triangle, for the per-vertex VBD solve (host and device).
///
/// Math. The rest triangle is expressed in the orthonormal in-plane basis e1 = normalize(x1 - x0),
/// e2 = n x e1, giving the 2x2 rest edge matrix D and its inverse. The deformation gradient is the
/// 3x2 matrix F = [f0 f1] = [x1 - x0, x2 - x0] D^-1, the area ratio is J = |f0 x f1|, and the energy
/// density is the stable Neo-Hookean form of Smith et al. 2018 restricted to a membrane:
///   psi = mu/2 (|f0|^2 + |f1|^2 - 2) + lam/2 (J - alpha)^2,   lam = lambda + mu,  alpha = 1 + mu/lam,
/// as used by Newton's VBD (Chen et al. 2024, Vertex Block Descent). The element energy is A * psi.
/// The 3x3 Hessian block of one vertex is the exact block with the J-curvature term clamped by
/// max(0, s), s = lam (J - alpha), which is PSD for lam >= 0 and exact whenever s >= 0.
/// Damping is the absolute "Cauchy-Green rate" model: the dissipation potential
///   D = kd A / (2h) * (dC00^2 + 2 dC01^2 + dC11^2),   dC = F^T F - Fn^T Fn  (Fn from the step start),
/// contributes force -grad D and Hessian (kd A / h) * sum of weighted outer products of grad C_ij.
/// Conventions follow Newton (tri_ke -> mu, tri_ka -> lambda, tri_kd -> kd, lam safeguarded to
/// sign * max(|lam|, 1e-6)). Unlike Newton, the reported energy is shifted by the constant
/// lam/2 (1 - alpha)^2 so that the rest state has zero energy; forces and Hessians are unaffected.
#ifndef DFM_VBD_MEMBRANE_H
#define DFM_VBD_MEMBRANE_H

#include "mat33.h"

/// Computes the rest data of a triangle (rest positions x0, x1, x2 in m).
/// dinv receives D^-1 row-major (dinv[0] = D^-1_00, dinv[1] = D^-1_01, dinv[2] = D^-1_10,
/// dinv[3] = D^-1_11, in 1/m), where D = [x1 - x0, x2 - x0] expressed in the in-plane basis
/// e1 = normalize(x1 - x0), e2 = n x e1 (n the unit normal of (x1 - x0) x (x2 - x0)); D is upper
/// triangular with a positive diagonal, so dinv[2] = 0. *area receives the rest area in m^2.
/// Returns 1 on success. Returns 0 and writes nothing when the triangle is degenerate: area <=
/// 1e-6 * (longest edge)^2 (float rounding of a collinear triangle leaves ~1e-7), or any input or output not finite.
DFM_HD int dfm_tri_rest_compute(dfm_v3 x0, dfm_v3 x1, dfm_v3 x2, float dinv[4], float* area) {
    dfm_v3 d1 = dfm_v3_sub(x1, x0);
    dfm_v3 d2 = dfm_v3_sub(x2, x0);
    float l1sq = dfm_v3_len2(d1);
    float lmax2 = dfm_fmaxf(l1sq, dfm_fmaxf(dfm_v3_len2(d2), dfm_v3_len2(dfm_v3_sub(x2, x1))));
    float cl = dfm_v3_len(dfm_v3_cross(d1, d2)); /* = 2 * area = det D */
    float a = 0.5f * cl;
    if (!isfinite(a) || !isfinite(lmax2)) return 0;
    if (!(a > 1e-6f * lmax2)) return 0;
    float l1 = sqrtf(l1sq);
    /* D = [[l1, d2.e1], [0, d2.e2]] with d2.e2 = cl / l1 and det D = cl. */
    float d01 = dfm_v3_dot(d1, d2) / l1;
    float i00 = 1.0f / l1;
    float i01 = -d01 / cl;
    float i11 = l1 / cl;
    if (!isfinite(i00) || !isfinite(i01) || !isfinite(i11)) return 0;
    dinv[0] = i00;
    dinv[1] = i01;
    dinv[2] = 0.0f;
    dinv[3] = i11;
    *area = a;
    return 1;
}

/// Internal: Newton's Neo-Hookean reparameterisation (lam = lambda + mu, safeguarded to
/// sign * max(|lam|, 1e-6); alpha = 1 + mu / lam).
DFM_HD void dfm_membrane_params_(float mu, float lambda, float* lam, float* alpha) {
    float l = lambda + mu;
    float la = dfm_fmaxf(fabsf(l), 1e-6f);
    l = l < 0.0f ? -la : la;
    *lam = l;
    *alpha = 1.0f + mu / l;
}

/// Internal: the two columns of F = [x1 - x0, x2 - x0] D^-1.
DFM_HD void dfm_membrane_F_(const dfm_v3 x[3], const float dinv[4], dfm_v3* f0, dfm_v3* f1) {
    dfm_v3 d1 = dfm_v3_sub(x[1], x[0]);
    dfm_v3 d2 = dfm_v3_sub(x[2], x[0]);
    *f0 = dfm_v3_add(dfm_v3_scale(d1, dinv[0]), dfm_v3_scale(d2, dinv[2]));
    *f1 = dfm_v3_add(dfm_v3_scale(d1, dinv[1]), dfm_v3_scale(d2, dinv[3]));
}

/// Elastic energy of one triangle in J: area * psi (see the file comment), shifted so that the
/// rest state has zero energy. x: current positions in m; dinv, area: from dfm_tri_rest_compute;
/// mu, lambda: Lame parameters of the membrane in N/m (Newton's tri_ke and tri_ka).
DFM_HD float dfm_membrane_energy(const dfm_v3 x[3], const float dinv[4], float area, float mu, float lambda) {
    float lam, alpha;
    dfm_membrane_params_(mu, lambda, &lam, &alpha);
    dfm_v3 f0, f1;
    dfm_membrane_F_(x, dinv, &f0, &f1);
    float j = sqrtf(dfm_fmaxf(dfm_v3_len2(dfm_v3_cross(f0, f1)), 1e-20f));
    /* lam/2 (J - alpha)^2 - lam/2 (1 - alpha)^2 = lam/2 (J - 1)(J + 1 - 2 alpha). */
    float psi = 0.5f * mu * (dfm_v3_len2(f0) + dfm_v3_len2(f1) - 2.0f) +
                0.5f * lam * (j - 1.0f) * (j + 1.0f - 2.0f * alpha);
    return area * psi;
}

/// The triangle's coefficients that stay constant over an advance, for
/// dfm_membrane_force_hessian_coef (P3: once per triangle and advance instead of once per visit):
/// coef[0] = lam, coef[1] = alpha (dfm_membrane_params_ of mu, lambda in N/m), coef[2] = kd * area / h
/// in N*m (0 when kd == 0 or h <= 0: no damping). area in m^2, kd in N*s/m, h in s.
DFM_HD void dfm_membrane_coef(float area, float mu, float lambda, float kd, float h, float coef[3]) {
    dfm_membrane_params_(mu, lambda, &coef[0], &coef[1]);
    coef[2] = 0.0f;
    if (kd != 0.0f && h > 0.0f) coef[2] = kd * area / h;
}

/// dfm_membrane_force_hessian with the coefficients from dfm_membrane_coef (bitwise the same
/// result; damping is added when coef[2] != 0, xn is read only then).
DFM_HD void dfm_membrane_force_hessian_coef(const dfm_v3 x[3], const dfm_v3 xn[3], const float dinv[4], float area,
                                            float mu, const float coef[3], int vi, dfm_v3* f, dfm_m33* H) {
    float a, b; /* dF/dx_vi = [a I, b I] column-wise */
    if (vi == 0) {
        a = -(dinv[0] + dinv[2]);
        b = -(dinv[1] + dinv[3]);
    } else if (vi == 1) {
        a = dinv[0];
        b = dinv[1];
    } else if (vi == 2) {
        a = dinv[2];
        b = dinv[3];
    } else {
        return;
    }
    const float lam = coef[0], alpha = coef[1], k = coef[2];
    dfm_v3 f0, f1;
    dfm_membrane_F_(x, dinv, &f0, &f1);

    dfm_v3 c = dfm_v3_cross(f0, f1);
    float j = sqrtf(dfm_fmaxf(dfm_v3_len2(c), 1e-20f));
    float inv_j = 1.0f / j;
    dfm_v3 g0 = dfm_v3_scale(dfm_v3_cross(f1, c), inv_j); /* dJ/df0 */
    dfm_v3 g1 = dfm_v3_scale(dfm_v3_cross(c, f0), inv_j); /* dJ/df1 */
    float s = lam * (j - alpha);
    dfm_v3 p0 = dfm_v3_add(dfm_v3_scale(f0, mu), dfm_v3_scale(g0, s));
    dfm_v3 p1 = dfm_v3_add(dfm_v3_scale(f1, mu), dfm_v3_scale(g1, s));
    dfm_v3 grad = dfm_v3_add(dfm_v3_scale(p0, a), dfm_v3_scale(p1, b));
    *f = dfm_v3_madd(*f, grad, -area);

    /* Exact block: mu(a^2+b^2) I + lam dJ dJ^T + (s/J)(|w|^2 I - w w^T - dJ dJ^T), w = a f1 - b f0;
       the curvature coefficient s/J is clamped to max(0, s)/J. */
    dfm_v3 dj = dfm_v3_add(dfm_v3_scale(g0, a), dfm_v3_scale(g1, b));
    dfm_v3 w = dfm_v3_sub(dfm_v3_scale(f1, a), dfm_v3_scale(f0, b));
    float r = dfm_fmaxf(s, 0.0f) * inv_j;
    dfm_m33 He = dfm_m33_diag(mu * (a * a + b * b) + r * dfm_v3_len2(w));
    He = dfm_m33_add_outer(He, dj, dj, lam - r);
    He = dfm_m33_add_outer(He, w, w, -r);
    *H = dfm_m33_add(*H, dfm_m33_scale(He, area));

    if (k != 0.0f) {
        /* Increments of C = F^T F against the step start, written to avoid cancellation:
           u = F - Fn, dCjk = u_j . f_k + fn_j . u_k. */
        dfm_v3 u1 = dfm_v3_sub(dfm_v3_sub(x[1], xn[1]), dfm_v3_sub(x[0], xn[0]));
        dfm_v3 u2 = dfm_v3_sub(dfm_v3_sub(x[2], xn[2]), dfm_v3_sub(x[0], xn[0]));
        dfm_v3 u0c = dfm_v3_add(dfm_v3_scale(u1, dinv[0]), dfm_v3_scale(u2, dinv[2]));
        dfm_v3 u1c = dfm_v3_add(dfm_v3_scale(u1, dinv[1]), dfm_v3_scale(u2, dinv[3]));
        dfm_v3 fn0 = dfm_v3_sub(f0, u0c);
        dfm_v3 fn1 = dfm_v3_sub(f1, u1c);
        float dc00 = dfm_v3_dot(u0c, dfm_v3_add(f0, fn0));
        float dc11 = dfm_v3_dot(u1c, dfm_v3_add(f1, fn1));
        float dc01 = dfm_v3_dot(u0c, f1) + dfm_v3_dot(fn0, u1c);
        dfm_v3 q00 = dfm_v3_scale(f0, 2.0f * a);
        dfm_v3 q11 = dfm_v3_scale(f1, 2.0f * b);
        dfm_v3 q01 = dfm_v3_add(dfm_v3_scale(f1, a), dfm_v3_scale(f0, b));
        dfm_v3 gd = dfm_v3_scale(q00, dc00);
        gd = dfm_v3_madd(gd, q01, 2.0f * dc01);
        gd = dfm_v3_madd(gd, q11, dc11);
        *f = dfm_v3_madd(*f, gd, -k);
        dfm_m33 Hd = dfm_m33_zero();
        Hd = dfm_m33_add_outer(Hd, q00, q00, k);
        Hd = dfm_m33_add_outer(Hd, q01, q01, 2.0f * k);
        Hd = dfm_m33_add_outer(Hd, q11, q11, k);
        *H = dfm_m33_add(*H, Hd);
    }
}

/// Adds (+=) to *f the force on vertex vi (0, 1 or 2) in N, i.e. minus the gradient of the
/// element energy plus the damping force, and adds to *H its 3x3 Hessian block in N/m (PSD for
/// lambda + mu >= 0). x: current positions in m; xn: positions at the start of the step in m,
/// read only when damping is active (kd != 0 and h > 0), so it may be NULL otherwise; dinv, area:
/// from dfm_tri_rest_compute; mu, lambda: Lame parameters in N/m; kd: absolute damping
/// coefficient in N*s/m (Newton's tri_kd; dissipation kd*A/(2h) * |F^T F - Fn^T Fn|_F^2);
/// h: step length in s. An out-of-range vi adds nothing.
DFM_HD void dfm_membrane_force_hessian(const dfm_v3 x[3], const dfm_v3 xn[3], const float dinv[4], float area, float mu,
                                       float lambda, float kd, float h, int vi, dfm_v3* f, dfm_m33* H) {
    float coef[3];
    dfm_membrane_coef(area, mu, lambda, kd, h, coef);
    dfm_membrane_force_hessian_coef(x, xn, dinv, area, mu, coef, vi, f, H);
}

#endif
