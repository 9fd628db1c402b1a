/// Finite-difference and property tests of the deformable-deformable contact math
/// (kernels/shared/deform_contact.h):
/// - closest points: point-triangle and edge-edge parameters against a dense brute-force search in
///   double (random, degenerate: collinear and coincident triangle corners, point segments,
///   parallel and collinear edges): the returned distance is within 1e-5 (relative to the scene
///   size) of the brute-force minimum, never below it by more than rounding, and the parameters
///   are a point of the primitive;
/// - the barrier E(d): E' and E'' against central differences in every region, C1 and C2 at tau
///   and at d_min (relative 1e-3, Newton's test_self_contact_barrier_c2_* bound);
/// - each corner's force of a vertex-triangle and an edge-edge pair against the central
///   difference of the energy E(d(x)) with the closest point re-solved at every sample (relative
///   5e-3, measured 2.1e-3: float positions of 1 cm scenes, step 1e-6 m), the frozen-parameter
///   Hessian against the difference of the frozen-parameter force (5e-3, measured 4.4e-3: the
///   float force rounds r by ~1e-9 m, against the 2e-5 m step's curvature error), the solve block PSD and the frozen block
///   minus the solve block negative semi-definite (the dropped part is E'/d w^2 (I - n n^T));
/// - friction: force against the potential's difference, the exact Hessian against the force's
///   difference (2e-3), the solve block PSD and not smaller than the exact one;
/// - the displacement bound: every bounded step obeys both limits, and random moves of a pair's
///   four vertices within the bound never close its gap below (1 - 2 x 0.45) of it.
/// Floors: FD errors are |got - FD| / (|FD| + floor), floor 1e-3 of the magnitude scale.
#include "deform_contact.h"
#include "dfm_test.h"

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static double urand(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}
static double urange(double a, double b) { return a + (b - a) * urand(); }
static dfm_v3 rand_v3(double s) {
    return dfm_v3_make((float)urange(-s, s), (float)urange(-s, s), (float)urange(-s, s));
}
static double dist_d(dfm_v3 a, double bx, double by, double bz) {
    double x = a.x - bx, y = a.y - by, z = a.z - bz;
    return sqrt(x * x + y * y + z * z);
}

/* ------------------------------------------------------------ closest points */

/// Dense search over the triangle in double: the smallest distance from p.
static double brute_point_triangle(dfm_v3 p, dfm_v3 a, dfm_v3 b, dfm_v3 c) {
    const int N = 300;
    double best = 1e300;
    for (int i = 0; i <= N; ++i)
        for (int j = 0; i + j <= N; ++j) {
            double u = (double)i / N, v = (double)j / N, w = 1.0 - u - v;
            double qx = w * a.x + u * b.x + v * c.x, qy = w * a.y + u * b.y + v * c.y, qz = w * a.z + u * b.z + v * c.z;
            double d = dist_d(p, qx, qy, qz);
            if (d < best) best = d;
        }
    return best;
}

static double brute_edge_edge(dfm_v3 p0, dfm_v3 p1, dfm_v3 q0, dfm_v3 q1) {
    const int N = 400;
    double best = 1e300;
    for (int i = 0; i <= N; ++i) {
        double s = (double)i / N;
        double ax = p0.x + s * (p1.x - p0.x), ay = p0.y + s * (p1.y - p0.y), az = p0.z + s * (p1.z - p0.z);
        for (int j = 0; j <= N; ++j) {
            double t = (double)j / N;
            double bx = q0.x + t * (q1.x - q0.x), by = q0.y + t * (q1.y - q0.y), bz = q0.z + t * (q1.z - q0.z);
            double dx = ax - bx, dy = ay - by, dz = az - bz, d = sqrt(dx * dx + dy * dy + dz * dz);
            if (d < best) best = d;
        }
    }
    return best;
}

