/// @file contact_response.h
/// Force and Hessian of one contact record at the current iterate, its distribution to the
/// record's corners, the AVBD penalty ramp, the Coulomb friction projection after the iterations and the
/// initial-guess hint.
///
/// Force law (contact point x = sum w_i x_i, surface point b = body pose * body_point, normal n
/// lagged from detection, penetration pen = radius + margin - n.(x - b)):
/// - normal: f = k pen n, H = k n n^T (k = the record's penalty, ramped by AVBD);
/// - damping on approach: with D = (x - x_prev) - (b - b_prev), if n.D < 0:
///   f -= (kd/h)(n.D) n, H += (kd/h) n n^T;
/// - friction, by default, is not a force inside the solve but a Coulomb projection after the
///   iterations (dfm_contact_friction_particle): the contact point's tangential motion relative to
///   the shape over the advance is cancelled when the friction impulse mu |f_n| h can do it
///   (static: no creep at rest), else reduced by that impulse (kinetic). See docs/friction.md.
///   With DFM_DISABLE_STATIC_FRICTION the solve uses IPC-style smoothed friction on D instead,
///   which creeps at rest; with the body-level solve (DFM_CONTACT_BODY_SOLVE) it uses both: the
///   smoothed friction in the solve and the projection for the bodies that solve left sticking.
///   Records on a dynamic host body in the solve (dfm_coupling.h) always take the smoothed friction
///   in the solve, on both sides of the pair (dfm_contact_friction_in_solve).
/// Corners receive w_i f and w_i^2 H.
#ifndef DFM_CONTACT_RESPONSE_H
#define DFM_CONTACT_RESPONSE_H

#include "contact_view.h"
#include "mat33.h"

/// Velocity (m/s) below which smoothed (anchor-free) friction ramps down: eps = this * h.
#define DFM_FRICTION_SMOOTH_SPEED 0.01f

/// Geometry of a record at the current iterate.
typedef struct dfm_contact_geom {
    dfm_v3 D;  ///< Contact point's motion relative to the shape over the advance, world.
    dfm_v3 b;  ///< Surface point, world, end of advance (for torques).
    dfm_v3 n;  ///< Normal (world, from detection).
    float pen; ///< Penetration, m (> 0 in contact).
} dfm_contact_geom;

/// Evaluates the record's geometry from the particles' displacements d over the advance (3
/// floats per particle): D = sum w_i d_i - (b_end - b_start) and pen = pen0 - n.D, with pen0 the
/// penetration at detection. Only differences of positions enter, so a scene far from the
/// origin keeps its precision (absolute positions lost the ~1e-7 m resting penetration at 100 m).
DFM_HD dfm_contact_geom dfm_contact_geometry(const dfm_contact_view* c, const float* d, int32_t k) {
    dfm_contact_geom g;
    dfm_v3 dc = dfm_v3_zero();
    for (int j = 0; j < 3; ++j) {
        int32_t p = c->rec.corners[3 * k + j];
        if (p >= 0) dc = dfm_v3_madd(dc, dfm_v3_load(d + 3 * p), c->rec.bary[3 * k + j]);
    }
    const dfm_shape_rt* s = &c->shapes[c->rec.shape[k]];
    dfm_v3 bp = dfm_v3_load(c->rec.body_point + 3 * k);
    dfm_v3 db = dfm_v3_add(dfm_v3_sub(s->body_end.t, s->body_start.t),
                           dfm_v3_sub(dfm_quat_rotate(s->body_end.q, bp), dfm_quat_rotate(s->body_start.q, bp)));
    g.D = dfm_v3_sub(dc, db);
    g.b = dfm_xform_point(s->body_end, bp);
    g.n = dfm_v3_load(c->rec.normal + 3 * k);
    g.pen = c->rec.pen0[k] - dfm_v3_dot(g.n, g.D);
    return g;
}

/// Whether a record on shape s has its friction inside the solve (smoothed, IPC-style, on D) rather
/// than the Coulomb projection after the iterations: with DFM_DISABLE_STATIC_FRICTION, with the
/// body-level solve, and always against a dynamic host body in the solve (s->coupled). The coupled
/// body's own solve (host_body_solve.h) takes the same smoothed friction on the same records, so
/// the pair exchanges one friction force. The projection against a coupled body did not: it moved
/// the particles with the body after the sweeps while the body's solve had dragged the body with the
/// particles' frictionless motion, so each side felt a friction the other never did, and a 20 kg box
/// on a cloth hammock gained up to 28% of its drop energy and could spin off (issue 13 item 8;
/// docs/physics.md "Coupling: friction against a dynamic host body").
DFM_HD int dfm_contact_friction_in_solve(const dfm_contact_view* c, const dfm_shape_rt* s) {
    return (c->flags & (DFM_DISABLE_STATIC_FRICTION | DFM_CONTACT_BODY_SOLVE)) || s->coupled;
}

