/// @file topology.h
/// Topology derived once from a body's mesh: bending edges with their opposite vertices and
/// per-vertex adjacency (CSR) of incident triangles, edges and tetrahedra.
#ifndef DFM_TOPOLOGY_H
#define DFM_TOPOLOGY_H

#include <stdint.h>

/// Per-vertex incident elements in CSR form. Items are pairs (element id, local corner), so
/// vertex v owns items [2*offsets[v], 2*offsets[v+1]). Edge corners: 0,1 = opposite vertices
/// (bending only), 2,3 = edge endpoints.
typedef struct dfm_adjacency {
    int32_t vertex_count;
    int32_t* tri_offsets;  ///< vertex_count + 1.
    int32_t* tri_items;    ///< 2 per incidence.
    int32_t* edge_offsets; ///< vertex_count + 1.
    int32_t* edge_items;   ///< 2 per incidence.
    int32_t* tet_offsets;  ///< vertex_count + 1.
    int32_t* tet_items;    ///< 2 per incidence.
} dfm_adjacency;

/// Interior edges of a triangle mesh as rows (o0, o1, v0, v1): v0-v1 is the edge shared by
/// exactly two triangles whose third vertices are o0 (triangle with lower index) and o1.
/// Boundary edges carry no bending and are not listed. Edges shared by three or more triangles
/// (non-manifold), or by two triangles with the same third vertex (duplicates), are skipped and
/// counted in *out_nonmanifold. Deterministic order: by (v0, v1).
/// Returns 0, or -1 when out of memory (outputs untouched). *out_edges is malloc'ed (may be
/// NULL when the count is 0).
int dfm_topology_bending_edges(const int32_t* tris, int32_t tri_count, int32_t** out_edges, int32_t* out_count,
                               int32_t* out_nonmanifold);

/// Unique undirected edges (a < b) of a triangle mesh, sorted by (a, b). *out_edges holds 2 ints
/// per edge (malloc'ed). Returns 0 or -1 on OOM.
int dfm_topology_unique_edges(const int32_t* tris, int32_t tri_count, int32_t** out_edges, int32_t* out_count);

/// Boundary faces of a tet mesh (faces that belong to exactly one tet), oriented so that their
/// normal (b - a) x (c - a) points away from the tet, given positions (3 floats per vertex).
/// *out_faces holds 3 ints per face (malloc'ed), in tet order. Returns 0 or -1 on OOM.
int dfm_topology_tet_boundary(const int32_t* tets, int32_t tet_count, const float* positions, int32_t** out_faces,
                              int32_t* out_count);

/// Sorted unique vertices referenced by `count` elements of `corners` vertices each.
/// *out_vertices is malloc'ed. Returns 0 or -1 on OOM.
int dfm_topology_unique_vertices(const int32_t* elems, int32_t count, int corners, int32_t vertex_count,
                                 int32_t** out_vertices, int32_t* out_count);

/// Builds per-vertex adjacency over triangles (3 corners), edges (4 corners, -1 skipped) and
/// tets (4 corners). Any element array may be NULL with count 0. Returns 0 or -1 on OOM.
int dfm_adjacency_build(dfm_adjacency* adj, int32_t vertex_count, const int32_t* tris, int32_t tri_count,
                        const int32_t* edges, int32_t edge_count, const int32_t* tets, int32_t tet_count);

/// Frees the arrays of an adjacency (and zeroes it).
void dfm_adjacency_free(dfm_adjacency* adj);

#endif
