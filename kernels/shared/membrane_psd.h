/// @file membrane_psd.h
/// The whole 9x9 Hessian of one membrane triangle (kernels/shared/vbd_membrane.h's energy), exact
/// or projected to PSD analytically, for the coarse correction (DFM_FEATURE_COARSE_CORRECTION,
/// kernels/cpu/coarse_cpu.c; docs/physics.md, session 12).
///
/// Math. With F = [f0 f1] (3x2), J = |f0 x f1|, n = (f0 x f1) / J, e1 = f0 / |f0|, e2 = n x e1,
/// every perturbation of F splits into in-plane coordinates (a, b, c, d) = (e1.df0, e1.df1,
/// e2.df0, e2.df1) and out-of-plane ones (w0, w1) = (n.df0, n.df1), an orthonormal basis of
/// F-space. The energy density psi = mu/2 |F|^2 + lam/2 (J - alpha)^2 has the F-space Hessian
///   mu I6 + lam g g^T + s d2J,   s = lam (J - alpha),   g = dJ/dF = (d, -c, -b, a, 0, 0)
/// (in the current in-plane coordinates a..d of F itself), where d2J is 2 det(dA) on the in-plane
/// block (eigenvalues +1 on u1 = (1,0,0,1)/sqrt2 and u3 = (0,1,-1,0)/sqrt2, -1 on u2 = (1,0,0,-1)/sqrt2
/// and u4 = (0,1,1,0)/sqrt2) and (|f1|^2 w0^2 - 2 f0.f1 w0 w1 + |f0|^2 w1^2) / J on the out-of-plane
/// block. So the in-plane block is diag(mu + s, mu - s) on the two planes plus the rank-1 lam g g^T:
/// its eigen-system is closed form (two directions keep mu +- s, the two along g's parts in each
/// plane share a 2x2), and the out-of-plane block is a 2x2. Clamping those eigenvalues at 0 is the
/// per-element PSD projection in F-space (Teran et al. 2005; Smith et al. 2018 for the stable
/// Neo-Hookean energy), and B^T H+ B (B = dF/dx, constant per element) is PSD in x. It replaces
/// the experiment's 9x9 Jacobi eigen-decomposition per triangle (session 10, EXP_GEOM=3), which
/// projected in x-space instead. Damping adds its Gauss-Newton term (PSD, as in vbd_membrane.h).
#ifndef DFM_MEMBRANE_PSD_H
#define DFM_MEMBRANE_PSD_H

#include "vbd_membrane.h"

/// Symmetric 2x2 [[p, q], [q, r]] with its negative eigenvalues set to 0 (in place when `project`).
DFM_HD void dfm_psd2_project(float* p, float* q, float* r) {
    const float mean = 0.5f * (*p + *r), half = 0.5f * (*p - *r);
    const float rad = sqrtf(half * half + *q * *q);
    const float l1 = mean + rad, l2 = mean - rad;
    if (l2 >= 0.0f) return;
    if (l1 <= 0.0f) {
        *p = *q = *r = 0.0f;
        return;
    }
    /* eigenvector of l1: (q, l1 - p) or (l1 - r, q), whichever is longer (rounding) */
    float vx = *q, vy = l1 - *p;
    const float ux = l1 - *r, uy = *q;
    if (ux * ux + uy * uy > vx * vx + vy * vy) vx = ux, vy = uy;
    const float n2 = vx * vx + vy * vy;
    if (!(n2 > 0.0f)) { /* q = 0 and l1 = p or r: diagonal */
        *p = dfm_fmaxf(*p, 0.0f);
        *r = dfm_fmaxf(*r, 0.0f);
        return;
    }
    const float s = l1 / n2;
    *p = s * vx * vx;
    *q = s * vx * vy;
    *r = s * vy * vy;
}

