/// @file bvh_box.h
/// Axis-aligned boxes of the deformable broad phase (issue 16) and the primitives they bound:
/// points, edges and triangles of deformable meshes, named by their vertices. Host and device.
#ifndef DFM_BVH_BOX_H
#define DFM_BVH_BOX_H

#include <stdint.h>

#include "dfm_hd.h"

/// An axis-aligned box, world frame, m. Empty when lo > hi on some axis.
typedef struct dfm_bvh_box {
    float lo[3]; ///< Smallest corner, m.
    float hi[3]; ///< Largest corner, m.
} dfm_bvh_box;

/// A broad-phase primitive: a point (v[1] = v[2] = -1), an edge (v[2] = -1) or a triangle, by
/// its vertex indices into the position array, and the body it belongs to (index into the
/// body filters, dfm_bvh_filter).
typedef struct dfm_bvh_prim {
    int32_t v[3]; ///< Vertex indices; unused corners are -1 (only after the used ones).
    int32_t body; ///< Body index, 0..body_count-1.
} dfm_bvh_prim;

/// The empty box (+inf lower corner, -inf upper corner): the identity of dfm_bvh_box_merge.
DFM_HD dfm_bvh_box dfm_bvh_box_empty(void) {
    dfm_bvh_box b;
    for (int k = 0; k < 3; ++k) {
        b.lo[k] = INFINITY;
        b.hi[k] = -INFINITY;
    }
    return b;
}

/// The smallest box holding a and b (exact: min and max only, so any merge order gives the same
/// bits).
DFM_HD dfm_bvh_box dfm_bvh_box_merge(dfm_bvh_box a, dfm_bvh_box b) {
    dfm_bvh_box r;
    for (int k = 0; k < 3; ++k) {
        r.lo[k] = dfm_fminf(a.lo[k], b.lo[k]);
        r.hi[k] = dfm_fmaxf(a.hi[k], b.hi[k]);
    }
    return r;
}

/// Whether a and b overlap (touching counts as overlapping).
DFM_HD int dfm_bvh_box_overlap(const dfm_bvh_box* a, const dfm_bvh_box* b) {
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

/// Number of vertices of a primitive (1 point, 2 edge, 3 triangle).
DFM_HD int dfm_bvh_prim_corners(const dfm_bvh_prim* p) { return p->v[1] < 0 ? 1 : (p->v[2] < 0 ? 2 : 3); }

/// The box of primitive p over positions x (3 floats per vertex, world frame, m), grown by
/// `inflate` (m, >= 0) on every side.
DFM_HD dfm_bvh_box dfm_bvh_prim_box(const dfm_bvh_prim* p, const float* x, float inflate) {
    dfm_bvh_box b = dfm_bvh_box_empty();
    int n = dfm_bvh_prim_corners(p);
    for (int c = 0; c < n; ++c) {
        const float* q = x + 3 * (int64_t)p->v[c];
        for (int k = 0; k < 3; ++k) {
            b.lo[k] = dfm_fminf(b.lo[k], q[k]);
            b.hi[k] = dfm_fmaxf(b.hi[k], q[k]);
        }
    }
    for (int k = 0; k < 3; ++k) {
        b.lo[k] = b.lo[k] - inflate;
        b.hi[k] = b.hi[k] + inflate;
    }
    return b;
}

/// The degenerate box at the centre of b (lo = hi = (lo + hi) / 2), m.
DFM_HD dfm_bvh_box dfm_bvh_box_centroid(dfm_bvh_box b) {
    dfm_bvh_box c;
    for (int k = 0; k < 3; ++k) {
        float m = (b.lo[k] + b.hi[k]) * 0.5f;
        c.lo[k] = m;
        c.hi[k] = m;
    }
    return c;
}

#endif
