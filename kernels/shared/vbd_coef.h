/// @file vbd_coef.h
/// Per-element coefficients constant over one step's VBD advances (P3 hoist; the substep h and the
/// materials do not change within a step): the Neo-Hookean reparameterisation (lam, alpha) and the
/// damping scale kd * measure / h of every triangle and tet, and k = ke L0, kd L0 / h of every
/// hinge. Filled once per step into the view's tri_coef / edge_coef / tet_coef, they replace a
/// division and a few products per element visit (3 visits per triangle, 4 per hinge and tet, per
/// iteration) with one pass per step; the
/// per-visit functions then read them (vbd_particle.h). Results are bitwise those of the
/// per-visit computation (the same expressions). Both backends fill them (the CPU in
/// vbd_coef_cpu.c, CUDA in coef_kernel once per step); a view with NULL arrays computes them per
/// visit.
#ifndef DFM_VBD_COEF_H
#define DFM_VBD_COEF_H

#include "vbd_bending.h"
#include "vbd_membrane.h"
#include "vbd_tet.h"
#include "vbd_view.h"

/// Fills v->tri_coef for triangle t (v->h is the advance's substep).
DFM_HD void dfm_vbd_tri_coef(const dfm_vbd_view* v, int32_t t) {
    const float* mat = v->tri_material + 3 * t;
    dfm_membrane_coef(v->tri_area[t], mat[0], mat[1], mat[2], v->h, v->tri_coef + 3 * t);
}

/// Fills v->edge_coef for bending edge e.
DFM_HD void dfm_vbd_edge_coef(const dfm_vbd_view* v, int32_t e) {
    const float* mat = v->edge_material + 2 * e;
    dfm_bending_coef(v->edge_rest_length[e], mat[0], mat[1], v->h, v->edge_coef + 2 * e);
}

/// Fills v->tet_coef for tet t.
DFM_HD void dfm_vbd_tet_coef(const dfm_vbd_view* v, int32_t t) {
    const float* mat = v->tet_material + 3 * t;
    dfm_tet_coef(v->tet_volume[t], mat[0], mat[1], mat[2], v->h, v->tet_coef + 3 * t);
}

#endif
