/* Finite-difference and property tests of the VBD element energies in kernels/shared:
 * vbd_membrane.h (stable Neo-Hookean membrane), vbd_bending.h (dihedral bending) and vbd_tet.h
 * (stable Neo-Hookean tetrahedron). Deterministic: fixed-seed splitmix64, >= 300 random elements
 * per energy, element sizes 1e-2..10 m, translations of a few element sizes.
 *
 * Checks, per energy:
 *   - energy against an independent double-precision evaluation of the reference formula;
 *   - each vertex force against central differences (in double) of the float energy, step 1e-3 of
 *     the element size (the float-rounded step is the divisor);
 *   - each Hessian block against central differences of the force of the same vertex where the
 *     block is exact (membrane: s = lam (J - alpha) >= 0; bending: theta = theta0; tet: always),
 *     for compressed membranes that H - H_FD is PSD (the clamp only drops an NSD term), symmetry,
 *     and PSD (Jacobi eigenvalues) on all states, compressed and inverted ones included;
 *   - damping: force = -grad(E + D), D = kd/(2h) * weighted squared increments of C = F^T F (or of
 *     the wrapped angle), times area / volume / rest length, written independently here in double;
 *     damping Hessian = FD of the damping force at x == xn; damping force ~0 under 100 random rigid
 *     motions of xn; the bending rate is wrapped across +-pi;
 *   - rest data: return codes and untouched outputs for degenerate / flat / inverted / non-finite
 *     inputs, the documented D^-1 basis, F^T F = I, zero energy and force at rest.
 * FD errors are reported as |got - FD| / (|FD| + floor) after subtracting a float-rounding allowance
 * 8 eps * (magnitude of the summed float terms) / (2 step); "raw" is the error before the allowance,
 * "allowance-used" the largest fraction of the allowance actually needed, and "noise-limited" counts
 * samples whose allowance exceeds half the FD value (a check fails if more than a quarter are).
 * One line per check; exit code 1 if any check fails.
 *
 * Mutation testing (each mutation applied to a copy of the headers, the test rebuilt and run; all
 * 43 were caught, the checks that failed are in parentheses):
 *   membrane: force sign (force FD, Hessian FD); dJ/df0 sign (rest force, force FD); vertex-0
 *     mapping (force FD, Hessian FD); lam = lambda without +mu (energy ref, Hessian FD); curvature
 *     clamp max(0,s) removed (PSD); -r dJ dJ^T Hessian term dropped (Hessian FD); energy-only
 *     formula error (energy ref, force FD); damping dC01 weight 2->1 in the force (damping FDs);
 *     damping Hessian weight 2->1 (damping Hessian FD); dC01 cross term dropped (damping FDs,
 *     rigid motion); damping without area (damping FDs); rest dinv[1] sign (basis, F^T F = I);
 *     rest area factor (area); degeneracy threshold removed / too strict (degenerate, valid
 *     accepted); asymmetric Hessian (symmetry).
 *   bending: dtheta/dx0 sign, t0 <-> 1-t0, t1 sign (force FD, Hessian FD); k without rest length
 *     (force FD, zero at rest); no angle wrap (damping FD across +-pi); damping Hessian missing,
 *     damping sign, damping without rest length (damping FDs); angle convention flipped (known
 *     fold angle); degeneracy threshold removed (degenerate checks); negative Hessian (PSD);
 *     damping ignoring thetan (rigid motion).
 *   tet: vertex-0 sign (force FD); Hessian lam term missing (Hessian FD); off-diagonal damping
 *     weight 2->1, dC cross term dropped (damping FDs); J - alpha -> J - 1 in the force (rest
 *     force, force FD); cof F -> F (force FD); energy offset (rest energy); inverted accepted,
 *     flat threshold 1e-12 / too strict (return codes, valid accepted); rest Dm^-1 transposed
 *     (Dm Dm^-1 = I); F built with Dm^-T (rest energy); volume factor (volume); asymmetric
 *     Hessian (symmetry); negative lam Hessian (PSD).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vbd_bending.h"
#include "vbd_membrane.h"
#include "vbd_tet.h"

#define N_ELEMS 300
#define N_RIGID 100
#define FD_REL 1e-3
#define PI_D 3.14159265358979323846

/* ---------------------------------------------------------------- PRNG (splitmix64) */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double urand(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }
static double urange(double a, double b) { return a + (b - a) * urand(); }

/* ---------------------------------------------------------------- double 3-vectors */
typedef struct { double v[3]; } d3;
static d3 d3_make(double x, double y, double z) { d3 r; r.v[0] = x; r.v[1] = y; r.v[2] = z; return r; }
static d3 d3_of(dfm_v3 a) { return d3_make(a.x, a.y, a.z); }
static dfm_v3 d3_to_f(d3 a) { return dfm_v3_make((float)a.v[0], (float)a.v[1], (float)a.v[2]); }
static d3 d3_add(d3 a, d3 b) { return d3_make(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]); }
static d3 d3_sub(d3 a, d3 b) { return d3_make(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]); }
static d3 d3_scale(d3 a, double s) { return d3_make(a.v[0] * s, a.v[1] * s, a.v[2] * s); }
static double d3_dot(d3 a, d3 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
static d3 d3_cross(d3 a, d3 b) {
    return d3_make(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2], a.v[0] * b.v[1] - a.v[1] * b.v[0]);
}
static double d3_len(d3 a) { return sqrt(d3_dot(a, a)); }
static d3 d3_unit(d3 a) { return d3_scale(a, 1.0 / d3_len(a)); }
static d3 d3_rand(double s) { return d3_make(urange(-s, s), urange(-s, s), urange(-s, s)); }
static d3 d3_rand_unit(void) {
    for (;;) {
        d3 a = d3_rand(1.0);
        double l = d3_len(a);
        if (l > 0.1 && l <= 1.0) return d3_scale(a, 1.0 / l);
    }
}
static d3 rand_int3(int m) {
    return d3_make(floor(urange(-m, m + 1)), floor(urange(-m, m + 1)), floor(urange(-m, m + 1)));
}
static double v3_len_f(dfm_v3 a) { return d3_len(d3_of(a)); }

