/// @file contact_view.h
/// Plain views of the rigid shapes, candidate lists and contact records that the contact
/// functions read and write; the CPU fills them with host arrays, CUDA with device arrays.
#ifndef DFM_CONTACT_VIEW_H
#define DFM_CONTACT_VIEW_H

#include <dfm/dfm_types.h>
#include <stdint.h>

#include "shape_geom.h"
#include "transform.h"

/// One rigid shape during an advance.
typedef struct dfm_shape_rt {
    dfm_shape_geom geom;  ///< Geometry in the shape frame.
    dfm_xform local;      ///< Shape frame in the host body frame.
    dfm_xform body_start; ///< Host body pose at the start of the advance (world).
    dfm_xform body_end;   ///< Host body pose at the end of the advance (world).
    float aabb_min[3];    ///< World AABB swept over the step (host's, unioned with the previous one), m.
    float aabb_max[3];
    float margin, gap;   ///< m.
    float ke, kd, mu;    ///< N/m, N*s/m, -.
    int32_t environment; ///< -1 = all.
    int32_t is_plane;    ///< Planes bypass the AABB early-out.
    int32_t coupled;     ///< 1: the host body is in the solve (dfm_coupling.h) and feels its records' own forces;
                         ///< it takes no share of a deformable's momentum gap (contact_reaction.h).
} dfm_shape_rt;

/// Record kinds, implied by the -1 padding of the corners.
enum { DFM_CONTACT_PARTICLE = 1, DFM_CONTACT_EDGE = 2, DFM_CONTACT_FACE = 3 };

/// Everything detection and the contact response read and write.
/// Internal bit of dfm_contact_view.flags (above the DFM_DISABLE_* bits): the world runs the
/// body-level translation solve (DFM_FEATURE_BODY_TRANSLATION, kernels/shared/body_translation.h),
/// so friction is in the solve (smoothed, dfm_contact_point_force) at both levels and the
/// Coulomb projection only cancels the creep of records the solve left sticking.
#define DFM_CONTACT_BODY_SOLVE (1u << 31)

typedef struct dfm_contact_view {
    /* shapes */
    int32_t shape_count;
    const dfm_shape_rt* shapes;
    const float* particle_mass; ///< kg per particle (friction stick stiffness).
    /* features: particles (ids), edges (2 particle ids each), faces (3 particle ids each) */
    const int32_t* feat_particles;
    const int32_t* feat_edges;
    const int32_t* feat_faces;
    /* candidates: (feature, shape) pairs; kinds laid out particle, edge, face in one index space */
    int32_t cand_particle_count, cand_edge_count, cand_face_count;
    const int32_t* cand_particle; ///< 2 per pair: feature index, shape index.
    const int32_t* cand_edge;
    const int32_t* cand_face;
    /* records */
    int32_t capacity;
    int32_t* count;           ///< [1]: records emitted this advance (may exceed capacity).
    int32_t* corners;         ///< 3 per record, -1 padded.
    float* bary;              ///< 3 per record.
    int32_t* shape;           ///< Shape index per record.
    int32_t* candidate;       ///< Global candidate index per record.
    float* normal;            ///< 3 per record: world normal at detection.
    float* body_point;        ///< 3 per record: surface point in the host body frame.
    float* radius;            ///< Contact radius per record (max over corners), m.
    float* pen0;              ///< Penetration at detection (radius + margin - distance), m.
    float* penalty;           ///< Current penalty stiffness per record, N/m.
    uint8_t* particle_slides; ///< Per particle: 1 = the body-level solve found its body sliding, so the
                              ///< Coulomb projection leaves its records alone; NULL = none.
    int32_t* cand_record;     ///< Optional, per candidate: slot its record went to (the CUDA
                              ///< deterministic compaction); NULL on the CPU.
    /* per-particle contact lists (gather path) */
    int32_t* head; ///< Per particle: first node (3 * record + corner) or -1.
    int32_t* next; ///< Per node: next node or -1.
    /* settings */
    float penalty_beta;  ///< AVBD ramp per iteration.
    float penalty_start; ///< Initial penalty when the ramp is on.
    uint32_t flags;      ///< DFM_DISABLE_* bits.
} dfm_contact_view;

#endif
