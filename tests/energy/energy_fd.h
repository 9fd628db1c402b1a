/// @file energy_fd.h
/// Shared machinery of the finite-difference tests of the VBD element energies in kernels/shared
/// (test_energy_membrane.c, test_energy_bending.c, test_energy_tet.c): a fixed-seed splitmix64
/// generator, double-precision 3-vectors and 3x3 matrices for the independent reference formulas,
/// random rotations / deformations / rigid motions, the central-difference gradient and Hessian
/// drivers, and the per-check accumulators that print one line per check.
///
/// Conventions. Positions are in m; energies in J, forces in N, Hessian blocks in N/m. FD errors
/// are reported as |got - FD| / (|FD| + floor) after subtracting a float-rounding allowance
/// 8 eps * (magnitude of the summed float terms) / (2 step); "raw" is the error before the
/// allowance, "allowance-used" the largest fraction of the allowance actually needed, and
/// "noise-limited" counts samples whose allowance exceeds half the FD value (a check fails if more
/// than a quarter are). A failed check counts in g_dfm_test_failures (tests/support/dfm_test.h), so
/// each test's main ends with dfm_test_finish(). Include this after the kernel headers: vbd_tet.h
/// has locals named d3, which would shadow the d3 type here (-Wshadow).
#ifndef DFM_TEST_ENERGY_FD_H
#define DFM_TEST_ENERGY_FD_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dfm_test.h"
#include "mat33.h"

/// Random elements per energy check family (the tests use >= this many).
#define N_ELEMS 300
/// Random rigid motions of xn per damping "no force under rigid motion" check.
#define N_RIGID 100
/// FD step as a fraction of the element size (m / m).
#define FD_REL 1e-3
/// pi in double.
#define PI_D 3.14159265358979323846

