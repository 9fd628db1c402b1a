/// @file dfm_scene_pads.h
/// A pad pair for pinches: two copies of one pad def on host bodies h and h + 1, facing each other
/// across a centre along one world axis (pad 0 on the negative side). Distances in m.
#ifndef DFM_SCENE_PADS_H
#define DFM_SCENE_PADS_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Half gap (centre to a pad's centre, m) at which each pad's inner face is `squeeze` past the
/// contact surface of a sheet at the centre: pad half thickness + contact radius - squeeze.
float dfm_scene_pinch_half_gap(float pad_half_thickness, float contact_radius, float squeeze);

/// The pair's states: pad 0 at `centre` - half_gap, pad 1 at `centre` + half_gap along `axis`
/// (0 = x, 1 = y, 2 = z), identity rotation.
void dfm_scene_pad_pair_states(const float centre[3], int axis, float half_gap, dfm_shape_state out[2]);

/// Adds the pair (pad 0 on host body `first_host_body`, pad 1 on the next) at `half_gap` from
/// `centre` along `axis`; ids into `out`. Returns DFM_OK or the failing call's result.
dfm_result dfm_scene_add_pad_pair(dfm_world* w, const dfm_shape_def* pad, uint64_t first_host_body,
                                  const float centre[3], int axis, float half_gap, dfm_shape_id out[2]);

/// Moves the pair to `half_gap` from `centre` along `axis` for the next step.
dfm_result dfm_scene_move_pad_pair(dfm_world* w, const dfm_shape_id ids[2], const float centre[3], int axis,
                                   float half_gap);

#ifdef __cplusplus
}
#endif

#endif
