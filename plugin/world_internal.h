/// @file world_internal.h
/// Private layout of a dfm world: body records, the world-wide model (structure of arrays,
/// rebuilt when topology changes) and the per-particle state.
#ifndef DFM_WORLD_INTERNAL_H
#define DFM_WORLD_INTERNAL_H

#include <dfm/dfm.h>
#include <string.h>

#include "coloring.h"
#include "id_pool.h"
#include "sdf_cache.h"
#include "contact_view.h"
#include "topology.h"
#include "vbd_cuda_api.h"

/// Body kinds (match dfm_body_info.kind).
enum { DFM_BODY_CLOTH = 1, DFM_BODY_VOLUME = 2 };

/// One deformable body as the host described it, with topology and rest data derived once.
/// Indices are body-local.
typedef struct dfm_body {
    int32_t kind;              ///< DFM_BODY_CLOTH or DFM_BODY_VOLUME.
    int32_t environment;       ///< -1 shared, else environment index.
    int32_t vertex_count;
    float* mass;               ///< kg per vertex (lumped).
    float* initial_positions;  ///< m; consumed by the first rebuild that places the body, then freed.
    uint8_t* initial_mode;     ///< Vertex modes set before the body is placed (NULL = all dynamic); freed with initial_positions.
    float contact_radius;      ///< m.
    float* drag;               ///< Linear air drag per vertex in kg/s (NULL = none).
    int32_t triangle_count;
    int32_t* triangles;        ///< 3 per triangle.
    float* tri_dinv;           ///< 4 per triangle (rest D^-1, row-major 2x2).
    float* tri_area;           ///< m^2 per triangle.
    float tri_material[3];     ///< mu, lambda (N/m), damping.
    int32_t edge_count;        ///< Bending edges (interior edges only).
    int32_t* edges;            ///< 4 per edge: o0, o1, v0, v1.
    float* edge_rest_angle;    ///< rad.
    float* edge_rest_length;   ///< m.
    float edge_material[2];    ///< bend stiffness, bend damping (per m of edge).
    int32_t tet_count;
    int32_t* tets;             ///< 4 per tet.
    float* tet_dminv;          ///< 9 per tet (rest Dm^-1, row-major).
    float* tet_volume;         ///< m^3 per tet.
    float tet_material[3];     ///< mu, lambda (Pa), damping (Pa*s).
    dfm_coloring coloring;     ///< Body-local particle coloring (computed once at creation).
    int32_t surf_particle_count;
    int32_t* surf_particles;   ///< Vertices that can touch shapes (cloth: all; volume: surface).
    int32_t surf_edge_count;
    int32_t* surf_edges;       ///< 2 per unique surface edge.
    int32_t surf_face_count;
    int32_t* surf_faces;       ///< 3 per surface triangle (cloth triangles; volume boundary faces, outward).
    int32_t first_particle;    ///< Offset in the world-wide arrays, -1 until placed.
} dfm_body;

/// World-wide model: concatenation of all bodies, in slot order. Rebuilt on topology change.
typedef struct dfm_model {
    int32_t particle_count;
    float* mass;               ///< kg.
    float* radius;             ///< m, contact radius.
    float* drag;               ///< kg/s, linear air drag.
    int32_t* environment;      ///< Per particle.
    int32_t feat_particle_count, feat_edge_count, feat_face_count;
    int32_t* feat_particles;   ///< Contact features in world particle indices (see dfm_body.surf_*).
    int32_t* feat_edges;
    int32_t* feat_faces;
    int32_t tri_count;
    int32_t* tris;             ///< Global indices, 3 each.
    float* tri_dinv;
    float* tri_area;
    float* tri_material;       ///< 3 each.
    int32_t edge_count;
    int32_t* edges;            ///< Global indices, 4 each.
    float* edge_rest_angle;
    float* edge_rest_length;
    float* edge_material;      ///< 2 each.
    float* edge_start_angle;   ///< Scratch per edge: hinge angle at the advance start (CPU backend).
    int32_t tet_count;
    int32_t* tets;             ///< Global indices, 4 each.
    float* tet_dminv;
    float* tet_volume;
    float* tet_material;       ///< 3 each.
    dfm_adjacency adjacency;   ///< Per-particle incident elements.
    int32_t color_count;
    int32_t* color_offsets;    ///< color_count + 1 entries.
    int32_t* color_particles;  ///< Particles grouped by color.
    int32_t* particle_color;   ///< Color per particle.
    int32_t body_count;        ///< Placed bodies.
    int32_t* body_offsets;     ///< body_count + 1: particles of body b are [body_offsets[b], body_offsets[b + 1]).
    int32_t* particle_body;    ///< Body index (into body_offsets) of each particle.
} dfm_model;

