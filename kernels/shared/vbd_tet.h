/// @file vbd_tet.h
/// Stable Neo-Hookean tetrahedron, for the per-vertex VBD solve (host and device).
///
/// Math. F = [x1 - x0, x2 - x0, x3 - x0] Dm^-1 (Dm: the same matrix at rest), J = det F, and the
/// energy density is the stable Neo-Hookean form of Smith et al. 2018 without the log term, as in
/// Newton's VBD (Chen et al. 2024, Vertex Block Descent):
///   psi = mu/2 (tr F^T F - 3) + lam/2 (J - alpha)^2,   lam = lambda + mu,  alpha = 1 + mu/lam,
/// with lam safeguarded to sign * max(|lam|, 1e-6) as in Newton. The element energy is V0 * psi,
/// reported shifted by the constant lam/2 (1 - alpha)^2 so that the rest state has zero energy.
/// The first Piola stress is P = mu F + lam (J - alpha) cof F (cof F computed directly, no F^-1).
/// Moving one vertex changes F by a rank-one update dx m^T, on which det is affine, so the
/// s d2J/dF2 term vanishes in every per-vertex 3x3 block and the block
///   V0 (mu |m|^2 I + lam (cof F m)(cof F m)^T)
/// is exact and PSD (for lam >= 0). Here m = row k-1 of Dm^-1 for vertex k >= 1 and minus the
/// column sums of Dm^-1 for vertex 0. Damping is absolute, on the rate of C = F^T F against the
/// step start: dissipation kd V0 / (2h) * |C - Cn|_F^2 (six independent components, off-diagonals
/// weighted by 2), force -grad of it, Hessian (kd V0 / h) * sum of weighted outer products of grad C.
#ifndef DFM_VBD_TET_H
#define DFM_VBD_TET_H

#include "mat33.h"

/// Computes the rest data of a tetrahedron (rest positions x0..x3 in m): dminv receives Dm^-1
/// row-major (dminv[3*r + c], in 1/m) with Dm = [x1 - x0, x2 - x0, x3 - x0] (edge vectors as
/// columns), and *volume the rest volume det(Dm)/6 in m^3. Returns 1 for a valid, positively
/// oriented tet; 0 when flat (|volume| <= 1e-6 * (longest edge)^3) or when anything is not
/// finite; -1 when inverted (det Dm < 0). Writes nothing unless it returns 1.
DFM_HD int dfm_tet_rest_compute(dfm_v3 x0, dfm_v3 x1, dfm_v3 x2, dfm_v3 x3, float dminv[9], float* volume) {
    dfm_v3 d1 = dfm_v3_sub(x1, x0);
    dfm_v3 d2 = dfm_v3_sub(x2, x0);
    dfm_v3 d3 = dfm_v3_sub(x3, x0);
    float l2 = dfm_fmaxf(dfm_fmaxf(dfm_v3_len2(d1), dfm_v3_len2(d2)), dfm_v3_len2(d3));
    l2 = dfm_fmaxf(l2, dfm_fmaxf(dfm_fmaxf(dfm_v3_len2(dfm_v3_sub(x2, x1)), dfm_v3_len2(dfm_v3_sub(x3, x1))),
                                 dfm_v3_len2(dfm_v3_sub(x3, x2))));
    dfm_m33 dm = dfm_m33_from_cols(d1, d2, d3);
    float det = dfm_m33_det(dm);
    float vol = det / 6.0f;
    if (!isfinite(vol) || !isfinite(l2)) return 0;
    float l = sqrtf(l2);
    float tol = 1e-6f * l * l * l;
    if (!(fabsf(vol) > tol)) return 0;
    if (vol < 0.0f) return -1;
    dfm_m33 inv = dfm_m33_scale(dfm_m33_transpose(dfm_m33_cofactor(dm)), 1.0f / det);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            if (!isfinite(inv.m[r][c])) return 0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) dminv[3 * r + c] = inv.m[r][c];
    *volume = vol;
    return 1;
}

/// Internal: Newton's Neo-Hookean reparameterisation (lam = lambda + mu, safeguarded to
/// sign * max(|lam|, 1e-6); alpha = 1 + mu / lam).
DFM_HD void dfm_tet_params_(float mu, float lambda, float* lam, float* alpha) {
    float l = lambda + mu;
    float la = dfm_fmaxf(fabsf(l), 1e-6f);
    l = l < 0.0f ? -la : la;
    *lam = l;
    *alpha = 1.0f + mu / l;
}

/// Internal: F = [x1 - x0, x2 - x0, x3 - x0] Dm^-1.
DFM_HD dfm_m33 dfm_tet_F_(const dfm_v3 x[4], const float dminv[9]) {
    dfm_m33 ds = dfm_m33_from_cols(dfm_v3_sub(x[1], x[0]), dfm_v3_sub(x[2], x[0]), dfm_v3_sub(x[3], x[0]));
    dfm_m33 di;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) di.m[r][c] = dminv[3 * r + c];
    return dfm_m33_mul(ds, di);
}

/// Elastic energy of one tetrahedron in J: volume * psi (see the file comment), shifted so that
/// the rest state has zero energy. x: current positions in m; dminv, volume: from
/// dfm_tet_rest_compute; mu, lambda: Lame parameters in Pa (Newton's k_mu, k_lambda).
DFM_HD float dfm_tet_energy(const dfm_v3 x[4], const float dminv[9], float volume, float mu, float lambda) {
    float lam, alpha;
    dfm_tet_params_(mu, lambda, &lam, &alpha);
    dfm_m33 F = dfm_tet_F_(x, dminv);
    float trc = 0.0f;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) trc += F.m[r][c] * F.m[r][c];
    float j = dfm_m33_det(F);
    /* lam/2 (J - alpha)^2 - lam/2 (1 - alpha)^2 = lam/2 (J - 1)(J + 1 - 2 alpha). */
    float psi = 0.5f * mu * (trc - 3.0f) + 0.5f * lam * (j - 1.0f) * (j + 1.0f - 2.0f * alpha);
    return volume * psi;
}

