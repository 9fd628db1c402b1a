/// @file dfm_scene_mesh.h
/// Mesh shapes of a scene: a closed 12-triangle box mesh and the shape def of a closed triangle
/// mesh (dfm bakes it into an SDF grid). Vertices in m in the shape frame.
#ifndef DFM_SCENE_MESH_H
#define DFM_SCENE_MESH_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Vertices of dfm_scene_box_mesh.
#define DFM_SCENE_BOX_MESH_VERTICES 8
/// Triangles of dfm_scene_box_mesh.
#define DFM_SCENE_BOX_MESH_TRIANGLES 12

/// A closed box mesh of half extents (hx, hy, hz) (m) centred on the shape frame's origin:
/// vertex i is (±hx, ±hy, ±hz) with + where bit 0, 1, 2 of i is set; 12 triangles wound
/// counter-clockwise seen from outside, two per face in the order -z, +z, -y, +y, -x, +x.
void dfm_scene_box_mesh(float hx, float hy, float hz, float vertices[3 * DFM_SCENE_BOX_MESH_VERTICES],
                        int32_t triangles[3 * DFM_SCENE_BOX_MESH_TRIANGLES]);

/// The default shape def as a closed triangle mesh: `vertices` (3 floats each, shape frame, m) and
/// `triangles` (3 indices each, outward winding), borrowed until the def is added; the material and
/// the SDF cell size (automatic) stay default.
dfm_shape_def dfm_scene_mesh_def(const float* vertices, int32_t vertex_count, const int32_t* triangles,
                                 int32_t triangle_count);

#ifdef __cplusplus
}
#endif

#endif
