/// @file test_energy_membrane.c
/// Checks the stable Neo-Hookean membrane of kernels/shared/vbd_membrane.h (energy, per-vertex
/// force and Hessian block, Cauchy-Green-rate damping, rest data) against an independent
/// double-precision evaluation of the reference formulas and central finite differences (in double)
/// of the float energy and force. Machinery, tolerance conventions and units: energy_fd.h.
///
/// Deterministic: fixed-seed splitmix64, >= 300 random triangles per check, element sizes
/// 1e-2..10 m, translations of a few element sizes. Checks:
///   - energy against the double reference A (mu/2 (tr C - 2) + lam/2 (J - alpha)^2 - lam/2 (1 - alpha)^2);
///   - each vertex force against central differences of the float energy, step 1e-3 of the element
///     size (the float-rounded step is the divisor);
///   - each Hessian block against central differences of the force of the same vertex where the
///     block is exact (s = lam (J - alpha) >= 0); for compressed membranes that H - H_FD is PSD
///     (the clamp only drops an NSD term); symmetry; PSD (Jacobi eigenvalues) on all states,
///     compressed ones included;
///   - damping: force = -grad(E + D), D = kd A/(2h) (dC00^2 + 2 dC01^2 + dC11^2) of C = F^T F,
///     written independently here in double; damping Hessian = FD of the damping force at x == xn;
///     damping force ~0 under 100 random rigid motions of xn;
///   - rest data: return codes and untouched outputs for degenerate / collinear / non-finite
///     triangles, the documented D^-1 basis, the area, F^T F = I, zero energy and force at rest.
/// One line per check; exit code 1 if any check fails.
///
/// Mutation testing (each mutation applied to a copy of the header, the test rebuilt and run, when
/// these checks were still part of test_energy_fd.c; all 16 were caught, the checks that failed are
/// in parentheses): force sign (force FD, Hessian FD); dJ/df0 sign (rest force, force FD); vertex-0
/// mapping (force FD, Hessian FD); lam = lambda without +mu (energy ref, Hessian FD); curvature
/// clamp max(0,s) removed (PSD); -r dJ dJ^T Hessian term dropped (Hessian FD); energy-only formula
/// error (energy ref, force FD); damping dC01 weight 2->1 in the force (damping FDs); damping
/// Hessian weight 2->1 (damping Hessian FD); dC01 cross term dropped (damping FDs, rigid motion);
/// damping without area (damping FDs); rest dinv[1] sign (basis, F^T F = I); rest area factor
/// (area); degeneracy threshold removed / too strict (degenerate, valid accepted); asymmetric
/// Hessian (symmetry).
#include "vbd_membrane.h"

#include "energy_fd.h" /* after the kernel header, whose locals named d3 would shadow its type (-Wshadow) */

typedef struct {
    float dinv[4], area, mu, lam, kd, h;
    const dfm_v3* xn;
} mem_ctx;

