/// @file deform_balance_terms.h
/// The per-node terms of the deformable-contact balance over the body graph (issue 16,
/// kernels/cpu/deform_balance.h), shared by both backends: a shape contact node's force on its
/// particle at the final iterate (before the reactions' record pass has run), and whether a
/// body's share of it would turn the node into a pull along the contact normal.
#ifndef DFM_DEFORM_BALANCE_TERMS_H
#define DFM_DEFORM_BALANCE_TERMS_H

#include "contact_response.h"

/// Shape contact node `node` (3 * record + corner): the force its record puts on its particle at
/// the final iterate d (N, world frame), the record's force times the node's weight, plus the
/// Coulomb projection's friction through it (node_friction, 3 floats per node) when `friction`.
DFM_HD dfm_v3 dfm_dc_shape_node_force(const dfm_contact_view* c, const float* d, float h, const float* node_friction,
                                      int friction, int32_t node) {
    dfm_v3 fk;
    dfm_m33 Hk;
    dfm_contact_point_force(c, d, h, node / 3, &fk, &Hk);
    dfm_v3 q = dfm_v3_scale(fk, c->rec.bary[node]);
    if (friction) q = dfm_v3_add(q, dfm_v3_load(node_friction + 3 * node));
    return q;
}

/// Whether the share lambda (3 doubles, N per N: a body's potential) of node force q would turn
/// node `node` into a pull along its record's normal: n.q + (n.lambda) |q| < 0
/// (dfm_contact_reaction_particle cuts those).
DFM_HD int dfm_dc_shape_node_pulls(const dfm_contact_view* c, dfm_v3 q, int32_t node, const double* lambda) {
    const dfm_v3 n = dfm_v3_load(c->rec.normal + 3 * (node / 3));
    const double ln = lambda[0] * n.x + lambda[1] * n.y + lambda[2] * n.z;
    return (double)dfm_v3_dot(n, q) + ln * (double)dfm_v3_len(q) < 0.0;
}

#endif
