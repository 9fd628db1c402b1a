/// @file dfm_mesh.h
/// Mesh generators for common bodies. Outputs go into caller buffers sized with the *_counts calls.
/// On failure each returns its error code and dfm_world_last_error(NULL) says why (this thread).
#ifndef DFM_MESH_H
#define DFM_MESH_H

#include "dfm_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Vertex and triangle counts of a cloth grid of nu x nv vertices (nu, nv >= 2):
/// nu*nv vertices, 2*(nu-1)*(nv-1) triangles.
DFM_API dfm_result dfm_cloth_grid_counts(int32_t nu, int32_t nv, int32_t* out_vertex_count,
                                         int32_t* out_triangle_count);

/// Generates a rectangular cloth grid of nu x nv vertices: vertex (i, j) is at
/// origin + i/(nu-1) * axis_u + j/(nv-1) * axis_v (m, world frame), index i + j*nu.
/// Triangles are wound counter-clockwise about axis_u x axis_v, diagonals alternating.
/// `out_positions` holds 3*nu*nv floats, `out_triangles` 6*(nu-1)*(nv-1) ints.
DFM_API dfm_result dfm_cloth_grid_generate(int32_t nu, int32_t nv, const float origin[3], const float axis_u[3],
                                           const float axis_v[3], float* out_positions, int32_t* out_triangles);

/// Vertex and tet counts of a box of nx x ny x nz vertices (each >= 2), 5 tets per cell:
/// nx*ny*nz vertices, 5*(nx-1)*(ny-1)*(nz-1) tets.
DFM_API dfm_result dfm_tet_box_counts(int32_t nx, int32_t ny, int32_t nz, int32_t* out_vertex_count,
                                      int32_t* out_tet_count);

/// Generates an axis-aligned box of tets between `lo` and `hi` (m, world frame), nx x ny x nz
/// vertices (index i + nx*(j + ny*k)), each cell split into 5 positively oriented tets with
/// alternating parity so faces of neighbouring cells match.
DFM_API dfm_result dfm_tet_box_generate(int32_t nx, int32_t ny, int32_t nz, const float lo[3], const float hi[3],
                                        float* out_positions, int32_t* out_tets);

#ifdef __cplusplus
}
#endif

#endif
