/* Finite-difference checks of the XPBD constraint gradients in kernels/shared/xpbd_constraints.h:
 * distance, dihedral bending, tet volume and contact. Deterministic (fixed-seed splitmix64), 300
 * random elements per constraint, element sizes 1e-2..10 m, positions offset by a few sizes.
 *
 * Each gradient component is compared with a central difference (in double) of the float
 * constraint, step 1e-3 of the element size; the error is |got - FD| / (|FD| + floor) after a
 * float-rounding allowance 8 eps (|C| + size |grad|) / (2 step). Also: the values against
 * independent double-precision formulas, the translation invariance sum_k grad_k = 0 (elements)
 * and the distance/volume constraints being zero at rest. Mutation check done by hand: flipping
 * the sign of grad[2] of the volume, dropping the 1/L normalization of the distance gradient, or
 * using w_k^2 in the contact gradient each fails the FD check. Exit code 1 if any check fails. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "xpbd_constraints.h"

#define N_ELEMS 300
#define FD_REL 1e-3

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rng_next(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double urand(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }
static double urange(double a, double b) { return a + (b - a) * urand(); }

static int g_failures = 0;

/// Running worst FD error of one check.
typedef struct fd_stat {
    const char* name;
    double worst;
    int samples;
} fd_stat;

static void fd_report(const fd_stat* s, double tol) {
    int ok = s->worst <= tol;
    printf("%-28s samples %5d  worst rel err %.3e  (tol %.0e)  %s\n", s->name, s->samples, s->worst, tol,
           ok ? "ok" : "FAIL");
    if (!ok) ++g_failures;
}

static void fd_add(fd_stat* s, double got, double fd, double allowance, double floor_) {
    double err = fabs(got - fd) - allowance;
    if (err < 0) err = 0;
    err /= fabs(fd) + floor_;
    if (!(err <= s->worst)) s->worst = err; /* NaN propagates */
    s->samples++;
}

static dfm_v3 rand_point(double size, dfm_v3 base) {
    return dfm_v3_make((float)(base.x + urange(-size, size)), (float)(base.y + urange(-size, size)),
                       (float)(base.z + urange(-size, size)));
}

/// Value of constraint `kind` at x (float), with fixed parameters.
typedef float (*eval_fn)(const dfm_v3* x, const void* params, dfm_v3* grad);

/// Checks every gradient component of an n-point constraint at x against central differences.
static void check_fd(fd_stat* st, eval_fn f, dfm_v3* x, int n, const void* params, double size) {
    dfm_v3 grad[4];
    float C = f(x, params, grad);
    double gmax = 0;
    for (int k = 0; k < n; ++k) gmax = fmax(gmax, dfm_v3_len(grad[k]));
    for (int k = 0; k < n; ++k)
        for (int a = 0; a < 3; ++a) {
            float* comp = a == 0 ? &x[k].x : (a == 1 ? &x[k].y : &x[k].z);
            float orig = *comp;
            float hp = (float)(orig + FD_REL * size), hm = (float)(orig - FD_REL * size);
            dfm_v3 scratch[4];
            *comp = hp;
            double cp = f(x, params, scratch);
            *comp = hm;
            double cm = f(x, params, scratch);
            *comp = orig;
            double step = (double)hp - (double)hm;
            double fd = (cp - cm) / step;
            double mag = fabs(C) + fabs(cp) + size * gmax;
            double allowance = 8.0 * FLT_EPSILON * mag / step;
            fd_add(st, dfm_v3_get(grad[k], a), fd, allowance, gmax * 1e-3 + 1e-12);
        }
}

static float eval_distance(const dfm_v3* x, const void* p, dfm_v3* grad) {
    float C = dfm_xpbd_distance(x[0], x[1], *(const float*)p, &grad[0]);
    grad[1] = dfm_v3_neg(grad[0]);
    return C;
}

static float eval_bending(const dfm_v3* x, const void* p, dfm_v3* grad) {
    float C = 0.0f;
    if (!dfm_xpbd_bending(x, *(const float*)p, &C, grad)) {
        for (int k = 0; k < 4; ++k) grad[k] = dfm_v3_zero();
    }
    return C;
}

static float eval_volume(const dfm_v3* x, const void* p, dfm_v3* grad) {
    return dfm_xpbd_volume(x, *(const float*)p, grad);
}

typedef struct contact_params {
    float w[3];
    dfm_v3 n, b;
    float r;
    int count;
} contact_params;

static float eval_contact(const dfm_v3* x, const void* p, dfm_v3* grad) {
    const contact_params* c = (const contact_params*)p;
    for (int k = 0; k < c->count; ++k) grad[k] = dfm_v3_scale(c->n, c->w[k]);
    return dfm_xpbd_contact(x, c->w, c->count, c->n, c->b, c->r);
}

static double d3len(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }

