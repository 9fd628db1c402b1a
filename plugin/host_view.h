/// @file host_view.h
/// The views (kernels/shared/vbd_view.h, contact_view.h) of a world's host arrays: what the CPU
/// backend's loops read and write, and what the CUDA backend uploads from (plugin/host_view.c).
#ifndef DFM_PLUGIN_HOST_VIEW_H
#define DFM_PLUGIN_HOST_VIEW_H

#include "world_internal.h"

/// A view of the world's host arrays (model and state) with substep `h` and the world's gravity.
dfm_vbd_view dfm_world_host_view(dfm_world* world, float h);

/// The contact view of the world's host arrays (shape runtime data is filled per advance by
/// dfm_step_fill_shapes into the contacts' rt array it points at).
dfm_contact_view dfm_world_contact_view(dfm_world* world);

#endif
