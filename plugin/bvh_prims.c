/// @file bvh_prims.c
/// Broad-phase primitive lists of deformable bodies: surface triangles, their vertices and edges
/// (plugin/topology.c finds the tet boundary faces and unique edges).
#include "bvh_prims.h"

#include <dfm/dfm_base.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

void dfm_bvh_prims_free(dfm_bvh_prim_sets* out) {
    if (!out) return;
    free(out->points);
    free(out->triangles);
    free(out->edges);
    memset(out, 0, sizeof(*out));
}

static int check_indices(const int32_t* v, int32_t count, int corners, const char* what, int32_t body,
                         int32_t vertex_count, char* err, size_t n) {
    if (count > 0 && !v) {
        snprintf(err, n, "bvh mesh of body %d: %s is NULL with count %d", (int)body, what, (int)count);
        return DFM_ERROR_NULL_POINTER;
    }
    for (int64_t i = 0; i < (int64_t)count * corners; ++i)
        if (v[i] < 0 || v[i] >= vertex_count) {
            snprintf(err, n, "bvh mesh of body %d: %s[%lld] corner %d is vertex %d; must be 0..%d", (int)body, what,
                     (long long)(i / corners), (int)(i % corners), (int)v[i], (int)vertex_count - 1);
            return DFM_ERROR_INDEX_OUT_OF_RANGE;
        }
    return DFM_OK;
}

/// Appends `count` primitives of `corners` corners from idx to *list (grown with realloc).
static int append(dfm_bvh_prim** list, int32_t* len, const int32_t* idx, int32_t count, int corners, int32_t body) {
    dfm_bvh_prim* p = (dfm_bvh_prim*)realloc(*list, sizeof(dfm_bvh_prim) * ((size_t)*len + (size_t)count + 1u));
    if (!p) return -1;
    *list = p;
    for (int32_t i = 0; i < count; ++i) {
        dfm_bvh_prim* q = p + *len + i;
        for (int c = 0; c < 3; ++c) q->v[c] = c < corners ? idx[(int64_t)i * corners + c] : -1;
        q->body = body;
    }
    *len += count;
    return 0;
}

int dfm_bvh_prims_build(const dfm_bvh_mesh* bodies, int32_t body_count, const float* x, int32_t vertex_count,
                        dfm_bvh_prim_sets* out, char* err, size_t n) {
    memset(out, 0, sizeof(*out));
    if (!bodies || !x) {
        snprintf(err, n, "bvh meshes: bodies or x is NULL");
        return DFM_ERROR_NULL_POINTER;
    }
    for (int32_t b = 0; b < body_count; ++b) {
        int r = check_indices(bodies[b].tris, bodies[b].tri_count, 3, "tris", b, vertex_count, err, n);
        if (r == DFM_OK) r = check_indices(bodies[b].tets, bodies[b].tet_count, 4, "tets", b, vertex_count, err, n);
        if (r != DFM_OK) return r;
    }
    for (int32_t b = 0; b < body_count; ++b) {
        int32_t first = out->triangle_count, faces_n = 0, verts_n = 0, edges_n = 0;
        int32_t *faces = NULL, *verts = NULL, *edges = NULL;
        int fail = append(&out->triangles, &out->triangle_count, bodies[b].tris, bodies[b].tri_count, 3, b);
        if (!fail && bodies[b].tet_count > 0)
            fail = dfm_topology_tet_boundary(bodies[b].tets, bodies[b].tet_count, x, &faces, &faces_n) != 0 ||
                   append(&out->triangles, &out->triangle_count, faces, faces_n, 3, b) != 0;
        /* this body's surface triangles as a flat index list, for its vertices and edges */
        int32_t surf = out->triangle_count - first;
        int32_t* flat = fail ? NULL : (int32_t*)malloc(sizeof(int32_t) * 3u * (size_t)surf + 1u);
        fail = fail || !flat;
        for (int32_t i = 0; !fail && i < surf; ++i)
            for (int c = 0; c < 3; ++c) flat[3 * i + c] = out->triangles[first + i].v[c];
        if (!fail) fail = dfm_topology_unique_vertices(flat, surf, 3, vertex_count, &verts, &verts_n) != 0;
        if (!fail) fail = append(&out->points, &out->point_count, verts, verts_n, 1, b) != 0;
        if (!fail) fail = dfm_topology_unique_edges(flat, surf, &edges, &edges_n) != 0;
        if (!fail) fail = append(&out->edges, &out->edge_count, edges, edges_n, 2, b) != 0;
        free(flat);
        free(faces);
        free(verts);
        free(edges);
        if (fail) {
            dfm_bvh_prims_free(out);
            snprintf(err, n, "bvh meshes: out of host memory at body %d", (int)b);
            return DFM_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    return DFM_OK;
}