/* ---------------------------------------------------------------- PRNG (splitmix64) */
/// The splitmix64 state; every test starts from the same fixed seed.
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
/// Next 64 random bits (splitmix64).
static inline uint64_t rng_next(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/// Advances the generator by `draws` calls of rng_next() at no cost (splitmix64's state moves by a
/// constant per draw). The tests were split out of one program that drew membrane, bending and tet
/// cases from one stream; skipping the draws of the earlier sections keeps every case as it was.
static inline void rng_skip(uint64_t draws) { g_rng += draws * 0x9E3779B97F4A7C15ull; }
/// Uniform double in [0, 1) (53 random bits).
static inline double urand(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }
/// Uniform double in [a, b).
static inline double urange(double a, double b) { return a + (b - a) * urand(); }

/* ---------------------------------------------------------------- double 3-vectors */
/// A double 3-vector (the reference side of every comparison).
typedef struct {
    double v[3];
} d3;
/// (x, y, z).
static inline d3 d3_make(double x, double y, double z) {
    d3 r;
    r.v[0] = x;
    r.v[1] = y;
    r.v[2] = z;
    return r;
}
/// Widens a float vector.
static inline d3 d3_of(dfm_v3 a) { return d3_make(a.x, a.y, a.z); }
/// Rounds to a float vector.
static inline dfm_v3 d3_to_f(d3 a) { return dfm_v3_make((float)a.v[0], (float)a.v[1], (float)a.v[2]); }
/// a + b.
static inline d3 d3_add(d3 a, d3 b) { return d3_make(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]); }
/// a - b.
static inline d3 d3_sub(d3 a, d3 b) { return d3_make(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]); }
/// s a.
static inline d3 d3_scale(d3 a, double s) { return d3_make(a.v[0] * s, a.v[1] * s, a.v[2] * s); }
/// a . b.
static inline double d3_dot(d3 a, d3 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
/// a x b.
static inline d3 d3_cross(d3 a, d3 b) {
    return d3_make(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
                   a.v[0] * b.v[1] - a.v[1] * b.v[0]);
}
/// |a|.
static inline double d3_len(d3 a) { return sqrt(d3_dot(a, a)); }
/// a / |a| (a must be nonzero).
static inline d3 d3_unit(d3 a) { return d3_scale(a, 1.0 / d3_len(a)); }
/// Random vector with components uniform in [-s, s) (s in the caller's units, usually m).
static inline d3 d3_rand(double s) { return d3_make(urange(-s, s), urange(-s, s), urange(-s, s)); }
/// Random unit vector (rejection sampling in the unit ball, shell 0.1 < |a| <= 1).
static inline d3 d3_rand_unit(void) {
    for (;;) {
        d3 a = d3_rand(1.0);
        double l = d3_len(a);
        if (l > 0.1 && l <= 1.0) return d3_scale(a, 1.0 / l);
    }
}
/// Random vector of integers in [-m, m] (grid points whose float arithmetic stays exact).
static inline d3 rand_int3(int m) {
    return d3_make(floor(urange(-m, m + 1)), floor(urange(-m, m + 1)), floor(urange(-m, m + 1)));
}
/// |a| of a float vector, evaluated in double.
static inline double v3_len_f(dfm_v3 a) { return d3_len(d3_of(a)); }

/* ---------------------------------------------------------------- double 3x3 matrices */
/// A double 3x3 matrix, row-major: m[row][col].
typedef struct {
    double m[3][3];
} d33;
/// Widens a float matrix.
static inline d33 d33_of(dfm_m33 a) {
    d33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][j];
    return r;
}
/// Frobenius norm.
static inline double d33_fro(d33 a) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s += a.m[i][j] * a.m[i][j];
    return sqrt(s);
}
/// a - b.
static inline d33 d33_sub(d33 a, d33 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] -= b.m[i][j];
    return a;
}
/// a b.
static inline d33 d33_mul(d33 a, d33 b) {
    d33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
/// Matrix times vector, a x.
static inline d3 d33_mulv(d33 a, d3 x) {
    return d3_make(d3_dot(d3_make(a.m[0][0], a.m[0][1], a.m[0][2]), x),
                   d3_dot(d3_make(a.m[1][0], a.m[1][1], a.m[1][2]), x),
                   d3_dot(d3_make(a.m[2][0], a.m[2][1], a.m[2][2]), x));
}
/// det a.
static inline double d33_det(d33 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/// Uniform random rotation from a random unit quaternion.
static inline d33 rand_rotation(void) {
    double q[4], n = 0.0;
    do {
        n = 0.0;
        for (int i = 0; i < 4; ++i) {
            q[i] = urange(-1.0, 1.0);
            n += q[i] * q[i];
        }
    } while (n > 1.0 || n < 1e-2);
    n = sqrt(n);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    d33 r;
    // clang-format off
    r.m[0][0] = 1 - 2 * (y * y + z * z); r.m[0][1] = 2 * (x * y - w * z);     r.m[0][2] = 2 * (x * z + w * y);
    r.m[1][0] = 2 * (x * y + w * z);     r.m[1][1] = 1 - 2 * (x * x + z * z); r.m[1][2] = 2 * (y * z - w * x);
    r.m[2][0] = 2 * (x * z - w * y);     r.m[2][1] = 2 * (y * z + w * x);     r.m[2][2] = 1 - 2 * (x * x + y * y);
    // clang-format on
    return r;
}
/// Random linear map (dimensionless): rotation * (s I + eps G), G with entries in [-1, 1].
static inline d33 rand_deformation(double s, double eps) {
    d33 g;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) g.m[i][j] = (i == j ? s : 0.0) + eps * urange(-1.0, 1.0);
    return d33_mul(rand_rotation(), g);
}
/// Smallest eigenvalue of the symmetric part of a 3x3 matrix, cyclic Jacobi in double.
static inline double min_eig_sym(d33 a) {
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) a.m[i][j] = a.m[j][i] = 0.5 * (a.m[i][j] + a.m[j][i]);
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(a.m[0][1]) + fabs(a.m[0][2]) + fabs(a.m[1][2]);
        if (off < 1e-300) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a.m[p][q] == 0.0) continue;
                double th = 0.5 * atan2(2.0 * a.m[p][q], a.m[q][q] - a.m[p][p]);
                double c = cos(th), s = sin(th);
                for (int k = 0; k < 3; ++k) { /* A <- A J */
                    double akp = a.m[k][p], akq = a.m[k][q];
                    a.m[k][p] = c * akp - s * akq;
                    a.m[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) { /* A <- J^T A */
                    double apk = a.m[p][k], aqk = a.m[q][k];
                    a.m[p][k] = c * apk - s * aqk;
                    a.m[q][k] = s * apk + c * aqk;
                }
            }
    }
    return fmin(a.m[0][0], fmin(a.m[1][1], a.m[2][2]));
}
/// Asymmetry max |a_ij - a_ji| / |a|_F (0 for the zero matrix).
static inline double asym_rel(d33 a) {
    double n = d33_fro(a), s = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s = fmax(s, fabs(a.m[i][j] - a.m[j][i]));
    return n > 0.0 ? s / n : 0.0;
}

