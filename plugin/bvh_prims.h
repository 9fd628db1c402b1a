/// @file bvh_prims.h
/// The broad-phase primitives of deformable bodies (issue 16): for each body its surface
/// triangles (cloth triangles, and a tet mesh's boundary faces), the vertices of that surface
/// (vertex-triangle queries) and its unique surface edges (edge-edge queries).
#ifndef DFM_PLUGIN_BVH_PRIMS_H
#define DFM_PLUGIN_BVH_PRIMS_H

#include <stddef.h>

#include "bvh_box.h"

/// One body's mesh for dfm_bvh_prims_build. Vertex indices are global (into the x array passed
/// with it); either element list may be empty.
typedef struct dfm_bvh_mesh {
    const int32_t* tris; ///< 3 per triangle (cloth), or NULL with tri_count 0.
    int32_t tri_count;
    const int32_t* tets; ///< 4 per tetrahedron, or NULL with tet_count 0.
    int32_t tet_count;
} dfm_bvh_mesh;

/// Primitive lists of all bodies, concatenated body after body (malloc'ed; dfm_bvh_prims_free).
typedef struct dfm_bvh_prim_sets {
    dfm_bvh_prim* points; ///< Surface vertices, one point primitive each (sorted per body).
    int32_t point_count;
    dfm_bvh_prim* triangles; ///< Surface triangles: cloth triangles, then tet boundary faces.
    int32_t triangle_count;
    dfm_bvh_prim* edges; ///< Unique surface edges (a < b) per body, sorted per body.
    int32_t edge_count;
} dfm_bvh_prim_sets;

/// Builds the primitive lists of `body_count` bodies over positions x (3 floats per vertex,
/// `vertex_count` vertices, world frame, m: they orient the tet boundary faces). Body i's
/// primitives carry body index i. Returns DFM_OK, DFM_ERROR_INDEX_OUT_OF_RANGE (a vertex
/// index; err names the body and element), DFM_ERROR_NULL_POINTER or DFM_ERROR_OUT_OF_HOST_MEMORY.
int dfm_bvh_prims_build(const dfm_bvh_mesh* bodies, int32_t body_count, const float* x, int32_t vertex_count,
                        dfm_bvh_prim_sets* out, char* err, size_t err_size);

/// Releases the lists (out zeroed).
void dfm_bvh_prims_free(dfm_bvh_prim_sets* out);

#endif