/// Force on the contact point and its 3x3 Hessian for record k (zero when separated).
DFM_HD void dfm_contact_point_force(const dfm_contact_view* c, const float* d, float h, int32_t k, dfm_v3* f_out,
                                    dfm_m33* H_out) {
    dfm_contact_geom g = dfm_contact_geometry(c, d, k);
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 H = dfm_m33_zero();
    if (g.pen > 0.0f) {
        const dfm_shape_rt* s = &c->shapes[c->rec.shape[k]];
        float kp = c->rec.penalty[k];
        float fn = kp * g.pen;
        f = dfm_v3_scale(g.n, fn);
        H = dfm_m33_add_outer(H, g.n, g.n, kp);
        dfm_v3 D = g.D;
        float dn = dfm_v3_dot(g.n, D);
        if (dn < 0.0f && s->kd > 0.0f) {
            f = dfm_v3_madd(f, g.n, -(s->kd / h) * dn);
            H = dfm_m33_add_outer(H, g.n, g.n, s->kd / h);
        }
        if (s->mu > 0.0f && dfm_contact_friction_in_solve(c, s)) {
            dfm_m33 P = dfm_m33_add_outer(dfm_m33_diag(1.0f), g.n, g.n, -1.0f); /* tangent projector */
            float limit = s->mu * fn;
            dfm_v3 u = dfm_v3_madd(D, g.n, -dn);
            float ul = dfm_v3_len(u), eps = DFM_FRICTION_SMOOTH_SPEED * h;
            float phi = ul > eps ? 1.0f / ul : (2.0f - ul / eps) / eps;
            f = dfm_v3_madd(f, u, -limit * phi);
            H = dfm_m33_add(H, dfm_m33_scale(P, limit * phi));
        }
    }
    *f_out = f;
    *H_out = H;
}

/// AVBD penalty ramp of record k at the current iterate: k <- min(k + beta max(0, pen), ke).
DFM_HD void dfm_contact_update_penalty(const dfm_contact_view* c, const float* d, int32_t k) {
    dfm_contact_geom g = dfm_contact_geometry(c, d, k);
    float ke = c->shapes[c->rec.shape[k]].ke;
    c->rec.penalty[k] = dfm_fminf(c->rec.penalty[k] + c->penalty_beta * dfm_fmaxf(g.pen, 0.0f), ke);
}

/// Contact force and Hessian on particle i from all records in its list (gather path).
DFM_HD void dfm_contact_gather(const dfm_contact_view* c, const float* d, float h, int32_t i, dfm_v3* f, dfm_m33* H) {
    dfm_v3 fs = dfm_v3_zero();
    dfm_m33 Hs = dfm_m33_zero();
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        int32_t k = node / 3, corner = node - 3 * k;
        float w = c->rec.bary[3 * k + corner];
        dfm_v3 fp;
        dfm_m33 Hp;
        dfm_contact_point_force(c, d, h, k, &fp, &Hp);
        fs = dfm_v3_madd(fs, fp, w);
        Hs = dfm_m33_add(Hs, dfm_m33_scale(Hp, w * w));
    }
    *f = fs;
    *H = Hs;
}