static void closest_points(void) {
    double worst_tri = 0.0, worst_tri_below = 0.0, worst_ee = 0.0, worst_ee_below = 0.0;
    int bad_param = 0;
    const int cases = 240;
    for (int n = 0; n < cases; ++n) {
        dfm_v3 a = rand_v3(1.0), b = rand_v3(1.0), c = rand_v3(1.0), p = rand_v3(1.5);
        int kind = n % 6;
        if (kind == 1) c = dfm_v3_madd(a, dfm_v3_sub(b, a), (float)urange(-0.5, 1.5)); /* collinear */
        if (kind == 2) b = a;                                                          /* two coincident */
        if (kind == 3) b = c = a;                                                      /* a point */
        if (kind == 4)
            p = dfm_v3_madd(dfm_v3_scale(dfm_v3_add(a, dfm_v3_add(b, c)), 1.0f / 3.0f),
                            dfm_v3_normalize(dfm_v3_cross(dfm_v3_sub(b, a), dfm_v3_sub(c, a))),
                            (float)urange(-0.01, 0.01)); /* near the face */
        float w[3];
        dfm_dc_point_triangle(p, a, b, c, w);
        for (int k = 0; k < 3; ++k) bad_param += !(w[k] >= -1e-6f && w[k] <= 1.0f + 1e-6f);
        bad_param += fabs((double)w[0] + w[1] + w[2] - 1.0) > 1e-5;
        double qx = (double)w[0] * a.x + (double)w[1] * b.x + (double)w[2] * c.x;
        double qy = (double)w[0] * a.y + (double)w[1] * b.y + (double)w[2] * c.y;
        double qz = (double)w[0] * a.z + (double)w[1] * b.z + (double)w[2] * c.z;
        double got = dist_d(p, qx, qy, qz), ref = brute_point_triangle(p, a, b, c);
        /* the grid is 1/300 of a ~2 m triangle: the brute minimum is above the true one by at most
           its spacing squared / distance; "above" is checked against the grid, "below" exactly */
        if (got - ref > worst_tri) worst_tri = got - ref;
        if (ref - got > worst_tri_below) worst_tri_below = ref - got;

        dfm_v3 p0 = rand_v3(1.0), p1 = rand_v3(1.0), q0 = rand_v3(1.0), q1 = rand_v3(1.0);
        if (kind == 1) q1 = dfm_v3_add(q0, dfm_v3_scale(dfm_v3_sub(p1, p0), (float)urange(-1.5, 1.5))); /* parallel */
        if (kind == 2) p1 = p0;                                                                         /* a point */
        if (kind == 3) p1 = p0, q1 = q0;                                                                /* two points */
        if (kind == 4) { /* collinear, overlapping */
            q0 = dfm_v3_madd(p0, dfm_v3_sub(p1, p0), 0.3f);
            q1 = dfm_v3_madd(p0, dfm_v3_sub(p1, p0), 1.4f);
        }
        float s, t;
        dfm_dc_edge_edge(p0, p1, q0, q1, &s, &t);
        bad_param += !(s >= 0.0f && s <= 1.0f && t >= 0.0f && t <= 1.0f);
        double ax = p0.x + (double)s * (p1.x - p0.x), ay = p0.y + (double)s * (p1.y - p0.y),
               az = p0.z + (double)s * (p1.z - p0.z);
        double bx = q0.x + (double)t * (q1.x - q0.x), by = q0.y + (double)t * (q1.y - q0.y),
               bz = q0.z + (double)t * (q1.z - q0.z);
        double dx = ax - bx, dy = ay - by, dz = az - bz;
        double gee = sqrt(dx * dx + dy * dy + dz * dz), ree = brute_edge_edge(p0, p1, q0, q1);
        if (gee - ree > worst_ee) worst_ee = gee - ree;
        if (ree - gee > worst_ee_below) worst_ee_below = ree - gee;
    }
    printf("closest points, %d cases each (1/6 degenerate of each kind): point-triangle above brute force by "
           "<= %.2e m, below by <= %.2e m (grid); edge-edge above by <= %.2e m, below by <= %.2e m; %d bad "
           "parameters\n",
           cases, worst_tri, worst_tri_below, worst_ee, worst_ee_below, bad_param);
    CHECK(worst_tri <= 2e-5 && worst_ee <= 2e-5, "closest point farther than the brute-force minimum");
    CHECK(worst_tri_below <= 2e-2 && worst_ee_below <= 1e-2,
          "brute force farther than its grid spacing allows (not a check of the kernel)");
    CHECK(bad_param == 0, "%d closest-point parameters outside the primitive", bad_param);
}

/* ------------------------------------------------------------ barrier */

