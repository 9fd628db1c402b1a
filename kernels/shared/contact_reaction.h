/// @file contact_reaction.h
/// End-of-advance reactions, shared by both backends, in three passes that each write only
/// their own item's outputs (no atomics needed for correctness):
/// 1. per record: its force at the final iterate (dfm_contact_final_force);
/// 2. per touching particle: the contact force its final state actually needs — the residual of
///    its local balance m/h^2 (d - y) - f_elastic + c d / h, friction included since the
///    projection already moved d — split over its list's nodes by their shares |w f|
///    (dfm_contact_reaction_particle). Pinned and kinematic corners keep their records' shares
///    w f;
/// 3. per record: the sum of its corners' node parts in corner order, and the opposite force and
///    its torque about the host body origin on the record's shape (dfm_contact_record_wrench).
/// Reactions computed this way are momentum-consistent with what the particles did, unlike the
/// raw penalty forces of an unconverged iterate.
#ifndef DFM_CONTACT_REACTION_H
#define DFM_CONTACT_REACTION_H

#include "contact_response.h"
#include "vbd_particle.h"

/// Record kind index 0 particle, 1 edge, 2 face (from the corner padding).
DFM_HD int dfm_contact_kind_index(const dfm_contact_view* c, int32_t k) {
    return c->corners[3 * k + 1] < 0 ? 0 : (c->corners[3 * k + 2] < 0 ? 1 : 2);
}

/// Pass 1: stores record k's force at the final iterate (3 floats at record_force + 3k) and
/// returns its penetration (m; <= 0 when separated).
DFM_HD float dfm_contact_final_force(const dfm_contact_view* c, const float* d, float h, int32_t k, float* record_force) {
    dfm_v3 f;
    dfm_m33 H;
    dfm_contact_point_force(c, d, h, k, &f, &H);
    dfm_v3_store(f, record_force + 3 * k);
    return dfm_contact_geometry(c, d, k).pen;
}

/// Pass 2 for particle i (no-op without a list): writes 3 floats per node of i's list at
/// node_part + 3 * node, the part of i's contact force attributed to that node's record.
DFM_HD void dfm_contact_reaction_particle(const dfm_contact_view* c, const dfm_vbd_view* v, const float* record_force,
                                          float* node_part, int32_t i) {
    if (c->head[i] < 0) return;
    const float h = v->h;
    float total = 0.0f;
    int32_t nodes = 0;
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        total += c->bary[node] * dfm_v3_len(dfm_v3_load(record_force + 3 * (node / 3)));
        ++nodes;
    }
    dfm_v3 need = dfm_v3_zero();
    if (v->mode[i] == 0) {
        dfm_v3 fel = dfm_v3_zero();
        dfm_m33 Hel = dfm_m33_zero();
        dfm_vbd_accumulate_elements(v, i, &fel, &Hel);
        dfm_v3 d = dfm_v3_load(v->d + 3 * i);
        need = dfm_v3_sub(dfm_v3_scale(dfm_v3_sub(d, dfm_v3_load(v->y + 3 * i)), v->mass[i] / (h * h)), fel);
        need = dfm_v3_madd(need, d, v->drag[i] / h);
    }
    for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
        dfm_v3 fk = dfm_v3_load(record_force + 3 * (node / 3));
        dfm_v3 part;
        if (v->mode[i] != 0) part = dfm_v3_scale(fk, c->bary[node]);
        else if (total > 0.0f) part = dfm_v3_scale(need, c->bary[node] * dfm_v3_len(fk) / total);
        else part = dfm_v3_scale(need, 1.0f / (float)nodes);
        dfm_v3_store(part, node_part + 3 * node);
    }
}

/// Pass 3 for record k: the contact force on the particles (sum of its corners' node parts),
/// the reaction force on the shape (its opposite) and that force's torque about the host body
/// origin at the end of the advance (world frame; N and N m).
DFM_HD void dfm_contact_record_wrench(const dfm_contact_view* c, const float* d, const float* node_part, int32_t k,
                                      dfm_v3* on_particles, dfm_v3* on_shape, dfm_v3* torque) {
    dfm_v3 f = dfm_v3_zero();
    for (int j = 0; j < 3; ++j)
        if (c->corners[3 * k + j] >= 0) f = dfm_v3_add(f, dfm_v3_load(node_part + 3 * (3 * k + j)));
    const dfm_shape_rt* sh = &c->shapes[c->shape[k]];
    dfm_v3 b = dfm_contact_geometry(c, d, k).b;
    *on_particles = f;
    *on_shape = dfm_v3_neg(f);
    *torque = dfm_v3_cross(dfm_v3_sub(b, sh->body_end.t), *on_shape);
}

#endif
