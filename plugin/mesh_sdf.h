/// @file mesh_sdf.h
/// Baking a closed triangle mesh (a host's triangle-mesh or convex-hull shape) into the
/// signed-distance grid that sdf_grid.h samples (layout of dfm_sdf_grid_view in shape_geom.h:
/// node (i, j, k) at origin + (i, j, k) * cell, i fastest, negative inside). All lengths in
/// metres, in the shape-local frame the vertices are given in.
///
/// What the values are:
/// - Nodes within `band` of the surface hold the exact distance to the triangle set (each
///   triangle visits only the nodes of its AABB grown by the band, and in each row of those only
///   the span inside its band slab and bounding ball, so the cost is about triangles x band^3
///   cells, not nodes x triangles).
/// - Nodes farther away hold +band or -band (clamped). Trilinear samples stay exact to the
///   interpolation error wherever all eight corners of the sampled cell are within the band,
///   i.e. for |distance| <= band - sqrt(3) cell; farther out the sample under-estimates the
///   magnitude and its gradient flattens to zero. Contacts live well inside the band (the band
///   is at least 3 cells and at least the margin), so this is fine for contact purposes; do not
///   use the grid as a far-field distance.
/// - Sign: nonzero winding number, counted exactly along grid lines. For every line of nodes
///   parallel to x, each triangle whose projection on the (y, z) plane covers the line adds +1 or
///   -1 (the sign of its normal's x component) to the nodes before its crossing. Points exactly
///   on a projected edge or vertex (common: axis-aligned meshes put vertices on grid lines) are
///   decided by a symbolic perturbation of the line, with edge functions evaluated antisymmetrically,
///   so each crossing of a closed surface is counted exactly once. Inside = winding != 0, so
///   meshes wound inside out work, cavities (inner shells wound inward) stay outside, and
///   overlapping closed shells act as their union (but see the note on dfm_mesh_sdf_bake).
///   No flood fill or pseudo-normal is needed; the sign does not depend on the distance pass.
/// - The result is deterministic: a fixed triangle order, strict minimum updates, no threads.
#ifndef DFM_MESH_SDF_H
#define DFM_MESH_SDF_H

#include <stddef.h>
#include <stdint.h>
#include <dfm/dfm_types.h> /* DFM_MAX_COORD */

/// Largest distance from the shape-frame origin (m) that a baked grid may reach (its nodes and its
/// band): the world's coordinate limit (DFM_MAX_COORD, dfm_types.h).
#define DFM_MESH_SDF_MAX_COORD ((double)DFM_MAX_COORD)

/// Result codes of dfm_mesh_sdf_bake.
enum {
    DFM_MESH_SDF_OK = 0,              ///< Baked.
    DFM_MESH_SDF_OUT_OF_MEMORY = -1,  ///< An allocation failed (nothing leaked, *out zeroed).
    DFM_MESH_SDF_NOT_CLOSED = -2,     ///< An edge is open, non-manifold or used twice in one direction.
    DFM_MESH_SDF_DEGENERATE = -3,     ///< Bad arguments, index, coordinate, zero-area triangle or no volume.
    DFM_MESH_SDF_TOO_MANY_NODES = -4, ///< The grid for the requested cell exceeds max_nodes.
    DFM_MESH_SDF_OUT_OF_RANGE = -5    ///< The grid would reach beyond DFM_MESH_SDF_MAX_COORD (huge mesh or cell).
};

/// A baked grid, owned by the caller (free with dfm_mesh_sdf_free). Its fields map one to one
/// onto dfm_sdf_grid_view (origin, cell, dims, values).
typedef struct dfm_mesh_sdf {
    float origin[3];          ///< Position of node (0, 0, 0), shape-local, m.
    float cell;               ///< Node spacing, m.
    int32_t dims[3];          ///< Nodes per axis (>= 2 each; product <= max_nodes and < 2^31).
    float* values;            ///< dims[0]*dims[1]*dims[2] signed distances, i fastest, m (malloc'ed).
    float band;               ///< Exact within this distance of the surface, +-band beyond it, m.
    float max_error_estimate; ///< Max |trilinear sample - exact signed distance| over the probes, m.
} dfm_mesh_sdf;

/// Bakes the signed-distance grid of a closed, consistently oriented triangle mesh.
///
/// vertices: 3 floats per vertex (shape-local, m); only referenced vertices matter and must be
/// finite. triangles: 3 vertex indices each; a closed mesh has every edge shared by exactly two
/// triangles that traverse it in opposite directions (checked; either winding of the whole mesh
/// is accepted). cell: node spacing in m; <= 0 picks (largest AABB extent) / 48, coarsened until
/// the grid fits max_nodes. margin: how far the grid extends beyond the mesh AABB, m; raised to
/// 2 cells when smaller. The grid is centred on the AABB. band = max(3 cells, margin).
/// max_nodes: the most grid nodes allowed (<= 0: no limit other than 2^31 - 1).
///
/// max_error_estimate is measured after baking, as the max |trilinear sample (dfm_sdf_grid_sample)
/// - exact signed distance| over two fixed probe sets: the centre of every cell whose eight
/// corners and centre lie within the band (exact value from the same closest-point and winding
/// code), and the surface itself (exact value 0): every vertex and points at most half a cell
/// apart along every edge, where sharp features put the largest errors. It is the figure to
/// report to users ("grid 48x48x48, max error X m"). Expect about 0.5 cell on meshes with
/// 90-degree corners (the worst case over alignments at such a corner is 0.506 cell, 0.32 cell
/// at such an edge; never more than sqrt(3)/2 cell since distance is 1-Lipschitz), about
/// 3/8 cell x (angle between adjacent normals, rad) on finely tessellated smooth shapes. It is an
/// estimate: points between probes can be slightly worse.
///
/// Note: the distance is to the whole triangle set, so shells that overlap (a union modelled as
/// two intersecting closed boxes) keep their buried faces as zero level sets inside the solid;
/// the sign is right, the depth under such faces is not. Model unions as one surface.
///
/// Returns DFM_MESH_SDF_OK (0) or a negative DFM_MESH_SDF_* code; on failure *out is zeroed and,
/// when err != NULL and err_size > 0, err holds a sentence naming the first offending edge,
/// triangle or vertex (lowest triangle index first).
int dfm_mesh_sdf_bake(const float* vertices, int32_t vertex_count, const int32_t* triangles, int32_t triangle_count,
                      float cell, float margin, int64_t max_nodes, dfm_mesh_sdf* out, char* err, size_t err_size);

/// Frees the values of a baked grid and zeroes it (NULL or an already freed grid is fine).
void dfm_mesh_sdf_free(dfm_mesh_sdf* sdf);

#endif
