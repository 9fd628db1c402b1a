/// @file dfm_scene_layers.h
/// Layer-order checks of cloth scenes (issue 16): the signed distance of a point to a sheet of
/// triangles, used by the cloth-fold benchmark workload and sample 12 to tell whether one layer of
/// cloth passed through another. Positions in m, world frame.
#ifndef DFM_SCENE_LAYERS_H
#define DFM_SCENE_LAYERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Distance from p to triangle abc's closest point, signed by the side of abc's normal
/// ((b - a) x (c - a)): positive on that side (Ericson, Real-Time Collision Detection 5.1.5), in
/// double.
double dfm_scene_signed_distance_triangle(const double p[3], const double a[3], const double b[3], const double c[3]);

/// Signed distance of p to the sheet given by `tri_count` triangles (indices into `x`, 3 floats
/// per vertex): that of the triangle whose closest point is nearest (the first one on a tie).
double dfm_scene_signed_distance_sheet(const double p[3], const float* x, const int32_t* tris, int32_t tri_count);

/// The smallest dfm_scene_signed_distance_sheet (m) over `point_count` points of `points` (3 floats
/// per vertex) to the sheet of `tri_count` triangles `tris` (indices into `x`): of the points
/// points[idx[k]] when `idx` is given, else of points 0 .. point_count - 1. The check that one layer
/// of cloth (or a cube's face) stays on its side of another: >= 0 while no point has crossed the
/// sheet (the sheet's normals pointing towards the points). 1e30 when there is no point.
double dfm_scene_min_signed_distance(const float* points, const int32_t* idx, int32_t point_count, const float* x,
                                     const int32_t* tris, int32_t tri_count);

/// Signed distance of p to the sheet's closest point into *out, signed by the normal there: the
/// triangle's for a point over a face, else the sum of the unit normals of the triangles around
/// the edge or vertex that holds the closest point (a pseudo-normal). Returns 1 when that point is
/// inside the sheet (a face, or an edge or vertex with triangles all around), 0 when it lies on the
/// sheet's boundary, where the side is undefined (a point beside the sheet, not over it).
int dfm_scene_layer_distance(const double p[3], const float* x, const int32_t* tris, int32_t tri_count, double* out);

#ifdef __cplusplus
}
#endif

#endif
