/// @file body_translation.h
/// The coarse level of the VBD solve (issue 13, opt-in DFM_FEATURE_BODY_TRANSLATION): a rigid
/// translation per free body with the body's own Coulomb friction.
///
/// Gauss-Seidel sweeps fix local error fast and smooth error slowly; the smoothest mode of a free
/// body is its translation, which the per-particle steps can barely produce in a stiff body (each
/// particle is held by its neighbours), so a body resting, draped or sliding settles where the
/// sweeps' leftover is balanced by unconverged contact forces (docs/physics.md). After every
/// sweep each free body (all particles dynamic) therefore takes the translation delta that
/// minimises the incremental potential along x_i + delta for all its particles:
///
///   Phi(delta) = g0.delta + M |delta|^2 / 2                        inertia and drag
///              + sum_k kp_k max(0, pen_k - n_k.delta)^2 / 2         normal penalty
///              + sum_k kd_k / (2h) min(0, n_k.(D_k + delta))^2       approach damping
///              + sum_k mu_k lambda_k f1(|P_k (D_k + delta)|)         Coulomb friction
///
/// with g0 = sum_i m_i/h^2 (d_i - y_i) + c_i/h d_i, M = sum_i m_i/h^2 + c_i/h, D_k the record's
/// motion relative to its shape over the advance, P_k the tangent projector, f1 IPC's smoothed
/// |.| below eps = DFM_BODY_FRICTION_EPS and lambda_k = kp_k max(0, pen_k - n_k.delta_lag) plus
/// the approach damping's normal force, re-evaluated at the solution in DFM_BODY_OUTER passes (the
/// sweep's own penalty forces are unconverged: on a slope they summed to 7x a cube's weight).
/// Elastic energy does not change under a translation, so Phi is exact on this subspace; it is
/// convex and minimised by damped Newton (3x3 solves, a few per sweep: the sweeps' outer iteration
/// carries it on), so a body sticks when its contacts' friction can hold the force it needs and
/// slides with mu lambda otherwise: the decision a per-particle projection cannot make. Records are gathered once per solve (dfm_body_record).
#ifndef DFM_BODY_TRANSLATION_H
#define DFM_BODY_TRANSLATION_H

#include "contact_response.h"
#include "vbd_view.h"

/// Newton iterations of one lambda pass of a body's translation solve. The solve runs after
/// every sweep, so it need not converge in one call; 6 leave the physics tests' figures as 16 did
/// at a fraction of the cost (docs/perf.md, session 6).
#define DFM_BODY_NEWTON_MAX 6
/// Lambda passes (lambda re-evaluated at the previous pass's translation).
#define DFM_BODY_OUTER 2
/// Newton stops when its step is below this, m (below the float spacing of positions near 1 m).
#define DFM_BODY_STEP_TOL 1e-9f
/// Slip (m over one advance) below which the body-level friction is smoothed: a sticking body
/// creeps at most this much per advance before the Coulomb projection cancels it, and a body
/// whose records slip more than twice this is sliding.
#define DFM_BODY_FRICTION_EPS 1e-7f

/// One contact record of a body, frozen for its translation solve (world frame).
typedef struct dfm_body_record {
    dfm_v3 n;  ///< Normal (shape toward the deformable).
    dfm_v3 D;  ///< Contact point's motion relative to the shape over the advance, m.
    float pen; ///< Penetration at delta = 0, m.
    float kp;  ///< Penalty stiffness, N/m.
    float kd;  ///< Approach damping, N s/m.
    float mu;  ///< Friction coefficient.
} dfm_body_record;

/// Inertia and drag of the body's particles [first, end): g0 and M of Phi (N and N/m).
DFM_HD void dfm_body_inertia(const dfm_vbd_view* v, int32_t first, int32_t end, dfm_v3* g0, float* M) {
    const float h = v->h;
    dfm_v3 g = dfm_v3_zero();
    float m = 0.0f;
    for (int32_t i = first; i < end; ++i) {
        float mh = v->mass[i] / (h * h), ch = v->drag[i] / h;
        dfm_v3 d = dfm_v3_load(v->d + 3 * i);
        g = dfm_v3_add(g, dfm_v3_scale(dfm_v3_sub(d, dfm_v3_load(v->y + 3 * i)), mh));
        g = dfm_v3_madd(g, d, ch);
        m += mh + ch;
    }
    *g0 = g;
    *M = m;
}

