/// @file test_energy_tet.c
/// Checks the stable Neo-Hookean tetrahedron of kernels/shared/vbd_tet.h (energy, per-vertex force
/// and Hessian block, Cauchy-Green-rate damping, rest data and its return codes) against an
/// independent double-precision evaluation of the reference formulas and central finite
/// differences (in double) of the float energy and force. Machinery, tolerance conventions and
/// units: energy_fd.h.
///
/// Deterministic: fixed-seed splitmix64 (continuing the stream where the membrane and bending
/// checks left it in the former combined test, so the tets are the same as before the split),
/// >= 300 random tets per check, element sizes 1e-2..10 m, translations of a few element sizes.
/// Checks:
///   - energy against the double reference V (mu/2 (|F|^2 - 3) + lam/2 (J - alpha)^2 - lam/2 (1 - alpha)^2);
///   - each vertex force against central differences of the float energy, step 1e-3 of the element
///     size (the float-rounded step is the divisor), compressed and inverted states included;
///   - each Hessian block against central differences of the force of the same vertex (the block
///     is exact on all states), symmetry, PSD (Jacobi eigenvalues) on all states;
///   - damping: force = -grad(E + D), D = kd V/(2h) |C - Cn|_F^2 of C = F^T F, written
///     independently here in double; damping Hessian = FD of the damping force at x == xn; damping
///     force ~0 under 100 random rigid motions of xn;
///   - rest data: Dm Dm^-1 = I, the volume, zero energy and force at rest; return codes (flat -> 0,
///     inverted -> -1) and untouched outputs for flat / inverted / coincident / non-finite tets.
/// One line per check; exit code 1 if any check fails.
///
/// Mutation testing (each mutation applied to a copy of the header, the test rebuilt and run, when
/// these checks were still part of test_energy_fd.c; all 15 were caught, the checks that failed are
/// in parentheses): vertex-0 sign (force FD); Hessian lam term missing (Hessian FD); off-diagonal
/// damping weight 2->1, dC cross term dropped (damping FDs); J - alpha -> J - 1 in the force (rest
/// force, force FD); cof F -> F (force FD); energy offset (rest energy); inverted accepted, flat
/// threshold 1e-12 / too strict (return codes, valid accepted); rest Dm^-1 transposed
/// (Dm Dm^-1 = I); F built with Dm^-T (rest energy); volume factor (volume); asymmetric Hessian
/// (symmetry); negative lam Hessian (PSD).
#include "vbd_tet.h"

