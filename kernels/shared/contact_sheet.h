/// @file contact_sheet.h
/// Thin-shell contact normals (issue 13; flag DFM_CONTACT_SHEET_NORMALS, set with
/// DFM_FEATURE_BODY_TRANSLATION and DFM_FEATURE_COARSE_CORRECTION): a cloth is a surface,
/// not a set of spheres. Where a cloth particle's record comes from a shape's rim (the SDF
/// gradient of an edge or corner is diagonal), a sphere would be pushed out along that diagonal;
/// a sheet touches a convex rim where the sheet is tangent to it, so the force acts along the
/// sheet's normal. Measured in test_physics_pinch: the particle row 1.8 mm above a pad's top rim
/// got 12 records with n_z = 0.78, 1.07 N upward for a 0.0785 N strip, and a solver that moves the
/// whole body squeezed the strip out of the grip. A particle record whose normal is within 72
/// degrees (DFM_SHEET_NORMAL_COS) of the cloth's normal at that particle (area-weighted over its triangles, at the
/// advance's start; for edge and face records the corners' normals weighted like the contact
/// point) takes the cloth's normal, signed toward the record's; one more nearly edge-on (a
/// hanging cloth's lower edge on a table) keeps the shape's. The penetration is kept.
#ifndef DFM_CONTACT_SHEET_H
#define DFM_CONTACT_SHEET_H

#include "contact_view.h"
#include "vbd_view.h"

/// Cosine above which a cloth particle's record takes the sheet normal (within about 72 degrees of
/// the cloth's normal). A record from the rim of a pad squeezing the cloth to a half gap g, for a
/// particle a height z above the rim, tilts atan(z / g) from the sheet normal, up to acos(g / r) at
/// the contact radius r: 60 degrees for test_physics_pinch's g = r / 2, more for a harder squeeze.
/// Session 15 (test_physics_pinch with the coarse correction): at 0.5 the rim row's records of
/// 58-62 degrees split across the threshold and those kept pushed the strip up 0.28 N (3.6 times its
/// weight), so it rose 7 mm where Coulomb says it slides out; at 0.3 none is left and it slides. A
/// cloth edge standing on a table (the record along the sheet, 90 degrees) still keeps the shape's.
#define DFM_SHEET_NORMAL_COS 0.3f

/// The cloth normal at particle p (unit, from the positions x at detection, over its triangles); zero when p has no
/// triangles with material or their normals cancel.
DFM_HD dfm_v3 dfm_sheet_normal(const dfm_vbd_view* v, int32_t p) {
    dfm_v3 n = dfm_v3_zero();
    for (int32_t k = v->v_tri_offsets[p]; k < v->v_tri_offsets[p + 1]; ++k) {
        const int32_t t = v->v_tri_items[2 * k];
        const dfm_v3 a = dfm_v3_load(v->x + 3 * v->tris[3 * t]), b = dfm_v3_load(v->x + 3 * v->tris[3 * t + 1]),
                     c = dfm_v3_load(v->x + 3 * v->tris[3 * t + 2]);
        n = dfm_v3_add(n, dfm_v3_cross(dfm_v3_sub(b, a), dfm_v3_sub(c, a)));
    }
    const float l = dfm_v3_len(n);
    return l > 0.0f ? dfm_v3_scale(n, 1.0f / l) : dfm_v3_zero();
}

/// Applies the sheet normal to cloth record k (see the file comment). Writes only record k's
/// normal.
DFM_HD void dfm_contact_sheet_record(const dfm_contact_view* c, const dfm_vbd_view* v, int32_t k) {
    dfm_v3 ns = dfm_v3_zero(); /* the corners' sheet normals, weighted like the contact point */
    for (int j = 0; j < 3; ++j) {
        const int32_t p = c->rec.corners[3 * k + j];
        if (p < 0) continue;
        dfm_v3 nj = dfm_sheet_normal(v, p);
        if (dfm_v3_dot(nj, ns) < 0.0f) nj = dfm_v3_neg(nj); /* a fold: orient like the first corner */
        ns = dfm_v3_madd(ns, nj, c->rec.bary[3 * k + j]);
    }
    const float l = dfm_v3_len(ns);
    if (!(l > 0.0f)) return;
    ns = dfm_v3_scale(ns, 1.0f / l);
    const dfm_v3 n = dfm_v3_load(c->rec.normal + 3 * k);
    const float cs = dfm_v3_dot(n, ns);
    if (fabsf(cs) < DFM_SHEET_NORMAL_COS) return;
    dfm_v3_store(cs > 0.0f ? ns : dfm_v3_neg(ns), c->rec.normal + 3 * k);
}

#endif
