/// @file world_internal.h
/// Private layout of a dfm world (struct dfm_world: its def, the body and shape pools, the model
/// and state, the contact pipeline, the CUDA backend handle, step scratch and the step guard's
/// rollback copy), the pool accessors and the host/device synchronisation of plugin/backend_sync.c.
/// The records it holds have their own headers: body.h, model.h, shape.h, contacts.h.
#ifndef DFM_WORLD_INTERNAL_H
#define DFM_WORLD_INTERNAL_H

#include <dfm/dfm.h>
#include <string.h>

#include "body.h"
#include "contacts.h"
#include "deform_contacts.h"
#include "host_bodies.h"
#include "id_pool.h"
#include "model.h"
#include "sdf_cache.h"
#include "shape.h"
#include "vbd_cuda_api.h"

/// The rollback copy of plugin/step_guard.c (grown on demand, kept between steps).
typedef struct dfm_step_guard {
    float* state; ///< x, v, kin_start of every particle (9 floats each).
    void* shapes; ///< Per shape slot: its step bookkeeping.
    size_t state_bytes, shapes_bytes;
} dfm_step_guard;

/// The world.
struct dfm_world {
    dfm_world_def def;     ///< Complete def (defaults filled in).
    uint16_t tag;          ///< Unique among live worlds; stamped into ids.
    dfm_id_pool body_pool; ///< Bodies by slot (ids: slot + 1, generation); live = body count.
    int dirty;             ///< Topology changed: the model must be rebuilt before use.
    dfm_model model;
    dfm_state state;
    dfm_id_pool shape_pool;  ///< Shapes by slot, like body_pool; live = shape count.
    dfm_sdf_cache sdf_cache; ///< Baked mesh grids shared by shapes of equal meshes.
    dfm_contacts contacts;
    dfm_deform_contacts deform;  ///< Deformable-deformable contact (issue 16; CPU and CUDA).
    dfm_host_bodies host_bodies; ///< Host bodies with dynamics (implicit two-way coupling).
    dfm_cuda_backend* cuda;      ///< Non-NULL when the world runs on the CUDA backend.
    int32_t* step_emitted;       ///< Step scratch: records emitted per substep (step_emitted_cap).
    double* step_impulses;       ///< Step scratch: 6 per shape (step_impulses_cap shapes).
    int32_t step_emitted_cap, step_impulses_cap;
    int64_t model_generation;    ///< Bumped by every model rebuild.
    int64_t uploaded_generation; ///< Model generation last uploaded to the device (-1 = none).
    int64_t uploaded_contacts;   ///< Contacts generation last uploaded to the device (-1 = none).
    int device_newer;            ///< The device holds newer positions/velocities than the host.
    int host_dirty;              ///< The host changed per-particle state since the last upload.
    int64_t step_count;
    double sim_time;
    dfm_step_guard guard;         ///< Rollback copy for steps that go non-finite (CPU-side steps).
    int64_t nonfinite_steps;      ///< Steps refused and rolled back for a non-finite state.
    float residual_force_max;     ///< Convergence of the last step: largest local force residual, N (-1: not measured).
    double residual_force_sum;    ///< The same summed over all particles, N (-1: not measured).
    float* residual_norms;        ///< CPU step scratch: 1 per particle (residual_norms_cap).
    int32_t* body_record_offsets; ///< CPU step scratch of the body-level solve: body_count + 1.
    void* body_records;           ///< ... and one dfm_body_record per contact record (body_records_cap).
    int32_t body_record_offsets_cap, body_records_cap;
    uint8_t* particle_slides; ///< ... and one flag per particle (particle_slides_cap).
    int32_t particle_slides_cap;
    int32_t residual_norms_cap;
    float* element_coef; ///< CPU step scratch: per-element coefficients (vbd_coef.h), element_coef_cap floats.
    int64_t element_coef_cap;
    void*
        simd_layout; ///< CPU step scratch: the lane layout of the per-color solve (vbd_simd.h), simd_layout_cap bytes.
    size_t simd_layout_cap;
    struct dfm_cpu_coarse*
        coarse; ///< The coarse level of DFM_FEATURE_COARSE_CORRECTION (coarse_cpu.h; both backends); NULL until used.
    int64_t coarse_cuda_corrections; ///< Coarse corrections run on the CUDA backend (host-assisted, coarse_cuda.h),
                                     ///< over the world's life (each corrects every body with a coarse space).
    int coarse_friction_logged;      ///< 1 once dfm_step_coarse_report has warned of a frictionless coarse step.
    char last_error[512];
    struct dfm_world_solver* solver; ///< Current provider and its ops (never NULL after creation; solver_internal.h).
};

/// The body in `slot` of the world's body pool (NULL when the slot is free).
static inline dfm_body* dfm_world_body_at(const dfm_world* w, int32_t slot) {
    return (dfm_body*)w->body_pool.items[slot];
}

/// The shape in `slot` of the world's shape pool (NULL when the slot is free).
static inline dfm_shape* dfm_world_shape_at(const dfm_world* w, int32_t slot) {
    return (dfm_shape*)w->shape_pool.items[slot];
}

/// memcpy of `count` floats that accepts NULL pointers when count is 0 (an empty world's arrays;
/// memcpy(NULL, NULL, 0) is undefined behaviour).
static inline void dfm_copy_floats(float* dst, const float* src, size_t count) {
    if (count > 0) memcpy(dst, src, count * sizeof(float));
}

/// CUDA worlds: copies positions and velocities back when the device has newer ones.
dfm_result dfm_world_sync_host(dfm_world* world);

/// CUDA worlds: before stepping, uploads the model (after a rebuild) or the state (after host
/// changes). No-op on the CPU backend.
dfm_result dfm_world_sync_device(dfm_world* world);

#endif
