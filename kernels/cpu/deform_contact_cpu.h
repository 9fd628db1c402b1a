/// @file deform_contact_cpu.h
/// Deformable-deformable contact on the CPU backend (issue 16): per advance, the broad phase
/// (kernels/cpu/bvh_cpu.c) finds vertex-triangle and edge-edge candidates within the query radius
/// at the advance's start positions, the narrow phase (kernels/shared/deform_contact.h) keeps the
/// pairs closer than it and builds each particle's pair list; the VBD sweeps then gather each
/// particle's contact force and Hessian from its list and bound its step (vbd_cpu.c).
#ifndef DFM_DEFORM_CONTACT_CPU_H
#define DFM_DEFORM_CONTACT_CPU_H

#include <stddef.h>

#include "bvh_cpu.h"
#include "deform_contact.h"
#include "vbd_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Deformable contact work of one world (buffers owned by plugin/deform_contacts.c, sized at
/// prepare time) and the figures of the last advance.
typedef struct dfm_cpu_dc {
    const dfm_bvh_prim* points; ///< Surface vertices (point primitives).
    int32_t point_count;
    const dfm_bvh_prim* edges; ///< Unique surface edges.
    int32_t edge_count;
    const dfm_bvh_prim* tris; ///< Surface triangles.
    int32_t tri_count;
    const dfm_bvh_filter* filter; ///< Per placed body.
    int32_t body_count;
    const uint8_t* surface; ///< Per particle: 1 when it is a corner of some primitive (bounded).
    dfm_cpu_bvh* tri_tree;  ///< Capacity tri_count.
    dfm_cpu_bvh* edge_tree; ///< Capacity edge_count.
    dfm_bvh_pair* cand;     ///< Scratch: candidate_capacity broad-phase pairs.
    int64_t candidate_capacity;
    dfm_dc_pair* pairs; ///< Scratch: candidate_capacity narrow-phase pairs.
    int32_t* offsets;   ///< Scratch: particle_count + 1 (CSR of each particle's items).
    int32_t* items;     ///< Scratch: 4 * candidate_capacity.
    float* x_snap;      ///< Scratch, 3 per particle: positions at the start of the current colour.
    float* d_snap;      ///< Scratch, 3 per particle: displacements at the start of the current colour.
    float radius, ke, mu; ///< Contact radius (m), stiffness (N/m), friction coefficient.
    /* outputs of the last advance */
    int64_t candidates;  ///< Broad-phase candidates found (may exceed the capacity).
    int64_t dropped;     ///< Candidates beyond the capacity (not tested, not protected).
    int32_t pair_count;  ///< Pairs kept (distance below the query radius).
    float query_radius;  ///< m.
    dfm_dc_view view;    ///< The gather's view of the pairs.
} dfm_cpu_dc;

/// The detection of one advance, after predict (x_prev holds the start positions, y the inertia
/// targets): the query radius r + max(r, 3 max |y|) over the surface particles (so that the
/// advance's bound on total motion, DFM_DC_BOUND_FRACTION of it, exceeds every inertial motion),
/// trees built over x_prev, candidates, pairs, lists; then the initial guess of every dynamic
/// surface particle is bounded like a step from x_prev (d and x rewritten). Serial and in a fixed
/// order: the same pairs for any thread count.
void dfm_cpu_dc_detect(dfm_cpu_dc* s, const dfm_vbd_view* v);

/// Copies x and d into the colour snapshot (the gather of a colour reads only the snapshot, so
/// particles of one colour that share a pair see each other's positions from before the colour,
/// whatever the thread count).
void dfm_cpu_dc_snapshot(dfm_cpu_dc* s, const dfm_vbd_view* v);

#ifdef __cplusplus
}
#endif

#endif
