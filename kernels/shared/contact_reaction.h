/// @file contact_reaction.h
/// End-of-advance reactions, shared by both backends, in three passes that each write only
/// their own item's outputs (no atomics needed for correctness):
/// 1. per record: its force at the final iterate (dfm_contact_final_force);
/// 2. (a) per particle: the residual of its local balance m/h^2 (d - y) - f_elastic + c d / h,
///    friction included since the projection already moved d, the contact force its motion
///    needs; (b) per body: the gap between the sum of those needs and the sum of the forces the
///    records actually put on its particles, per newton of applied force; (c) per record node:
///    the force it applied plus that gap times its magnitude, never a pull along the normal.
///    Summed, the reaction on a body's contacts is its momentum balance (dp/h - weight - pin
///    forces) at any convergence, and each shape reads the force it applies: two pads squeezing
///    a cloth each read their squeeze, a box and a table under a draped cloth each carry a part
///    of its weight. The previous split handed each touching particle's whole unconverged
///    residual to its own records: at 4 x 10 a box under a draped 0.18 N cloth was pulled up by
///    8.9 N while the table under it was pushed by 9.1 N (issue 13, finding 2);
/// 3. per record: the sum of its corners' node parts in corner order, and the opposite force and
///    its torque about the host body origin on the record's shape (dfm_contact_record_wrench).
#ifndef DFM_CONTACT_REACTION_H
#define DFM_CONTACT_REACTION_H

#include "contact_response.h"
#include "vbd_particle.h"

/// Record kind index 0 particle, 1 edge, 2 face (from the corner padding).
DFM_HD int dfm_contact_kind_index(const dfm_contact_view* c, int32_t k) {
    return c->rec.corners[3 * k + 1] < 0 ? 0 : (c->rec.corners[3 * k + 2] < 0 ? 1 : 2);
}

/// Pass 1: stores record k's force at the final iterate (3 floats at record_force + 3k) and
/// returns its penetration (m; <= 0 when separated).
DFM_HD float dfm_contact_final_force(const dfm_contact_view* c, const float* d, float h, int32_t k,
                                     float* record_force) {
    dfm_v3 f;
    dfm_m33 H;
    dfm_contact_point_force(c, d, h, k, &f, &H);
    dfm_v3_store(f, record_force + 3 * k);
    return dfm_contact_geometry(c, d, k).pen;
}

/// Pass 2a for particle i: its local residual force at the final state, the force its balance
/// still needs: m/h^2 (d - y) - f_elastic + (c/h) d for a dynamic particle (friction included,
/// the projection already moved d); zero for pinned and kinematic ones. 3 floats at residual + 3i.
/// Summed over all dynamic particles of a body this is exactly the contact force on the body
/// (elements' forces cancel among its particles, and those from pinned neighbours are the pins'
/// share): momentum-consistent however unconverged the iterate is.
DFM_HD void dfm_contact_particle_residual(const dfm_vbd_view* v, int32_t i, float* residual) {
    dfm_v3_store(dfm_vbd_particle_need(v, i), residual + 3 * i);
}

/// The force record node `node` put on its particle at the final iterate: w f of its record
/// (pass 1) plus the friction force the Coulomb projection applied through it (`node_friction`,
/// 3 floats per node; NULL or unused when the projection is off).
DFM_HD dfm_v3 dfm_contact_node_force(const dfm_contact_view* c, const float* record_force, const float* node_friction,
                                     int32_t node) {
    dfm_v3 q = dfm_v3_scale(dfm_v3_load(record_force + 3 * (node / 3)), c->rec.bary[node]);
    if (node_friction && !(c->flags & DFM_DISABLE_STATIC_FRICTION))
        q = dfm_v3_add(q, dfm_v3_load(node_friction + 3 * node));
    return q;
}

/// Pass 2b for the body whose particles are [first, end): the correction per newton of contact
/// force that makes the forces on its dynamic particles sum to their momentum balance. With P the
/// sum of their residuals (pass 2a: the contact force their motion needs, touching or not), R the
/// sum of the forces their records' nodes put on them (dfm_contact_node_force) and S the sum of
/// those forces' magnitudes, extra = (P - R) / S (3 floats; zero when nothing touches). Summed
/// in particle and list order (deterministic).
/// A body with a pinned or kinematic particle gets no extra: its supports take the gap. A pin's
/// force is not measured but inferred from the unconverged elastic forces of the iterate, and
/// that inference is what the gap corrects, while a record's force is its spring's (a hook row's
/// unconverged tension would otherwise be read by the pads gripping the cloth below it:
/// docs/physics.md, "Reactions").
DFM_HD void dfm_contact_body_extra(const dfm_contact_view* c, const dfm_vbd_view* v, const float* record_force,
                                   const float* node_friction, const float* residual, int32_t first, int32_t end,
                                   float* extra) {
    dfm_v3 P = dfm_v3_zero(), R = dfm_v3_zero();
    float S = 0.0f;
    int supported = 0;
    for (int32_t i = first; i < end; ++i) {
        if (v->mode[i] != 0) {
            supported = 1;
            continue;
        }
        P = dfm_v3_add(P, dfm_v3_load(residual + 3 * i));
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            dfm_v3 q = dfm_contact_node_force(c, record_force, node_friction, node);
            R = dfm_v3_add(R, q);
            if (!c->shapes[c->rec.shape[node / 3]].coupled) S += dfm_v3_len(q); /* coupled bodies take no share */
        }
    }
    dfm_v3_store(S > 0.0f && !supported ? dfm_v3_scale(dfm_v3_sub(P, R), 1.0f / S) : dfm_v3_zero(), extra);
}

