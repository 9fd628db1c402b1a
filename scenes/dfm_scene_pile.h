/// @file dfm_scene_pile.h
/// A pile of rigid shapes under a cloth (issue 16, the rigid broad phase): `count` boxes and
/// spheres scattered over a square, for scenes whose all-pairs candidate list is features x shapes.
/// Positions in m in the world frame.
#ifndef DFM_SCENE_PILE_H
#define DFM_SCENE_PILE_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Adds `count` shapes of environment `environment` (-1: shared) to `w`: boxes (even k) and
/// spheres (odd k) of 1.5 to 4 cm half size / radius, axis-aligned, centres scattered uniformly
/// over the square |x|, |y| <= half_extent at heights 0 to 0.15 m, from a fixed linear
/// congruential sequence seeded by `seed` (the same pile on every machine). Ids go to out[k]
/// (out may be NULL). Returns DFM_OK or the failing call's result.
dfm_result dfm_scene_pile_add(dfm_world* w, int32_t count, int32_t environment, float half_extent, uint32_t seed,
                              dfm_shape_id* out);

#ifdef __cplusplus
}
#endif

#endif