/// Record k frozen at the current displacements d.
DFM_HD dfm_body_record dfm_body_make_record(const dfm_contact_view* c, const float* d, int32_t k) {
    const dfm_contact_geom g = dfm_contact_geometry(c, d, k);
    const dfm_shape_rt* s = &c->shapes[c->rec.shape[k]];
    dfm_body_record r;
    r.n = g.n;
    r.D = g.D;
    r.pen = g.pen;
    r.kp = c->rec.penalty[k];
    r.kd = s->kd;
    r.mu = s->mu;
    return r;
}

/// Records of the particles [first, end) (each once, at its corner-0 node: records belong to one
/// body), written to rec in particle and list order when rec is not NULL; returns their number.
DFM_HD int32_t dfm_body_gather_records(const dfm_contact_view* c, const float* d, int32_t first, int32_t end,
                                       dfm_body_record* rec) {
    int32_t n = 0;
    for (int32_t i = first; i < end; ++i)
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue;
            if (rec) rec[n] = dfm_body_make_record(c, d, node / 3);
            ++n;
        }
    return n;
}

/// Adds record r's part of Phi at delta (penalty, approach damping and Coulomb friction with
/// lambda taken at delta_lag) to e, its gradient to G and a positive definite Hessian to A.
DFM_HD void dfm_body_record_terms(const dfm_body_record* rp, float h, dfm_v3 delta, dfm_v3 lag, double* e, dfm_v3* G,
                                  dfm_m33* A) {
    const dfm_body_record r = *rp;
    const float eps = DFM_BODY_FRICTION_EPS;
    const float pen = r.pen - dfm_v3_dot(r.n, delta);
    if (pen > 0.0f) {
        *e += 0.5 * (double)r.kp * (double)pen * (double)pen;
        *G = dfm_v3_madd(*G, r.n, -r.kp * pen);
        *A = dfm_m33_add_outer(*A, r.n, r.n, r.kp);
    }
    const dfm_v3 D = dfm_v3_add(r.D, delta);
    const float dn = dfm_v3_dot(r.n, D);
    if (pen > 0.0f && dn < 0.0f && r.kd > 0.0f) {
        *e += 0.5 * (double)(r.kd / h) * (double)dn * (double)dn;
        *G = dfm_v3_madd(*G, r.n, (r.kd / h) * dn);
        *A = dfm_m33_add_outer(*A, r.n, r.n, r.kd / h);
    }
    const float pl = r.pen - dfm_v3_dot(r.n, lag);
    if (!(r.mu > 0.0f) || !(pl > 0.0f)) return;
    /* lambda: the record's whole normal force at delta_lag, penalty and approach damping */
    const float dl = dfm_v3_dot(r.n, dfm_v3_add(r.D, lag));
    const float L = r.mu * (r.kp * pl + (dl < 0.0f ? -(r.kd / h) * dl : 0.0f)); /* mu lambda, N */
    const dfm_v3 u = dfm_v3_madd(D, r.n, -dn);
    const float ul = dfm_v3_len(u);
    float f1, f1p, stiff; /* f1(x) = x for x >= eps, -x^3/(3 eps^2) + x^2/eps + eps/3 below */
    if (ul >= eps) {
        f1 = ul;
        f1p = 1.0f;
        stiff = L / ul;
    } else {
        const float x = ul / eps;
        f1 = eps * (-x * x * x / 3.0f + x * x + 1.0f / 3.0f);
        f1p = 2.0f * x - x * x;
        stiff = L * (2.0f - x) / eps;
    }
    *e += (double)L * (double)f1;
    if (ul > 0.0f) *G = dfm_v3_madd(*G, u, L * f1p / ul);
    const dfm_m33 P = dfm_m33_add_outer(dfm_m33_diag(1.0f), r.n, r.n, -1.0f);
    *A = dfm_m33_add(*A, dfm_m33_scale(P, stiff));
}

/// The inertia and drag part of Phi at delta, added to e, G and A.
DFM_HD void dfm_body_inertia_terms(dfm_v3 g0, float M, dfm_v3 delta, double* e, dfm_v3* G, dfm_m33* A) {
    *e += (double)dfm_v3_dot(g0, delta) + 0.5 * (double)M * (double)dfm_v3_dot(delta, delta);
    *G = dfm_v3_add(*G, dfm_v3_madd(g0, delta, M));
    *A = dfm_m33_add(*A, dfm_m33_diag(M));
}

