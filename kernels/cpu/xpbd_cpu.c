/// @file xpbd_cpu.c
/// CPU loops of the "xpbd" solver (see xpbd_cpu.h and kernels/shared/xpbd_constraints.h).
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-TODO — constraints run as one serial Gauss-Seidel pass in index
///   order (the deterministic reference); coloring the constraint graph would let one color's
///   constraints run in parallel (the particle coloring of VBD does not apply: constraints, not
///   particles, are the unknowns).
/// - P2 parallel independent columns: applies-TODO — predict and velocity are per-particle
///   independent loops; they are a small share of a step and stay serial here.
/// - P3 loop-invariant hoisting: applies-and-done — rest lengths, compliances and damping are
///   derived once per model rebuild (plugin/solver_xpbd.c), inverse masses once per host step.
/// - P4 offline memory layout: does-not-apply — the CPU reference keeps the world's body order.
#include "xpbd_cpu.h"

#include <math.h>

#include "transform.h"
#include "xpbd_constraints.h"

void dfm_cpu_xpbd_predict(const dfm_xpbd_view* v, float h, float alpha_end) {
    const dfm_v3 g = dfm_v3_make(v->gravity[0], v->gravity[1], v->gravity[2]);
    for (int32_t i = 0; i < v->particle_count; ++i) {
        dfm_v3 x = dfm_v3_load(v->x + 3 * i);
        dfm_v3_store(x, v->x_prev + 3 * i);
        if (v->mode[i] == 0) {
            dfm_v3 vel = dfm_v3_load(v->v + 3 * i);
            /* Implicit linear drag: m dv/dt = -c v. */
            vel = dfm_v3_scale(vel, 1.0f / (1.0f + h * v->drag[i] / v->mass[i]));
            vel = dfm_v3_madd(vel, g, h);
            dfm_v3_store(vel, v->v + 3 * i);
            dfm_v3 d = dfm_v3_scale(vel, h);
            dfm_v3_store(d, v->d + 3 * i);
            dfm_v3_store(dfm_v3_add(x, d), v->x + 3 * i);
        } else if (v->mode[i] == 2) {
            dfm_v3 a = dfm_v3_load(v->kin_start + 3 * i), b = dfm_v3_load(v->kin_target + 3 * i);
            dfm_v3 target = dfm_v3_madd(a, dfm_v3_sub(b, a), alpha_end);
            dfm_v3_store(dfm_v3_sub(target, x), v->d + 3 * i);
            dfm_v3_store(target, v->x + 3 * i);
        } else {
            dfm_v3_store(dfm_v3_zero(), v->v + 3 * i);
            dfm_v3_store(dfm_v3_zero(), v->d + 3 * i);
        }
    }
}

/// Applies x_j += w_j dl grad_j to `count` particles.
static void apply(const dfm_xpbd_view* v, const int32_t* p, const dfm_v3* grad, int count, float dl) {
    for (int k = 0; k < count; ++k) {
        float w = v->inv_mass[p[k]];
        if (w == 0.0f) continue;
        float *x = v->x + 3 * p[k], *d = v->d + 3 * p[k];
        dfm_v3_store(dfm_v3_madd(dfm_v3_load(x), grad[k], w * dl), x);
        dfm_v3_store(dfm_v3_madd(dfm_v3_load(d), grad[k], w * dl), d);
    }
}

/// Moves particle p by dx (position and displacement).
static void move(const dfm_xpbd_view* v, int32_t p, dfm_v3 dx) {
    float *x = v->x + 3 * p, *d = v->d + 3 * p;
    dfm_v3_store(dfm_v3_add(dfm_v3_load(x), dx), x);
    dfm_v3_store(dfm_v3_add(dfm_v3_load(d), dx), d);
}

/// Generic projection of a constraint over `count` particles with value C and gradient grad.
static void project(const dfm_xpbd_view* v, const int32_t* p, const dfm_v3* grad, int count, float C, float alpha,
                    float beta, float h) {
    float wg = 0.0f, cdot = 0.0f;
    for (int k = 0; k < count; ++k) {
        wg += v->inv_mass[p[k]] * dfm_v3_len2(grad[k]);
        cdot += dfm_v3_dot(grad[k], dfm_v3_load(v->d + 3 * p[k]));
    }
    if (!(wg > 0.0f)) return;
    float dl = dfm_xpbd_dlambda(C, wg, cdot, alpha, beta, h);
    if (isfinite(dl)) apply(v, p, grad, count, dl);
}