/* ---------------------------------------------------------------- random element states */
/// x = M X + t + noise for n vertices, with a random translation t of a few element sizes L (m)
/// and per-vertex noise uniform in [-noise, noise) per component (m).
static inline void deform(const dfm_v3* X, int n, double L, d33 M, double noise, dfm_v3* x) {
    d3 t = d3_rand(3.0 * L);
    for (int i = 0; i < n; ++i) x[i] = d3_to_f(d3_add(d3_add(d33_mulv(M, d3_of(X[i])), t), d3_rand(noise)));
}
/// x = R X + t for n vertices: a random rotation and a translation of a few element sizes L (m).
static inline void rigid(const dfm_v3* X, int n, double L, dfm_v3* x) {
    d33 R = rand_rotation();
    d3 t = d3_rand(3.0 * L);
    for (int i = 0; i < n; ++i) x[i] = d3_to_f(d3_add(d33_mulv(R, d3_of(X[i])), t));
}
/// Start-of-step positions of a damping check: xn = M X + t + noise, M a random mild deformation
/// (scale 0.7..1.4, perturbation up to 0.3), t a translation of a few L and noise 0.03 L (m).
static inline void rand_xn(const dfm_v3* X, int n, double L, dfm_v3* xn) {
    deform(X, n, L, rand_deformation(urange(0.7, 1.4), urange(0.0, 0.3)), 0.03 * L, xn);
}
/// x = xn + per-component noise uniform in [-s, s) (m), for n vertices.
static inline void perturb(const dfm_v3* xn, int n, double s, dfm_v3* x) {
    for (int i = 0; i < n; ++i) x[i] = d3_to_f(d3_add(d3_of(xn[i]), d3_rand(s)));
}
/// Stable Neo-Hookean parameters in double: lam = lambda + mu safeguarded to sign * max(|lam|,
/// 1e-6), alpha = 1 + mu / lam (lam in the units of mu and lambda, alpha dimensionless).
static inline void nh_params_d(double mu, double lambda, double* lam, double* alpha) {
    double l = lambda + mu;
    double la = fmax(fabs(l), 1e-6);
    *lam = l < 0 ? -la : la;
    *alpha = 1.0 + mu / *lam;
}