/* ---------------------------------------------------------------- double 3x3 matrices */
typedef struct { double m[3][3]; } d33;
static d33 d33_of(dfm_m33 a) {
    d33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][j];
    return r;
}
static double d33_fro(d33 a) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s += a.m[i][j] * a.m[i][j];
    return sqrt(s);
}
static d33 d33_sub(d33 a, d33 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] -= b.m[i][j];
    return a;
}
static d33 d33_mul(d33 a, d33 b) {
    d33 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
static d3 d33_mulv(d33 a, d3 x) {
    return d3_make(d3_dot(d3_make(a.m[0][0], a.m[0][1], a.m[0][2]), x), d3_dot(d3_make(a.m[1][0], a.m[1][1], a.m[1][2]), x),
                   d3_dot(d3_make(a.m[2][0], a.m[2][1], a.m[2][2]), x));
}
static double d33_det(d33 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/* Uniform random rotation from a random unit quaternion. */
static d33 rand_rotation(void) {
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
    r.m[0][0] = 1 - 2 * (y * y + z * z); r.m[0][1] = 2 * (x * y - w * z);     r.m[0][2] = 2 * (x * z + w * y);
    r.m[1][0] = 2 * (x * y + w * z);     r.m[1][1] = 1 - 2 * (x * x + z * z); r.m[1][2] = 2 * (y * z - w * x);
    r.m[2][0] = 2 * (x * z - w * y);     r.m[2][1] = 2 * (y * z + w * x);     r.m[2][2] = 1 - 2 * (x * x + y * y);
    return r;
}
/* Random linear map: rotation * (s I + eps G), G with entries in [-1, 1]. */
static d33 rand_deformation(double s, double eps) {
    d33 g;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) g.m[i][j] = (i == j ? s : 0.0) + eps * urange(-1.0, 1.0);
    return d33_mul(rand_rotation(), g);
}
/* Smallest eigenvalue of the symmetric part of a 3x3 matrix, cyclic Jacobi in double. */
static double min_eig_sym(d33 a) {
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
static double asym_rel(d33 a) {
    double n = d33_fro(a), s = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s = fmax(s, fabs(a.m[i][j] - a.m[j][i]));
    return n > 0.0 ? s / n : 0.0;
}

/* ---------------------------------------------------------------- reporting */
static int g_failures = 0;
typedef struct {
    const char* name;
    double worst;
    double tol;
    long n;
    long weak;       /* FD samples whose float-noise allowance exceeds half the reference value */
    double raw;      /* FD checks: worst |got - ref| / (|ref| + floor) before the rounding allowance */
    double used;     /* FD checks: worst |got - ref| / allowance (how much of the allowance was needed) */
} check_t;
static void chk_init(check_t* c, const char* name, double tol) {
    c->name = name;
    c->worst = 0.0;
    c->tol = tol;
    c->n = 0;
    c->weak = 0;
    c->raw = 0.0;
    c->used = 0.0;
}
static void chk_add(check_t* c, double err) {
    c->n++;
    if (!(err <= c->worst)) c->worst = isnan(err) ? INFINITY : err; /* NaN counts as a failure */
}
/* Fails when the worst error exceeds tol, nothing was checked, or more than a quarter of the FD
   samples were too noisy to tell a sign flip from rounding. */
static void chk_report(const check_t* c) {
    int ok = c->n > 0 && c->worst <= c->tol && 4 * c->weak <= c->n;
    printf("%-4s %-60s n=%-5ld worst=%.3e tol=%.1e", ok ? "ok" : "FAIL", c->name, c->n, c->worst, c->tol);
    if (c->raw > 0.0) printf(" raw=%.2e", c->raw);
    if (c->used > 0.0) printf(" allowance-used=%.2f", c->used);
    if (c->weak) printf(" noise-limited=%ld", c->weak);
    printf("\n");
    if (!ok) g_failures++;
}
/* Float-rounding allowance of a central difference of a float quantity of magnitude mag. */
static double fd_allow(double mag, double step) { return 8.0 * FLT_EPSILON * mag / (2.0 * step); }

/* ---------------------------------------------------------------- generic finite differences */
static float* comp(dfm_v3* v, int k) { return k == 0 ? &v->x : (k == 1 ? &v->y : &v->z); }

typedef double (*scalar_fn)(const dfm_v3* x, const void* ctx);
typedef d3 (*force_fn)(const dfm_v3* x, int vi, const void* ctx);

/* Central-difference gradient of E w.r.t. vertex vi; the float-rounded step is the divisor. */
static d3 fd_gradient(scalar_fn e, const void* ctx, dfm_v3* x, int vi, double step) {
    d3 g;
    for (int k = 0; k < 3; ++k) {
        float* p = comp(&x[vi], k);
        float orig = *p;
        float xp = (float)((double)orig + step), xm = (float)((double)orig - step);
        *p = xp;
        double ep = e(x, ctx);
        *p = xm;
        double em = e(x, ctx);
        *p = orig;
        g.v[k] = (ep - em) / ((double)xp - (double)xm);
    }
    return g;
}
/* Central-difference Jacobian of -force(vi) w.r.t. x_vi, i.e. the FD Hessian block. */
static d33 fd_hessian(force_fn fn, const void* ctx, dfm_v3* x, int vi, double step) {
    d33 h;
    for (int k = 0; k < 3; ++k) {
        float* p = comp(&x[vi], k);
        float orig = *p;
        float xp = (float)((double)orig + step), xm = (float)((double)orig - step);
        *p = xp;
        d3 fp = fn(x, vi, ctx);
        *p = xm;
        d3 fm = fn(x, vi, ctx);
        *p = orig;
        for (int r = 0; r < 3; ++r) h.m[r][k] = -(fp.v[r] - fm.v[r]) / ((double)xp - (double)xm);
    }
    return h;
}
/* Error of got vs the FD reference beyond the rounding allowance, relative to |ref| + floor. */
static void chk_fd3(check_t* c, d3 got, d3 ref, double floor, double allow) {
    double d = d3_len(d3_sub(got, ref)), r = d3_len(ref);
    if (allow > 0.5 * r) c->weak++;
    c->raw = fmax(c->raw, d / (r + floor));
    if (allow > 0.0) c->used = fmax(c->used, d / allow);
    chk_add(c, fmax(0.0, d - allow) / (r + floor));
}
static void chk_fd33(check_t* c, d33 got, d33 ref, double floor, double allow) {
    double d = d33_fro(d33_sub(got, ref)), r = d33_fro(ref);
    allow *= sqrt(3.0);
    if (allow > 0.5 * r) c->weak++;
    c->raw = fmax(c->raw, d / (r + floor));
    if (allow > 0.0) c->used = fmax(c->used, d / allow);
    chk_add(c, fmax(0.0, d - allow) / (r + floor));
}

/* ================================================================ membrane */
typedef struct {
    float dinv[4], area, mu, lam, kd, h;
    const dfm_v3* xn;
} mem_ctx;

static void mem_ab(const float dinv[4], int vi, double* a, double* b) {
    if (vi == 0) { *a = -(double)(dinv[0] + dinv[2]); *b = -(double)(dinv[1] + dinv[3]); }
    else if (vi == 1) { *a = dinv[0]; *b = dinv[1]; }
    else { *a = dinv[2]; *b = dinv[3]; }
}
/* Independent double F columns. */
static void mem_F_d(const dfm_v3* x, const float dinv[4], d3* f0, d3* f1) {
    d3 d1 = d3_sub(d3_of(x[1]), d3_of(x[0])), d2 = d3_sub(d3_of(x[2]), d3_of(x[0]));
    *f0 = d3_add(d3_scale(d1, dinv[0]), d3_scale(d2, dinv[2]));
    *f1 = d3_add(d3_scale(d1, dinv[1]), d3_scale(d2, dinv[3]));
}
static void nh_params_d(double mu, double lambda, double* lam, double* alpha) {
    double l = lambda + mu;
    double la = fmax(fabs(l), 1e-6);
    *lam = l < 0 ? -la : la;
    *alpha = 1.0 + mu / *lam;
}
/* Reference energy: A * (mu/2 (tr C - 2) + lam/2 (J - alpha)^2 - lam/2 (1 - alpha)^2), double. */
static double mem_energy_ref(const dfm_v3* x, const mem_ctx* c) {
    d3 f0, f1;
    mem_F_d(x, c->dinv, &f0, &f1);
    double lam, alpha;
    nh_params_d(c->mu, c->lam, &lam, &alpha);
    double j = d3_len(d3_cross(f0, f1));
    double psi = 0.5 * c->mu * (d3_dot(f0, f0) + d3_dot(f1, f1) - 2.0) + 0.5 * lam * (j - alpha) * (j - alpha) -
                 0.5 * lam * (1.0 - alpha) * (1.0 - alpha);
    return c->area * psi;
}
static double mem_energy_f(const dfm_v3* x, const void* ctx) {
    const mem_ctx* c = (const mem_ctx*)ctx;
    return dfm_membrane_energy(x, c->dinv, c->area, c->mu, c->lam);
}
/* Dissipation potential kd A/(2h) (dC00^2 + 2 dC01^2 + dC11^2), double. */
static double mem_dissipation(const dfm_v3* x, const void* ctx) {
    const mem_ctx* c = (const mem_ctx*)ctx;
    d3 f0, f1, g0, g1;
    mem_F_d(x, c->dinv, &f0, &f1);
    mem_F_d(c->xn, c->dinv, &g0, &g1);
    double c00 = d3_dot(f0, f0) - d3_dot(g0, g0);
    double c01 = d3_dot(f0, f1) - d3_dot(g0, g1);
    double c11 = d3_dot(f1, f1) - d3_dot(g1, g1);
    return c->kd * c->area / (2.0 * c->h) * (c00 * c00 + 2.0 * c01 * c01 + c11 * c11);
}
static d3 mem_force(const dfm_v3* x, int vi, const void* ctx) {
    const mem_ctx* c = (const mem_ctx*)ctx;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_membrane_force_hessian(x, c->xn, c->dinv, c->area, c->mu, c->lam, c->kd, c->h, vi, &f, &h);
    return d3_of(f);
}
static d33 mem_hess(const dfm_v3* x, int vi, const mem_ctx* c) {
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_membrane_force_hessian(x, c->xn, c->dinv, c->area, c->mu, c->lam, c->kd, c->h, vi, &f, &h);
    return d33_of(h);
}
/* Random well-shaped rest triangle of size ~L around a random centre. */
static void rand_triangle(double L, dfm_v3 X[3]) {
    for (;;) {
        d3 c = d3_rand(2.0 * L);
        d3 p[3];
        for (int i = 0; i < 3; ++i) p[i] = d3_add(c, d3_rand(L));
        double l2 = fmax(d3_dot(d3_sub(p[1], p[0]), d3_sub(p[1], p[0])),
                         fmax(d3_dot(d3_sub(p[2], p[0]), d3_sub(p[2], p[0])), d3_dot(d3_sub(p[2], p[1]), d3_sub(p[2], p[1]))));
        double a2 = d3_len(d3_cross(d3_sub(p[1], p[0]), d3_sub(p[2], p[0])));
        if (l2 > 0.04 * L * L && a2 > 0.25 * l2) {
            for (int i = 0; i < 3; ++i) X[i] = d3_to_f(p[i]);
            return;
        }
    }
}
/* x = M X + t + noise, with a translation of a few element sizes L. */
static void deform(const dfm_v3* X, int n, double L, d33 M, double noise, dfm_v3* x) {
    d3 t = d3_rand(3.0 * L);
    for (int i = 0; i < n; ++i) x[i] = d3_to_f(d3_add(d3_add(d33_mulv(M, d3_of(X[i])), t), d3_rand(noise)));
}
static void rigid(const dfm_v3* X, int n, double L, dfm_v3* x) {
    d33 R = rand_rotation();
    d3 t = d3_rand(3.0 * L);
    for (int i = 0; i < n; ++i) x[i] = d3_to_f(d3_add(d33_mulv(R, d3_of(X[i])), t));
}
static void mem_random_material(mem_ctx* c) {
    c->mu = (float)urange(0.2, 5.0);
    c->lam = (float)urange(0.0, 20.0);
}
/* Characteristic scales: force and Hessian of a unit strain for vertex vi. */
static double mem_fscale(const mem_ctx* c, const dfm_v3* x, int vi) {
    double a, b;
    mem_ab(c->dinv, vi, &a, &b);
    d3 f0, f1;
    mem_F_d(x, c->dinv, &f0, &f1);
    double fn = sqrt(d3_dot(f0, f0) + d3_dot(f1, f1));
    return c->area * (c->mu + c->lam + c->mu) * sqrt(a * a + b * b) * (1.0 + fn * fn);
}

/* Magnitudes of the terms summed in float: energy (for FD of E) and force (for FD of f). */
static void mem_mags(const mem_ctx* c, const dfm_v3* x, int vi, double* emag, double* fmag) {
    double a, b, lam, alpha;
    mem_ab(c->dinv, vi, &a, &b);
    nh_params_d(c->mu, c->lam, &lam, &alpha);
    d3 f0, f1;
    mem_F_d(x, c->dinv, &f0, &f1);
    double fro = sqrt(d3_dot(f0, f0) + d3_dot(f1, f1)), j = d3_len(d3_cross(f0, f1));
    *emag = c->area * (0.5 * c->mu * (fro * fro + 2.0) + 0.5 * lam * fabs(j - 1.0) * (j + 1.0 + 2.0 * alpha) +
                       lam * fabs(j - alpha) * fro * fro);
    *fmag = c->area * sqrt(a * a + b * b) * (c->mu * fro + lam * fabs(j - alpha) * fro + lam * fro * fro * fro);
}

static void test_membrane(void) {
    check_t c_rest_ok, c_rest_basis, c_rest_area, c_rest_iso, c_rest_e, c_rest_f, c_degen, c_e_ref, c_f_fd, c_h_fd,
        c_h_clamp, c_h_sym, c_psd, c_d_fd, c_d_only_fd, c_dh_fd, c_rigid;
    chk_init(&c_rest_ok, "membrane rest: valid triangles accepted (count of rejects)", 0.0);
    chk_init(&c_rest_basis, "membrane rest: D^-1 in basis e1=x1-x0 (rel err)", 2e-6);
    chk_init(&c_rest_area, "membrane rest: area (rel err)", 2e-6);
    chk_init(&c_rest_iso, "membrane rest: F^T F = I at rest (abs err)", 1e-5);
    chk_init(&c_rest_e, "membrane rest: energy 0 at rest / rigid (|E|/(mu A))", 1e-5);
    chk_init(&c_rest_f, "membrane rest: force 0 at rest / rigid (|f|/fscale)", 1e-5);
    chk_init(&c_degen, "membrane rest: degenerate rejected, outputs untouched (misses)", 0.0);
    chk_init(&c_e_ref, "membrane energy vs double reference (err/term magnitude)", 2e-6);
    chk_init(&c_f_fd, "membrane force vs FD of energy (rel)", 2e-3);
    chk_init(&c_h_fd, "membrane Hessian vs FD of force, s>=0 (rel)", 2e-3);
    chk_init(&c_h_clamp, "membrane Hessian, s<0: H - H_FD is PSD (-min eig/|H|)", 2e-3);
    chk_init(&c_h_sym, "membrane Hessian symmetry (rel)", 1e-6);
    chk_init(&c_psd, "membrane Hessian PSD, all states (-min eig/|H|)", 1e-6);
    chk_init(&c_d_fd, "membrane elastic+damping force vs -grad(E+D) FD (rel)", 2e-3);
    chk_init(&c_d_only_fd, "membrane damping-only force vs -grad D FD (rel)", 2e-3);
    chk_init(&c_dh_fd, "membrane damping Hessian vs FD at x==xn (rel)", 2e-3);
    chk_init(&c_rigid, "membrane damping force under rigid motion (rel)", 1e-4);

    /* ---- rest data */
    for (int n = 0; n < N_ELEMS; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[3];
        rand_triangle(L, X);
        mem_ctx c;
        mem_random_material(&c);
        c.kd = 0.0f; c.h = 0.0f; c.xn = NULL;
        if (!dfm_tri_rest_compute(X[0], X[1], X[2], c.dinv, &c.area)) { chk_add(&c_rest_ok, 1.0); continue; }
        chk_add(&c_rest_ok, 0.0);
        d3 d1 = d3_sub(d3_of(X[1]), d3_of(X[0])), d2 = d3_sub(d3_of(X[2]), d3_of(X[0]));
        d3 e1 = d3_unit(d1), e2 = d3_cross(d3_unit(d3_cross(d1, d2)), e1);
        double D[2][2] = {{d3_dot(d1, e1), d3_dot(d2, e1)}, {d3_dot(d1, e2), d3_dot(d2, e2)}};
        double det = D[0][0] * D[1][1] - D[0][1] * D[1][0];
        double Di[4] = {D[1][1] / det, -D[0][1] / det, -D[1][0] / det, D[0][0] / det};
        double dn = sqrt(Di[0] * Di[0] + Di[1] * Di[1] + Di[2] * Di[2] + Di[3] * Di[3]), be = 0.0;
        for (int i = 0; i < 4; ++i) be = fmax(be, fabs(c.dinv[i] - Di[i]) / dn);
        chk_add(&c_rest_basis, be + (c.dinv[2] == 0.0f ? 0.0 : 1.0));
        chk_add(&c_rest_area, fabs(c.area - 0.5 * d3_len(d3_cross(d1, d2))) / (0.5 * d3_len(d3_cross(d1, d2))));
        d3 f0, f1;
        mem_F_d(X, c.dinv, &f0, &f1);
        chk_add(&c_rest_iso, fmax(fabs(d3_dot(f0, f0) - 1.0), fmax(fabs(d3_dot(f1, f1) - 1.0), fabs(d3_dot(f0, f1)))));
        dfm_v3 x[3];
        for (int pass = 0; pass < 2; ++pass) {
            if (pass == 0) memcpy(x, X, sizeof x);
            else rigid(X, 3, L, x);
            chk_add(&c_rest_e, fabs(dfm_membrane_energy(x, c.dinv, c.area, c.mu, c.lam)) / (c.mu * c.area));
            for (int vi = 0; vi < 3; ++vi) chk_add(&c_rest_f, d3_len(mem_force(x, vi, &c)) / mem_fscale(&c, x, vi));
        }
    }
    /* ---- degenerate triangles: return 0 and leave the outputs alone */
    for (int n = 0; n < 60; ++n) {
        /* points on a grid of small integers times 2^e: the float arithmetic below is exact, so the
           collinear cases are collinear in float too */
        double sc = ldexp(1.0, (int)urange(-10.0, 6.0));
        d3 p0 = d3_scale(rand_int3(8), sc), u;
        do u = d3_scale(rand_int3(4), sc); while (d3_len(u) == 0.0);
        const double ts[5] = {-2.0, -1.0, 0.5, 2.0, 3.0};
        d3 p1 = d3_add(p0, u), p2;
        int kind = n % 6;
        if (kind == 0) p2 = d3_add(p0, d3_scale(u, ts[(int)urange(0.0, 5.0)]));   /* collinear */
        else if (kind == 1) { p1 = p0; p2 = d3_add(p0, d3_rand(sc)); }           /* coincident pair */
        else if (kind == 2) p2 = p0;                                               /* coincident pair */
        else if (kind == 3) { p1 = p0; p2 = p0; }                                  /* point */
        else if (kind == 4) p2 = d3_make(NAN, 0.0, 0.0);                           /* non-finite */
        else p2 = d3_make(INFINITY, 1.0, 0.0);
        float dinv[4] = {-7.0f, -7.0f, -7.0f, -7.0f}, area = -7.0f;
        int r = dfm_tri_rest_compute(d3_to_f(p0), d3_to_f(p1), d3_to_f(p2), dinv, &area);
        int bad = r != 0 || area != -7.0f || dinv[0] != -7.0f || dinv[1] != -7.0f || dinv[2] != -7.0f || dinv[3] != -7.0f;
        chk_add(&c_degen, bad ? 1.0 : 0.0);
    }
    {   /* exactly representable near-collinear: area 1e-14 relative to edge^2 */
        float dinv[4] = {-7.0f, -7.0f, -7.0f, -7.0f}, area = -7.0f;
        int r = dfm_tri_rest_compute(dfm_v3_make(0, 0, 0), dfm_v3_make(1, 0, 0), dfm_v3_make(0.5f, 1e-14f, 0), dinv, &area);
        chk_add(&c_degen, r != 0 || area != -7.0f ? 1.0 : 0.0);
        r = dfm_tri_rest_compute(dfm_v3_make(0, 0, 0), dfm_v3_make(1, 0, 0), dfm_v3_make(0.5f, 1e-5f, 0), dinv, &area);
        chk_add(&c_degen, r != 1 ? 1.0 : 0.0); /* thin but well above the threshold: accepted */
    }

    /* ---- elastic force / Hessian / PSD on random states */
    int n_stretched = 0;
    for (int n = 0; n < 4 * N_ELEMS || n_stretched < N_ELEMS; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[3], x[3];
        rand_triangle(L, X);
        mem_ctx c;
        mem_random_material(&c);
        c.kd = 0.0f; c.h = 0.0f; c.xn = NULL;
        if (!dfm_tri_rest_compute(X[0], X[1], X[2], c.dinv, &c.area)) continue;
        int regime = n % 4; /* 0,1: general; 2: strongly compressed; 3: stretched */
        double s = regime == 2 ? urange(0.1, 0.7) : (regime == 3 ? urange(1.3, 2.2) : urange(0.6, 1.6));
        deform(X, 3, L, rand_deformation(s, urange(0.0, 0.4)), 0.03 * L * s, x);
        double step = FD_REL * L * s;
        {
            double emag0, fmag0;
            mem_mags(&c, x, 0, &emag0, &fmag0);
            chk_add(&c_e_ref, fabs(mem_energy_f(x, &c) - mem_energy_ref(x, &c)) / emag0);
        }
        /* J and s in double to select the exact-Hessian regime */
        d3 f0, f1;
        mem_F_d(x, c.dinv, &f0, &f1);
        double lam, alpha;
        nh_params_d(c.mu, c.lam, &lam, &alpha);
        double J = d3_len(d3_cross(f0, f1));
        int exact = J >= alpha + 0.02, compressed = J <= alpha - 0.02;
        if (exact) n_stretched++;
        for (int vi = 0; vi < 3; ++vi) {
            double fs = mem_fscale(&c, x, vi), emag, fmag;
            mem_mags(&c, x, vi, &emag, &fmag);
            d3 g = fd_gradient(mem_energy_f, &c, x, vi, step);
            chk_fd3(&c_f_fd, mem_force(x, vi, &c), d3_scale(g, -1.0), 1e-2 * fs, fd_allow(emag, step));
            d33 H = mem_hess(x, vi, &c);
            chk_add(&c_h_sym, asym_rel(H));
            chk_add(&c_psd, -min_eig_sym(H) / d33_fro(H));
            if (exact) {
                d33 Hfd = fd_hessian(mem_force, &c, x, vi, step);
                chk_fd33(&c_h_fd, H, Hfd, 1e-2 * fs / (L * s), fd_allow(fmag, step));
            } else if (compressed) {
                /* the clamp drops (s/J)(|w|^2 I - w w^T - dJ dJ^T), which is negative semidefinite
                   for s < 0, so the projected block must dominate the exact one */
                d33 Hfd = fd_hessian(mem_force, &c, x, vi, step);
                chk_add(&c_h_clamp, fmax(0.0, -min_eig_sym(d33_sub(H, Hfd)) - sqrt(3.0) * fd_allow(fmag, step)) / d33_fro(H));
            }
        }
    }

    /* ---- damping */
    for (int n = 0; n < N_ELEMS; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[3], xn[3], x[3];
        rand_triangle(L, X);
        mem_ctx c;
        mem_random_material(&c);
        if (!dfm_tri_rest_compute(X[0], X[1], X[2], c.dinv, &c.area)) continue;
        deform(X, 3, L, rand_deformation(urange(0.7, 1.4), urange(0.0, 0.3)), 0.03 * L, xn);
        for (int i = 0; i < 3; ++i) x[i] = d3_to_f(d3_add(d3_of(xn[i]), d3_rand(0.15 * L)));
        c.h = (float)urange(1e-3, 2e-2);
        c.kd = (float)(c.mu * c.h * urange(0.3, 3.0)); /* damping force comparable to the elastic one */
        c.xn = xn;
        double step = FD_REL * L;
        for (int vi = 0; vi < 3; ++vi) {
            double fs = mem_fscale(&c, x, vi), emag, fmag;
            mem_mags(&c, x, vi, &emag, &fmag);
            d3 g = d3_add(fd_gradient(mem_energy_f, &c, x, vi, step), fd_gradient(mem_dissipation, &c, x, vi, 0.1 * step));
            chk_fd3(&c_d_fd, mem_force(x, vi, &c), d3_scale(g, -1.0), 1e-2 * fs, fd_allow(emag, step));
            d33 H = mem_hess(x, vi, &c);
            chk_add(&c_psd, -min_eig_sym(H) / d33_fro(H));
        }
        /* damping only (mu = lambda = 0) */
        mem_ctx cd = c;
        cd.mu = 0.0f; cd.lam = 0.0f;
        double dscale_base = (double)c.kd * c.area / c.h;
        for (int vi = 0; vi < 3; ++vi) {
            double a, b;
            mem_ab(c.dinv, vi, &a, &b);
            double fs = dscale_base * sqrt(a * a + b * b);
            d3 g = fd_gradient(mem_dissipation, &cd, x, vi, 0.1 * step);
            chk_fd3(&c_d_only_fd, mem_force(x, vi, &cd), d3_scale(g, -1.0), 1e-2 * fs, 0.0);
        }
        /* damping Hessian at x == xn */
        cd.xn = xn;
        for (int vi = 0; vi < 3; ++vi) {
            double a, b;
            mem_ab(c.dinv, vi, &a, &b);
            dfm_v3 xs[3];
            memcpy(xs, xn, sizeof xs); /* x == xn, but a separate array so FD moves x only */
            d33 H = mem_hess(xs, vi, &cd);
            d33 Hfd = fd_hessian(mem_force, &cd, xs, vi, step);
            chk_fd33(&c_dh_fd, H, Hfd, 1e-3 * dscale_base * (a * a + b * b), 0.0);
        }
    }
    /* ---- rigid motions of xn: no damping force */
    for (int n = 0; n < N_RIGID; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[3], xn[3], x[3];
        rand_triangle(L, X);
        mem_ctx c;
        if (!dfm_tri_rest_compute(X[0], X[1], X[2], c.dinv, &c.area)) continue;
        deform(X, 3, L, rand_deformation(urange(0.7, 1.4), urange(0.0, 0.3)), 0.03 * L, xn);
        rigid(xn, 3, L, x);
        c.mu = 0.0f; c.lam = 0.0f; c.h = (float)urange(1e-3, 2e-2); c.kd = (float)urange(0.1, 10.0);
        c.xn = xn;
        mem_ctx c0 = c;
        c0.kd = 0.0f;
        for (int vi = 0; vi < 3; ++vi) {
            double a, b;
            mem_ab(c.dinv, vi, &a, &b);
            d3 f0, f1;
            mem_F_d(x, c.dinv, &f0, &f1);
            double fs = (double)c.kd * c.area / c.h * sqrt(a * a + b * b) * (d3_dot(f0, f0) + d3_dot(f1, f1));
            d3 fd = d3_sub(mem_force(x, vi, &c), mem_force(x, vi, &c0));
            chk_add(&c_rigid, d3_len(fd) / fs);
        }
    }
    if (n_stretched < N_ELEMS) chk_add(&c_h_fd, INFINITY);

    chk_report(&c_rest_ok); chk_report(&c_rest_basis); chk_report(&c_rest_area); chk_report(&c_rest_iso);
    chk_report(&c_rest_e); chk_report(&c_rest_f); chk_report(&c_degen); chk_report(&c_e_ref); chk_report(&c_f_fd);
    chk_report(&c_h_fd); chk_report(&c_h_clamp); chk_report(&c_h_sym); chk_report(&c_psd); chk_report(&c_d_fd); chk_report(&c_d_only_fd);
    chk_report(&c_dh_fd); chk_report(&c_rigid);
}

/* ================================================================ bending */
typedef struct {
    float rest_angle, rest_length, ke, kd, h;
    const dfm_v3* xn;
} bend_ctx;

/* Independent double dihedral angle (returns 0 on a degenerate hinge, flag in *ok). */
static double bend_angle_d(const dfm_v3* x, int* ok) {
    d3 p0 = d3_of(x[0]), p1 = d3_of(x[1]), p2 = d3_of(x[2]), p3 = d3_of(x[3]);
    d3 e = d3_sub(p3, p2);
    d3 n1 = d3_cross(d3_sub(p2, p0), d3_sub(p3, p0));
    d3 n2 = d3_cross(d3_sub(p3, p1), d3_sub(p2, p1));
    if (d3_len(n1) == 0.0 || d3_len(n2) == 0.0 || d3_len(e) == 0.0) { *ok = 0; return 0.0; }
    *ok = 1;
    n1 = d3_unit(n1); n2 = d3_unit(n2); e = d3_unit(e);
    return atan2(d3_dot(d3_cross(n1, n2), e), d3_dot(n1, n2));
}
static double wrap_pi(double d) {
    while (d > PI_D) d -= 2.0 * PI_D;
    while (d <= -PI_D) d += 2.0 * PI_D;
    return d;
}
static double bend_energy_f(const dfm_v3* x, const void* ctx) {
    const bend_ctx* c = (const bend_ctx*)ctx;
    return dfm_bending_energy(x, c->rest_angle, c->rest_length, c->ke);
}
static double bend_dissipation(const dfm_v3* x, const void* ctx) {
    const bend_ctx* c = (const bend_ctx*)ctx;
    int ok1, ok2;
    double d = wrap_pi(bend_angle_d(x, &ok1) - bend_angle_d(c->xn, &ok2));
    return (double)c->kd * c->rest_length / (2.0 * c->h) * d * d;
}
static d3 bend_force(const dfm_v3* x, int vi, const void* ctx) {
    const bend_ctx* c = (const bend_ctx*)ctx;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_bending_force_hessian(x, c->xn, c->rest_angle, c->rest_length, c->ke, c->kd, c->h, vi, &f, &h);
    return d3_of(f);
}
static d33 bend_hess(const dfm_v3* x, int vi, const bend_ctx* c) {
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_bending_force_hessian(x, c->xn, c->rest_angle, c->rest_length, c->ke, c->kd, c->h, vi, &f, &h);
    return d33_of(h);
}
/* Random hinge with edge length L and fold angle delta: rotating the o1 wing by delta about e
   from the flat configuration; by the convention theta = delta. Returns the smallest height. */
static double rand_hinge(double L, double delta, dfm_v3 x[4]) {
    d3 u = d3_rand_unit();
    d3 p = d3_unit(d3_cross(u, d3_rand_unit()));
    d3 q = d3_cross(u, p);
    d3 p2 = d3_rand(2.0 * L), p3 = d3_add(p2, d3_scale(u, L));
    double phi0 = urange(-PI_D, PI_D), phi1 = phi0 + PI_D + delta;
    double h0 = urange(0.3, 1.5) * L, h1 = urange(0.3, 1.5) * L;
    d3 p0 = d3_add(d3_add(p2, d3_scale(u, urange(-0.3, 1.3) * L)), d3_scale(d3_add(d3_scale(p, cos(phi0)), d3_scale(q, sin(phi0))), h0));
    d3 p1 = d3_add(d3_add(p2, d3_scale(u, urange(-0.3, 1.3) * L)), d3_scale(d3_add(d3_scale(p, cos(phi1)), d3_scale(q, sin(phi1))), h1));
    x[0] = d3_to_f(p0); x[1] = d3_to_f(p1); x[2] = d3_to_f(p2); x[3] = d3_to_f(p3);
    return fmin(h0, h1);
}
/* |dtheta/dx_vi| scale: 1 / (smallest height). */

static void test_bending(void) {
    check_t c_angle_ref, c_angle_known, c_e_ref, c_rest, c_f_fd, c_h_fd, c_psd, c_d_fd, c_d_only_fd, c_dh_fd, c_rigid,
        c_degen, c_degen_n;
    chk_init(&c_angle_known, "bending angle = constructed fold angle (rad)", 2e-5);
    chk_init(&c_angle_ref, "bending angle vs double reference (rad)", 2e-5);
    chk_init(&c_e_ref, "bending energy vs double reference formula (rel)", 2e-5);
    chk_init(&c_rest, "bending energy/force 0 at theta=theta0 (rel)", 1e-5);
    chk_init(&c_f_fd, "bending force vs FD of energy (rel)", 2e-3);
    chk_init(&c_h_fd, "bending Hessian vs FD of force at theta=theta0 (rel)", 2e-3);
    chk_init(&c_psd, "bending Hessian PSD + symmetric (-min eig/|H|, asym)", 1e-6);
    chk_init(&c_d_fd, "bending elastic+damping force vs -grad(E+D) FD (rel)", 2e-3);
    chk_init(&c_d_only_fd, "bending damping-only force vs -grad D FD (rel)", 2e-3);
    chk_init(&c_dh_fd, "bending damping Hessian vs FD at x==xn (rel)", 2e-3);
    chk_init(&c_rigid, "bending damping force under rigid motion (rel)", 1e-4);
    chk_init(&c_degen, "bending degenerate: angle/energy 0, nothing added (misses)", 0.0);
    chk_init(&c_degen_n, "bending degenerate xn: damping skipped, finite (misses)", 0.0);

    for (int n = 0; n < N_ELEMS; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        double delta = urange(-2.6, 2.6);
        dfm_v3 x[4];
        double hmin = rand_hinge(L, delta, x);
        int ok;
        double thd = bend_angle_d(x, &ok);
        float th = dfm_dihedral_angle(x);
        chk_add(&c_angle_known, fabs(th - delta));
        chk_add(&c_angle_ref, fabs(th - thd));
        bend_ctx c;
        c.rest_length = (float)(L * urange(0.8, 1.2));
        c.ke = (float)urange(0.1, 10.0);
        c.rest_angle = (float)urange(-2.8, 2.8);
        c.kd = 0.0f; c.h = 0.0f; c.xn = NULL;
        double k = (double)c.ke * c.rest_length;
        double eref = 0.5 * k * (thd - c.rest_angle) * (thd - c.rest_angle);
        chk_add(&c_e_ref, fabs(bend_energy_f(x, &c) - eref) / (eref + 1e-3 * k));
        double step = FD_REL * L;
        double dth = fabs(thd - c.rest_angle);
        double fs = k * (dth + 1e-2) / hmin; /* force scale: |dtheta/dx| <= ~2.3 / hmin */
        /* float angle error ~ eps (1 + L/hmin): magnitudes for the rounding allowances */
        double cond = 1.0 + L / hmin;
        double emag = eref + k * dth * cond, fmag = k * cond / hmin;
        for (int vi = 0; vi < 4; ++vi) {
            d3 g = fd_gradient(bend_energy_f, &c, x, vi, step);
            chk_fd3(&c_f_fd, bend_force(x, vi, &c), d3_scale(g, -1.0), 1e-2 * fs, fd_allow(emag, step));
            d33 H = bend_hess(x, vi, &c);
            chk_add(&c_psd, fmax(-min_eig_sym(H) / d33_fro(H), asym_rel(H)));
        }
        /* at theta = theta0: energy, force zero; Hessian exact */
        bend_ctx c0 = c;
        c0.rest_angle = th;
        chk_add(&c_rest, bend_energy_f(x, &c0) / k);
        for (int vi = 0; vi < 4; ++vi) {
            chk_add(&c_rest, d3_len(bend_force(x, vi, &c0)) / (k / hmin));
            d33 H = bend_hess(x, vi, &c0);
            d33 Hfd = fd_hessian(bend_force, &c0, x, vi, step);
            chk_fd33(&c_h_fd, H, Hfd, 1e-2 * k / (hmin * hmin), fd_allow(fmag, step));
        }
        /* the same at a rigidly moved copy */
        dfm_v3 xr[4];
        rigid(x, 4, L, xr);
        chk_add(&c_rest, bend_energy_f(xr, &c0) / k);
        for (int vi = 0; vi < 4; ++vi) chk_add(&c_rest, d3_len(bend_force(xr, vi, &c0)) / (k / hmin));

        /* damping: xn = hinge with a nearby fold angle, x = perturbed */
        dfm_v3 xn[4], xd[4];
        memcpy(xn, x, sizeof xn);
        for (int i = 0; i < 4; ++i) xd[i] = d3_to_f(d3_add(d3_of(xn[i]), d3_rand(0.1 * hmin)));
        bend_ctx cd = c;
        cd.h = (float)urange(1e-3, 2e-2);
        cd.kd = (float)(c.ke * cd.h * urange(0.3, 3.0));
        cd.xn = xn;
        for (int vi = 0; vi < 4; ++vi) {
            d3 g = d3_add(fd_gradient(bend_energy_f, &cd, xd, vi, step), fd_gradient(bend_dissipation, &cd, xd, vi, 0.1 * step));
            chk_fd3(&c_d_fd, bend_force(xd, vi, &cd), d3_scale(g, -1.0), 1e-2 * fs, fd_allow(emag, step));
            d33 H = bend_hess(xd, vi, &cd);
            chk_add(&c_psd, fmax(-min_eig_sym(H) / d33_fro(H), asym_rel(H)));
        }
        bend_ctx cz = cd;
        cz.ke = 0.0f;
        double dfs = (double)cd.kd * cd.rest_length / cd.h / hmin;
        for (int vi = 0; vi < 4; ++vi) {
            d3 g = fd_gradient(bend_dissipation, &cz, xd, vi, 0.1 * step);
            chk_fd3(&c_d_only_fd, bend_force(xd, vi, &cz), d3_scale(g, -1.0), 1e-2 * dfs * 0.1, 0.0);
            dfm_v3 xs[4];
            memcpy(xs, xn, sizeof xs); /* x == xn, but a separate array so FD moves x only */
            d33 H = bend_hess(xs, vi, &cz);
            d33 Hfd = fd_hessian(bend_force, &cz, xs, vi, step);
            chk_fd33(&c_dh_fd, H, Hfd, 1e-2 * dfs / hmin, fd_allow(dfs * cond, step));
        }
    }
    /* damping across the +-pi cut: theta ~ pi - d, thetan ~ -pi + d must be a small rate */
    for (int n = 0; n < 50; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 x[4];
        double hmin = rand_hinge(L, PI_D - 0.02, x);
        dfm_v3 xn[4];
        /* xn: same hinge folded to -pi + 0.02 (rotate o1 about the edge by 0.04 rad) */
        d3 p2 = d3_of(x[2]), u = d3_unit(d3_sub(d3_of(x[3]), d3_of(x[2])));
        d3 r = d3_sub(d3_of(x[1]), p2);
        double ang = 0.04;
        d3 rr = d3_add(d3_add(d3_scale(r, cos(ang)), d3_scale(d3_cross(u, r), sin(ang))), d3_scale(u, d3_dot(u, r) * (1 - cos(ang))));
        memcpy(xn, x, sizeof xn);
        xn[1] = d3_to_f(d3_add(p2, rr));
        bend_ctx cz;
        cz.ke = 0.0f; cz.rest_angle = 0.0f; cz.rest_length = (float)L; cz.h = 0.01f; cz.kd = 1.0f; cz.xn = xn;
        /* expected: rate = wrap(theta - thetan)/h with |wrap| ~ 0.04 */
        int ok;
        double d = wrap_pi(bend_angle_d(x, &ok) - bend_angle_d(xn, &ok));
        double dfs = (double)cz.kd * cz.rest_length / cz.h / hmin;
        for (int vi = 0; vi < 4; ++vi) {
            d3 g = fd_gradient(bend_dissipation, &cz, x, vi, 0.1 * FD_REL * L);
            chk_fd3(&c_d_only_fd, bend_force(x, vi, &cz), d3_scale(g, -1.0), 1e-2 * dfs * fabs(d), 0.0);
        }
    }
    /* rigid motions of xn */
    for (int n = 0; n < N_RIGID; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 xn[4], x[4];
        double hmin = rand_hinge(L, urange(-3.0, 3.0), xn);
        rigid(xn, 4, L, x);
        bend_ctx cz;
        cz.ke = 0.0f; cz.rest_angle = 0.0f; cz.rest_length = (float)L; cz.h = (float)urange(1e-3, 2e-2);
        cz.kd = (float)urange(0.1, 10.0); cz.xn = xn;
        double dfs = (double)cz.kd * cz.rest_length / cz.h / hmin;
        for (int vi = 0; vi < 4; ++vi) chk_add(&c_rigid, d3_len(bend_force(x, vi, &cz)) / dfs);
    }
    /* degenerate hinges: nothing added; degenerate xn: damping skipped */
    for (int n = 0; n < 80; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 x[4], g[4];
        rand_hinge(L, urange(-2.0, 2.0), x);
        memcpy(g, x, sizeof g);
        d3 p2 = d3_of(g[2]), e = d3_sub(d3_of(g[3]), p2);
        int kind = n % 5;
        if (kind == 0) g[0] = d3_to_f(d3_add(p2, d3_scale(e, urange(-1.0, 2.0))));      /* o0 on the edge line */
        else if (kind == 1) g[1] = d3_to_f(d3_add(p2, d3_scale(e, urange(-1.0, 2.0)))); /* o1 on the edge line */
        else if (kind == 2) g[3] = g[2];                                                 /* zero-length edge */
        else if (kind == 3) { g[0] = g[2]; g[1] = g[2]; g[3] = g[2]; }                   /* collapsed */
        else g[0].x = NAN;
        int bad = 0;
        bad |= dfm_dihedral_angle(g) != 0.0f;
        bad |= dfm_bending_energy(g, 0.3f, 1.0f, 1.0f) != 0.0f;
        for (int vi = 0; vi < 4; ++vi) {
            dfm_v3 f = dfm_v3_make(1.0f, 2.0f, 3.0f);
            dfm_m33 H = dfm_m33_diag(5.0f), H0 = dfm_m33_diag(5.0f);
            dfm_bending_force_hessian(g, x, 0.3f, 1.0f, 1.0f, 1.0f, 0.01f, vi, &f, &H);
            bad |= f.x != 1.0f || f.y != 2.0f || f.z != 3.0f || memcmp(&H, &H0, sizeof H) != 0;
        }
        chk_add(&c_degen, bad ? 1.0 : 0.0);
        /* valid x, degenerate xn: same as kd = 0 */
        bad = 0;
        for (int vi = 0; vi < 4; ++vi) {
            dfm_v3 f1 = dfm_v3_zero(), f2 = dfm_v3_zero();
            dfm_m33 H1 = dfm_m33_zero(), H2 = dfm_m33_zero();
            dfm_bending_force_hessian(x, g, 0.3f, (float)L, 1.0f, 1.0f, 0.01f, vi, &f1, &H1);
            dfm_bending_force_hessian(x, NULL, 0.3f, (float)L, 1.0f, 0.0f, 0.01f, vi, &f2, &H2);
            bad |= !dfm_v3_isfinite(f1) || memcmp(&f1, &f2, sizeof f1) != 0 || memcmp(&H1, &H2, sizeof H1) != 0;
        }
        chk_add(&c_degen_n, bad ? 1.0 : 0.0);
    }
    /* thin-but-valid hinge (height 1e-4 of the edge) is still evaluated */
    {
        dfm_v3 x[4] = {{0.5f, -1e-4f, 0.0f}, {0.5f, 1.0f, 0.1f}, {0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}};
        dfm_v3 f = dfm_v3_zero();
        dfm_m33 H = dfm_m33_zero();
        dfm_bending_force_hessian(x, NULL, 1.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0, &f, &H);
        chk_add(&c_degen, v3_len_f(f) > 0.0f ? 0.0 : 1.0);
    }

    chk_report(&c_angle_known); chk_report(&c_angle_ref); chk_report(&c_e_ref); chk_report(&c_rest); chk_report(&c_f_fd);
    chk_report(&c_h_fd); chk_report(&c_psd); chk_report(&c_d_fd); chk_report(&c_d_only_fd); chk_report(&c_dh_fd);
    chk_report(&c_rigid); chk_report(&c_degen); chk_report(&c_degen_n);
}

/* ================================================================ tetrahedron */
typedef struct {
    float dminv[9], vol, mu, lam, kd, h;
    const dfm_v3* xn;
} tet_ctx;

static d33 tet_F_d(const dfm_v3* x, const float dminv[9]) {
    d33 ds, di;
    for (int c = 0; c < 3; ++c) {
        d3 d = d3_sub(d3_of(x[c + 1]), d3_of(x[0]));
        for (int r = 0; r < 3; ++r) ds.m[r][c] = d.v[r];
    }
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) di.m[r][c] = dminv[3 * r + c];
    return d33_mul(ds, di);
}
static d33 d33_ata(d33 f) {
    d33 c;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) c.m[i][j] = f.m[0][i] * f.m[0][j] + f.m[1][i] * f.m[1][j] + f.m[2][i] * f.m[2][j];
    return c;
}
static double tet_energy_ref(const dfm_v3* x, const tet_ctx* c) {
    d33 F = tet_F_d(x, c->dminv);
    double lam, alpha;
    nh_params_d(c->mu, c->lam, &lam, &alpha);
    double j = d33_det(F), fro = d33_fro(F);
    double psi = 0.5 * c->mu * (fro * fro - 3.0) + 0.5 * lam * (j - alpha) * (j - alpha) - 0.5 * lam * (1 - alpha) * (1 - alpha);
    return c->vol * psi;
}
static double tet_energy_f(const dfm_v3* x, const void* ctx) {
    const tet_ctx* c = (const tet_ctx*)ctx;
    return dfm_tet_energy(x, c->dminv, c->vol, c->mu, c->lam);
}
/* kd V/(2h) |C - Cn|_F^2 (= diagonal terms + 2 x off-diagonal terms). */
static double tet_dissipation(const dfm_v3* x, const void* ctx) {
    const tet_ctx* c = (const tet_ctx*)ctx;
    d33 dc = d33_sub(d33_ata(tet_F_d(x, c->dminv)), d33_ata(tet_F_d(c->xn, c->dminv)));
    double n = d33_fro(dc);
    return (double)c->kd * c->vol / (2.0 * c->h) * n * n;
}
static d3 tet_force(const dfm_v3* x, int vi, const void* ctx) {
    const tet_ctx* c = (const tet_ctx*)ctx;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_tet_force_hessian(x, c->xn, c->dminv, c->vol, c->mu, c->lam, c->kd, c->h, vi, &f, &h);
    return d3_of(f);
}
static d33 tet_hess(const dfm_v3* x, int vi, const tet_ctx* c) {
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_tet_force_hessian(x, c->xn, c->dminv, c->vol, c->mu, c->lam, c->kd, c->h, vi, &f, &h);
    return d33_of(h);
}
static double tet_mnorm(const float dminv[9], int vi) {
    double m[3];
    for (int j = 0; j < 3; ++j)
        m[j] = vi == 0 ? -((double)dminv[j] + dminv[3 + j] + dminv[6 + j]) : (double)dminv[3 * (vi - 1) + j];
    return sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
}
/* Random positively oriented, well-shaped tet of size ~L. */
static void rand_tet(double L, dfm_v3 X[4]) {
    for (;;) {
        d3 c = d3_rand(2.0 * L);
        d3 p[4];
        for (int i = 0; i < 4; ++i) p[i] = d3_add(c, d3_rand(L));
        double l2 = 0.0;
        for (int i = 0; i < 4; ++i)
            for (int j = i + 1; j < 4; ++j) l2 = fmax(l2, d3_dot(d3_sub(p[i], p[j]), d3_sub(p[i], p[j])));
        double v6 = d3_dot(d3_cross(d3_sub(p[1], p[0]), d3_sub(p[2], p[0])), d3_sub(p[3], p[0]));
        if (fabs(v6) > 0.15 * l2 * sqrt(l2) && l2 > 0.04 * L * L) {
            if (v6 < 0) { d3 t = p[1]; p[1] = p[2]; p[2] = t; }
            for (int i = 0; i < 4; ++i) X[i] = d3_to_f(p[i]);
            return;
        }
    }
}
static double tet_fscale(const tet_ctx* c, const dfm_v3* x, int vi) {
    double fro = d33_fro(tet_F_d(x, c->dminv));
    return c->vol * (2.0 * c->mu + c->lam) * tet_mnorm(c->dminv, vi) * (1.0 + fro * fro * fro);
}