/// World-wide per-particle state (survives rebuilds by copying).
typedef struct dfm_state {
    float* x;                  ///< Positions, 3 per particle (m).
    float* v;                  ///< Velocities (m/s).

    float* x_prev;             ///< Positions at the start of the advance.
    float* d;                  ///< Displacement of the iterate from x_prev within an advance.
    float* y;                  ///< Inertia displacement targets.
    uint8_t* mode;             ///< dfm_vertex_mode per particle.
    float* kin_start;          ///< Kinematic: position at step start.
    float* kin_target;         ///< Kinematic: position at step end.
} dfm_state;

/// A rigid shape registered by the host.
typedef struct dfm_shape {
    int32_t type;              ///< dfm_shape_type.
    int32_t environment;
    uint64_t host_body;
    dfm_shape_geom geom;       ///< geom.grid.values points into sdf->sdf.values for meshes.
    struct dfm_sdf_entry* sdf; ///< Mesh shapes: the (shared) baked grid, one reference held.
    float sdf_max_error;       ///< m, measured at bake time.
    dfm_xform local;           ///< Shape frame in the body frame.
    float margin, gap, ke, kd, mu;
    int has_state;             ///< 0 until the host first sets a state.
    dfm_xform body_prev;       ///< Body pose at the start of the next step.
    dfm_xform body_cur;        ///< Body pose at the end of the next step (last state set).
    dfm_xform body_last;       ///< Body pose at the end of the last step (points of dfm_world_get_contacts).
    float aabb_prev[6];        ///< World AABB at the previous state (min xyz, max xyz).
    float aabb_cur[6];         ///< World AABB at the current state.
    double impulse[6];         ///< Reaction impulse (N s) and angular impulse (N m s) accumulated in a step.
    float reaction[6];         ///< Average reaction force and torque of the last step.
} dfm_shape;

/// Contact pipeline storage (host arrays for the CPU backend), rebuilt when topology or the set
/// of shapes changes; anchors restart then.
typedef struct dfm_contacts {
    int dirty;                 ///< Shapes or bodies changed: candidates must be rebuilt.
    int32_t shape_count;       ///< Live shapes, in slot order.
    int32_t* shape_slot;       ///< Slot of each live shape index.
    dfm_shape_rt* rt;          ///< Per live shape: runtime data for the advance.
    int32_t cand_particle_count, cand_edge_count, cand_face_count;
    int32_t *cand_particle, *cand_edge, *cand_face;
    int32_t capacity;
    int32_t count;
    int32_t *corners, *shape, *candidate;
    float *bary, *normal, *body_point, *radius, *pen0, *penalty;
    int32_t *head, *next;
    float *acc_f, *acc_H;      ///< Scatter path accumulators (3 and 9 per particle).
    float* guess_normal;       ///< Initial-guess contact normal per particle (3 each).
    float* guess_gap;          ///< Initial-guess distance to contact per particle.
    float* record_force;       ///< Reaction scratch, 3 per record.
    float* node_part;          ///< Reaction scratch, 9 per record (3 per corner node).
    float* residual;           ///< Reaction scratch, 3 per particle.
    float* body_extra;         ///< Reaction scratch, 3 per body.
    float* node_friction;      ///< 9 per record (3 per corner node): friction force of the last advance's projection, N.
    dfm_contact_view scratch;  ///< Parallel CPU detection: record arrays for every candidate (only the
                               ///< record fields; allocated on first use with more than one thread).
    int64_t generation;        ///< Bumped by every rebuild (the CUDA backend re-uploads then).
    int64_t dropped_last_step, dropped_total;
    int32_t last_kind_counts[3];
    float max_penetration;
    float residual_max;        ///< Largest local force residual of a dynamic particle after the last step, N.
    double particle_impulse[3];
    float particle_force[3];
} dfm_contacts;

/// The world.
/// The rollback copy of plugin/step_guard.c (grown on demand, kept between steps).
typedef struct dfm_step_guard {
    float* state;              ///< x, v, kin_start of every particle (9 floats each).
    void* shapes;              ///< Per shape slot: its step bookkeeping.
    size_t state_bytes, shapes_bytes;
} dfm_step_guard;

