/// @file tet_hessian.h
/// The whole 12x12 elastic Hessian of one stable Neo-Hookean tetrahedron (kernels/shared/vbd_tet.h's
/// energy), for the coarse correction (DFM_FEATURE_COARSE_CORRECTION, kernels/cpu/coarse_cpu.c;
/// docs/physics.md, session 15).
///
/// Math. psi = mu/2 |F|^2 + lam/2 (J - alpha)^2 has the F-space Hessian
///   mu I9 + lam g g^T + s d2J/dF2,   g = cof F,   s = lam (J - alpha).
/// With F = sum_c x_c m_c^T (m_c as in vbd_tet.h: dF/dx_c = I (x) m_c^T), the x-space blocks are
///   K_ab = V (mu (m_a . m_b) I + lam (cof F m_a)(cof F m_b)^T + s [-F (m_a x m_b)]x),
/// the last term from d(f_j x f_k) / dx_b = m_b[k] [f_j]x - m_b[j] [f_k]x over the cofactor's
/// columns (f_i the columns of F, [w]x the cross-product matrix). vbd_tet.h's per-vertex blocks are
/// the a == b case, where the s term vanishes (m x m = 0).
///
/// The Gauss-Newton form without the s term (sessions 12-14) is not the Hessian even at rest, where
/// s = -mu: on a resting default-material cube (mu 1e5, lambda 1e6 Pa) the coarse correction with it
/// converged at about 0.8 per sweep and left the cube's sag 1.54x analytic at 4 x 5 and 2.8x at
/// 4 x 3; with the exact blocks 0.997x and 0.972x (test_physics_static, session 15).
///
/// PSD: the s term is indefinite, and so is the sum wherever the tet is stressed: its geometric
/// stiffness makes a rotation-like mode negative by about the stress (on the resting cube, compressed
/// 1e-3 with lambda = 10 mu, about 1e-2 mu), so 80% of that cube's tets were indefinite. The F-space
/// matrix is checked by a Cholesky factorisation (9x9, double, shifted by DFM_TET_HESSIAN_SHIFT mu);
/// where it is not positive definite the s term is scaled by 0.99, 0.96, 0.84, 0.36 and at last 0
/// (the Gauss-Newton form, PSD for lam >= 0), the first that passes kept, so the coarse matrix stays
/// PSD and a slightly stressed tet keeps 99% of the term (dropping it, the cube read 1.83x at 4 x 3). Damping is not included (the coarse level leaves it out for tets, as before).
#ifndef DFM_TET_HESSIAN_H
#define DFM_TET_HESSIAN_H

#include "vbd_tet.h"

/// Relative shift (of mu) of the positive-definiteness test: at rest the exact matrix is only
/// semi-definite (an infinitesimal rotation costs nothing), so the test asks for positive
/// definiteness of H + 1e-4 mu I; an accepted matrix has no eigenvalue below -1e-4 mu.
#define DFM_TET_HESSIAN_SHIFT 1e-4

/// Cholesky test of the symmetric n x n matrix a (row-major, overwritten): 1 when positive definite.
DFM_HD int dfm_spd_cholesky_test(double* a, int n) {
    for (int j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0.0)) return 0;
        const double l = sqrt(d);
        a[j * n + j] = l;
        for (int i = j + 1; i < n; ++i) {
            double v = a[i * n + j];
            for (int k = 0; k < j; ++k) v -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = v / l;
        }
    }
    return 1;
}