/// The membrane triangle's Hessian blocks K[a][b] (3x3, N/m, world frame) of the elastic energy
/// area * psi at positions x (m), for corners a, b in 0..2: exact when `project` is 0, projected
/// to PSD in F-space (see the file comment) otherwise, plus the damping term's Gauss-Newton part
/// when k = kd area / h > 0 (dfm_membrane_coef's coef[2]). dinv, area from dfm_tri_rest_compute;
/// mu in N/m; lam, alpha from dfm_membrane_params_ (coef[0], coef[1]). A degenerate triangle
/// (J or |f0| below 1e-6) gets the Gauss-Newton blocks (mu I6 + lam g g^T), PSD.
DFM_HD void dfm_membrane_psd_hessian(const dfm_v3 x[3], const float dinv[4], float area, float mu, float lam,
                                     float alpha, float k, int project, dfm_m33 K[3][3]) {
    float ca[3] = {-(dinv[0] + dinv[2]), dinv[0], dinv[2]}; /* dF/dx_c = [ca_c I, cb_c I] */
    float cb[3] = {-(dinv[1] + dinv[3]), dinv[1], dinv[3]};
    dfm_v3 f0, f1;
    dfm_membrane_F_(x, dinv, &f0, &f1);
    const dfm_v3 cr = dfm_v3_cross(f0, f1);
    const float j = sqrtf(dfm_v3_len2(cr)), l0 = dfm_v3_len(f0);
    dfm_m33 HF[2][2]; /* F-space blocks per column pair (f_i, f_j), world frame */
    if (!(j > 1e-6f) || !(l0 > 1e-6f)) {
        const float jj = dfm_fmaxf(j, 1e-10f);
        dfm_v3 g[2] = {dfm_v3_scale(dfm_v3_cross(f1, cr), 1.0f / jj), dfm_v3_scale(dfm_v3_cross(cr, f0), 1.0f / jj)};
        for (int p = 0; p < 2; ++p)
            for (int q = 0; q < 2; ++q) HF[p][q] = dfm_m33_add_outer(dfm_m33_diag(p == q ? mu : 0.0f), g[p], g[q], lam);
    } else {
        const dfm_v3 n = dfm_v3_scale(cr, 1.0f / j), e1 = dfm_v3_scale(f0, 1.0f / l0), e2 = dfm_v3_cross(n, e1);
        const float A_[4] = {l0, dfm_v3_dot(e1, f1), 0.0f, dfm_v3_dot(e2, f1)}; /* a, b, c, d */
        const float s = lam * (j - alpha);
        const float g[4] = {A_[3], -A_[2], -A_[1], A_[0]};
        float P[4][4]; /* in-plane block, coordinates (a, b, c, d) */
        const float r2 = 0.70710678f;
        const float uA[2][4] = {{r2, 0, 0, r2}, {0, r2, -r2, 0}}; /* d2J = +1 */
        const float uB[2][4] = {{r2, 0, 0, -r2}, {0, r2, r2, 0}}; /* d2J = -1 */
        float lA = mu + s, lB = mu - s;
        if (!project) {
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q) {
                    float v = lam * g[p] * g[q];
                    for (int u = 0; u < 2; ++u) v += lA * uA[u][p] * uA[u][q] + lB * uB[u][p] * uB[u][q];
                    P[p][q] = v;
                }
        } else {
            /* g's parts in the two planes, gA = al hA, gB = be hB (unit hA, hB) */
            float cA[2], cB[2];
            for (int u = 0; u < 2; ++u) {
                cA[u] = cB[u] = 0.0f;
                for (int p = 0; p < 4; ++p) cA[u] += g[p] * uA[u][p], cB[u] += g[p] * uB[u][p];
            }
            float al = sqrtf(cA[0] * cA[0] + cA[1] * cA[1]), be = sqrtf(cB[0] * cB[0] + cB[1] * cB[1]);
            float hA[4], hB[4];
            for (int p = 0; p < 4; ++p) {
                hA[p] = al > 0.0f ? (cA[0] * uA[0][p] + cA[1] * uA[1][p]) / al : uA[0][p];
                hB[p] = be > 0.0f ? (cB[0] * uB[0][p] + cB[1] * uB[1][p]) / be : uB[0][p];
            }
            float m00 = lA + lam * al * al, m01 = lam * al * be, m11 = lB + lam * be * be;
            dfm_psd2_project(&m00, &m01, &m11);
            const float pA = dfm_fmaxf(lA, 0.0f), pB = dfm_fmaxf(lB, 0.0f);
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q) {
                    float v = 0.0f;
                    for (int u = 0; u < 2; ++u) v += pA * uA[u][p] * uA[u][q] + pB * uB[u][p] * uB[u][q];
                    v -= pA * hA[p] * hA[q] + pB * hB[p] * hB[q];
                    v += m00 * hA[p] * hA[q] + m01 * (hA[p] * hB[q] + hB[p] * hA[q]) + m11 * hB[p] * hB[q];
                    P[p][q] = v;
                }
        }
        const float sj = s / j;
        float w00 = mu + sj * dfm_v3_len2(f1), w01 = -sj * dfm_v3_dot(f0, f1), w11 = mu + sj * l0 * l0;
        if (project) dfm_psd2_project(&w00, &w01, &w11);
        const float W[2][2] = {{w00, w01}, {w01, w11}};
        /* column i of F has in-plane coordinates (idx[i][0] along e1, idx[i][1] along e2) */
        const int idx[2][2] = {{0, 2}, {1, 3}};
        const dfm_v3 R[3] = {e1, e2, n};
        for (int p = 0; p < 2; ++p)
            for (int q = 0; q < 2; ++q) {
                dfm_m33 H = dfm_m33_zero();
                for (int r = 0; r < 2; ++r)
                    for (int c = 0; c < 2; ++c) H = dfm_m33_add_outer(H, R[r], R[c], P[idx[p][r]][idx[q][c]]);
                HF[p][q] = dfm_m33_add_outer(H, n, n, W[p][q]);
            }
    }
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            dfm_m33 H = dfm_m33_scale(HF[0][0], ca[a] * ca[b]);
            H = dfm_m33_add(H, dfm_m33_scale(HF[0][1], ca[a] * cb[b]));
            H = dfm_m33_add(H, dfm_m33_scale(HF[1][0], cb[a] * ca[b]));
            H = dfm_m33_add(H, dfm_m33_scale(HF[1][1], cb[a] * cb[b]));
            H = dfm_m33_scale(H, area);
            if (k > 0.0f) { /* damping, Gauss-Newton (vbd_membrane.h): q00 = 2 a f0, q11 = 2 b f1, q01 = a f1 + b f0 */
                H = dfm_m33_add_outer(H, dfm_v3_scale(f0, 2.0f * ca[a]), dfm_v3_scale(f0, 2.0f * ca[b]), k);
                H = dfm_m33_add_outer(H, dfm_v3_add(dfm_v3_scale(f1, ca[a]), dfm_v3_scale(f0, cb[a])),
                                      dfm_v3_add(dfm_v3_scale(f1, ca[b]), dfm_v3_scale(f0, cb[b])), 2.0f * k);
                H = dfm_m33_add_outer(H, dfm_v3_scale(f1, 2.0f * cb[a]), dfm_v3_scale(f1, 2.0f * cb[b]), k);
            }
            K[a][b] = H;
        }
}

#endif
