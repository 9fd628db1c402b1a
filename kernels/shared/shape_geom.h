/// @file shape_geom.h
/// Geometry of one rigid shape in its own local frame, as the SDF evaluators read it.
/// Conventions (shape-local frame, metres):
/// - sphere: radius params[0], centred at the origin;
/// - box: half extents params[0..2];
/// - capsule: radius params[0], segment from z = -params[1] to z = +params[1];
/// - cylinder: radius params[0], half height params[1] along z;
/// - cone: base radius params[0] at z = -params[1], apex at z = +params[1];
/// - plane: the plane z = 0 with outward normal +z; half extents params[0], params[1] in x, y
///   (both 0 = infinite);
/// - mesh: a baked signed-distance grid (sdf_grid.h) in the shape-local frame.
#ifndef DFM_SHAPE_GEOM_H
#define DFM_SHAPE_GEOM_H

#include <stdint.h>

/// Shape types (values match dfm_shape_type in the ABI).
enum {
    DFM_GEOM_SPHERE = 1,
    DFM_GEOM_BOX = 2,
    DFM_GEOM_CAPSULE = 3,
    DFM_GEOM_CYLINDER = 4,
    DFM_GEOM_CONE = 5,
    DFM_GEOM_PLANE = 6,
    DFM_GEOM_MESH = 7
};

/// A signed-distance grid: values at the nodes origin + (i, j, k) * cell, i fastest.
/// Negative inside. Outside the grid the distance is extended (see sdf_grid.h).
typedef struct dfm_sdf_grid_view {
    float origin[3];     ///< Position of node (0, 0, 0), shape-local, m.
    float cell;          ///< Node spacing, m.
    int32_t dims[3];     ///< Nodes per axis (>= 2 each).
    const float* values; ///< dims[0]*dims[1]*dims[2] distances, m.
} dfm_sdf_grid_view;

/// Geometry of one shape (plain data; the same struct on host and device).
typedef struct dfm_shape_geom {
    int32_t type;           ///< DFM_GEOM_*.
    float params[4];        ///< Per-type dimensions (see file comment), m.
    dfm_sdf_grid_view grid; ///< Mesh shapes only.
} dfm_shape_geom;

#endif