/// Whether mu I9 + lam g g^T + s d2J/dF2 is positive definite at F (columns f0, f1, f2 of F,
/// vec(F) stacked by column; g = cof F by column): see the file comment.
DFM_HD int dfm_tet_hessian_spd(const dfm_m33* F, const dfm_m33* cof, float mu, float lam, float s) {
    double H[81];
    dfm_v3 f[3], g[3];
    for (int c = 0; c < 3; ++c) f[c] = dfm_m33_col(*F, c), g[c] = dfm_m33_col(*cof, c);
    for (int i = 0; i < 81; ++i) H[i] = 0.0;
    for (int ci = 0; ci < 3; ++ci)
        for (int ri = 0; ri < 3; ++ri)
            for (int cj = 0; cj < 3; ++cj)
                for (int rj = 0; rj < 3; ++rj) {
                    const float gi = ri == 0 ? g[ci].x : ri == 1 ? g[ci].y : g[ci].z;
                    const float gj = rj == 0 ? g[cj].x : rj == 1 ? g[cj].y : g[cj].z;
                    H[(3 * ci + ri) * 9 + 3 * cj + rj] =
                        (double)lam * gi * gj +
                        (ci == cj && ri == rj ? (double)mu * (1.0 + DFM_TET_HESSIAN_SHIFT) : 0.0);
                }
    /* d2J / (df_i df_j) = [f_k]x for (i, j, k) cyclic, -[f_k]x for (j, i, k) cyclic, 0 for i == j */
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        const dfm_v3 w = f[k];
        const double W[3][3] = {{0.0, -w.z, w.y}, {w.z, 0.0, -w.x}, {-w.y, w.x, 0.0}};
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) {
                /* block (i, j) = d(dJ/df_i)/df_j = d(f_j x f_k)/df_j = -[f_k]x; block (j, i) its transpose */
                H[(3 * i + r) * 9 + 3 * j + q] += -(double)s * W[r][q];
                H[(3 * j + r) * 9 + 3 * i + q] += (double)s * W[r][q];
            }
    }
    return dfm_spd_cholesky_test(H, 9);
}

/// The 16 3x3 blocks K[a][b] (N/m) of tet t's elastic Hessian at positions x (m): exact where it is
/// positive definite in F-space, else with the s term scaled down (see the file comment). dminv, volume: from
/// dfm_tet_rest_compute; mu, lambda: Lame parameters (Pa). Returns 0 for a tet without stiffness
/// (K untouched), 1 for the exact Hessian, 2 where the s term was scaled down (or dropped).
DFM_HD int dfm_tet_hessian_blocks(const dfm_v3 x[4], const float dminv[9], float volume, float mu, float lambda,
                                  dfm_m33 K[4][4]) {
    if (mu <= 0.0f && lambda <= 0.0f) return 0;
    float lam, alpha;
    dfm_tet_params_(mu, lambda, &lam, &alpha);
    const dfm_m33 F = dfm_tet_F_(x, dminv);
    const dfm_m33 cof = dfm_m33_cofactor(F);
    const float s1 = lam * (dfm_m33_det(F) - alpha);
    float s = s1;
    int kind = 1;
    /* the largest of 1, 0.99, 0.96, 0.84, 0.36, 0 times the s term that keeps it positive definite */
    for (float cut = 0.01f; s != 0.0f && !dfm_tet_hessian_spd(&F, &cof, mu, lam, s); cut *= 4.0f) {
        s = cut < 1.0f ? (1.0f - cut) * s1 : 0.0f;
        kind = 2;
    }
    dfm_v3 m[4], gj[4];
    for (int c = 0; c < 4; ++c) {
        float q3[3];
        for (int q = 0; q < 3; ++q) q3[q] = c == 0 ? -(dminv[q] + dminv[3 + q] + dminv[6 + q]) : dminv[3 * (c - 1) + q];
        m[c] = dfm_v3_make(q3[0], q3[1], q3[2]);
        gj[c] = dfm_v3_zero();
        for (int q = 0; q < 3; ++q) gj[c] = dfm_v3_madd(gj[c], dfm_m33_col(cof, q), q3[q]);
    }
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
            K[a][b] = dfm_m33_add_outer(dfm_m33_diag(volume * mu * dfm_v3_dot(m[a], m[b])), gj[a], gj[b], volume * lam);
            if (s == 0.0f || a == b) continue;
            const dfm_v3 c = dfm_v3_cross(m[a], m[b]);
            const dfm_v3 w = dfm_v3_scale(dfm_m33_mul_v3(F, c), -volume * s); /* K_ab += V s [-F (m_a x m_b)]x */
            K[a][b].m[0][1] -= w.z;
            K[a][b].m[0][2] += w.y;
            K[a][b].m[1][0] += w.z;
            K[a][b].m[1][2] -= w.x;
            K[a][b].m[2][0] -= w.y;
            K[a][b].m[2][1] += w.x;
        }
    return kind;
}

#endif
