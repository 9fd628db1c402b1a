/// The whole-triangle membrane Hessian of kernels/shared/membrane_psd.h (the coarse correction's,
/// DFM_FEATURE_COARSE_CORRECTION), on 400 random triangles (rest edges 0.01-0.1 m, in-plane
/// stretches 0.5-1.5, shear, rotation and out-of-plane tilt of the corners; mu 200-5000 N/m,
/// lambda 0-2 mu):
/// - unprojected, each 3x3 block equals the central difference of dfm_membrane_force_hessian's
///   force (vbd_membrane.h, itself checked by test_energy_membrane) within 1e-3 of the element's
///   largest FD entry (float forces, step 1e-3 of the edge; measured worst 1.1e-4, and 1.0e-4 at
///   a step of 3e-3: the float floor, while a wrong term would not shrink with the step);
/// - projected, the 9x9 matrix is symmetric and PSD: its smallest eigenvalue (double Jacobi) is at
///   least -1e-5 of its largest;
/// - projected equals unprojected (within 1e-4 of the largest entry) wherever the exact matrix is
///   already PSD (smallest eigenvalue >= -1e-6 of the largest);
/// - the projection is exercised: at least 10% of the elements have an indefinite exact matrix
///   (compressed ones, J < alpha with |s| > mu).
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "dfm_test.h"
#include "energy_eig.h"
#include "membrane_psd.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double uni(double a, double b) { return energy_uni(&g_rng, a, b); }

static void to81(dfm_m33 K[3][3], double* out) {
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) out[(3 * a + r) * 9 + 3 * b + c] = K[a][b].m[r][c];
}

int main(void) {
    const int count = 400;
    double worst_fd = 0.0, worst_neg = 0.0, worst_same = 0.0, worst_sym = 0.0;
    int indefinite = 0;
    for (int e = 0; e < count; ++e) {
        const double L = uni(0.01, 0.1);
        dfm_v3 r[3] = {{0, 0, 0}, {(float)L, 0, 0}, {(float)(L * uni(-0.3, 0.8)), (float)(L * uni(0.5, 1.2)), 0}};
        float dinv[4], area;
        if (!dfm_tri_rest_compute(r[0], r[1], r[2], dinv, &area)) continue;
        /* deformed: in-plane stretch and shear, a rotation about z and x, corner tilts */
        const double sx = uni(0.5, 1.5), sy = uni(0.5, 1.5), sh = uni(-0.3, 0.3), az = uni(0, 6.28), ax = uni(-1, 1);
        dfm_v3 x[3];
        for (int c = 0; c < 3; ++c) {
            double px = sx * r[c].x + sh * r[c].y, py = sy * r[c].y, pz = L * uni(-0.15, 0.15);
            double qx = cos(az) * px - sin(az) * py, qy = sin(az) * px + cos(az) * py;
            double ry = cos(ax) * qy - sin(ax) * pz, rz = sin(ax) * qy + cos(ax) * pz;
            x[c] = dfm_v3_make((float)(qx + 0.3), (float)(ry - 0.1), (float)(rz + 0.5));
        }
        const float mu = (float)uni(200, 5000), lambda = (float)(mu * uni(0, 2));
        float lam, alpha;
        dfm_membrane_params_(mu, lambda, &lam, &alpha);
        dfm_m33 Ke[3][3], Kp[3][3];
        dfm_membrane_psd_hessian(x, dinv, area, mu, lam, alpha, 0.0f, 0, Ke);
        dfm_membrane_psd_hessian(x, dinv, area, mu, lam, alpha, 0.0f, 1, Kp);
        double E[81], P[81];
        to81(Ke, E);
        to81(Kp, P);
        /* FD of the force of vbd_membrane.h */
        const float step = (float)(1e-3 * L);
        double scale = 0.0, err = 0.0;
        for (int b = 0; b < 3; ++b)
            for (int q = 0; q < 3; ++q) {
                dfm_v3 xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                float* pp = &xp[b].x;
                float* pm = &xm[b].x;
                pp[q] += step;
                pm[q] -= step;
                const double h2 = (double)pp[q] - (double)pm[q];
                for (int a = 0; a < 3; ++a) {
                    dfm_v3 fp = dfm_v3_zero(), fm = dfm_v3_zero();
                    dfm_m33 Hd = dfm_m33_zero();
                    dfm_membrane_force_hessian(xp, NULL, dinv, area, mu, lambda, 0, 0, a, &fp, &Hd);
                    dfm_membrane_force_hessian(xm, NULL, dinv, area, mu, lambda, 0, 0, a, &fm, &Hd);
                    const double col[3] = {-((double)fp.x - fm.x) / h2, -((double)fp.y - fm.y) / h2,
                                           -((double)fp.z - fm.z) / h2};
                    for (int rr = 0; rr < 3; ++rr) {
                        scale = fmax(scale, fabs(col[rr]));
                        err = fmax(err, fabs(col[rr] - E[(3 * a + rr) * 9 + 3 * b + q]));
                    }
                }
            }
        worst_fd = fmax(worst_fd, err / scale);
        double lo, hi, plo, phi, big = 0.0, diff = 0.0, asym = 0.0;
        energy_eig_range(E, 9, &lo, &hi);
        energy_eig_range(P, 9, &plo, &phi);
        for (int i = 0; i < 81; ++i) big = fmax(big, fabs(E[i])), diff = fmax(diff, fabs(E[i] - P[i]));
        for (int i = 0; i < 9; ++i)
            for (int j = 0; j < 9; ++j) asym = fmax(asym, fabs(P[i * 9 + j] - P[j * 9 + i]));
        worst_sym = fmax(worst_sym, asym / big);
        worst_neg = fmax(worst_neg, -plo / phi);
        if (lo < -1e-6 * hi)
            ++indefinite;
        else
            worst_same = fmax(worst_same, diff / big);
    }
    printf("exact vs FD: worst %.3g of the element's largest entry (bound 1e-3)\n", worst_fd);
    printf("projected: worst asymmetry %.3g, worst smallest/largest eigenvalue %.3g (bound -1e-5)\n", worst_sym,
           -worst_neg);
    printf("PSD elements: projected vs exact worst %.3g (bound 1e-4); indefinite %d of %d (need >= 10%%)\n", worst_same,
           indefinite, count);
    CHECK(worst_fd <= 1e-3, "exact Hessian vs FD: %.3g", worst_fd);
    CHECK(worst_sym <= 1e-5, "projected asymmetry %.3g", worst_sym);
    CHECK(worst_neg <= 1e-5, "projected smallest eigenvalue -%.3g of the largest", worst_neg);
    CHECK(worst_same <= 1e-4, "projection changed a PSD element by %.3g", worst_same);
    CHECK(indefinite >= count / 10, "only %d indefinite elements", indefinite);
    return dfm_test_finish("test_energy_membrane_psd");
}
