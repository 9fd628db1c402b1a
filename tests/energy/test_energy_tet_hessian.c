/// The whole-tet elastic Hessian of kernels/shared/tet_hessian.h (the coarse correction's,
/// DFM_FEATURE_COARSE_CORRECTION), on 400 random tets (rest edges 0.01-0.1 m; stretches 0.3-1.6 per
/// axis and shear 0.3 on odd ones, within 5% of rest on even ones, a rotation; mu 1e3-1e6 Pa,
/// lambda 0-20 mu):
/// - where it is exact (return 1), each 3x3 block equals the central difference of
///   dfm_tet_force_hessian_coef's force (vbd_tet.h, checked by test_energy_tet) within 1e-3 of the
///   element's largest FD entry (float forces, step 1e-3 of the edge);
/// - every element's 12x12 matrix is symmetric and PSD (smallest eigenvalue >= -1e-5 of the largest;
///   the test's shift lets through at most -1e-4 mu, DFM_TET_HESSIAN_SHIFT);
/// - the scaled s term (return 2) is exercised on at least 5% of them, and the exact form
///   is kept on at least a quarter (measured: most deformed tets are indefinite, most near rest not);
/// - at rest (a rotated rest shape) it is exact and an infinitesimal rotation costs nothing:
///   |K (w x x)| <= 1e-4 |K| |w x x|, while the Gauss-Newton form (mu |grad u|^2 for it) reads at
///   least 100 times that on every tet.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "dfm_test.h"
#include "energy_eig.h"
#include "tet_hessian.h"

static uint64_t g_rng = 0xD1B54A32D192ED03ull;
static double uni(double a, double b) { return energy_uni(&g_rng, a, b); }

static void to144(dfm_m33 K[4][4], double* out) {
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) out[(3 * a + r) * 12 + 3 * b + c] = K[a][b].m[r][c];
}

/// A random rest tet with edges about L (m); 0 when degenerate.
static int rest_tet(double L, dfm_v3 r[4], float dminv[9], float* vol) {
    r[0] = dfm_v3_make(0, 0, 0);
    r[1] = dfm_v3_make((float)L, 0, 0);
    r[2] = dfm_v3_make((float)(L * uni(-0.3, 0.8)), (float)(L * uni(0.5, 1.2)), 0);
    r[3] = dfm_v3_make((float)(L * uni(-0.3, 0.8)), (float)(L * uni(-0.3, 0.8)), (float)(L * uni(0.5, 1.2)));
    return dfm_tet_rest_compute(r[0], r[1], r[2], r[3], dminv, vol) == 1;
}

/// Rotates p by angle az about z then ax about x, and shifts it.
static dfm_v3 rotate(double px, double py, double pz, double az, double ax) {
    double qx = cos(az) * px - sin(az) * py, qy = sin(az) * px + cos(az) * py;
    double ry = cos(ax) * qy - sin(ax) * pz, rz = sin(ax) * qy + cos(ax) * pz;
    return dfm_v3_make((float)(qx + 0.3), (float)(ry - 0.1), (float)(rz + 0.5));
}