static void barrier(void) {
    const float r = 0.02f, k = 1e3f, tau = 0.5f * r;
    double worst = 0.0;
    float ds[] = {0.019f, 0.015f, 0.0101f, 0.0099f, 0.006f, 0.001f, 1e-4f, 2.1e-5f, 1.5e-5f, 8e-6f, 3e-6f};
    for (size_t n = 0; n < sizeof(ds) / sizeof(ds[0]); ++n) {
        float d = ds[n], step = d * 1e-3f;
        float dE, d2E, dEp, d2Ep, dEm, d2Em;
        dfm_dc_energy_derivs(d, r, k, &dE, &d2E);
        dfm_dc_energy_derivs(d + step, r, k, &dEp, &d2Ep);
        dfm_dc_energy_derivs(d - step, r, k, &dEm, &d2Em);
        double fd1 = ((double)dfm_dc_energy(d + step, r, k) - dfm_dc_energy(d - step, r, k)) / (2.0 * step);
        double fd2 = ((double)dEp - dEm) / (2.0 * step);
        double e1 = fabs(fd1 - dE) / (fabs(fd1) + 1e-3 * k * r), e2 = fabs(fd2 - d2E) / (fabs(fd2) + 1e-3 * k);
        if (e1 > worst) worst = e1;
        if (e2 > worst) worst = e2;
    }
    /* continuity at the joins: values just below and above */
    double cont = 0.0;
    float joins[] = {tau, DFM_DC_DMIN};
    for (int j = 0; j < 2; ++j) {
        float lo = joins[j] * (1.0f - 1e-5f), hi = joins[j] * (1.0f + 1e-5f), a1, a2, b1, b2;
        dfm_dc_energy_derivs(lo, r, k, &a1, &a2);
        dfm_dc_energy_derivs(hi, r, k, &b1, &b2);
        double e0 = fabs((double)dfm_dc_energy(lo, r, k) - dfm_dc_energy(hi, r, k)) /
                    (fabs((double)dfm_dc_energy(hi, r, k)) + 1e-12);
        double c1 = fabs((double)a1 - b1) / fabs((double)b1), c2 = fabs((double)a2 - b2) / fabs((double)b2);
        if (e0 > cont) cont = e0;
        if (c1 > cont) cont = c1;
        if (c2 > cont) cont = c2;
    }
    float z1, z2;
    dfm_dc_energy_derivs(r, r, k, &z1, &z2);
    printf("barrier: derivatives vs central differences: worst relative error %.2e; C0/C1/C2 jumps at tau and "
           "d_min: worst %.2e; at d = r: E = %g, E' = %g\n",
           worst, cont, (double)dfm_dc_energy(r, r, k), (double)z1);
    CHECK(worst < 1e-3, "barrier derivatives off by %.2e", worst);
    CHECK(cont < 1e-3, "barrier not C2 at its joins (%.2e)", cont);
    CHECK(dfm_dc_energy(r, r, k) == 0.0f && z1 == 0.0f, "barrier not zero at the radius");
}

/* ------------------------------------------------------------ pair forces and Hessians */

/// The barrier law in double, written from its definition (the reference of the FD checks).
static double energy_d(double d, double r, double k) {
    if (!(d < r)) return 0.0;
    double tau = 0.5 * r, k2 = k * tau * tau, dmin = DFM_DC_DMIN;
    if (d >= tau) return 0.5 * k * (r - d) * (r - d);
    if (d > dmin) return 0.5 * k * tau * tau - k2 * log(d / tau);
    double emin = 0.5 * k * tau * tau - k2 * log(dmin / tau), s = k2 / (dmin * dmin);
    return emin + s * (0.5 * (d * d - dmin * dmin) - 2.0 * dmin * (d - dmin));
}

/// The pair energy at positions x with the closest point re-solved (double from the float stencil).
static double pair_energy(const dfm_dc_pair* pr, const float* x, float radius, float k) {
    float w[4];
    dfm_dc_pair_stencil(pr, x, w);
    double r[3] = {0, 0, 0};
    for (int j = 0; j < 4; ++j)
        for (int a = 0; a < 3; ++a) r[a] += (double)w[j] * x[3 * pr->v[j] + a];
    double d = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    return energy_d(d, radius, k);
}