/// Coulomb friction correction of record k after the iterations (static + kinetic): the
/// contact point's tangential motion relative to the shape over this advance, u, is to be
/// cancelled if |u| <= mu |f_n| h^2 W (W = sum w_j^2 / m_j over the dynamic corners, the contact
/// point's inverse mass; f_n = k pen at the current iterate), else reduced by that amount.
/// Writes the point correction `corr` (to be subtracted) and W; returns 0 when the record has no
/// friction to apply. Reads only the record's corners' displacements.
DFM_HD int dfm_contact_friction_correction(const dfm_contact_view* c, const uint8_t* mode, const float* d, float h,
                                           int32_t k, dfm_v3* corr, float* W_out) {
    const dfm_shape_rt* s = &c->shapes[c->rec.shape[k]];
    if (!(s->mu > 0.0f)) return 0;
    if (s->coupled) return 0; /* its friction is in the solve (dfm_contact_friction_in_solve) */
    /* An edge or face record whose corner already touches the same shape (penetrating particle
     * record) leaves friction to that record: at a shape's rim its lagged normal is
     * diagonal, and projecting "tangential" motion against it moved the corners along the rim
     * and ejected a pinched strip (measured: a 1 mm squeeze let the top row slip 9 mm; 0 now).
     * Records of features that touch the shape only between their vertices (a cloth over a thin
     * rod) keep their friction. */
    if (c->rec.corners[3 * k + 1] >= 0) {
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->rec.corners[3 * k + j];
            if (p < 0) continue;
            for (int32_t node = c->head[p]; node >= 0; node = c->next[node]) {
                int32_t o = node / 3;
                if (c->rec.corners[3 * o + 1] < 0 && c->rec.shape[o] == c->rec.shape[k] &&
                    dfm_contact_geometry(c, d, o).pen > 0.0f)
                    return 0;
            }
        }
    }
    dfm_contact_geom g = dfm_contact_geometry(c, d, k);
    if (!(g.pen > 0.0f)) return 0;
    float W = 0.0f;
    for (int j = 0; j < 3; ++j) {
        int32_t p = c->rec.corners[3 * k + j];
        if (p >= 0 && mode[p] == 0) W += c->rec.bary[3 * k + j] * c->rec.bary[3 * k + j] / c->particle_mass[p];
    }
    if (!(W > 0.0f)) return 0;
    dfm_v3 u = dfm_v3_madd(g.D, g.n, -dfm_v3_dot(g.D, g.n));
    float ul = dfm_v3_len(u), reach = s->mu * c->rec.penalty[k] * g.pen * h * h * W;
    /* The body-level solve decided this record's body slides: its friction is in the solve. */
    if (c->particle_slides && c->particle_slides[c->rec.corners[3 * k]]) return 0;
    *corr = ul <= reach ? u : dfm_v3_scale(u, reach / ul);
    *W_out = W;
    return 1;
}

/// Friction projection of dynamic particle i: walks its contact list in order and, for each
/// record with friction to apply (dfm_contact_friction_correction, evaluated at the current
/// iterate), moves i by its least-mass-weighted share -(w_i / m_i) / W of the record's point
/// correction. A particle record (one corner) is cancelled exactly; the corners of an edge or face
/// record take their shares in turn, each against the motion left by the others. Run per color
/// (no two corners of one record share a color), so all particles of a color run in parallel.
/// Updates x and d of particle i only. When `node_force` is not NULL it receives, for every node
/// of i's list (3 floats at node_force + 3 * node), the friction force that node's record put on
/// i over the advance, m_i dx / h^2 (N; zero where the record applied none, and for pinned or
/// kinematic particles). Returns the friction impulse on i (N s).
DFM_HD dfm_v3 dfm_contact_friction_particle(const dfm_contact_view* c, const uint8_t* mode, float* x, float* d, float h,
                                            int32_t i, float* node_force) {
    dfm_v3 impulse = dfm_v3_zero();
    const int active = mode[i] == 0 && !(c->flags & DFM_DISABLE_STATIC_FRICTION);
    float m = c->particle_mass[i];
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        int32_t k = node / 3;
        dfm_v3 corr, dx = dfm_v3_zero();
        float W;
        if (active && dfm_contact_friction_correction(c, mode, d, h, k, &corr, &W)) {
            dx = dfm_v3_scale(corr, -(c->rec.bary[node] / m) / W);
            dfm_v3_store(dfm_v3_add(dfm_v3_load(x + 3 * i), dx), x + 3 * i);
            dfm_v3_store(dfm_v3_add(dfm_v3_load(d + 3 * i), dx), d + 3 * i);
            impulse = dfm_v3_madd(impulse, dx, m / h);
        }
        if (node_force) dfm_v3_store(dfm_v3_scale(dx, m / (h * h)), node_force + 3 * node);
    }
    return impulse;
}

/// Initial-guess hint of particle i (see dfm_vbd_predict): the normal of its record with the
/// smallest distance to contact among those where i has weight >= 1/2 (the first in list order on
/// ties), and that distance; a zero normal and 3e38 when there is none.
DFM_HD void dfm_contact_guess_particle(const dfm_contact_view* c, int32_t i, float* guess_normal, float* guess_gap) {
    dfm_v3 n = dfm_v3_zero();
    float best = 3.0e38f;
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        int32_t k = node / 3;
        float gap = dfm_fmaxf(-c->rec.pen0[k], 0.0f);
        if (c->rec.bary[node] < 0.5f || gap >= best) continue;
        best = gap;
        n = dfm_v3_load(c->rec.normal + 3 * k);
    }
    dfm_v3_store(n, guess_normal + 3 * i);
    guess_gap[i] = best;
}

#endif