int main(void) {
    fd_stat dist = {"distance gradient", 0, 0}, bend = {"bending gradient", 0, 0}, vol = {"volume gradient", 0, 0},
            con = {"contact gradient", 0, 0};
    double worst_value = 0, worst_sum = 0, worst_rest = 0;
    for (int e = 0; e < N_ELEMS; ++e) {
        double size = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 base = dfm_v3_make((float)urange(-3 * size, 3 * size), (float)urange(-3 * size, 3 * size),
                                  (float)urange(-3 * size, 3 * size));
        /* distance */
        dfm_v3 x[4];
        x[0] = rand_point(size, base);
        x[1] = rand_point(size, base);
        float rest = (float)(size * urange(0.2, 1.5));
        check_fd(&dist, eval_distance, x, 2, &rest, size);
        dfm_v3 g[4];
        double ref = d3len((double)x[0].x - x[1].x, (double)x[0].y - x[1].y, (double)x[0].z - x[1].z) - rest;
        worst_value = fmax(worst_value, fabs(eval_distance(x, &rest, g) - ref) / size);
        float r0 = dfm_v3_len(dfm_v3_sub(x[0], x[1]));
        worst_rest = fmax(worst_rest, fabs(eval_distance(x, &r0, g)) / size);
        /* bending: a hinge folded by a random angle, rest angle within 1 rad of it (no wrap). */
        x[2] = rand_point(size, base);
        x[3] = rand_point(size, base);
        x[0] = rand_point(size, base);
        x[1] = rand_point(size, base);
        float th = dfm_dihedral_angle(x);
        float rest_angle = th + (float)urange(-1.0, 1.0);
        if (fabsf(th) < 2.8f) {
            check_fd(&bend, eval_bending, x, 4, &rest_angle, size);
            eval_bending(x, &rest_angle, g);
            dfm_v3 s = dfm_v3_add(dfm_v3_add(g[0], g[1]), dfm_v3_add(g[2], g[3]));
            double gm = dfm_v3_len(g[0]) + dfm_v3_len(g[1]) + dfm_v3_len(g[2]) + dfm_v3_len(g[3]);
            worst_sum = fmax(worst_sum, dfm_v3_len(s) / (gm + 1e-30));
        }
        /* volume: a random positive tet */
        for (int k = 0; k < 4; ++k) x[k] = rand_point(size, base);
        dfm_v3 gv[4];
        float v6 = dfm_v3_dot(dfm_v3_sub(x[1], x[0]), dfm_v3_cross(dfm_v3_sub(x[2], x[0]), dfm_v3_sub(x[3], x[0])));
        if (v6 < 0.0f) {
            dfm_v3 t = x[2];
            x[2] = x[3];
            x[3] = t;
            v6 = -v6;
        }
        if (v6 > 1e-3 * size * size * size) {
            float v0 = v6 / 6.0f * (float)urange(0.5, 1.5);
            check_fd(&vol, eval_volume, x, 4, &v0, size);
            dfm_xpbd_volume(x, v0, gv);
            dfm_v3 s = dfm_v3_add(dfm_v3_add(gv[0], gv[1]), dfm_v3_add(gv[2], gv[3]));
            worst_sum = fmax(worst_sum, dfm_v3_len(s) / (dfm_v3_len(gv[1]) + dfm_v3_len(gv[2]) + dfm_v3_len(gv[3])));
            float vr = v6 / 6.0f;
            worst_rest = fmax(worst_rest, fabs(dfm_xpbd_volume(x, vr, gv)));
        }
        /* contact: 1..3 corners, random weights summing to 1, random unit normal */
        contact_params cp;
        cp.count = 1 + (int)(rng_next() % 3);
        double ws = 0;
        for (int k = 0; k < cp.count; ++k) ws += (cp.w[k] = (float)urange(0.1, 1.0));
        for (int k = 0; k < cp.count; ++k) cp.w[k] = (float)(cp.w[k] / ws);
        cp.n = dfm_v3_normalize(dfm_v3_make((float)urange(-1, 1), (float)urange(-1, 1), (float)urange(-1, 1)));
        cp.b = rand_point(size, base);
        cp.r = (float)(0.01 * size);
        for (int k = 0; k < cp.count; ++k) x[k] = rand_point(size, base);
        check_fd(&con, eval_contact, x, cp.count, &cp, size);
    }
    fd_report(&dist, 2e-3);
    fd_report(&bend, 2e-2);
    fd_report(&vol, 2e-3);
    fd_report(&con, 2e-3);
    printf("%-28s worst %.3e (tol 1e-5 of size)  %s\n", "distance value vs double", worst_value,
           worst_value < 1e-5 ? "ok" : "FAIL");
    printf("%-28s worst %.3e (tol 1e-4)  %s\n", "sum of gradients (transl.)", worst_sum,
           worst_sum < 1e-4 ? "ok" : "FAIL");
    printf("%-28s worst %.3e (tol 1e-5)  %s\n", "C at rest (distance, volume)", worst_rest,
           worst_rest < 1e-5 ? "ok" : "FAIL");
    g_failures += !(worst_value < 1e-5) + !(worst_sum < 1e-4) + !(worst_rest < 1e-5);
    if (g_failures) {
        printf("test_xpbd_fd: %d check(s) failed\n", g_failures);
        return 1;
    }
    printf("test_xpbd_fd: all checks passed\n");
    return 0;
}
