/// @file dfm_scene_cubes.h
/// Soft cubes of a scene (issue 16): an axis-aligned tet-box cube given by its side, the centre of
/// its faces in x and y and the height of its bottom face, and a column of such cubes stacked a gap
/// apart (the `cubes` and `cubes3` scenes of tests/physics/test_physics_deform_contact.c, their
/// GPU twins, sample 11's stack). Positions in m, world frame, z up.
#ifndef DFM_SCENE_CUBES_H
#define DFM_SCENE_CUBES_H

#include "dfm_scene_tets.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Generates an n^3-vertex tet box spanning [cx - side / 2, cx + side / 2] x [cy - side / 2,
/// cy + side / 2] x [z0, z0 + side] (m) into `mesh` (free with dfm_scene_tets_free) and adds it as
/// a volume body with `def`'s other fields, the id into `out`. Returns DFM_OK or the failing call's
/// result (on failure `mesh` holds what was made: free it all the same).
dfm_result dfm_scene_add_cube(dfm_world* w, int32_t n, float side, float cx, float cy, float z0, dfm_volume_def def,
                              dfm_scene_tets* mesh, dfm_body_id* out);

/// Adds `count` cubes of side `side` (dfm_scene_add_cube, centred on x = y = 0) bottom first: cube
/// c's bottom face at z = z_base + c (side + gap), so that each rests `gap` above the one below
/// (the contact radius r: at rest; more: they drop). meshes[c] and ids[c] receive cube c (both
/// arrays of `count`). Returns DFM_OK or the first failing call's result (free every mesh all the
/// same: the ones not reached are zeroed).
dfm_result dfm_scene_add_cube_stack(dfm_world* w, int32_t count, int32_t n, float side, float z_base, float gap,
                                    dfm_volume_def def, dfm_scene_tets* meshes, dfm_body_id* ids);

/// The gap (m) between two bodies stacked in z: the lowest z of `x_above` (n_above vertices, 3
/// floats each) minus the highest z of `x_below` (n_below vertices). > 0 while their vertices do
/// not overlap in z: the cubes of a stack have not interpenetrated.
float dfm_scene_z_gap(const float* x_below, int32_t n_below, const float* x_above, int32_t n_above);

#ifdef __cplusplus
}
#endif

#endif