void dfm_cpu_xpbd_solve_elements(const dfm_xpbd_view* v, float h) {
    for (int32_t e = 0; e < v->dist_count; ++e) {
        const int32_t* p = v->dist + 2 * e;
        dfm_v3 grad[2];
        float C = dfm_xpbd_distance(dfm_v3_load(v->x + 3 * p[0]), dfm_v3_load(v->x + 3 * p[1]), v->dist_rest[e],
                                    &grad[0]);
        grad[1] = dfm_v3_neg(grad[0]);
        project(v, p, grad, 2, C, v->dist_alpha[e], v->dist_beta[e], h);
    }
    for (int32_t e = 0; e < v->bend_count; ++e) {
        if (!isfinite(v->bend_alpha[e])) continue; /* no bending stiffness */
        const int32_t* p = v->bends + 4 * e;
        dfm_v3 x[4], grad[4];
        for (int k = 0; k < 4; ++k) x[k] = dfm_v3_load(v->x + 3 * p[k]);
        float C;
        if (!dfm_xpbd_bending(x, v->bend_rest[e], &C, grad)) continue;
        project(v, p, grad, 4, C, v->bend_alpha[e], v->bend_beta[e], h);
    }
    for (int32_t t = 0; t < v->vol_count; ++t) {
        if (!isfinite(v->vol_alpha[t])) continue; /* no bulk stiffness */
        const int32_t* p = v->tets + 4 * t;
        dfm_v3 x[4], grad[4];
        for (int k = 0; k < 4; ++k) x[k] = dfm_v3_load(v->x + 3 * p[k]);
        float C = dfm_xpbd_volume(x, v->vol_rest[t], grad);
        project(v, p, grad, 4, C, v->vol_alpha[t], v->vol_beta[t], h);
    }
}

/// Surface point of record k at fraction u of the advance (world, m), and the host body origin.
static dfm_v3 record_point(const dfm_contact_view* c, int32_t k, float u, dfm_v3* origin) {
    const dfm_shape_rt* s = &c->shapes[c->rec.shape[k]];
    dfm_xform pose = dfm_xform_lerp(s->body_start, s->body_end, u);
    if (origin) *origin = pose.t;
    return dfm_xform_point(pose, dfm_v3_load(c->rec.body_point + 3 * k));
}

/// Contact point of record k (weighted corners) in array `x`.
static dfm_v3 record_corner_point(const dfm_contact_view* c, const float* x, int32_t k) {
    dfm_v3 p = dfm_v3_zero();
    for (int j = 0; j < 3; ++j) {
        int32_t q = c->rec.corners[3 * k + j];
        if (q >= 0) p = dfm_v3_madd(p, dfm_v3_load(x + 3 * q), c->rec.bary[3 * k + j]);
    }
    return p;
}

/// True when an edge/face record should leave friction to a corner's own penetrating particle
/// record on the same shape (the rule of dfm_contact_friction_project, docs/friction.md).
static int friction_left_to_corner(const dfm_contact_view* c, const dfm_xpbd_view* v, int32_t k, float u1) {
    if (c->rec.corners[3 * k + 1] < 0) return 0;
    for (int j = 0; j < 3; ++j) {
        int32_t p = c->rec.corners[3 * k + j];
        if (p < 0) continue;
        for (int32_t node = c->head[p]; node >= 0; node = c->next[node]) {
            int32_t o = node / 3;
            if (c->rec.corners[3 * o + 1] >= 0 || c->rec.shape[o] != c->rec.shape[k]) continue;
            const dfm_shape_rt* s = &c->shapes[c->rec.shape[o]];
            dfm_xform pose = dfm_xform_mul(dfm_xform_lerp(s->body_start, s->body_end, u1), s->local);
            dfm_v3 xp = dfm_v3_load(v->x + 3 * p);
            float one = 1.0f;
            if (dfm_xpbd_contact_sdf(&s->geom, pose, &xp, &one, 1, c->rec.radius[o] + s->margin, (dfm_v3*)0) < 0.0f)
                return 1;
        }
    }
    return 0;
}