#include "energy_fd.h" /* after the kernel header, whose locals named d3 would shadow its type (-Wshadow) */

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
    double psi = 0.5 * c->mu * (fro * fro - 3.0) + 0.5 * lam * (j - alpha) * (j - alpha) -
                 0.5 * lam * (1 - alpha) * (1 - alpha);
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
/// Force (N) on vertex vi from dfm_tet_force_hessian, its Hessian block (N/m) into *H.
static d3 tet_eval(const dfm_v3* x, int vi, const void* ctx, d33* H) {
    const tet_ctx* c = (const tet_ctx*)ctx;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 h = dfm_m33_zero();
    dfm_tet_force_hessian(x, c->xn, c->dminv, c->vol, c->mu, c->lam, c->kd, c->h, vi, &f, &h);
    *H = d33_of(h);
    return d3_of(f);
}
static d3 tet_force(const dfm_v3* x, int vi, const void* ctx) {
    d33 H;
    return tet_eval(x, vi, ctx, &H);
}
static d33 tet_hess(const dfm_v3* x, int vi, const void* ctx) {
    d33 H;
    tet_eval(x, vi, ctx, &H);
    return H;
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
            if (v6 < 0) {
                d3 t = p[1];
                p[1] = p[2];
                p[2] = t;
            }
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
        c.kd = 0.0f;
        c.h = 0.0f;
        c.xn = NULL;
        if (dfm_tet_rest_compute(X[0], X[1], X[2], X[3], c.dminv, &c.vol) != 1) {
            chk_add(&c_rest_ok, 1.0);
            continue;
        }
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
            if (pass == 0)
                memcpy(x, X, sizeof x);
            else
                rigid(X, 4, L, x);
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
                chk_force_fd(&c_f_fd, tet_force, tet_energy_f, &c, x, vi, step, 1e-2 * fs, fd_allow(emag, step));
                d33 H = tet_hess(x, vi, &c);
                chk_hessian_fd(&c_h_fd, H, tet_force, &c, x, vi, step,
                               1e-2 * c.vol * (2.0 * c.mu + c.lam) * pow(tet_mnorm(c.dminv, vi), 2.0),
                               fd_allow(fmag, step));
                chk_add(&c_h_sym, asym_rel(H));
                chk_add(&c_psd, psd_violation(H));
            }
        }
        /* damping */
        dfm_v3 xn[4];
        rand_xn(X, 4, L, xn);
        perturb(xn, 4, 0.15 * L, x);
        c.h = (float)urange(1e-3, 2e-2);
        c.kd = (float)(c.mu * c.h * urange(0.3, 3.0));
        c.xn = xn;
        double step = FD_REL * L;
        for (int vi = 0; vi < 4; ++vi) {
            double emag, fmag;
            tet_mags(&c, x, vi, &emag, &fmag);
            chk_damped_force_fd(&c_d_fd, tet_force, tet_energy_f, tet_dissipation, &c, x, vi, step,
                                1e-2 * tet_fscale(&c, x, vi), fd_allow(emag, step));
            chk_add(&c_psd, psd_violation(tet_hess(x, vi, &c)));
        }
        tet_ctx cd = c;
        cd.mu = 0.0f;
        cd.lam = 0.0f;
        double dbase = (double)c.kd * c.vol / c.h;
        for (int vi = 0; vi < 4; ++vi) {
            double fs = dbase * tet_mnorm(c.dminv, vi);
            chk_force_fd(&c_d_only_fd, tet_force, tet_dissipation, &cd, x, vi, 0.1 * step, 1e-2 * fs, 0.0);
            chk_hessian_at_xn(&c_dh_fd, tet_hess, tet_force, &cd, xn, 4, vi, step,
                              1e-3 * dbase * pow(tet_mnorm(c.dminv, vi), 2.0), 0.0);
        }
    }
    /* rigid motions of xn */
    for (int n = 0; n < N_RIGID; ++n) {
        double L = pow(10.0, urange(-2.0, 1.0));
        dfm_v3 X[4], xn[4], x[4];
        rand_tet(L, X);
        tet_ctx c;
        if (dfm_tet_rest_compute(X[0], X[1], X[2], X[3], c.dminv, &c.vol) != 1) continue;
        rand_xn(X, 4, L, xn);
        rigid(xn, 4, L, x);
        c.mu = 0.0f;
        c.lam = 0.0f;
        c.h = (float)urange(1e-3, 2e-2);
        c.kd = (float)urange(0.1, 10.0);
        c.xn = xn;
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
            v6 = d3_dot(d3_cross(d3_sub(d3_of(X[1]), d3_of(X[0])), d3_sub(d3_of(X[2]), d3_of(X[0]))),
                        d3_sub(d3_of(X[3]), d3_of(X[0])));
        } while (fabs(v6) < sc * sc * sc);
        if (v6 < 0) {
            dfm_v3 t = X[1];
            X[1] = X[2];
            X[2] = t;
        }
        int kind = n % 5, want = 0;
        d3 p0 = d3_of(X[0]), p1 = d3_of(X[1]), p2 = d3_of(X[2]);
        const double ts[5] = {-1.0, 0.5, 1.0, 2.0, -0.5};
        if (kind == 0) { /* coplanar */
            X[3] = d3_to_f(d3_add(p0, d3_add(d3_scale(d3_sub(p1, p0), ts[(int)urange(0.0, 5.0)]),
                                             d3_scale(d3_sub(p2, p0), ts[(int)urange(0.0, 5.0)]))));
        } else if (kind == 1) { /* inverted */
            dfm_v3 t = X[1];
            X[1] = X[2];
            X[2] = t;
            want = -1;
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
    { /* exact small cases: threshold 1e-6 L^3 (L^3 ~ 2.8 here, so the limit is V ~ 2.8e-6) */
        float dminv[9], vol;
        dfm_v3 a = dfm_v3_make(0, 0, 0), b = dfm_v3_make(1, 0, 0), cc = dfm_v3_make(0, 1, 0);
        int r1 = dfm_tet_rest_compute(a, b, cc, dfm_v3_make(0.2f, 0.2f, 1e-6f), dminv, &vol);  /* V ~ 1.7e-7: flat */
        int r2 = dfm_tet_rest_compute(a, b, cc, dfm_v3_make(0.2f, 0.2f, 1e-4f), dminv, &vol);  /* V ~ 1.7e-5: valid */
        int r3 = dfm_tet_rest_compute(a, b, cc, dfm_v3_make(0.2f, 0.2f, -1e-4f), dminv, &vol); /* inverted */
        chk_add(&c_codes, (r1 != 0) + (r2 != 1) + (r3 != -1));
    }

    chk_report(&c_rest_ok);
    chk_report(&c_rest_inv);
    chk_report(&c_rest_vol);
    chk_report(&c_rest_e);
    chk_report(&c_rest_f);
    chk_report(&c_codes);
    chk_report(&c_e_ref);
    chk_report(&c_f_fd);
    chk_report(&c_h_fd);
    chk_report(&c_h_sym);
    chk_report(&c_psd);
    chk_report(&c_d_fd);
    chk_report(&c_d_only_fd);
    chk_report(&c_dh_fd);
    chk_report(&c_rigid);
}

int main(void) {
    rng_skip(125340); /* the draws of the membrane and bending checks, which ran first in test_energy_fd */
    test_tet();
    return dfm_test_finish("test_energy_tet");
}
