/// @file contacts.h
/// Private layout of the contact pipeline's storage (live-shape table, candidate lists, record
/// buffers, statistics), and its building and lifetime (plugin/contacts_build.c).
#ifndef DFM_PLUGIN_CONTACTS_H
#define DFM_PLUGIN_CONTACTS_H

#include <dfm/dfm.h>
#include <stddef.h>
#include <stdint.h>

#include "contact_view.h"
#include "rigid_broad_cpu.h"

/// Contact pipeline storage (host arrays for the CPU backend), rebuilt when topology or the set
/// of shapes changes; anchors restart then.
typedef struct dfm_contacts {
    int dirty;                   ///< Shapes or bodies changed: candidates must be rebuilt.
    int32_t shape_count;         ///< Live shapes, in slot order.
    int32_t* shape_slot;         ///< Slot of each live shape index.
    dfm_shape_rt* rt;            ///< Per live shape: runtime data for the advance.
    dfm_contact_candidates cand; ///< Candidate lists (owned).
    int32_t capacity;
    int32_t count;
    dfm_contact_records rec; ///< Room for `capacity` records.
    int32_t *head, *next;
    float *acc_f, *acc_H; ///< Scatter path accumulators (3 and 9 per particle).
    float* guess_normal;  ///< Initial-guess contact normal per particle (3 each).
    float* guess_gap;     ///< Initial-guess distance to contact per particle.
    float* record_force;  ///< Reaction scratch, 3 per record.
    float* node_part;     ///< Reaction scratch, 9 per record (3 per corner node).
    float* residual;      ///< Reaction scratch, 3 per particle.
    float* body_extra;    ///< Reaction scratch, 3 per body.
    float* node_friction; ///< 9 per record (3 per corner node): friction force of the last advance's projection, N.
    float* node_body_friction;    ///< CPU scratch, 9 per record: the patch decision's share per node, N
                                  ///< (kernels/shared/contact_patch_friction.h).
    dfm_xform* detect_pose;       ///< CPU detection's shared values (dfm_detect_cache): a start pose per shape,
    float* detect_speed;          ///< |v| per particle,
    float* detect_corner;         ///< 4 per particle (shape-local position, SDF value),
    int32_t* detect_corner_shape; ///< per particle.
    dfm_contact_records scratch;  ///< Parallel CPU detection: room for a record per candidate (allocated on
                                  ///< first use with more than one thread).
    int64_t detect_work;          ///< CPU: work units of the last detection (0: none since the rebuild), which
                                  ///< decides the next one's fork (DFM_CPU_DETECT_WORK_MIN).
    int64_t detect_forks;         ///< CPU: detections run forked since the world was created (kept by rebuilds).
    int64_t generation;           ///< Bumped by every rebuild (the CUDA backend re-uploads then).
    dfm_cpu_rigid_broad broad;    ///< CPU: the BVH selection of the candidates (issue 16; plugin/step.c decides).
    int64_t broad_logged;         ///< Generation * 2 + on of the last logged broad-phase choice.
    int64_t broad_counted;        ///< Generation broad_cullable and broad_features were counted for.
    int64_t broad_cullable;       ///< Candidates on non-plane shapes (the ones the BVH can cull).
    int64_t broad_features;       ///< Features of the non-empty candidate lists.
    int64_t dropped_last_step, dropped_total;
    int32_t last_kind_counts[3];
    float max_penetration;
    float residual_max; ///< Largest local force residual of a dynamic particle after the last step, N.
    double particle_impulse[3];
    float particle_force[3];
} dfm_contacts;

/// Rebuilds features, candidate lists and record buffers if bodies or shapes changed.
/// The model must be current.
dfm_result dfm_contacts_ensure(dfm_world* world);

/// Frees the contact pipeline arrays.
void dfm_contacts_free(dfm_contacts* c);

/// Allocates every record array of `r` (DFM_CONTACT_RECORD_FIELDS), zeroed, for n records; returns
/// 0 (nothing left allocated) when memory is short.
int dfm_contact_records_alloc(dfm_contact_records* r, size_t n);

/// Frees the record arrays of `r` and sets them to NULL.
void dfm_contact_records_free(dfm_contact_records* r);

/// Frees the pair arrays of `c` and zeroes it.
void dfm_contact_candidates_free(dfm_contact_candidates* c);

#endif
