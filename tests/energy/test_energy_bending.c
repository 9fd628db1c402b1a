/// @file test_energy_bending.c
/// Checks the dihedral bending energy of kernels/shared/vbd_bending.h (angle, energy, per-vertex
/// force and Hessian block, angle-rate damping, degenerate hinges) against hinges built with a known
/// fold angle, an independent double-precision angle and energy, and central finite differences (in
/// double) of the float energy and force. Machinery, tolerance conventions and units: energy_fd.h.
///
/// Deterministic: fixed-seed splitmix64 (continuing the stream where the membrane checks left it in
/// the former combined test, so the hinges are the same as before the split), >= 300 random hinges
/// per check, edge lengths 1e-2..10 m, translations of a few element sizes. Checks:
///   - the float angle against the constructed fold angle and the double reference angle; energy
///     against ke L0 / 2 (theta - theta0)^2 in double;
///   - each vertex force against central differences of the float energy, step 1e-3 of the edge
///     length (the float-rounded step is the divisor);
///   - each Hessian block against central differences of the force at theta = theta0 (where the
///     block is exact); PSD (Jacobi eigenvalues) and symmetry on all states;
///   - zero energy and force at theta = theta0, also after a rigid motion;
///   - damping: force = -grad(E + D), D = kd L0/(2h) wrap(theta - thetan)^2, written independently
///     here in double; damping Hessian = FD of the damping force at x == xn; the rate wrapped across
///     +-pi; damping force ~0 under 100 random rigid motions of xn;
///   - degenerate hinges (wing on the edge line, zero edge, collapsed, non-finite): angle and energy
///     0, outputs untouched; a degenerate xn skips damping; a thin valid hinge is still evaluated.
/// One line per check; exit code 1 if any check fails.
///
/// Mutation testing (each mutation applied to a copy of the header, the test rebuilt and run, when
/// these checks were still part of test_energy_fd.c; all 12 were caught, the checks that failed are
/// in parentheses): dtheta/dx0 sign, t0 <-> 1-t0, t1 sign (force FD, Hessian FD); k without rest
/// length (force FD, zero at rest); no angle wrap (damping FD across +-pi); damping Hessian
/// missing, damping sign, damping without rest length (damping FDs); angle convention flipped
/// (known fold angle); degeneracy threshold removed (degenerate checks); negative Hessian (PSD);
/// damping ignoring thetan (rigid motion).
#include "vbd_bending.h"