/* ---------------------------------------------------------------- reporting */
/// One check: the worst error over its samples against a tolerance, printed as one line.
typedef struct {
    const char* name;
    double worst;
    double tol;
    long n;
    long weak;   /* FD samples whose float-noise allowance exceeds half the reference value */
    double raw;  /* FD checks: worst |got - ref| / (|ref| + floor) before the rounding allowance */
    double used; /* FD checks: worst |got - ref| / allowance (how much of the allowance was needed) */
} check_t;
/// Starts a check named `name` that passes while the worst error stays <= tol.
static inline void chk_init(check_t* c, const char* name, double tol) {
    c->name = name;
    c->worst = 0.0;
    c->tol = tol;
    c->n = 0;
    c->weak = 0;
    c->raw = 0.0;
    c->used = 0.0;
}
/// Adds one sample's error (NaN counts as a failure).
static inline void chk_add(check_t* c, double err) {
    c->n++;
    if (!(err <= c->worst)) c->worst = isnan(err) ? INFINITY : err; /* NaN counts as a failure */
}
/// Prints the check's line and counts a failure in g_dfm_test_failures when the worst error
/// exceeds tol, nothing was checked, or more than a quarter of the FD samples were too noisy to tell
/// a sign flip from rounding.
static inline void chk_report(const check_t* c) {
    int ok = c->n > 0 && c->worst <= c->tol && 4 * c->weak <= c->n;
    printf("%-4s %-60s n=%-5ld worst=%.3e tol=%.1e", ok ? "ok" : "FAIL", c->name, c->n, c->worst, c->tol);
    if (c->raw > 0.0) printf(" raw=%.2e", c->raw);
    if (c->used > 0.0) printf(" allowance-used=%.2f", c->used);
    if (c->weak) printf(" noise-limited=%ld", c->weak);
    printf("\n");
    if (!ok) g_dfm_test_failures++;
}
/// How far a Hessian block is from PSD: -(smallest eigenvalue of its symmetric part) / |H|_F
/// (<= 0 for a PSD block).
static inline double psd_violation(d33 H) { return -min_eig_sym(H) / d33_fro(H); }
/// Float-rounding allowance of a central difference of a float quantity of magnitude mag, step in
/// m (J and m give an allowance in N; N and m, one in N/m).
static inline double fd_allow(double mag, double step) { return 8.0 * FLT_EPSILON * mag / (2.0 * step); }

/* ---------------------------------------------------------------- generic finite differences */
/// Component k (0, 1, 2 = x, y, z) of v.
static inline float* comp(dfm_v3* v, int k) { return k == 0 ? &v->x : (k == 1 ? &v->y : &v->z); }

/// An element energy (J) of positions x (m); ctx holds the element's rest data and material.
typedef double (*scalar_fn)(const dfm_v3* x, const void* ctx);
/// The force (N) on vertex vi of an element at positions x (m).
typedef d3 (*force_fn)(const dfm_v3* x, int vi, const void* ctx);
/// The Hessian block (N/m) of vertex vi of an element at positions x (m).
typedef d33 (*hess_fn)(const dfm_v3* x, int vi, const void* ctx);

