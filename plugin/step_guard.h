/// @file step_guard.h
/// The non-finite guard around dfm_world_step. CPU-side steps (vbd/cpu, xpbd, third-party
/// providers): the particle state and the shapes' step bookkeeping are saved before the step;
/// a step that leaves any position or velocity non-finite, or a position beyond DFM_MAX_COORD,
/// is rolled back to them and refused with DFM_ERROR_NON_FINITE or DFM_ERROR_OUT_OF_BOUNDS,
/// counted in dfm_world_stats.nonfinite_steps and logged. The CUDA
/// backend saves and checks on the device (vbd_cuda.cu: a D2D copy and nonfinite_kernel) and
/// reports through dfm_step_guard_refuse.
#ifndef DFM_STEP_GUARD_H
#define DFM_STEP_GUARD_H

#include "world_internal.h"

/// Why a step was refused (dfm_step_guard_refuse).
enum { DFM_GUARD_NON_FINITE = 0, DFM_GUARD_OUT_OF_BOUNDS = 1 };

/// Saves what the step may change (x, v, kin_start; each shape's previous pose and AABB, last
/// pose and reaction). DFM_ERROR_OUT_OF_HOST_MEMORY when the copy cannot be allocated.
dfm_result dfm_step_guard_save(dfm_world* w);

/// After a step that returned `r`: when r is DFM_OK but a particle's position or velocity is not
/// finite (or, failing that, a position is beyond DFM_MAX_COORD), restores the saved state, drops
/// the step's contact records and fails with DFM_ERROR_NON_FINITE (DFM_ERROR_OUT_OF_BOUNDS)
/// naming the first such particle; otherwise returns r.
dfm_result dfm_step_guard_check(dfm_world* w, dfm_result r);

/// Books a refused step whose state was already restored (by the CPU guard or the CUDA backend):
/// drops its contact records, counts and logs it, and fails with DFM_ERROR_NON_FINITE
/// (kind DFM_GUARD_NON_FINITE) or DFM_ERROR_OUT_OF_BOUNDS (DFM_GUARD_OUT_OF_BOUNDS) naming
/// particle `bad` (the world's particle index).
dfm_result dfm_step_guard_refuse(dfm_world* w, int32_t bad, int kind);

#endif