/// Phi at delta (up to a constant) with its gradient and a positive definite Hessian, for the
/// records given, lambda taken at delta_lag.
DFM_HD double dfm_body_phi(const dfm_body_record* rec, int32_t count, float h, dfm_v3 g0, float M, dfm_v3 delta,
                           dfm_v3 lag, dfm_v3* grad, dfm_m33* H) {
    double e = 0.0;
    dfm_v3 G = dfm_v3_zero();
    dfm_m33 A = dfm_m33_zero();
    dfm_body_inertia_terms(g0, M, delta, &e, &G, &A);
    for (int32_t k = 0; k < count; ++k) dfm_body_record_terms(rec + k, h, delta, lag, &e, &G, &A);
    *grad = G;
    *H = A;
    return e;
}

/// 1 when record r, with friction and in contact at delta, slips more than 2 DFM_BODY_FRICTION_EPS.
DFM_HD int dfm_body_record_slides(const dfm_body_record* rp, dfm_v3 delta) {
    const dfm_body_record r = *rp;
    if (!(r.mu > 0.0f) || !(r.pen - dfm_v3_dot(r.n, delta) > 0.0f)) return 0;
    const dfm_v3 D = dfm_v3_add(r.D, delta);
    return dfm_v3_len(dfm_v3_madd(D, r.n, -dfm_v3_dot(r.n, D))) > 2.0f * DFM_BODY_FRICTION_EPS;
}

/// The translation minimising Phi for the records given (m): DFM_BODY_OUTER lambda passes of
/// damped Newton with a backtracking (Armijo) line search. Zero when nothing is finite. *slides
/// says whether a record with friction slips more than 2 DFM_BODY_FRICTION_EPS at the result.
DFM_HD dfm_v3 dfm_body_translation(const dfm_body_record* rec, int32_t count, float h, dfm_v3 g0, float M,
                                   int* slides) {
    dfm_v3 delta = dfm_v3_zero();
    *slides = 0;
    if (!(M > 0.0f)) return delta;
    if (count == 0) return dfm_v3_scale(g0, -1.0f / M); /* free flight: the exact minimiser */
    for (int outer = 0; outer < DFM_BODY_OUTER; ++outer) {
        const dfm_v3 lag = delta;
        for (int it = 0; it < DFM_BODY_NEWTON_MAX; ++it) {
            dfm_v3 G;
            dfm_m33 H, Hinv;
            const double e = dfm_body_phi(rec, count, h, g0, M, delta, lag, &G, &H);
            if (!dfm_m33_inverse(H, 0.0f, &Hinv)) break;
            const dfm_v3 step = dfm_v3_neg(dfm_m33_mul_v3(Hinv, G));
            const float slope = dfm_v3_dot(G, step);
            if (!(slope < 0.0f) || !(dfm_v3_len(step) > DFM_BODY_STEP_TOL)) break;
            float a = 1.0f;
            for (int ls = 0; ls < 12; ++ls, a *= 0.5f) {
                dfm_v3 Gt;
                dfm_m33 Ht;
                if (dfm_body_phi(rec, count, h, g0, M, dfm_v3_madd(delta, step, a), lag, &Gt, &Ht) <=
                    e + 1e-4 * (double)a * (double)slope)
                    break;
            }
            delta = dfm_v3_madd(delta, step, a);
        }
    }
    if (!dfm_v3_isfinite(delta)) return dfm_v3_zero();
    for (int32_t k = 0; k < count && !*slides; ++k) *slides = dfm_body_record_slides(rec + k, delta);
    return delta;
}

/// Moves the body's particles [first, end) by delta (x and d).
DFM_HD void dfm_body_apply_translation(const dfm_vbd_view* v, int32_t first, int32_t end, dfm_v3 delta) {
    for (int32_t i = first; i < end; ++i) {
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v->d + 3 * i), delta), v->d + 3 * i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v->x + 3 * i), delta), v->x + 3 * i);
    }
}

/// 1 when every particle of [first, end) is dynamic (the body may translate freely).
DFM_HD int dfm_body_is_free(const dfm_vbd_view* v, int32_t first, int32_t end) {
    for (int32_t i = first; i < end; ++i)
        if (v->mode[i] != 0) return 0;
    return end > first;
}

#endif