/// The force on `corner` with the parameters frozen at w (no friction).
static dfm_v3 frozen_force(const dfm_dc_pair* pr, const float* x, const float* w, float radius, float k, int corner) {
    dfm_v3 r = dfm_v3_zero();
    for (int j = 0; j < 4; ++j) r = dfm_v3_madd(r, dfm_v3_load(x + 3 * pr->v[j]), w[j]);
    float d = dfm_v3_len(r), dE, d2E;
    dfm_dc_energy_derivs(d, radius, k, &dE, &d2E);
    return dfm_v3_scale(dfm_dc_normal(r, d), -dE * w[corner]);
}

static double min_eig(dfm_m33 H) { /* smallest eigenvalue of the symmetric part, by Jacobi sweeps */
    double a[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a[i][j] = 0.5 * ((double)H.m[i][j] + H.m[j][i]);
    for (int sweep = 0; sweep < 30; ++sweep)
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (fabs(a[p][q]) < 1e-300) continue;
                double th = 0.5 * atan2(2 * a[p][q], a[q][q] - a[p][p]), c = cos(th), s = sin(th);
                for (int k = 0; k < 3; ++k) {
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
    double m = a[0][0];
    if (a[1][1] < m) m = a[1][1];
    if (a[2][2] < m) m = a[2][2];
    return m;
}

static double m33_fro(dfm_m33 H) {
    double s = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s += (double)H.m[i][j] * H.m[i][j];
    return sqrt(s);
}

/// A random pair of `kind` at distance about `gap` (m) in a ~1 cm scene; x holds 4 vertices.
static void random_pair(int kind, float gap, int degenerate, float* x, dfm_dc_pair* pr) {
    for (int j = 0; j < 4; ++j) pr->v[j] = j;
    pr->kind = kind;
    dfm_v3 n = dfm_v3_normalize(rand_v3(1.0));
    dfm_v3 t1 = dfm_v3_normalize(dfm_v3_cross(n, rand_v3(1.0))), t2 = dfm_v3_cross(n, t1);
    float L = 0.01f;
    if (kind == DFM_DC_VERTEX_TRIANGLE) {
        dfm_v3 a = dfm_v3_scale(t1, L), b = dfm_v3_madd(dfm_v3_scale(t1, -0.5f * L), t2, 0.8f * L),
               c = dfm_v3_madd(dfm_v3_scale(t1, -0.5f * L), t2, -0.8f * L);
        a = dfm_v3_add(a, dfm_v3_scale(rand_v3(1.0), 0.2f * L));
        if (degenerate) c = dfm_v3_madd(a, dfm_v3_sub(b, a), 0.5f); /* collinear corners */
        float u = (float)urange(-0.5, 1.2), v = (float)urange(-0.5, 1.2);
        dfm_v3 q = dfm_v3_add(dfm_v3_scale(a, 1.0f - u * 0.5f - v * 0.5f),
                              dfm_v3_add(dfm_v3_scale(b, u * 0.5f), dfm_v3_scale(c, v * 0.5f)));
        dfm_v3 p = dfm_v3_madd(q, n, gap);
        dfm_v3 pts[4] = {p, a, b, c};
        for (int j = 0; j < 4; ++j) dfm_v3_store(pts[j], x + 3 * j);
    } else {
        dfm_v3 e0 = dfm_v3_scale(t1, -L), e1 = dfm_v3_scale(t1, L);
        dfm_v3 dir = degenerate ? t1 : dfm_v3_normalize(dfm_v3_madd(t2, t1, (float)urange(-1, 1)));
        dfm_v3 mid = dfm_v3_madd(dfm_v3_scale(t1, (float)urange(-1.2, 1.2) * L), n, -gap);
        dfm_v3 f0 = dfm_v3_madd(mid, dir, -L * (float)urange(0.3, 1.0)),
               f1 = dfm_v3_madd(mid, dir, L * (float)urange(0.3, 1.0));
        dfm_v3 pts[4] = {e0, e1, f0, f1};
        for (int j = 0; j < 4; ++j) dfm_v3_store(pts[j], x + 3 * j);
    }
}

static void pair_checks(void) {
    const float radius = 0.004f, k = 1e4f;
    double worst_f = 0, worst_h = 0, worst_psd = 0, worst_drop = 0;
    int samples = 0, skipped = 0, near_boundary = 0;
    for (int n = 0; n < 400; ++n) {
        int kind = n % 2, degenerate = (n / 2) % 5 == 4;
        float gap = (float)urange(0.1, 0.95) * radius;
        if (n % 7 == 0) gap = (float)urange(0.05, 0.45) * radius; /* barrier region */
        float x[12];
        dfm_dc_pair pr;
        random_pair(kind, gap, degenerate, x, &pr);
        float w0[4];
        dfm_v3 r0 = dfm_dc_pair_stencil(&pr, x, w0);
        float d0 = dfm_v3_len(r0);
        if (!(d0 < 0.98f * radius) || d0 < 0.02f * radius) {
            ++skipped;
            continue;
        }
        for (int corner = 0; corner < 4; ++corner) {
            if (w0[corner] == 0.0f) continue;
            /* a degenerate primitive's closest point has no unique parameters: the energy is not
               differentiable in its corners separately (only the vertex p of a vertex-triangle pair
               and the translation of a whole edge are); those are checked in `degenerate` */
            if (degenerate && !(kind == DFM_DC_VERTEX_TRIANGLE && corner == 0)) continue;
            /* a corner of weight below 0.02 has its closest point within 2% of a region boundary,
               which the difference straddles (the distance's curvature jumps there) */
            if (fabsf(w0[corner]) < 0.02f) {
                ++near_boundary;
                continue;
            }
            dfm_v3 f = dfm_v3_zero();
            dfm_m33 H = dfm_m33_zero();
            dfm_dc_pair_force(&pr, x, NULL, radius, k, 0.0f, 1e-3f, corner, &f, &H);
            const double step = 1e-6;
            dfm_m33 Hf = dfm_dc_pair_hessian_frozen(&pr, x, radius, k, corner);
            double fd[3], fdh[3][3];
            for (int a = 0; a < 3; ++a) {
                float xs[12];
                memcpy(xs, x, sizeof(xs));
                float base = x[3 * corner + a];
                xs[3 * corner + a] = (float)(base + step);
                double ep = pair_energy(&pr, xs, radius, k);
                double hp = (double)xs[3 * corner + a] - base;
                xs[3 * corner + a] = (float)(base - step);
                double em = pair_energy(&pr, xs, radius, k);
                double hm = base - (double)xs[3 * corner + a];
                fd[a] = -(ep - em) / (hp + hm);
                /* the frozen force is float: a 2e-5 m step keeps its rounding (1e-9 m on r) at 1e-4 */
                xs[3 * corner + a] = (float)(base + 2e-5);
                hp = (double)xs[3 * corner + a] - base;
                dfm_v3 fp = frozen_force(&pr, xs, w0, radius, k, corner);
                xs[3 * corner + a] = (float)(base - 2e-5);
                hm = base - (double)xs[3 * corner + a];
                dfm_v3 fm = frozen_force(&pr, xs, w0, radius, k, corner);
                for (int b = 0; b < 3; ++b) fdh[b][a] = -((double)dfm_v3_get(fp, b) - dfm_v3_get(fm, b)) / (hp + hm);
            }
            double num = 0, den = 0, hnum = 0, hden = 0;
            for (int a = 0; a < 3; ++a) {
                num += (dfm_v3_get(f, a) - fd[a]) * (dfm_v3_get(f, a) - fd[a]);
                den += fd[a] * fd[a];
                for (int b = 0; b < 3; ++b) {
                    hnum += (Hf.m[b][a] - fdh[b][a]) * (Hf.m[b][a] - fdh[b][a]);
                    hden += fdh[b][a] * fdh[b][a];
                }
            }
            /* floors: 1e-3 of the pair's force |E'| and of its stiffness E'' (a corner of small weight
               carries a small share; the float closest-point weights sum to 1 within 6e-8, which
               moves r by ~1e-9 m, 3e-4 |E'| in a 2e-6 m difference) */
            float dE0, d2E0;
            dfm_dc_energy_derivs(d0, radius, k, &dE0, &d2E0);
            double e = sqrt(num) / (sqrt(den) + 1e-3 * fabs(dE0)), eh = sqrt(hnum) / (sqrt(hden) + 1e-3 * d2E0);
            if (e > worst_f) worst_f = e;
            if (eh > worst_h) worst_h = eh;
            double sc = m33_fro(H) + 1e-30;
            double psd = -min_eig(H) / sc;
            if (psd > worst_psd) worst_psd = psd;
            dfm_m33 drop = dfm_m33_add(Hf, dfm_m33_scale(H, -1.0f)); /* must be <= 0 */
            double nd = -min_eig(dfm_m33_scale(drop, -1.0f)) / sc;
            if (nd > worst_drop) worst_drop = nd;
            ++samples;
        }
    }
    printf("pair forces: %d corner samples (%d configurations outside the radius, %d corners of weight < 0.02 "
           "skipped): force vs FD of the energy %.2e, frozen Hessian vs FD %.2e, solve block PSD violation %.2e, "
           "dropped part not NSD %.2e\n",
           samples, skipped, near_boundary, worst_f, worst_h, worst_psd, worst_drop);
    CHECK(samples > 600, "too few samples (%d)", samples);
    CHECK(worst_f < 5e-3, "pair force off its energy by %.2e", worst_f);
    CHECK(worst_h < 5e-3, "frozen Hessian off by %.2e", worst_h);
    CHECK(worst_psd < 1e-5 && worst_drop < 1e-5, "solve block not PSD (%.2e) or not above the frozen one (%.2e)",
          worst_psd, worst_drop);
}

/// Degenerate primitives (collinear triangle corners, parallel edges): the forces balance
/// (sum w_j = 0), and the force on the second primitive as a whole matches the difference of the
/// energy under its rigid translation (which is differentiable where its corners alone are not).
static void degenerate_checks(void) {
    const float radius = 0.004f, k = 1e4f;
    double worst_sum = 0, worst_tr = 0;
    int samples = 0;
    for (int n = 0; n < 200; ++n) {
        int kind = n % 2;
        float x[12];
        dfm_dc_pair pr;
        random_pair(kind, (float)urange(0.2, 0.9) * radius, 1, x, &pr);
        float w[4];
        if (!(dfm_v3_len(dfm_dc_pair_stencil(&pr, x, w)) < 0.98f * radius)) continue;
        dfm_v3 fs[4], total = dfm_v3_zero(), side = dfm_v3_zero();
        double fmax = 0;
        for (int j = 0; j < 4; ++j) {
            fs[j] = dfm_v3_zero();
            dfm_m33 H = dfm_m33_zero();
            dfm_dc_pair_force(&pr, x, NULL, radius, k, 0.0f, 1e-3f, j, fs + j, &H);
            total = dfm_v3_add(total, fs[j]);
            if (dfm_v3_len(fs[j]) > fmax) fmax = dfm_v3_len(fs[j]);
        }
        int first = kind == DFM_DC_VERTEX_TRIANGLE ? 1 : 2;
        for (int j = first; j < 4; ++j) side = dfm_v3_add(side, fs[j]);
        double fd[3], num = 0, den = 0;
        for (int a = 0; a < 3; ++a) {
            float xp[12], xm[12];
            memcpy(xp, x, sizeof(xp));
            memcpy(xm, x, sizeof(xm));
            for (int j = first; j < 4; ++j) {
                xp[3 * j + a] += 1e-6f;
                xm[3 * j + a] -= 1e-6f;
            }
            fd[a] = -(pair_energy(&pr, xp, radius, k) - pair_energy(&pr, xm, radius, k)) / 2e-6;
            num += (dfm_v3_get(side, a) - fd[a]) * (dfm_v3_get(side, a) - fd[a]);
            den += fd[a] * fd[a];
        }
        double es = dfm_v3_len(total) / (fmax + 1e-30), et = sqrt(num) / (sqrt(den) + 1e-3 * k * radius);
        if (es > worst_sum) worst_sum = es;
        if (et > worst_tr) worst_tr = et;
        ++samples;
    }
    printf("degenerate pairs: %d samples: force sum / largest force %.2e, a primitive's translation force vs FD "
           "%.2e\n",
           samples, worst_sum, worst_tr);
    CHECK(samples > 150, "too few degenerate samples (%d)", samples);
    CHECK(worst_sum < 1e-5 && worst_tr < 2e-3, "degenerate pair forces off (%.2e, %.2e)", worst_sum, worst_tr);
}

/* ------------------------------------------------------------ friction */

static void friction_checks(void) {
    double worst_f = 0, worst_h = 0, worst_psd = 0, worst_over = 0;
    const float eps = 1e-4f, mul = 3.0f;
    for (int n = 0; n < 300; ++n) {
        dfm_v3 nrm = dfm_v3_normalize(rand_v3(1.0));
        float scale = n % 3 == 0 ? 0.3f * eps : (n % 3 == 1 ? 0.9f * eps : 5.0f * eps);
        dfm_v3 D = dfm_v3_scale(rand_v3(1.0), scale);
        /* the potential and force as functions of D (corner weight 1) */
        dfm_v3 u = dfm_v3_madd(D, nrm, -dfm_v3_dot(D, nrm));
        float ul = dfm_v3_len(u);
        if (ul < 0.05f * eps) continue;
        float phi = ul > eps ? 1.0f / ul : (2.0f - ul / eps) / eps;
        dfm_v3 f = dfm_v3_scale(u, -mul * phi);
        dfm_m33 Hs = dfm_m33_scale(dfm_m33_add_outer(dfm_m33_diag(1.0f), nrm, nrm, -1.0f), mul * phi);
        dfm_m33 He = dfm_dc_friction_hessian_exact(D, nrm, eps, mul);
        const double step = 1e-3 * eps;
        double fd3[3], fdh3[3][3];
        for (int a = 0; a < 3; ++a) {
            dfm_v3 Dp = D, Dm = D;
            float* cp = a == 0 ? &Dp.x : (a == 1 ? &Dp.y : &Dp.z);
            float* cm = a == 0 ? &Dm.x : (a == 1 ? &Dm.y : &Dm.z);
            *cp += (float)step;
            *cm -= (float)step;
            double hh = (double)*cp - *cm;
            dfm_v3 up = dfm_v3_madd(Dp, nrm, -dfm_v3_dot(Dp, nrm)), um = dfm_v3_madd(Dm, nrm, -dfm_v3_dot(Dm, nrm));
            double fd = -((double)dfm_dc_friction_potential(dfm_v3_len(up), eps, mul) -
                          dfm_dc_friction_potential(dfm_v3_len(um), eps, mul)) /
                        hh;
            fd3[a] = fd;
            float php = dfm_v3_len(up) > eps ? 1.0f / dfm_v3_len(up) : (2.0f - dfm_v3_len(up) / eps) / eps;
            float phm = dfm_v3_len(um) > eps ? 1.0f / dfm_v3_len(um) : (2.0f - dfm_v3_len(um) / eps) / eps;
            dfm_v3 fp = dfm_v3_scale(up, -mul * php), fm = dfm_v3_scale(um, -mul * phm);
            for (int b = 0; b < 3; ++b) fdh3[b][a] = -((double)dfm_v3_get(fp, b) - dfm_v3_get(fm, b)) / hh;
        }
        double num = 0, den = 0, hnum = 0, hden = 0;
        for (int a = 0; a < 3; ++a) {
            num += (dfm_v3_get(f, a) - fd3[a]) * (dfm_v3_get(f, a) - fd3[a]);
            den += fd3[a] * fd3[a];
            for (int b = 0; b < 3; ++b) {
                hnum += (He.m[b][a] - fdh3[b][a]) * (He.m[b][a] - fdh3[b][a]);
                hden += fdh3[b][a] * fdh3[b][a];
            }
        }
        double e = sqrt(num) / (sqrt(den) + 1e-3 * mul), eh = sqrt(hnum) / (sqrt(hden) + 1e-3 * mul / eps);
        if (e > worst_f) worst_f = e;
        if (eh > worst_h) worst_h = eh;
        double sc = m33_fro(Hs) + 1e-30;
        double psd = -min_eig(Hs) / sc, over = -min_eig(dfm_m33_add(Hs, dfm_m33_scale(He, -1.0f))) / sc;
        if (psd > worst_psd) worst_psd = psd;
        if (over > worst_over) worst_over = over;
    }
    /* the pair routine applies the same law: a sliding vertex over a triangle */
    float x[12], dx[12] = {0};
    dfm_dc_pair pr;
    random_pair(DFM_DC_VERTEX_TRIANGLE, 0.002f, 0, x, &pr);
    dx[0] = 0.01f;
    dfm_v3 f0 = dfm_v3_zero(), f1 = dfm_v3_zero();
    dfm_m33 H0 = dfm_m33_zero(), H1 = dfm_m33_zero();
    dfm_dc_pair_force(&pr, x, NULL, 0.004f, 1e4f, 0.5f, 1e-3f, 0, &f0, &H0);
    dfm_dc_pair_force(&pr, x, dx, 0.004f, 1e4f, 0.5f, 1e-3f, 0, &f1, &H1);
    float w[4];
    dfm_v3 r = dfm_dc_pair_stencil(&pr, x, w);
    dfm_v3 nn = dfm_v3_normalize(r);
    dfm_v3 ft = dfm_v3_sub(f1, f0);
    double tang = dfm_v3_len(dfm_v3_madd(ft, nn, -dfm_v3_dot(ft, nn))), normal = dfm_v3_len(f0);
    printf("friction: force vs FD of the potential %.2e, exact Hessian vs FD %.2e, solve block PSD violation "
           "%.2e, below the exact one by %.2e; a sliding vertex: tangential %.4f N = mu x normal %.4f N\n",
           worst_f, worst_h, worst_psd, worst_over, tang, 0.5 * normal);
    CHECK(worst_f < 2e-3 && worst_h < 2e-3, "friction derivatives off (%.2e, %.2e)", worst_f, worst_h);
    CHECK(worst_psd < 1e-5 && worst_over < 1e-5, "friction solve block not PSD or below the exact one");
    CHECK(fabs(tang - 0.5 * normal) <= 1e-4 * normal, "sliding friction is not mu times the normal force");
}

/* ------------------------------------------------------------ displacement bound */

static void bound_checks(void) {
    int broken = 0, crossed = 0;
    double closest = 1e30;
    for (int n = 0; n < 2000; ++n) {
        dfm_v3 d_old = rand_v3(0.01), d_new = rand_v3(0.05);
        float gap = (float)urange(1e-4, 0.02), total = (float)urange(0.01, 0.03);
        if (dfm_v3_len(d_old) > total) d_old = dfm_v3_scale(d_old, total / dfm_v3_len(d_old));
        dfm_v3 b = dfm_dc_bound_step(d_old, d_new, gap, total);
        broken += dfm_v3_len(dfm_v3_sub(b, d_old)) > DFM_DC_BOUND_FRACTION * gap * (1.0f + 1e-5f) + 1e-9f;
        broken += dfm_v3_len(b) > total * (1.0f + 1e-5f);
        /* a pair's four vertices each move within the bound of its own (here: this pair's) gap */
        float x[12], y[12];
        dfm_dc_pair pr;
        random_pair(n % 2, (float)urange(0.2, 1.0) * 0.004f, n % 10 == 9, x, &pr);
        float w[4];
        float g0 = dfm_v3_len(dfm_dc_pair_stencil(&pr, x, w));
        for (int j = 0; j < 4; ++j) {
            dfm_v3 step = dfm_dc_bound_step(dfm_v3_zero(), rand_v3(0.02), g0, 1.0f);
            dfm_v3_store(dfm_v3_add(dfm_v3_load(x + 3 * j), step), y + 3 * j);
        }
        float g1 = dfm_v3_len(dfm_dc_pair_stencil(&pr, y, w));
        double ratio = g1 / g0;
        if (ratio < closest) closest = ratio;
        crossed += ratio < 1.0 - 2.0 * DFM_DC_BOUND_FRACTION - 1e-3;
    }
    printf("displacement bound: %d limit violations; random bounded moves of a pair's vertices: smallest gap "
           "after / before %.4f (bound %.2f), %d below it\n",
           broken, closest, 1.0 - 2.0 * DFM_DC_BOUND_FRACTION, crossed);
    CHECK(broken == 0, "%d bounded steps over a limit", broken);
    CHECK(crossed == 0, "%d pairs closed by more than the bound allows", crossed);
}

int main(void) {
    closest_points();
    barrier();
    pair_checks();
    degenerate_checks();
    friction_checks();
    bound_checks();
    return dfm_test_finish("test_energy_contact");
}