#include "energy_fd.h" /* after the kernel header, whose locals named d3 would shadow its type (-Wshadow) */

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
    if (d3_len(n1) == 0.0 || d3_len(n2) == 0.0 || d3_len(e) == 0.0) {
        *ok = 0;
        return 0.0;
    }
    *ok = 1;
    n1 = d3_unit(n1);
    n2 = d3_unit(n2);
    e = d3_unit(e);
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
/// Force (N) on vertex vi from dfm_bending_force_hessian, its Hessian block (N/m) into *H.
static d3 bend_eval(const dfm_v3* x, int vi, const void* ctx, d33* H) {
    const bend_ctx* c = (const bend_ctx*)ctx;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_bending_force_hessian(x, c->xn, c->rest_angle, c->rest_length, c->ke, c->kd, c->h, vi, &f, &h);
    *H = d33_of(h);
    return d3_of(f);
}
static d3 bend_force(const dfm_v3* x, int vi, const void* ctx) {
    d33 H;
    return bend_eval(x, vi, ctx, &H);
}
static d33 bend_hess(const dfm_v3* x, int vi, const void* ctx) {
    d33 H;
    bend_eval(x, vi, ctx, &H);
    return H;
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
    d3 p0 = d3_add(d3_add(p2, d3_scale(u, urange(-0.3, 1.3) * L)),
                   d3_scale(d3_add(d3_scale(p, cos(phi0)), d3_scale(q, sin(phi0))), h0));
    d3 p1 = d3_add(d3_add(p2, d3_scale(u, urange(-0.3, 1.3) * L)),
                   d3_scale(d3_add(d3_scale(p, cos(phi1)), d3_scale(q, sin(phi1))), h1));
    x[0] = d3_to_f(p0);
    x[1] = d3_to_f(p1);
    x[2] = d3_to_f(p2);
    x[3] = d3_to_f(p3);
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
        c.kd = 0.0f;
        c.h = 0.0f;
        c.xn = NULL;
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
            chk_force_fd(&c_f_fd, bend_force, bend_energy_f, &c, x, vi, step, 1e-2 * fs, fd_allow(emag, step));
            d33 H = bend_hess(x, vi, &c);
            chk_add(&c_psd, fmax(psd_violation(H), asym_rel(H)));
        }
        /* at theta = theta0: energy, force zero; Hessian exact */
        bend_ctx c0 = c;
        c0.rest_angle = th;
        chk_add(&c_rest, bend_energy_f(x, &c0) / k);
        for (int vi = 0; vi < 4; ++vi) {
            chk_add(&c_rest, d3_len(bend_force(x, vi, &c0)) / (k / hmin));
            d33 H = bend_hess(x, vi, &c0);
            chk_hessian_fd(&c_h_fd, H, bend_force, &c0, x, vi, step, 1e-2 * k / (hmin * hmin), fd_allow(fmag, step));
        }
        /* the same at a rigidly moved copy */
        dfm_v3 xr[4];
        rigid(x, 4, L, xr);
        chk_add(&c_rest, bend_energy_f(xr, &c0) / k);
        for (int vi = 0; vi < 4; ++vi) chk_add(&c_rest, d3_len(bend_force(xr, vi, &c0)) / (k / hmin));

        /* damping: xn = hinge with a nearby fold angle, x = perturbed */
        dfm_v3 xn[4], xd[4];
        memcpy(xn, x, sizeof xn);
        perturb(xn, 4, 0.1 * hmin, xd);
        bend_ctx cd = c;
        cd.h = (float)urange(1e-3, 2e-2);
        cd.kd = (float)(c.ke * cd.h * urange(0.3, 3.0));
        cd.xn = xn;
        for (int vi = 0; vi < 4; ++vi) {
            chk_damped_force_fd(&c_d_fd, bend_force, bend_energy_f, bend_dissipation, &cd, xd, vi, step, 1e-2 * fs,
                                fd_allow(emag, step));
            d33 H = bend_hess(xd, vi, &cd);
            chk_add(&c_psd, fmax(psd_violation(H), asym_rel(H)));
        }
        bend_ctx cz = cd;
        cz.ke = 0.0f;
        double dfs = (double)cd.kd * cd.rest_length / cd.h / hmin;
        for (int vi = 0; vi < 4; ++vi) {
            chk_force_fd(&c_d_only_fd, bend_force, bend_dissipation, &cz, xd, vi, 0.1 * step, 1e-2 * dfs * 0.1, 0.0);
            chk_hessian_at_xn(&c_dh_fd, bend_hess, bend_force, &cz, xn, 4, vi, step, 1e-2 * dfs / hmin,
                              fd_allow(dfs * cond, step));
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
        d3 rr = d3_add(d3_add(d3_scale(r, cos(ang)), d3_scale(d3_cross(u, r), sin(ang))),
                       d3_scale(u, d3_dot(u, r) * (1 - cos(ang))));
        memcpy(xn, x, sizeof xn);
        xn[1] = d3_to_f(d3_add(p2, rr));
        bend_ctx cz;
        cz.ke = 0.0f;
        cz.rest_angle = 0.0f;
        cz.rest_length = (float)L;
        cz.h = 0.01f;
        cz.kd = 1.0f;
        cz.xn = xn;
        /* expected: rate = wrap(theta - thetan)/h with |wrap| ~ 0.04 */
        int ok;
        double d = wrap_pi(bend_angle_d(x, &ok) - bend_angle_d(xn, &ok));
        double dfs = (double)cz.kd * cz.rest_length / cz.h / hmin;
        for (int vi = 0; vi < 4; ++vi) {
            chk_force_fd(&c_d_only_fd, bend_force, bend_dissipation, &cz, x, vi, 0.1 * FD_REL * L, 1e-2 * dfs * fabs(d),
                         0.0);
        }
    }
    /* rigid motions of xn */
    for (int n = 0; n < N_RIGID; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 xn[4], x[4];
        double hmin = rand_hinge(L, urange(-3.0, 3.0), xn);
        rigid(xn, 4, L, x);
        bend_ctx cz;
        cz.ke = 0.0f;
        cz.rest_angle = 0.0f;
        cz.rest_length = (float)L;
        cz.h = (float)urange(1e-3, 2e-2);
        cz.kd = (float)urange(0.1, 10.0);
        cz.xn = xn;
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
        // clang-format off
        if (kind == 0) g[0] = d3_to_f(d3_add(p2, d3_scale(e, urange(-1.0, 2.0))));      /* o0 on the edge line */
        else if (kind == 1) g[1] = d3_to_f(d3_add(p2, d3_scale(e, urange(-1.0, 2.0)))); /* o1 on the edge line */
        else if (kind == 2) g[3] = g[2];                                                 /* zero-length edge */
        else if (kind == 3) { g[0] = g[2]; g[1] = g[2]; g[3] = g[2]; }                   /* collapsed */
        else g[0].x = NAN;
        // clang-format on
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

    chk_report(&c_angle_known);
    chk_report(&c_angle_ref);
    chk_report(&c_e_ref);
    chk_report(&c_rest);
    chk_report(&c_f_fd);
    chk_report(&c_h_fd);
    chk_report(&c_psd);
    chk_report(&c_d_fd);
    chk_report(&c_d_only_fd);
    chk_report(&c_dh_fd);
    chk_report(&c_rigid);
    chk_report(&c_degen);
    chk_report(&c_degen_n);
}

int main(void) {
    rng_skip(102332); /* the draws of the membrane checks, which ran first in test_energy_fd */
    test_bending();
    return dfm_test_finish("test_energy_bending");
}
