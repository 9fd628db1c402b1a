/// @file step.h
/// Stepping orchestration: substeps of one dfm_world_step on the world's backend.
#ifndef DFM_STEP_H
#define DFM_STEP_H

#include "world_internal.h"

/// A view of the world's host arrays (model and state) with substep `h` and the world's gravity.
dfm_vbd_view dfm_world_host_view(dfm_world* world, float h);

/// Runs `substeps` VBD advances of dt/substeps on the CPU backend, with contacts against the
/// registered shapes. The model must be current. Kinematic vertices end at their targets, which
/// then become their start for the next step. Fails (changing nothing) only when the contact
/// buffers cannot be allocated.
dfm_result dfm_step_cpu(dfm_world* world, float dt);

#endif