/* Magnitudes of the terms summed in float (see mem_mags); det F carries an error ~ eps |F|^3. */
static void tet_mags(const tet_ctx* c, const dfm_v3* x, int vi, double* emag, double* fmag) {
    double lam, alpha;
    nh_params_d(c->mu, c->lam, &lam, &alpha);
    d33 F = tet_F_d(x, c->dminv);
    double fro = d33_fro(F), j = d33_det(F), f3 = fro * fro * fro;
    *emag = c->vol * (0.5 * c->mu * (fro * fro + 3.0) + 0.5 * lam * fabs(j - 1.0) * (fabs(j) + 1.0 + 2.0 * alpha) +
                      lam * fabs(j - alpha) * f3);
    *fmag = c->vol * tet_mnorm(c->dminv, vi) * (c->mu * fro + lam * fabs(j - alpha) * fro * fro + lam * f3 * fro * fro);
}

static void test_tet(void) {
    check_t c_rest_ok, c_rest_inv, c_rest_vol, c_rest_e, c_rest_f, c_codes, c_e_ref, c_f_fd, c_h_fd, c_h_sym, c_psd,
        c_d_fd, c_d_only_fd, c_dh_fd, c_rigid;
    chk_init(&c_rest_ok, "tet rest: valid tets return 1 (misses)", 0.0);
    chk_init(&c_rest_inv, "tet rest: Dm * Dm^-1 = I (abs err)", 1e-5);
    chk_init(&c_rest_vol, "tet rest: volume = det(Dm)/6 = 1/(6 det Dm^-1) (rel)", 1e-5);
    chk_init(&c_rest_e, "tet rest: energy 0 at rest / rigid (|E|/(mu V))", 1e-5);
    chk_init(&c_rest_f, "tet rest: force 0 at rest / rigid (|f|/fscale)", 1e-5);
    chk_init(&c_codes, "tet rest: flat->0, inverted->-1, outputs untouched (misses)", 0.0);
    chk_init(&c_e_ref, "tet energy vs double reference (err/term magnitude)", 2e-6);
    chk_init(&c_f_fd, "tet force vs FD of energy, incl. inverted (rel)", 2e-3);
    chk_init(&c_h_fd, "tet Hessian vs FD of force, all states (rel)", 2e-3);
    chk_init(&c_h_sym, "tet Hessian symmetry (rel)", 1e-6);
    chk_init(&c_psd, "tet Hessian PSD, all states (-min eig/|H|)", 1e-6);
    chk_init(&c_d_fd, "tet elastic+damping force vs -grad(E+D) FD (rel)", 2e-3);
    chk_init(&c_d_only_fd, "tet damping-only force vs -grad D FD (rel)", 2e-3);
    chk_init(&c_dh_fd, "tet damping Hessian vs FD at x==xn (rel)", 2e-3);
    chk_init(&c_rigid, "tet damping force under rigid motion (rel)", 1e-4);

    for (int n = 0; n < N_ELEMS; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[4], x[4];
        rand_tet(L, X);
        tet_ctx c;
        c.mu = (float)urange(0.2, 5.0);
        c.lam = (float)urange(0.0, 20.0);
        c.kd = 0.0f; c.h = 0.0f; c.xn = NULL;
        if (dfm_tet_rest_compute(X[0], X[1], X[2], X[3], c.dminv, &c.vol) != 1) { chk_add(&c_rest_ok, 1.0); continue; }
        chk_add(&c_rest_ok, 0.0);
        /* rest data */
        d33 dm, di;
        for (int col = 0; col < 3; ++col) {
            d3 d = d3_sub(d3_of(X[col + 1]), d3_of(X[0]));
            for (int r = 0; r < 3; ++r) dm.m[r][col] = d.v[r];
        }
        for (int r = 0; r < 3; ++r)
            for (int col = 0; col < 3; ++col) di.m[r][col] = c.dminv[3 * r + col];
        d33 id = d33_mul(dm, di);
        double ie = 0.0;
        for (int r = 0; r < 3; ++r)
            for (int col = 0; col < 3; ++col) ie = fmax(ie, fabs(id.m[r][col] - (r == col ? 1.0 : 0.0)));
        chk_add(&c_rest_inv, ie);
        double v_ref = d33_det(dm) / 6.0;
        chk_add(&c_rest_vol, fmax(fabs(c.vol - v_ref) / v_ref, fabs(1.0 / (6.0 * d33_det(di)) - v_ref) / v_ref));
        for (int pass = 0; pass < 2; ++pass) {
            if (pass == 0) memcpy(x, X, sizeof x);
            else rigid(X, 4, L, x);
            chk_add(&c_rest_e, fabs(tet_energy_f(x, &c)) / (c.mu * c.vol));
            for (int vi = 0; vi < 4; ++vi) chk_add(&c_rest_f, d3_len(tet_force(x, vi, &c)) / tet_fscale(&c, x, vi));
        }
        /* elastic checks on 2 random states per element: general and strongly compressed/inverted */
        for (int st = 0; st < 2; ++st) {
            double s = st == 0 ? urange(0.6, 1.6) : urange(0.05, 0.8);
            double eps = st == 0 ? urange(0.0, 0.4) : urange(0.3, 1.2);
            deform(X, 4, L, rand_deformation(s, eps), 0.03 * L * s, x);
            double step = FD_REL * L * fmax(s, 0.2);
            {
                double emag0, fmag0;
                tet_mags(&c, x, 0, &emag0, &fmag0);
                chk_add(&c_e_ref, fabs(tet_energy_f(x, &c) - tet_energy_ref(x, &c)) / emag0);
            }
            for (int vi = 0; vi < 4; ++vi) {
                double fs = tet_fscale(&c, x, vi), emag, fmag;
                tet_mags(&c, x, vi, &emag, &fmag);
                d3 g = fd_gradient(tet_energy_f, &c, x, vi, step);
                chk_fd3(&c_f_fd, tet_force(x, vi, &c), d3_scale(g, -1.0), 1e-2 * fs, fd_allow(emag, step));
                d33 H = tet_hess(x, vi, &c);
                d33 Hfd = fd_hessian(tet_force, &c, x, vi, step);
                chk_fd33(&c_h_fd, H, Hfd, 1e-2 * c.vol * (2.0 * c.mu + c.lam) * pow(tet_mnorm(c.dminv, vi), 2.0),
                         fd_allow(fmag, step));
                chk_add(&c_h_sym, asym_rel(H));
                chk_add(&c_psd, -min_eig_sym(H) / d33_fro(H));
            }
        }
        /* damping */
        dfm_v3 xn[4];
        deform(X, 4, L, rand_deformation(urange(0.7, 1.4), urange(0.0, 0.3)), 0.03 * L, xn);
        for (int i = 0; i < 4; ++i) x[i] = d3_to_f(d3_add(d3_of(xn[i]), d3_rand(0.15 * L)));
        c.h = (float)urange(1e-3, 2e-2);
        c.kd = (float)(c.mu * c.h * urange(0.3, 3.0));
        c.xn = xn;
        double step = FD_REL * L;
        for (int vi = 0; vi < 4; ++vi) {
            double emag, fmag;
            tet_mags(&c, x, vi, &emag, &fmag);
            d3 g = d3_add(fd_gradient(tet_energy_f, &c, x, vi, step), fd_gradient(tet_dissipation, &c, x, vi, 0.1 * step));
            chk_fd3(&c_d_fd, tet_force(x, vi, &c), d3_scale(g, -1.0), 1e-2 * tet_fscale(&c, x, vi), fd_allow(emag, step));
            d33 H = tet_hess(x, vi, &c);
            chk_add(&c_psd, -min_eig_sym(H) / d33_fro(H));
        }
        tet_ctx cd = c;
        cd.mu = 0.0f; cd.lam = 0.0f;
        double dbase = (double)c.kd * c.vol / c.h;
        for (int vi = 0; vi < 4; ++vi) {
            double fs = dbase * tet_mnorm(c.dminv, vi);
            d3 g = fd_gradient(tet_dissipation, &cd, x, vi, 0.1 * step);
            chk_fd3(&c_d_only_fd, tet_force(x, vi, &cd), d3_scale(g, -1.0), 1e-2 * fs, 0.0);
            dfm_v3 xs[4];
            memcpy(xs, xn, sizeof xs); /* x == xn, but a separate array so FD moves x only */
            d33 H = tet_hess(xs, vi, &cd);
            d33 Hfd = fd_hessian(tet_force, &cd, xs, vi, step);
            chk_fd33(&c_dh_fd, H, Hfd, 1e-3 * dbase * pow(tet_mnorm(c.dminv, vi), 2.0), 0.0);
        }
    }
    /* rigid motions of xn */
    for (int n = 0; n < N_RIGID; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[4], xn[4], x[4];
        rand_tet(L, X);
        tet_ctx c;
        if (dfm_tet_rest_compute(X[0], X[1], X[2], X[3], c.dminv, &c.vol) != 1) continue;
        deform(X, 4, L, rand_deformation(urange(0.7, 1.4), urange(0.0, 0.3)), 0.03 * L, xn);
        rigid(xn, 4, L, x);
        c.mu = 0.0f; c.lam = 0.0f; c.h = (float)urange(1e-3, 2e-2); c.kd = (float)urange(0.1, 10.0); c.xn = xn;
        tet_ctx c0 = c;
        c0.kd = 0.0f;
        double fro = d33_fro(tet_F_d(x, c.dminv));
        for (int vi = 0; vi < 4; ++vi) {
            double fs = (double)c.kd * c.vol / c.h * tet_mnorm(c.dminv, vi) * fro * fro * fro;
            d3 fd = d3_sub(tet_force(x, vi, &c), tet_force(x, vi, &c0));
            chk_add(&c_rigid, d3_len(fd) / fs);
        }
    }
    /* return codes */
    for (int n = 0; n < 120; ++n) {
        /* grid points (small integers times 2^e) so that coplanar stays exactly coplanar in float */
        double sc = ldexp(1.0, (int)urange(-10.0, 6.0));
        dfm_v3 X[4];
        double v6;
        do {
            for (int i = 0; i < 4; ++i) X[i] = d3_to_f(d3_scale(rand_int3(6), sc));
            v6 = d3_dot(d3_cross(d3_sub(d3_of(X[1]), d3_of(X[0])), d3_sub(d3_of(X[2]), d3_of(X[0]))), d3_sub(d3_of(X[3]), d3_of(X[0])));
        } while (fabs(v6) < sc * sc * sc);
        if (v6 < 0) { dfm_v3 t = X[1]; X[1] = X[2]; X[2] = t; }
        int kind = n % 5, want = 0;
        d3 p0 = d3_of(X[0]), p1 = d3_of(X[1]), p2 = d3_of(X[2]);
        const double ts[5] = {-1.0, 0.5, 1.0, 2.0, -0.5};
        if (kind == 0) { /* coplanar */
            X[3] = d3_to_f(d3_add(p0, d3_add(d3_scale(d3_sub(p1, p0), ts[(int)urange(0.0, 5.0)]),
                                             d3_scale(d3_sub(p2, p0), ts[(int)urange(0.0, 5.0)]))));
        } else if (kind == 1) { /* inverted */
            dfm_v3 t = X[1]; X[1] = X[2]; X[2] = t; want = -1;
        } else if (kind == 2) { /* coincident */
            X[3] = X[0];
        } else if (kind == 3) { /* non-finite */
            X[2].y = NAN;
        } else { /* infinite */
            X[1].z = INFINITY;
        }
        float dminv[9], vol = -7.0f;
        for (int i = 0; i < 9; ++i) dminv[i] = -7.0f;
        int r = dfm_tet_rest_compute(X[0], X[1], X[2], X[3], dminv, &vol);
        int untouched = vol == -7.0f;
        for (int i = 0; i < 9; ++i) untouched &= dminv[i] == -7.0f;
        int bad = r != want || !untouched;
        chk_add(&c_codes, bad ? 1.0 : 0.0);
    }
    {   /* exact small cases: threshold 1e-6 L^3 (L^3 ~ 2.8 here, so the limit is V ~ 2.8e-6) */
        float dminv[9], vol;
        dfm_v3 a = dfm_v3_make(0, 0, 0), b = dfm_v3_make(1, 0, 0), cc = dfm_v3_make(0, 1, 0);
        int r1 = dfm_tet_rest_compute(a, b, cc, dfm_v3_make(0.2f, 0.2f, 1e-6f), dminv, &vol);  /* V ~ 1.7e-7: flat */
        int r2 = dfm_tet_rest_compute(a, b, cc, dfm_v3_make(0.2f, 0.2f, 1e-4f), dminv, &vol);  /* V ~ 1.7e-5: valid */
        int r3 = dfm_tet_rest_compute(a, b, cc, dfm_v3_make(0.2f, 0.2f, -1e-4f), dminv, &vol); /* inverted */
        chk_add(&c_codes, (r1 != 0) + (r2 != 1) + (r3 != -1));
    }

    chk_report(&c_rest_ok); chk_report(&c_rest_inv); chk_report(&c_rest_vol); chk_report(&c_rest_e); chk_report(&c_rest_f);
    chk_report(&c_codes); chk_report(&c_e_ref); chk_report(&c_f_fd); chk_report(&c_h_fd); chk_report(&c_h_sym);
    chk_report(&c_psd); chk_report(&c_d_fd); chk_report(&c_d_only_fd); chk_report(&c_dh_fd); chk_report(&c_rigid);
}

int main(void) {
    test_membrane();
    test_bending();
    test_tet();
    if (g_failures) {
        printf("FAILED: %d check(s)\n", g_failures);
        return 1;
    }
    printf("all energy checks passed\n");
    return 0;
}
