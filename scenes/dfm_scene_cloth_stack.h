/// @file dfm_scene_cloth_stack.h
/// Two cloths stacked on a table (issue 16): the `stack` and `stack_load` scenes of
/// tests/physics/test_physics_deform_contact.c and its GPU parity twin. A 0.3 m cloth (11 x 11
/// vertices) 4.6 cm above the table top drops onto a 0.4 m cloth (13 x 13) lying 6 mm above it;
/// both are centred on x = y = 0 and their normals point up. Positions in m, world frame, z up.
#ifndef DFM_SCENE_CLOTH_STACK_H
#define DFM_SCENE_CLOTH_STACK_H

#include "dfm_scene_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The stacked-cloth scene in a world: the meshes (owned: free with dfm_scene_cloth_stack_free)
/// and the ids.
typedef struct dfm_scene_cloth_stack {
    dfm_scene_grid lower;  ///< The 0.4 m, 13 x 13 cloth at z = 0.006 m.
    dfm_scene_grid upper;  ///< The 0.3 m, 11 x 11 cloth at z = 0.046 m.
    dfm_body_id lower_id;  ///< The lower cloth's body.
    dfm_body_id upper_id;  ///< The upper cloth's body.
    dfm_shape_id table_id; ///< The table (dfm_scene_table_def, top face z = 0).
} dfm_scene_cloth_stack;

/// Adds the table, then the lower cloth, then the upper one, both with `def`'s other fields, to
/// `w` into `out`. Returns DFM_OK or the failing call's result (the world's last error says why);
/// on failure `out` holds what was made so far (free it all the same).
dfm_result dfm_scene_cloth_stack_add(dfm_world* w, dfm_cloth_def def, dfm_scene_cloth_stack* out);

/// Frees the scene's meshes (safe on a zeroed scene; the bodies stay in their world).
void dfm_scene_cloth_stack_free(dfm_scene_cloth_stack* s);

/// The layer-order check: the smallest signed distance (m) of an upper-cloth vertex (positions
/// `x_upper`) to the lower cloth's sheet (positions `x_lower`), dfm_scene_min_signed_distance. >= 0
/// while no vertex has passed through; the sheets rest about one contact radius apart.
double dfm_scene_cloth_stack_min_distance(const dfm_scene_cloth_stack* s, const float* x_lower, const float* x_upper);

/// Steps `w` `steps` times by `dt` (s) and takes the layer check
/// (dfm_scene_cloth_stack_min_distance) after each step: its smallest value (m) into *min_out
/// (1e30 for no step) and the first step (from 0) that saw it into *step_out (-1 for none).
/// x_lower and x_upper (3 floats per vertex of each cloth, the caller's) hold the last step's
/// positions. Returns DFM_OK, or the first failing call's result, where it stops.
dfm_result dfm_scene_cloth_stack_run(dfm_world* w, const dfm_scene_cloth_stack* s, int32_t steps, float dt,
                                     float* x_lower, float* x_upper, double* min_out, int32_t* step_out);

#ifdef __cplusplus
}
#endif

#endif
