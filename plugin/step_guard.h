/// @file step_guard.h
/// The non-finite guard around a CPU-side dfm_world_step (vbd/cpu, xpbd, third-party
/// providers): the particle state and the shapes' step bookkeeping are saved before the step;
/// a step that leaves any position or velocity non-finite is rolled back to them and refused
/// with DFM_ERROR_NON_FINITE, counted in dfm_world_stats.nonfinite_steps and logged. The CUDA
/// backend is not guarded yet (its state stays on the device between steps; issue 14).
#ifndef DFM_STEP_GUARD_H
#define DFM_STEP_GUARD_H

#include "world_internal.h"

/// Saves what the step may change (x, v, kin_start; each shape's previous pose and AABB, last
/// pose and reaction). DFM_ERROR_OUT_OF_HOST_MEMORY when the copy cannot be allocated.
dfm_result dfm_step_guard_save(dfm_world* w);

/// After a step that returned `r`: when r is DFM_OK but a particle's position or velocity is not
/// finite, restores the saved state, drops the step's contact records and fails with
/// DFM_ERROR_NON_FINITE naming the first such particle; otherwise returns r.
dfm_result dfm_step_guard_check(dfm_world* w, dfm_result r);

#endif