float dfm_cpu_xpbd_contacts(const dfm_contact_view* c, const dfm_xpbd_view* v, float h, float u0, float u1,
                            double* shape_impulse, double particle_impulse[3]) {
    int32_t n_rec = *c->count < c->capacity ? *c->count : c->capacity;
    float deepest = 0.0f;
    const float gravity = dfm_v3_len(dfm_v3_make(v->gravity[0], v->gravity[1], v->gravity[2]));
    for (int32_t k = 0; k < n_rec; ++k) {
        const dfm_shape_rt* s = &c->shapes[c->rec.shape[k]];
        float W = 0.0f, sw = 0.0f;
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->rec.corners[3 * k + j];
            if (p < 0) continue;
            float w = c->rec.bary[3 * k + j];
            W += w * w * v->inv_mass[p];
            if (v->inv_mass[p] > 0.0f) sw += w;
        }
        if (!(W > 0.0f)) continue;
        /* The shape frame at both ends of the small step; the SDF is evaluated at the current
         * contact point (normal not lagged). */
        dfm_xform body0 = dfm_xform_lerp(s->body_start, s->body_end, u0);
        dfm_xform body1 = dfm_xform_lerp(s->body_start, s->body_end, u1);
        dfm_xform pose0 = dfm_xform_mul(body0, s->local), pose1 = dfm_xform_mul(body1, s->local);
        dfm_v3 origin = body1.t;
        float r = c->rec.radius[k] + s->margin;
        dfm_v3 xs[3];
        float ws[3];
        int nc = 0;
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->rec.corners[3 * k + j];
            if (p < 0) continue;
            xs[nc] = dfm_v3_load(v->x + 3 * p);
            ws[nc++] = c->rec.bary[3 * k + j];
        }
        dfm_v3 n;
        float C = dfm_xpbd_contact_sdf(&s->geom, pose1, xs, ws, nc, r, &n);
        if (!(C < 0.0f)) continue;
        dfm_v3 P = record_corner_point(c, v->x, k);
        /* The shape's surface point under the contact point, and its motion over the small step. */
        dfm_v3 b1 = dfm_v3_madd(P, n, -(C + r));
        dfm_v3 b0 = dfm_xform_point(pose0, dfm_xform_point_inv(pose1, b1));
        /* Normal: inequality, compliance 1/ke, damping kd on approach. */
        dfm_v3 D = dfm_v3_sub(record_corner_point(c, v->d, k), dfm_v3_sub(b1, b0));
        float dn = dfm_v3_dot(n, D);
        float alpha = s->ke > 0.0f ? 1.0f / s->ke : 0.0f;
        float beta = dn < 0.0f ? s->kd : 0.0f;
        float dl = fmaxf(dfm_xpbd_dlambda(C, W, dn, alpha, beta, h), 0.0f);
        if (!isfinite(dl)) continue;
        /* Penetration the small step started with leaves at a bounded speed
         * (dfm_xpbd_contact_depenetration), not at C / h. */
        dl *= dfm_xpbd_contact_depenetration(dl * W, dn, gravity, r, h);
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->rec.corners[3 * k + j];
            if (p < 0 || v->inv_mass[p] == 0.0f) continue;
            move(v, p, dfm_v3_scale(n, v->inv_mass[p] * c->rec.bary[3 * k + j] * dl));
        }
        dfm_v3 impulse = dfm_v3_scale(n, dl * sw / h);
        /* Friction (position level, Coulomb): cancel the contact point's tangential motion
         * relative to the shape over the small step when the multiplier it needs, |u| / W, is
         * within mu dl (static); else move it back by mu dl W (kinetic). */
        if (s->mu > 0.0f && !friction_left_to_corner(c, v, k, u1)) {
            dfm_v3 Dt = dfm_v3_sub(record_corner_point(c, v->d, k), dfm_v3_sub(b1, b0));
            dfm_v3 u = dfm_v3_madd(Dt, n, -dfm_v3_dot(Dt, n));
            float ul = dfm_v3_len(u), reach = s->mu * dl * W;
            if (ul > 0.0f) {
                dfm_v3 corr = ul <= reach ? u : dfm_v3_scale(u, reach / ul);
                for (int j = 0; j < 3; ++j) {
                    int32_t p = c->rec.corners[3 * k + j];
                    if (p < 0 || v->inv_mass[p] == 0.0f) continue;
                    move(v, p, dfm_v3_scale(corr, -v->inv_mass[p] * c->rec.bary[3 * k + j] / W));
                }
                impulse = dfm_v3_madd(impulse, corr, -sw / (W * h));
            }
        }
        float pen = -(dfm_v3_dot(n, dfm_v3_sub(record_corner_point(c, v->x, k), b1)) - r);
        (void)record_point;
        if (pen > deepest) deepest = pen;
        particle_impulse[0] += (double)impulse.x;
        particle_impulse[1] += (double)impulse.y;
        particle_impulse[2] += (double)impulse.z;
        dfm_v3 fr = dfm_v3_neg(impulse);
        dfm_v3 tr = dfm_v3_cross(dfm_v3_sub(b1, origin), fr);
        double* imp = shape_impulse + 6 * (size_t)c->rec.shape[k];
        imp[0] += (double)fr.x;
        imp[1] += (double)fr.y;
        imp[2] += (double)fr.z;
        imp[3] += (double)tr.x;
        imp[4] += (double)tr.y;
        imp[5] += (double)tr.z;
    }
    return deepest;
}

void dfm_cpu_xpbd_velocity(const dfm_xpbd_view* v, float h) {
    for (int32_t i = 0; i < v->particle_count; ++i) {
        dfm_v3 vel = dfm_v3_zero();
        if (v->mode[i] != 1) vel = dfm_v3_scale(dfm_v3_load(v->d + 3 * i), 1.0f / h);
        dfm_v3_store(vel, v->v + 3 * i);
    }
}
