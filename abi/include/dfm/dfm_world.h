/// @file dfm_world.h
/// World lifetime, stepping and world-wide queries.
///
/// Ownership: a world owns everything it creates; inputs are copied during the call; output
/// buffers belong to the caller. Threading: a world is externally synchronized (one thread at a
/// time per world); different worlds may be used from different threads concurrently.
/// Errors: every call returns a dfm_result and, on error, sets the world's last-error message
/// (dfm_world_last_error) and forwards it to the log callback. A failed call leaves the world as
/// it was before the call.
#ifndef DFM_WORLD_H
#define DFM_WORLD_H

#include "dfm_base.h"
#include "dfm_id.h"
#include "dfm_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Opaque simulation world.
typedef struct dfm_world dfm_world;

/// Creates a world. `abi_version` must be DFM_ABI_VERSION as the caller compiled it; a different
/// major is refused with DFM_ERROR_ABI_MISMATCH. `def` may be NULL for all defaults.
/// On failure *out_world is set to NULL and dfm_world_last_error(NULL) tells why.
/// Thread safety: any thread.
DFM_API dfm_result dfm_world_create(uint32_t abi_version, const dfm_world_def* def, dfm_world** out_world);

/// Number of usable CUDA devices (0 in builds without CUDA or without a driver/device). A host
/// running one world per device (e.g. one MPI rank per GPU) uses it to pick `device_index`.
/// Thread safety: any thread.
DFM_API int32_t dfm_device_count(void);

/// Destroys a world and everything in it. NULL is a no-op. Ids issued by it become invalid.
DFM_API void dfm_world_destroy(dfm_world* world);

/// Last error message of `world` (empty string if none). With world == NULL: the last error of a
/// failed dfm_world_create on the calling thread. The string stays valid until the next call on
/// that world (or the next create on that thread).
DFM_API const char* dfm_world_last_error(const dfm_world* world);

/// Advances the world by `dt` seconds (> 0, finite) in `substeps` VBD advances.
/// Kinematic vertices reach their targets at the end of the step.
DFM_API dfm_result dfm_world_step(dfm_world* world, float dt);

/// Builds now what the next dfm_world_step would otherwise build lazily after bodies or shapes
/// were added or removed: the solver model, the contact candidates and record buffers (their
/// capacity), and on the CUDA backend the device copies and all device allocations. A host that
/// must not allocate inside a step calls it after changing topology (and after
/// dfm_world_set_solver_counts). Does nothing when nothing changed. On failure (e.g.
/// DFM_ERROR_OUT_OF_DEVICE_MEMORY) the world stays usable and the next step retries. ABI 1.2.
DFM_API dfm_result dfm_world_prepare(dfm_world* world);

/// Sets gravity (m/s^2, world frame).
DFM_API dfm_result dfm_world_set_gravity(dfm_world* world, const float gravity[3]);

/// Sets the substeps per dfm_world_step and VBD iterations per substep (both >= 1). On CUDA a
/// larger substep count sizes the per-advance contact buffers in this call (on failure, e.g.
/// DFM_ERROR_OUT_OF_DEVICE_MEMORY, the counts stay as they were).
DFM_API dfm_result dfm_world_set_solver_counts(dfm_world* world, int32_t substeps, int32_t iterations);

/// Fills `out` (whose struct_size the caller sets) with world-wide counters.
DFM_API dfm_result dfm_world_get_stats(dfm_world* world, dfm_world_stats* out);

/// Turns per-phase kernel timing on or off (CUDA backend only; DFM_ERROR_UNSUPPORTED on the
/// CPU). While on, every step runs eagerly (no graph replay) with CUDA events around each launch
/// group, so it is slower: use it for a few instrumented steps, not for timing wall clock.
DFM_API dfm_result dfm_world_set_profiling(dfm_world* world, int32_t enabled);

/// Fills `out` (struct_size set by the caller) with the phase times of the last step (valid = 0
/// when that step was not profiled).
DFM_API dfm_result dfm_world_get_phase_times(dfm_world* world, dfm_phase_times* out);

/// Color of every particle in world-wide particle order (count must equal the particle count).
/// Colors are 0..color_count-1; particles of one color share no element.
DFM_API dfm_result dfm_world_get_particle_colors(dfm_world* world, int32_t* out_colors, int32_t count);

/// Copies `count` world-wide particle positions starting at particle `first` into `out`
/// (3 floats per particle, `stride_bytes` apart; 0 = packed). Units m, world frame.
DFM_API dfm_result dfm_world_get_positions(dfm_world* world, int32_t first, int32_t count, float* out,
                                           int32_t stride_bytes);

/// Copies world-wide particle velocities (m/s) like dfm_world_get_positions.
DFM_API dfm_result dfm_world_get_velocities(dfm_world* world, int32_t first, int32_t count, float* out,
                                            int32_t stride_bytes);

#ifdef __cplusplus
}
#endif

#endif
