/// @file dfm_scene_shape.h
/// Shapes of a scene: a pose as a shape state, box, sphere and plane defs, adding a shape at a pose
/// and moving it.
/// Positions in m in the world frame; rotations are unit quaternions (x, y, z, w).
#ifndef DFM_SCENE_SHAPE_H
#define DFM_SCENE_SHAPE_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A state at position (px, py, pz) with rotation q (NULL = identity), zero velocity and an
/// inverted AABB (dfm computes it).
dfm_shape_state dfm_scene_state(float px, float py, float pz, const float q[4]);

/// The default shape def as a box of half extents (hx, hy, hz), m; the material stays default.
dfm_shape_def dfm_scene_box_def(float hx, float hy, float hz);

/// Height (m, world frame) at which the table of dfm_scene_table_def is placed: its top face is then
/// the plane z = 0.
#define DFM_SCENE_TABLE_Z (-0.05f)

/// The table of the deformable-contact scenes (issue 16: the stacked and folded cloths, the soft
/// stack of sample 11): a 0.6 x 0.6 x 0.1 m box (half extents 0.3, 0.3, 0.05 m), default material.
/// Placed at z = DFM_SCENE_TABLE_Z its top face is z = 0.
dfm_shape_def dfm_scene_table_def(void);

/// The default shape def as a sphere of radius `radius`, m; the material stays default.
dfm_shape_def dfm_scene_sphere_def(float radius);

/// The default shape def as an infinite plane: z = 0 of its shape frame, normal +z (placed at a
/// pose, it is the plane z = pz with identity rotation); the material stays default.
dfm_shape_def dfm_scene_plane_def(void);

/// Adds `def` and places its body at (px, py, pz) with rotation q (NULL = identity); the id into
/// `out`. Returns DFM_OK or the failing call's result (the world's last error says why).
dfm_result dfm_scene_add_shape(dfm_world* w, const dfm_shape_def* def, float px, float py, float pz, const float q[4],
                               dfm_shape_id* out);

/// Moves a shape's body to (px, py, pz) with rotation q (NULL = identity) for the next step.
dfm_result dfm_scene_move_shape(dfm_world* w, dfm_shape_id id, float px, float py, float pz, const float q[4]);

#ifdef __cplusplus
}
#endif

#endif
