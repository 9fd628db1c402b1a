/// @file shape_probe.h
/// Test-only window into dfm's internals: evaluates the signed distance dfm uses for contacts
/// (shape SDF minus the shape's margin) of one registered shape, at a point in its host body frame.
#ifndef DFM_TEST_SHAPE_PROBE_H
#define DFM_TEST_SHAPE_PROBE_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes dfm's contact distance (m, negative inside) of `shape` at `p_body` (m, host body frame)
/// to *out_distance. Returns 0, or -1 for an unknown/stale id.
int dfm_probe_shape_distance(dfm_world* world, dfm_shape_id shape, const float p_body[3], float* out_distance);

/// Writes the shape's dfm margin (m) to *out_margin. Returns 0, or -1 for an unknown/stale id.
int dfm_probe_shape_margin(dfm_world* world, dfm_shape_id shape, float* out_margin);

#ifdef __cplusplus
}
#endif

#endif
