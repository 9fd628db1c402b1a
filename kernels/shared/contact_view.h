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

/// Internal bit of dfm_contact_view.flags (above the DFM_DISABLE_* bits): the world runs the
/// body-level translation solve (DFM_FEATURE_BODY_TRANSLATION, kernels/shared/body_translation.h),
/// so friction is in the solve (smoothed, dfm_contact_point_force) at both levels and the
/// Coulomb projection only cancels the creep of records the solve left sticking.
#define DFM_CONTACT_BODY_SOLVE (1u << 31)

/// Internal bit of dfm_contact_view.flags: cloth records take the sheet normal where it applies
/// (kernels/shared/contact_sheet.h). Set with the body-level solve and with the two-level solve
/// (DFM_FEATURE_COARSE_CORRECTION): both move whole bodies, so a rim record's diagonal push, which
/// the plain sweeps only deform locally, would squeeze a pinched cloth out of a grip.
#define DFM_CONTACT_SHEET_NORMALS (1u << 30)

/// The fields of a contact record, one row each: X(type, name, width), `width` items of `type`
/// per record. The one list behind dfm_contact_records and every allocation, copy and transfer
/// of records (plugin/contacts_build.c on the host, kernels/cuda/contacts_cuda.cu on the device,
/// dfm_cuda_backend_download_contacts between them).
#define DFM_CONTACT_RECORD_FIELDS(X)                                                           \
    X(int32_t, corners, 3)   /* Particle corners, -1 padded (1, 2 or 3: the record's kind). */ \
    X(float, bary, 3)        /* Weight of each corner. */                                      \
    X(int32_t, shape, 1)     /* Live shape index. */                                           \
    X(int32_t, candidate, 1) /* Global candidate index. */                                     \
    X(float, normal, 3)      /* World normal at detection. */                                  \
    X(float, body_point, 3)  /* Surface point in the host body frame, m. */                    \
    X(float, radius, 1)      /* Contact radius (max over corners), m. */                       \
    X(float, pen0, 1)        /* Penetration at detection (radius + margin - distance), m. */   \
    X(float, penalty, 1)     /* Current penalty stiffness, N/m. */

/// Contact records as a structure of arrays: one array per row of DFM_CONTACT_RECORD_FIELDS,
/// `width` items per record. Host arrays on the CPU, device arrays on CUDA.
typedef struct dfm_contact_records {
#define DFM_RECORD_MEMBER(type, name, width) type* name;
    DFM_CONTACT_RECORD_FIELDS(DFM_RECORD_MEMBER)
#undef DFM_RECORD_MEMBER
} dfm_contact_records;

/// The records of `r` from record `offset` on.
DFM_HD dfm_contact_records dfm_contact_records_at(dfm_contact_records r, int64_t offset) {
#define AT(type, name, width) r.name += (width)*offset;
    DFM_CONTACT_RECORD_FIELDS(AT)
#undef AT
    return r;
}

/// Copies records [i, i + n) of `src` to records [j, j + n) of `dst` (same memory space, no
/// overlap): on the host the parallel detection's chunks, on the device the deterministic
/// compaction (one record per thread).
DFM_HD void dfm_contact_records_copy(dfm_contact_records dst, int64_t j, dfm_contact_records src, int64_t i,
                                     int64_t n) {
#define COPY(type, name, width) \
    for (int64_t q = 0; q < (width)*n; ++q) dst.name[(width)*j + q] = src.name[(width)*i + q];
    DFM_CONTACT_RECORD_FIELDS(COPY)
#undef COPY
}

/// Kinds of contact candidate, the index of each in dfm_contact_candidates' arrays and their
/// order in the global candidate index space; a kind-k record has k + 1 corners (record kind
/// DFM_CONTACT_PARTICLE + k).
enum { DFM_CANDIDATE_PARTICLE = 0, DFM_CANDIDATE_EDGE = 1, DFM_CANDIDATE_FACE = 2, DFM_CANDIDATE_KINDS = 3 };

/// The contact candidates: world-compatible (feature, shape) pairs, one list per kind, each
/// sorted by shape unless DFM_DISABLE_SHAPE_SORT (plugin/contacts_build.c). The lists share one
/// global index space laid out particle, edge, face: global candidate g of kind k is pair
/// g - dfm_contact_candidates_first(k) of list k (records and the CUDA compaction use it). Host
/// arrays on the CPU (owned by dfm_contacts), device arrays on CUDA (owned by dfm_cuda_contacts);
/// the contact functions only read them.
typedef struct dfm_contact_candidates {
    int32_t count[DFM_CANDIDATE_KINDS];  ///< Pairs of each kind (particle, edge, face).
    int32_t* pairs[DFM_CANDIDATE_KINDS]; ///< Per kind, 2 per pair: feature index (into the view's
                                         ///< feat_particles, feat_edges or feat_faces), live shape index.
} dfm_contact_candidates;

/// Pairs of all kinds: the size of the global candidate index space.
DFM_HD int64_t dfm_contact_candidates_total(const dfm_contact_candidates* c) {
    return (int64_t)c->count[DFM_CANDIDATE_PARTICLE] + c->count[DFM_CANDIDATE_EDGE] + c->count[DFM_CANDIDATE_FACE];
}

/// Global candidate index of the first pair of `kind` (32-bit like the records' `candidate`: a
/// list holds at most INT32_MAX / 3 pairs, plugin/contacts_build.c).
DFM_HD int32_t dfm_contact_candidates_first(const dfm_contact_candidates* c, int kind) {
    int32_t g = 0;
    for (int k = 0; k < kind; ++k) g += c->count[k];
    return g;
}

/// Kind of global candidate g (0 <= g < dfm_contact_candidates_total).
DFM_HD int dfm_contact_candidates_kind(const dfm_contact_candidates* c, int64_t g) {
    if (g < c->count[DFM_CANDIDATE_PARTICLE]) return DFM_CANDIDATE_PARTICLE;
    if (g < (int64_t)c->count[DFM_CANDIDATE_PARTICLE] + c->count[DFM_CANDIDATE_EDGE]) return DFM_CANDIDATE_EDGE;
    return DFM_CANDIDATE_FACE;
}

/// Everything detection and the contact response read and write.
typedef struct dfm_contact_view {
    /* shapes */
    int32_t shape_count;
    const dfm_shape_rt* shapes;
    const float* particle_mass; ///< kg per particle (friction stick stiffness).
    /* features: particles (ids), edges (2 particle ids each), faces (3 particle ids each) */
    const int32_t* feat_particles;
    const int32_t* feat_edges;
    const int32_t* feat_faces;
    dfm_contact_candidates cand; ///< (feature, shape) pairs, one global index space.
    /* records */
    int32_t capacity;
    int32_t* count;           ///< [1]: records emitted this advance (may exceed capacity).
    dfm_contact_records rec;  ///< Room for `capacity` records.
    uint8_t* particle_slides; ///< Per particle: 1 = the body-level solve found its body sliding, so the
                              ///< Coulomb projection leaves its records alone; NULL = none.
    int32_t* cand_record;     ///< Optional, per global candidate index: slot its record went to (the
                              ///< CUDA deterministic compaction); NULL on the CPU.
    /* per-particle contact lists (gather path) */
    int32_t* head; ///< Per particle: first node (3 * record + corner) or -1.
    int32_t* next; ///< Per node: next node or -1.
    /* settings */
    float penalty_beta;  ///< AVBD ramp per iteration.
    float penalty_start; ///< Initial penalty when the ramp is on.
    uint32_t flags;      ///< DFM_DISABLE_* bits.
} dfm_contact_view;

#endif
