/// @file dfm_scene_gripper_table.h
/// The pure-ABI gripper-over-table scene of samples 03 (gripper lift) and 05 (solver swap): a table
/// slab (top at z = 0, edge at x = DFM_SCENE_GRIPPER_TABLE_EDGE), optionally its narrower base, two box pads
/// waiting open at the pinch height, and a 0.3 m cloth lying on the slab with 15 cm hanging over
/// its edge. World frame, metres, z up.
#ifndef DFM_SCENE_GRIPPER_TABLE_H
#define DFM_SCENE_GRIPPER_TABLE_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// x of the slab's edge, m.
#define DFM_SCENE_GRIPPER_TABLE_EDGE 0.2f
/// z of the pads' centres while they pinch, m.
#define DFM_SCENE_GRIPPER_PINCH_Z (-0.08f)
/// Side of the square cloth lying on the table, m.
#define DFM_SCENE_GRIPPER_CLOTH_SIZE 0.3f

/// What dfm_scene_gripper_table_build created. Shapes are, in order: slab, [base], pad 0, pad 1.
typedef struct dfm_scene_gripper_table {
    dfm_shape_id ids[4];
    dfm_shape_state states[4]; ///< Current states (pads open); move the pads and set them again.
    int32_t shape_count;       ///< 3, or 4 with the base.
    int32_t first_pad;         ///< Index of pad 0 in ids/states.
    dfm_shape_def pad;         ///< The pads' def (half extents for drawing).
    float pad_open[2];         ///< Pad centres' x while open, m.
    dfm_body_id cloth;
    int32_t vertex_count, triangle_count;
    float* positions;        ///< Initial cloth positions (3 per vertex; owned, freed by dfm_scene_gripper_table_free).
    int32_t* triangles;      ///< Cloth triangles (owned).
    dfm_cloth_def cloth_def; ///< The def the cloth was added with (contact radius etc.).
} dfm_scene_gripper_table;

/// Adds the scene to `world`: res x res cloth vertices, pad friction `pad_mu`, slab (and base)
/// friction `slab_mu` (sample 03: 0.3; sample 05: 0.8, see its header), with or without the
/// slab's base. Returns DFM_OK or the failing call's result (the world's last error says why).
dfm_result dfm_scene_gripper_table_build(dfm_world* world, int32_t res, float pad_mu, float slab_mu, int with_base,
                                         dfm_scene_gripper_table* out);

/// Where the cloth's hanging strip is: the mean x (m) of its vertices within 2 cm of the pinch
/// height beyond the slab's edge, read into `x` (3 floats per vertex, t->vertex_count); the
/// slab's edge plus the contact radius when none is there. The pads close on it from both sides.
float dfm_scene_gripper_table_strip_x(dfm_world* world, const dfm_scene_gripper_table* t, float* x);

/// Frees what dfm_scene_gripper_table_build allocated (not the world's objects).
void dfm_scene_gripper_table_free(dfm_scene_gripper_table* t);

#ifdef __cplusplus
}
#endif

#endif