/// Central-difference Jacobian d fn(x, vi) / d x_vi (column k: the derivative w.r.t. component k
/// of x_vi), step in m; the float-rounded step is the divisor. x is moved and restored.
static inline d33 fd_jacobian(force_fn fn, const void* ctx, dfm_v3* x, int vi, double step) {
    d33 j;
    for (int k = 0; k < 3; ++k) {
        float* p = comp(&x[vi], k);
        float orig = *p;
        float xp = (float)((double)orig + step), xm = (float)((double)orig - step);
        *p = xp;
        d3 fp = fn(x, vi, ctx);
        *p = xm;
        d3 fm = fn(x, vi, ctx);
        *p = orig;
        for (int r = 0; r < 3; ++r) j.m[r][k] = (fp.v[r] - fm.v[r]) / ((double)xp - (double)xm);
    }
    return j;
}
/// A scalar function with its context, seen by fd_jacobian as the vector (E, 0, 0).
typedef struct {
    scalar_fn e;
    const void* ctx;
} fd_scalar;
/// fd_jacobian's view of an fd_scalar: (E(x), 0, 0), E in J.
static inline d3 fd_scalar_eval(const dfm_v3* x, int vi, const void* p) {
    (void)vi;
    const fd_scalar* s = (const fd_scalar*)p;
    return d3_make(s->e(x, s->ctx), 0.0, 0.0);
}
/// Central-difference gradient (J/m) of E w.r.t. vertex vi, step in m; the float-rounded
/// step is the divisor. x is moved and restored.
static inline d3 fd_gradient(scalar_fn e, const void* ctx, dfm_v3* x, int vi, double step) {
    fd_scalar s = {e, ctx};
    d33 j = fd_jacobian(fd_scalar_eval, &s, x, vi, step);
    return d3_make(j.m[0][0], j.m[0][1], j.m[0][2]);
}
/// Central-difference Jacobian of -force(vi) w.r.t. x_vi, i.e. the FD Hessian block (N/m), step in
/// m; the float-rounded step is the divisor. x is moved and restored.
static inline d33 fd_hessian(force_fn fn, const void* ctx, dfm_v3* x, int vi, double step) {
    d33 h = fd_jacobian(fn, ctx, x, vi, step);
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) h.m[r][k] = -h.m[r][k];
    return h;
}
/// Adds the error of vector got vs the FD reference beyond the rounding allowance `allow`,
/// relative to |ref| + floor (floor and allow in the units of ref).
static inline void chk_fd3(check_t* c, d3 got, d3 ref, double floor, double allow) {
    double d = d3_len(d3_sub(got, ref)), r = d3_len(ref);
    if (allow > 0.5 * r) c->weak++;
    c->raw = fmax(c->raw, d / (r + floor));
    if (allow > 0.0) c->used = fmax(c->used, d / allow);
    chk_add(c, fmax(0.0, d - allow) / (r + floor));
}
/// chk_fd3 for a 3x3 block (Frobenius norms; the per-entry allowance is scaled by sqrt 3).
static inline void chk_fd33(check_t* c, d33 got, d33 ref, double floor, double allow) {
    double d = d33_fro(d33_sub(got, ref)), r = d33_fro(ref);
    allow *= sqrt(3.0);
    if (allow > 0.5 * r) c->weak++;
    c->raw = fmax(c->raw, d / (r + floor));
    if (allow > 0.0) c->used = fmax(c->used, d / allow);
    chk_add(c, fmax(0.0, d - allow) / (r + floor));
}
/// Checks the force (N) on vertex vi against -grad E by central differences (step in m, see
/// fd_gradient); floor and allow in N (see chk_fd3).
static inline void chk_force_fd(check_t* c, force_fn force, scalar_fn e, const void* ctx, dfm_v3* x, int vi,
                                double step, double floor, double allow) {
    d3 g = fd_gradient(e, ctx, x, vi, step);
    chk_fd3(c, force(x, vi, ctx), d3_scale(g, -1.0), floor, allow);
}
/// Checks the elastic + damping force (N) on vertex vi against -grad(E + D) by central
/// differences: E (the elastic energy, J) with `step` (m), D (the damping dissipation potential, J,
/// much stiffer) with a tenth of it; floor and allow in N (see chk_fd3).
static inline void chk_damped_force_fd(check_t* c, force_fn force, scalar_fn e, scalar_fn d, const void* ctx, dfm_v3* x,
                                       int vi, double step, double floor, double allow) {
    d3 g = d3_add(fd_gradient(e, ctx, x, vi, step), fd_gradient(d, ctx, x, vi, 0.1 * step));
    chk_fd3(c, force(x, vi, ctx), d3_scale(g, -1.0), floor, allow);
}
/// Checks the Hessian block H (N/m) of vertex vi against the central difference of the force
/// (step in m, see fd_hessian); floor and allow in N/m (see chk_fd33).
static inline void chk_hessian_fd(check_t* c, d33 H, force_fn force, const void* ctx, dfm_v3* x, int vi, double step,
                                  double floor, double allow) {
    d33 Hfd = fd_hessian(force, ctx, x, vi, step);
    chk_fd33(c, H, Hfd, floor, allow);
}
/// Checks the Hessian block of vertex vi at x == xn (n <= 4 vertices, m) against the central
/// difference (step in m) of the force: x is a copy of xn, so that the FD moves x only.
static inline void chk_hessian_at_xn(check_t* c, hess_fn hess, force_fn force, const void* ctx, const dfm_v3* xn, int n,
                                     int vi, double step, double floor, double allow) {
    dfm_v3 xs[4];
    memcpy(xs, xn, sizeof(dfm_v3) * (size_t)n);
    chk_hessian_fd(c, hess(xs, vi, ctx), force, ctx, xs, vi, step, floor, allow);
}

#endif