struct dfm_world {
    dfm_world_def def;         ///< Complete def (defaults filled in).
    uint16_t tag;              ///< Unique among live worlds; stamped into ids.
    dfm_id_pool body_pool;     ///< Bodies by slot (ids: slot + 1, generation); live = body count.
    int dirty;                 ///< Topology changed: the model must be rebuilt before use.
    dfm_model model;
    dfm_state state;
    dfm_id_pool shape_pool;    ///< Shapes by slot, like body_pool; live = shape count.
    dfm_sdf_cache sdf_cache;   ///< Baked mesh grids shared by shapes of equal meshes.
    dfm_contacts contacts;
    dfm_cuda_backend* cuda;    ///< Non-NULL when the world runs on the CUDA backend.
    int32_t* step_emitted;     ///< Step scratch: records emitted per substep (step_emitted_cap).
    double* step_impulses;     ///< Step scratch: 6 per shape (step_impulses_cap shapes).
    int32_t step_emitted_cap, step_impulses_cap;
    int64_t model_generation;  ///< Bumped by every model rebuild.
    int64_t uploaded_generation; ///< Model generation last uploaded to the device (-1 = none).
    int64_t uploaded_contacts; ///< Contacts generation last uploaded to the device (-1 = none).
    int device_newer;          ///< The device holds newer positions/velocities than the host.
    int host_dirty;            ///< The host changed per-particle state since the last upload.
    int64_t step_count;
    double sim_time;
    dfm_step_guard guard;      ///< Rollback copy for steps that go non-finite (CPU-side steps).
    int64_t nonfinite_steps;   ///< Steps refused and rolled back for a non-finite state.
    float residual_force_max;  ///< Convergence of the last step: largest local force residual, N (-1: not measured).
    double residual_force_sum; ///< The same summed over all particles, N (-1: not measured).
    float* residual_norms;     ///< CPU step scratch: 1 per particle (residual_norms_cap).
    int32_t residual_norms_cap;
    char last_error[512];
    struct dfm_world_solver* solver; ///< Provider other than the default vbd (NULL = vbd; plugin/solver_internal.h).
};

/// The body in `slot` of the world's body pool (NULL when the slot is free).
static inline dfm_body* dfm_world_body_at(const dfm_world* w, int32_t slot) { return (dfm_body*)w->body_pool.items[slot]; }

/// The shape in `slot` of the world's shape pool (NULL when the slot is free).
static inline dfm_shape* dfm_world_shape_at(const dfm_world* w, int32_t slot) {
    return (dfm_shape*)w->shape_pool.items[slot];
}

/// Sets the last error, logs it and returns `code`. printf-style message.
dfm_result dfm_fail(dfm_world* world, dfm_result code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Forwards a message to the log callback when `level` is enabled.
void dfm_log(const dfm_world* world, dfm_log_level level, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// memcpy of `count` floats that accepts NULL pointers when count is 0 (an empty world's arrays;
/// memcpy(NULL, NULL, 0) is undefined behaviour).
static inline void dfm_copy_floats(float* dst, const float* src, size_t count) {
    if (count > 0) memcpy(dst, src, count * sizeof(float));
}

/// Clears the last error (called at the start of every public call); NULL clears the calling
/// thread's create error (dfm_world_last_error(NULL)).
void dfm_clear_error(dfm_world* world);

/// Resolves an id to a live body, or fails with STALE_ID / FOREIGN_ID / NULL id messages.
dfm_result dfm_resolve_body(dfm_world* world, dfm_body_id id, dfm_body** out);

/// Rebuilds the model and state arrays if topology changed. Keeps the old ones on failure.
dfm_result dfm_world_ensure_model(dfm_world* world);

/// CUDA worlds: copies positions and velocities back when the device has newer ones.
dfm_result dfm_world_sync_host(dfm_world* world);

/// CUDA worlds: before stepping, uploads the model (after a rebuild) or the state (after host
/// changes). No-op on the CPU backend.
dfm_result dfm_world_sync_device(dfm_world* world);

/// Frees a body record.
void dfm_body_free(dfm_body* body);

/// Frees model arrays.
void dfm_model_free(dfm_model* model);

/// Frees state arrays.
void dfm_state_free(dfm_state* state);

/// Rebuilds features, candidate lists and record buffers if bodies or shapes changed.
/// The model must be current.
dfm_result dfm_contacts_ensure(dfm_world* world);

/// Frees the contact pipeline arrays.
void dfm_contacts_free(dfm_contacts* c);

/// Allocates the nine record arrays of `v` (corners, bary, shape, candidate, normal, body_point,
/// radius, pen0, penalty) for n records; returns 0 (nothing left allocated) when memory is short.
int dfm_contact_records_alloc(dfm_contact_view* v, size_t n);

/// Frees the record arrays of `v` and sets them to NULL.
void dfm_contact_records_free(dfm_contact_view* v);

/// Frees a shape record.
void dfm_shape_free(dfm_shape* shape);

#endif
