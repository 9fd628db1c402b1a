/// @file step.h
/// Stepping orchestration: substeps of one dfm_world_step on the world's backend.
#ifndef DFM_STEP_H
#define DFM_STEP_H

#include "host_view.h" /* the step runs over the views of the host arrays */
#include "world_internal.h"

/// Runs `substeps` VBD advances of dt/substeps on the CPU backend, with contacts against the
/// registered shapes. The model must be current. Kinematic vertices end at their targets, which
/// then become their start for the next step. Fails (changing nothing) only when the contact
/// buffers cannot be allocated.
dfm_result dfm_step_cpu(dfm_world* world, float dt);

/// Shape runtime records (contact_view.h) of the live shapes for the advance covering step
/// fractions [a0, a1] (host poses interpolated between the previous and current state).
void dfm_step_fill_shapes(dfm_world* world, float a0, float a1, dfm_shape_rt* out);

/// End of a step with contacts, either backend: stores the shapes' average reactions (impulses: 6
/// per shape, N s and N m s, or NULL), counts dropped records from each advance's emitted count,
/// the contact statistics (residual_max: the largest local force residual after the step, N), logs drops, and makes the current shape states the previous ones.
void dfm_step_finish_contacts(dfm_world* world, float dt, const double* impulses, const int32_t* emitted,
                              int32_t advances, const double particle_impulse[3], const int32_t kinds[3],
                              float max_penetration, float residual_max);

/// The world's step scratch, grown as needed and zeroed: `substeps` emitted counts and 6 impulse
/// sums per shape (kept between steps, so a steady step allocates nothing). Returns
/// DFM_ERROR_OUT_OF_HOST_MEMORY (logged) when growing fails.
dfm_result dfm_step_scratch(dfm_world* world, int32_t substeps, int32_t shapes, int32_t** emitted, double** impulses);

/// The coarse level of the two-level solve (DFM_FEATURE_COARSE_CORRECTION, kernels/cpu/coarse_cpu.h)
/// in world->coarse, built for this model and its vertex modes from the host positions of `view`
/// (kept while they do not change; either backend). Returns DFM_ERROR_OUT_OF_HOST_MEMORY (logged)
/// when it cannot be built.
dfm_result dfm_step_coarse_level(dfm_world* world, const dfm_vbd_view* view, struct dfm_cpu_coarse** out);

/// After a step with the coarse feature: logs (once per world, as a warning) that a body's coarse steps
/// were left without friction because it touched more than DFM_PATCH_MAX shapes with friction
/// (coarse_friction.h); the level keeps the count (dfm_cpu_coarse.friction_skipped). No-op otherwise.
void dfm_step_coarse_report(dfm_world* world);

/// Runs one step on the CUDA backend (model, state and contact candidates uploaded when they
/// changed; one graph launch), then reads the contact results back.
dfm_result dfm_step_cuda(dfm_world* world, float dt);

/// CUDA: builds the deformable-contact state when it is on and stale (dfm_deform_contacts_ensure)
/// and sizes its device buffers for it (dfm_cuda_backend_upload_deform; nothing when current).
/// After dfm_world_sync_device (a model upload frees them).
dfm_result dfm_step_cuda_sync_deform(dfm_world* world);

#endif