int main(void) {
    const int count = 400;
    double worst_fd = 0.0, worst_neg = 0.0, worst_sym = 0.0, worst_rot = 0.0, gn_rot = INFINITY;
    int exact = 0, fallback = 0, rest_exact = 0, rests = 0;
    for (int e = 0; e < count; ++e) {
        const double L = uni(0.01, 0.1);
        dfm_v3 r[4];
        float dminv[9], vol;
        if (!rest_tet(L, r, dminv, &vol)) continue;
        const double sa = e % 2 ? 0.3 : 0.95, sb = e % 2 ? 1.6 : 1.05, sr = e % 2 ? 0.3 : 0.05; /* harsh, near rest */
        const double s0 = uni(sa, sb), s1 = uni(sa, sb), s2 = uni(sa, sb), sh = uni(-sr, sr);
        const double az = uni(0, 6.28), ax = uni(-1, 1);
        dfm_v3 x[4];
        for (int c = 0; c < 4; ++c) x[c] = rotate(s0 * r[c].x + sh * r[c].y, s1 * r[c].y, s2 * r[c].z, az, ax);
        const float mu = (float)uni(1e3, 1e6), lambda = (float)(mu * uni(0, 20));
        dfm_m33 K[4][4];
        const int kind = dfm_tet_hessian_blocks(x, dminv, vol, mu, lambda, K);
        double A[144];
        to144(K, A);
        double big = 0.0, asym = 0.0, lo, hi;
        for (int i = 0; i < 144; ++i) big = fmax(big, fabs(A[i]));
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j) asym = fmax(asym, fabs(A[i * 12 + j] - A[j * 12 + i]));
        worst_sym = fmax(worst_sym, asym / big);
        energy_eig_range(A, 12, &lo, &hi);
        worst_neg = fmax(worst_neg, -lo / hi);
        if (kind == 2) {
            ++fallback;
            continue;
        }
        ++exact;
        float coef[3];
        dfm_tet_coef(vol, mu, lambda, 0.0f, 0.0f, coef);
        const float step = (float)(1e-3 * L);
        double scale = 0.0, err = 0.0;
        for (int b = 0; b < 4; ++b)
            for (int q = 0; q < 3; ++q) {
                dfm_v3 xp[4] = {x[0], x[1], x[2], x[3]}, xm[4] = {x[0], x[1], x[2], x[3]};
                float* pp = &xp[b].x;
                float* pm = &xm[b].x;
                pp[q] += step;
                pm[q] -= step;
                const double h2 = (double)pp[q] - (double)pm[q];
                for (int a = 0; a < 4; ++a) {
                    dfm_v3 fp = dfm_v3_zero(), fm = dfm_v3_zero();
                    dfm_m33 Hd = dfm_m33_zero();
                    dfm_tet_force_hessian_coef(xp, xp, dminv, vol, mu, coef, a, &fp, &Hd);
                    Hd = dfm_m33_zero();
                    dfm_tet_force_hessian_coef(xm, xm, dminv, vol, mu, coef, a, &fm, &Hd);
                    const double col[3] = {-((double)fp.x - fm.x) / h2, -((double)fp.y - fm.y) / h2,
                                           -((double)fp.z - fm.z) / h2};
                    for (int rr = 0; rr < 3; ++rr) {
                        scale = fmax(scale, fabs(col[rr]));
                        err = fmax(err, fabs(col[rr] - A[(3 * a + rr) * 12 + 3 * b + q]));
                    }
                }
            }
        worst_fd = fmax(worst_fd, err / scale);
    }
    /* at rest, rotated: an infinitesimal rotation w x x is a zero-energy mode of the exact Hessian */
    for (int e = 0; e < 100; ++e) {
        const double L = uni(0.01, 0.1);
        dfm_v3 r[4], x[4];
        float dminv[9], vol;
        if (!rest_tet(L, r, dminv, &vol)) continue;
        const double az = uni(0, 6.28), ax = uni(-1, 1);
        for (int c = 0; c < 4; ++c) x[c] = rotate(r[c].x, r[c].y, r[c].z, az, ax);
        const float mu = (float)uni(1e3, 1e6), lambda = (float)(mu * uni(0, 20));
        dfm_m33 K[4][4];
        ++rests;
        rest_exact += dfm_tet_hessian_blocks(x, dminv, vol, mu, lambda, K) == 1;
        const dfm_v3 w = dfm_v3_make((float)uni(-1, 1), (float)uni(-1, 1), (float)uni(-1, 1));
        dfm_v3 u[4];
        for (int c = 0; c < 4; ++c) u[c] = dfm_v3_cross(w, x[c]);
        double A[144], ku = 0.0, un = 0.0, kn = 0.0, gu = 0.0;
        to144(K, A);
        for (int i = 0; i < 144; ++i) kn = fmax(kn, fabs(A[i]));
        for (int a = 0; a < 4; ++a) {
            dfm_v3 s = dfm_v3_zero(), g = dfm_v3_zero();
            for (int b = 0; b < 4; ++b) {
                s = dfm_v3_add(s, dfm_m33_mul_v3(K[a][b], u[b]));
                /* the Gauss-Newton form: the exact blocks less the s term, rebuilt for the contrast */
                float lam, alpha;
                dfm_tet_params_(mu, lambda, &lam, &alpha);
                const dfm_m33 F = dfm_tet_F_(x, dminv), cof = dfm_m33_cofactor(F);
                float ma[3], mb[3];
                for (int q = 0; q < 3; ++q) {
                    ma[q] = a == 0 ? -(dminv[q] + dminv[3 + q] + dminv[6 + q]) : dminv[3 * (a - 1) + q];
                    mb[q] = b == 0 ? -(dminv[q] + dminv[3 + q] + dminv[6 + q]) : dminv[3 * (b - 1) + q];
                }
                dfm_v3 ga = dfm_v3_zero(), gb = dfm_v3_zero();
                for (int q = 0; q < 3; ++q) ga = dfm_v3_madd(ga, dfm_m33_col(cof, q), ma[q]);
                for (int q = 0; q < 3; ++q) gb = dfm_v3_madd(gb, dfm_m33_col(cof, q), mb[q]);
                const dfm_m33 G = dfm_m33_add_outer(
                    dfm_m33_diag(vol * mu * (ma[0] * mb[0] + ma[1] * mb[1] + ma[2] * mb[2])), ga, gb, vol * lam);
                g = dfm_v3_add(g, dfm_m33_mul_v3(G, u[b]));
            }
            ku = fmax(ku, dfm_v3_len(s));
            gu = fmax(gu, dfm_v3_len(g));
            un = fmax(un, dfm_v3_len(u[a]));
        }
        worst_rot = fmax(worst_rot, ku / (kn * un));
        gn_rot = fmin(gn_rot, gu / (kn * un));
    }
    printf(
        "exact vs FD: worst %.3g of the element's largest entry (bound 1e-3); %d exact, %d with the s term scaled of %d\n",
        worst_fd, exact, fallback, count);
    printf("all: worst asymmetry %.3g, worst smallest/largest eigenvalue %.3g (bound -1e-5)\n", worst_sym, -worst_neg);
    printf("at rest: %d of %d exact; rotation mode |K u| / (|K| |u|) worst %.3g (bound 1e-4); Gauss-Newton "
           "form at least %.3g\n",
           rest_exact, rests, worst_rot, gn_rot);
    CHECK(worst_fd <= 1e-3, "exact Hessian vs FD: %.3g", worst_fd);
    CHECK(worst_sym <= 1e-6, "asymmetry %.3g", worst_sym);
    CHECK(worst_neg <= 1e-5, "smallest eigenvalue -%.3g of the largest", worst_neg);
    CHECK(fallback >= count / 20, "only %d scaled", fallback);
    CHECK(exact >= count / 4, "only %d exact", exact);
    CHECK(rest_exact == rests, "%d of %d rest tets exact", rest_exact, rests);
    CHECK(worst_rot <= 1e-4, "rotation at rest costs %.3g", worst_rot);
    CHECK(gn_rot > 100.0 * worst_rot, "the Gauss-Newton contrast %.3g: the rotation check cannot fail", gn_rot);
    return dfm_test_finish("test_energy_tet_hessian");
}