/// Pass 2c for particle i (no-op without a list): writes 3 floats per node of i's list at
/// node_part + 3 * node, the force attributed to that node on the particle. A dynamic particle's
/// node carries the force its record actually applied, q = dfm_contact_node_force, plus its share
/// of its body's correction, extra |q| (pass 2b): shapes then read the squeeze each one applies
/// (two pads pinching a cloth each read their own push, not the net), and a body's reactions
/// still sum to its momentum balance however unconverged the iterate is. A share that would turn
/// a node's normal part into a pull is cut to zero along the normal: no reaction is attractive
/// (the sum is then short by the cut). Pinned and kinematic particles keep their records' w f.
DFM_HD void dfm_contact_reaction_particle(const dfm_contact_view* c, const dfm_vbd_view* v, const float* record_force,
                                          const float* node_friction, const float* body_extra, float* node_part,
                                          int32_t i) {
    const dfm_v3 extra = dfm_v3_load(body_extra);
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        dfm_v3 part;
        if (v->mode[i] != 0) {
            part = dfm_v3_scale(dfm_v3_load(record_force + 3 * (node / 3)), c->rec.bary[node]);
        } else if (c->shapes[c->rec.shape[node / 3]].coupled) { /* it feels what its record applied */
            part = dfm_contact_node_force(c, record_force, node_friction, node);
        } else {
            dfm_v3 q = dfm_contact_node_force(c, record_force, node_friction, node);
            dfm_v3 n = dfm_v3_load(c->rec.normal + 3 * (node / 3));
            part = dfm_v3_madd(q, extra, dfm_v3_len(q));
            float pn = dfm_v3_dot(n, part);
            if (pn < 0.0f) part = dfm_v3_madd(part, n, -pn);
        }
        dfm_v3_store(part, node_part + 3 * node);
    }
}

/// Convergence figure of dynamic particle i after pass 2a: the norm of its local force residual,
/// the contact force its balance needs (`residual`) minus the contact forces it received (w f of
/// each record at the final iterate plus the projection's friction force per node,
/// `node_friction`, or NULL when friction is off); zero when converged and for pinned and
/// kinematic particles (N).
DFM_HD float dfm_contact_local_residual(const dfm_contact_view* c, const dfm_vbd_view* v, const float* record_force,
                                        const float* residual, const float* node_friction, int32_t i) {
    if (v->mode[i] != 0) return 0.0f;
    dfm_v3 r = dfm_v3_load(residual + 3 * i);
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        r = dfm_v3_madd(r, dfm_v3_load(record_force + 3 * (node / 3)), -c->rec.bary[node]);
        if (node_friction && !(c->flags & DFM_DISABLE_STATIC_FRICTION))
            r = dfm_v3_sub(r, dfm_v3_load(node_friction + 3 * node));
    }
    return dfm_v3_len(r);
}

/// Pass 3 for record k: the contact force on the particles (sum of its corners' node parts),
/// the reaction force on the shape (its opposite) and that force's torque about the host body
/// origin at the end of the advance (world frame; N and N m).
DFM_HD void dfm_contact_record_wrench(const dfm_contact_view* c, const float* d, const float* node_part, int32_t k,
                                      dfm_v3* on_particles, dfm_v3* on_shape, dfm_v3* torque) {
    dfm_v3 f = dfm_v3_zero();
    for (int j = 0; j < 3; ++j)
        if (c->rec.corners[3 * k + j] >= 0) f = dfm_v3_add(f, dfm_v3_load(node_part + 3 * (3 * k + j)));
    const dfm_shape_rt* sh = &c->shapes[c->rec.shape[k]];
    dfm_v3 b = dfm_contact_geometry(c, d, k).b;
    *on_particles = f;
    *on_shape = dfm_v3_neg(f);
    *torque = dfm_v3_cross(dfm_v3_sub(b, sh->body_end.t), *on_shape);
}

#endif