/// The tet's coefficients that stay constant over an advance, for dfm_tet_force_hessian_coef
/// (P3: once per tet and advance instead of once per visit): coef[0] = lam, coef[1] = alpha
/// (dfm_tet_params_ of mu, lambda in Pa), coef[2] = kd * volume / h in N*m (0 when kd == 0
/// or h <= 0: no damping). volume in m^3, kd in Pa*s, h in s.
DFM_HD void dfm_tet_coef(float volume, float mu, float lambda, float kd, float h, float coef[3]) {
    dfm_tet_params_(mu, lambda, &coef[0], &coef[1]);
    coef[2] = 0.0f;
    if (kd != 0.0f && h > 0.0f) coef[2] = kd * volume / h;
}

/// dfm_tet_force_hessian with the coefficients from dfm_tet_coef (bitwise the same result;
/// damping is added when coef[2] != 0, xn is read only then).
DFM_HD void dfm_tet_force_hessian_coef(const dfm_v3 x[4], const dfm_v3 xn[4], const float dminv[9], float volume,
                                       float mu, const float coef[3], int vi, dfm_v3* f, dfm_m33* H) {
    float m[3]; /* dF/dx_vi = I (x) m^T: column j of F moves by m[j] dx */
    if (vi == 0) {
        for (int j = 0; j < 3; ++j) m[j] = -(dminv[j] + dminv[3 + j] + dminv[6 + j]);
    } else if (vi >= 1 && vi <= 3) {
        for (int j = 0; j < 3; ++j) m[j] = dminv[3 * (vi - 1) + j];
    } else {
        return;
    }
    const float lam = coef[0], alpha = coef[1], k = coef[2];
    dfm_m33 F = dfm_tet_F_(x, dminv);
    dfm_m33 cof = dfm_m33_cofactor(F);
    float j = dfm_m33_det(F);
    float s = lam * (j - alpha);

    dfm_v3 fm = dfm_v3_zero(); /* F m */
    dfm_v3 gj = dfm_v3_zero(); /* dJ/dx_vi = cof(F) m */
    for (int c = 0; c < 3; ++c) {
        fm = dfm_v3_madd(fm, dfm_m33_col(F, c), m[c]);
        gj = dfm_v3_madd(gj, dfm_m33_col(cof, c), m[c]);
    }
    dfm_v3 grad = dfm_v3_add(dfm_v3_scale(fm, mu), dfm_v3_scale(gj, s)); /* P m */
    *f = dfm_v3_madd(*f, grad, -volume);
    float mm = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    dfm_m33 He = dfm_m33_add_outer(dfm_m33_diag(mu * mm), gj, gj, lam);
    *H = dfm_m33_add(*H, dfm_m33_scale(He, volume));

    if (k != 0.0f) {
        /* U = F - Fn from displacement differences (avoids cancellation); dC = U^T F + Fn^T U. */
        dfm_v3 xd[4];
        for (int i = 0; i < 4; ++i) xd[i] = dfm_v3_sub(x[i], xn[i]);
        dfm_m33 U = dfm_tet_F_(xd, dminv);
        dfm_v3 fc[3], uc[3], nc[3];
        for (int c = 0; c < 3; ++c) {
            fc[c] = dfm_m33_col(F, c);
            uc[c] = dfm_m33_col(U, c);
            nc[c] = dfm_v3_sub(fc[c], uc[c]);
        }
        dfm_v3 gd = dfm_v3_zero();
        dfm_m33 Hd = dfm_m33_zero();
        for (int a = 0; a < 3; ++a) {
            for (int b = a; b < 3; ++b) {
                float dc = dfm_v3_dot(uc[a], fc[b]) + dfm_v3_dot(nc[a], uc[b]);
                dfm_v3 q = dfm_v3_add(dfm_v3_scale(fc[b], m[a]), dfm_v3_scale(fc[a], m[b])); /* dC_ab/dx_vi */
                float wgt = a == b ? 1.0f : 2.0f;
                gd = dfm_v3_madd(gd, q, wgt * dc);
                Hd = dfm_m33_add_outer(Hd, q, q, wgt * k);
            }
        }
        *f = dfm_v3_madd(*f, gd, -k);
        *H = dfm_m33_add(*H, Hd);
    }
}

/// Adds (+=) to *f the force on vertex vi (0..3) in N (minus the energy gradient plus the damping
/// force) and to *H its exact 3x3 Hessian block in N/m (PSD for lambda + mu >= 0).
/// x: current positions in m; xn: positions at the step start in m, read only when kd != 0 and
/// h > 0 (may be NULL otherwise); dminv, volume: from dfm_tet_rest_compute; mu, lambda: Lame
/// parameters in Pa; kd: absolute damping coefficient in Pa*s (Newton's k_damp; dissipation
/// kd V0/(2h) |F^T F - Fn^T Fn|_F^2); h: step length in s. An out-of-range vi adds nothing.
DFM_HD void dfm_tet_force_hessian(const dfm_v3 x[4], const dfm_v3 xn[4], const float dminv[9], float volume, float mu,
                                  float lambda, float kd, float h, int vi, dfm_v3* f, dfm_m33* H) {
    float coef[3];
    dfm_tet_coef(volume, mu, lambda, kd, h, coef);
    dfm_tet_force_hessian_coef(x, xn, dminv, volume, mu, coef, vi, f, H);
}

#endif
