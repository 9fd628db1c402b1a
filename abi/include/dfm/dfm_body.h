/// @file dfm_body.h
/// Deformable bodies: creation from meshes, removal, per-vertex state and modes.
///
/// Bulk accessors take (first, count, pointer, stride_bytes): `count` vertices starting at the
/// body-local vertex `first`, 3 floats each, `stride_bytes` apart (0 = packed). Same ownership,
/// threading and error rules as dfm_world.h.
#ifndef DFM_BODY_H
#define DFM_BODY_H

#include "dfm_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds a cloth body. Topology (bending edges, adjacency, masses, rest shapes) is derived once
/// here; the coloring of the world is recomputed before the next step.
/// Errors name the offending item, e.g. "triangle 17 has zero area".
DFM_API dfm_result dfm_world_add_cloth(dfm_world* world, const dfm_cloth_def* def, dfm_body_id* out_body);

/// Adds a volumetric body from a tet mesh (tets must have positive signed volume).
DFM_API dfm_result dfm_world_add_volume(dfm_world* world, const dfm_volume_def* def, dfm_body_id* out_body);

/// Removes a body; its id (and copies of it) become stale. World-wide particle offsets of the
/// bodies after it shift down.
DFM_API dfm_result dfm_world_remove_body(dfm_world* world, dfm_body_id body);

/// Fills `out` (whose struct_size the caller sets) with facts about the body.
DFM_API dfm_result dfm_body_get_info(dfm_world* world, dfm_body_id body, dfm_body_info* out);

/// Copies vertex positions (m, world frame) of the body into `out`.
DFM_API dfm_result dfm_body_get_positions(dfm_world* world, dfm_body_id body, int32_t first, int32_t count, float* out,
                                          int32_t stride_bytes);

/// Teleports vertices to `positions` (m, world frame). Velocities are unchanged; pinned and
/// kinematic vertices move too (and hold their new place).
DFM_API dfm_result dfm_body_set_positions(dfm_world* world, dfm_body_id body, int32_t first, int32_t count,
                                          const float* positions, int32_t stride_bytes);

/// Copies vertex velocities (m/s, world frame) into `out`.
DFM_API dfm_result dfm_body_get_velocities(dfm_world* world, dfm_body_id body, int32_t first, int32_t count, float* out,
                                           int32_t stride_bytes);

/// Sets vertex velocities (m/s). Pinned vertices ignore them (they stay at zero velocity).
DFM_API dfm_result dfm_body_set_velocities(dfm_world* world, dfm_body_id body, int32_t first, int32_t count,
                                           const float* velocities, int32_t stride_bytes);

/// Sets the mode of the listed body-local vertices. PINNED holds a vertex where it is now;
/// KINEMATIC holds it until targets are set; DYNAMIC returns it to simulation.
DFM_API dfm_result dfm_body_set_vertex_mode(dfm_world* world, dfm_body_id body, const int32_t* vertices, int32_t count,
                                            dfm_vertex_mode mode);

/// Sets targets (m, world frame; 3 floats each, `stride_bytes` apart) for the listed vertices
/// and makes them kinematic. During the next dfm_world_step they move linearly from where they
/// are to the target (so their velocity is the target displacement / dt), and stay there after.
DFM_API dfm_result dfm_body_set_kinematic_targets(dfm_world* world, dfm_body_id body, const int32_t* vertices,
                                                  int32_t count, const float* targets, int32_t stride_bytes);

#ifdef __cplusplus
}
#endif

#endif