static void mem_ab(const float dinv[4], int vi, double* a, double* b) {
    if (vi == 0) {
        *a = -(double)(dinv[0] + dinv[2]);
        *b = -(double)(dinv[1] + dinv[3]);
    } else if (vi == 1) {
        *a = dinv[0];
        *b = dinv[1];
    } else {
        *a = dinv[2];
        *b = dinv[3];
    }
}
/* Independent double F columns. */
static void mem_F_d(const dfm_v3* x, const float dinv[4], d3* f0, d3* f1) {
    d3 d1 = d3_sub(d3_of(x[1]), d3_of(x[0])), d2 = d3_sub(d3_of(x[2]), d3_of(x[0]));
    *f0 = d3_add(d3_scale(d1, dinv[0]), d3_scale(d2, dinv[2]));
    *f1 = d3_add(d3_scale(d1, dinv[1]), d3_scale(d2, dinv[3]));
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
/// Force (N) on vertex vi from dfm_membrane_force_hessian, its Hessian block (N/m) into *H.
static d3 mem_eval(const dfm_v3* x, int vi, const void* ctx, d33* H) {
    const mem_ctx* c = (const mem_ctx*)ctx;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_membrane_force_hessian(x, c->xn, c->dinv, c->area, c->mu, c->lam, c->kd, c->h, vi, &f, &h);
    *H = d33_of(h);
    return d3_of(f);
}
static d3 mem_force(const dfm_v3* x, int vi, const void* ctx) {
    d33 H;
    return mem_eval(x, vi, ctx, &H);
}
static d33 mem_hess(const dfm_v3* x, int vi, const void* ctx) {
    d33 H;
    mem_eval(x, vi, ctx, &H);
    return H;
}
/* Random well-shaped rest triangle of size ~L around a random centre. */
static void rand_triangle(double L, dfm_v3 X[3]) {
    for (;;) {
        d3 c = d3_rand(2.0 * L);
        d3 p[3];
        for (int i = 0; i < 3; ++i) p[i] = d3_add(c, d3_rand(L));
        double l2 = fmax(
            d3_dot(d3_sub(p[1], p[0]), d3_sub(p[1], p[0])),
            fmax(d3_dot(d3_sub(p[2], p[0]), d3_sub(p[2], p[0])), d3_dot(d3_sub(p[2], p[1]), d3_sub(p[2], p[1]))));
        double a2 = d3_len(d3_cross(d3_sub(p[1], p[0]), d3_sub(p[2], p[0])));
        if (l2 > 0.04 * L * L && a2 > 0.25 * l2) {
            for (int i = 0; i < 3; ++i) X[i] = d3_to_f(p[i]);
            return;
        }
    }
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
        c.kd = 0.0f;
        c.h = 0.0f;
        c.xn = NULL;
        if (!dfm_tri_rest_compute(X[0], X[1], X[2], c.dinv, &c.area)) {
            chk_add(&c_rest_ok, 1.0);
            continue;
        }
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
            if (pass == 0)
                memcpy(x, X, sizeof x);
            else
                rigid(X, 3, L, x);
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
        // clang-format off
        do u = d3_scale(rand_int3(4), sc); while (d3_len(u) == 0.0);
        // clang-format on
        const double ts[5] = {-2.0, -1.0, 0.5, 2.0, 3.0};
        d3 p1 = d3_add(p0, u), p2;
        int kind = n % 6;
        // clang-format off
        if (kind == 0) p2 = d3_add(p0, d3_scale(u, ts[(int)urange(0.0, 5.0)]));   /* collinear */
        else if (kind == 1) { p1 = p0; p2 = d3_add(p0, d3_rand(sc)); }           /* coincident pair */
        else if (kind == 2) p2 = p0;                                               /* coincident pair */
        else if (kind == 3) { p1 = p0; p2 = p0; }                                  /* point */
        else if (kind == 4) p2 = d3_make(NAN, 0.0, 0.0);                           /* non-finite */
        else p2 = d3_make(INFINITY, 1.0, 0.0);
        // clang-format on
        float dinv[4] = {-7.0f, -7.0f, -7.0f, -7.0f}, area = -7.0f;
        int r = dfm_tri_rest_compute(d3_to_f(p0), d3_to_f(p1), d3_to_f(p2), dinv, &area);
        int bad = r != 0 || area != -7.0f || dinv[0] != -7.0f || dinv[1] != -7.0f || dinv[2] != -7.0f ||
                  dinv[3] != -7.0f;
        chk_add(&c_degen, bad ? 1.0 : 0.0);
    }
    { /* exactly representable near-collinear: area 1e-14 relative to edge^2 */
        float dinv[4] = {-7.0f, -7.0f, -7.0f, -7.0f}, area = -7.0f;
        int r = dfm_tri_rest_compute(dfm_v3_make(0, 0, 0), dfm_v3_make(1, 0, 0), dfm_v3_make(0.5f, 1e-14f, 0), dinv,
                                     &area);
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
        c.kd = 0.0f;
        c.h = 0.0f;
        c.xn = NULL;
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
            chk_force_fd(&c_f_fd, mem_force, mem_energy_f, &c, x, vi, step, 1e-2 * fs, fd_allow(emag, step));
            d33 H = mem_hess(x, vi, &c);
            chk_add(&c_h_sym, asym_rel(H));
            chk_add(&c_psd, psd_violation(H));
            if (exact) {
                chk_hessian_fd(&c_h_fd, H, mem_force, &c, x, vi, step, 1e-2 * fs / (L * s), fd_allow(fmag, step));
            } else if (compressed) {
                /* the clamp drops (s/J)(|w|^2 I - w w^T - dJ dJ^T), which is negative semidefinite
                   for s < 0, so the projected block must dominate the exact one */
                d33 Hfd = fd_hessian(mem_force, &c, x, vi, step);
                chk_add(&c_h_clamp,
                        fmax(0.0, -min_eig_sym(d33_sub(H, Hfd)) - sqrt(3.0) * fd_allow(fmag, step)) / d33_fro(H));
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
        rand_xn(X, 3, L, xn);
        perturb(xn, 3, 0.15 * L, x);
        c.h = (float)urange(1e-3, 2e-2);
        c.kd = (float)(c.mu * c.h * urange(0.3, 3.0)); /* damping force comparable to the elastic one */
        c.xn = xn;
        double step = FD_REL * L;
        for (int vi = 0; vi < 3; ++vi) {
            double fs = mem_fscale(&c, x, vi), emag, fmag;
            mem_mags(&c, x, vi, &emag, &fmag);
            chk_damped_force_fd(&c_d_fd, mem_force, mem_energy_f, mem_dissipation, &c, x, vi, step, 1e-2 * fs,
                                fd_allow(emag, step));
            chk_add(&c_psd, psd_violation(mem_hess(x, vi, &c)));
        }
        /* damping only (mu = lambda = 0) */
        mem_ctx cd = c;
        cd.mu = 0.0f;
        cd.lam = 0.0f;
        double dscale_base = (double)c.kd * c.area / c.h;
        for (int vi = 0; vi < 3; ++vi) {
            double a, b;
            mem_ab(c.dinv, vi, &a, &b);
            double fs = dscale_base * sqrt(a * a + b * b);
            chk_force_fd(&c_d_only_fd, mem_force, mem_dissipation, &cd, x, vi, 0.1 * step, 1e-2 * fs, 0.0);
        }
        /* damping Hessian at x == xn */
        cd.xn = xn;
        for (int vi = 0; vi < 3; ++vi) {
            double a, b;
            mem_ab(c.dinv, vi, &a, &b);
            chk_hessian_at_xn(&c_dh_fd, mem_hess, mem_force, &cd, xn, 3, vi, step, 1e-3 * dscale_base * (a * a + b * b),
                              0.0);
        }
    }
    /* ---- rigid motions of xn: no damping force */
    for (int n = 0; n < N_RIGID; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[3], xn[3], x[3];
        rand_triangle(L, X);
        mem_ctx c;
        if (!dfm_tri_rest_compute(X[0], X[1], X[2], c.dinv, &c.area)) continue;
        rand_xn(X, 3, L, xn);
        rigid(xn, 3, L, x);
        c.mu = 0.0f;
        c.lam = 0.0f;
        c.h = (float)urange(1e-3, 2e-2);
        c.kd = (float)urange(0.1, 10.0);
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

    chk_report(&c_rest_ok);
    chk_report(&c_rest_basis);
    chk_report(&c_rest_area);
    chk_report(&c_rest_iso);
    chk_report(&c_rest_e);
    chk_report(&c_rest_f);
    chk_report(&c_degen);
    chk_report(&c_e_ref);
    chk_report(&c_f_fd);
    chk_report(&c_h_fd);
    chk_report(&c_h_clamp);
    chk_report(&c_h_sym);
    chk_report(&c_psd);
    chk_report(&c_d_fd);
    chk_report(&c_d_only_fd);
    chk_report(&c_dh_fd);
    chk_report(&c_rigid);
}

int main(void) {
    test_membrane();
    return dfm_test_finish("test_energy_membrane");
}
