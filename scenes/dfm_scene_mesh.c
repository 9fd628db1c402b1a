/// @file dfm_scene_mesh.c
/// See dfm_scene_mesh.h.
#include "dfm_scene_mesh.h"

#include <string.h>

void dfm_scene_box_mesh(float hx, float hy, float hz, float vertices[3 * DFM_SCENE_BOX_MESH_VERTICES],
                        int32_t triangles[3 * DFM_SCENE_BOX_MESH_TRIANGLES]) {
    for (int i = 0; i < DFM_SCENE_BOX_MESH_VERTICES; ++i) {
        vertices[3 * i + 0] = (i & 1) ? hx : -hx;
        vertices[3 * i + 1] = (i & 2) ? hy : -hy;
        vertices[3 * i + 2] = (i & 4) ? hz : -hz;
    }
    static const int32_t k_triangles[3 * DFM_SCENE_BOX_MESH_TRIANGLES] = {
        0, 2, 1, 1, 2, 3, /* -z */
        4, 5, 6, 5, 7, 6, /* +z */
        0, 1, 4, 1, 5, 4, /* -y */
        2, 6, 3, 3, 6, 7, /* +y */
        0, 4, 2, 2, 4, 6, /* -x */
        1, 3, 5, 3, 7, 5, /* +x */
    };
    memcpy(triangles, k_triangles, sizeof(k_triangles));
}

dfm_shape_def dfm_scene_mesh_def(const float* vertices, int32_t vertex_count, const int32_t* triangles,
                                 int32_t triangle_count) {
    dfm_shape_def d = dfm_shape_def_default();
    d.type = DFM_SHAPE_MESH;
    d.mesh_vertices = vertices;
    d.mesh_vertex_count = vertex_count;
    d.mesh_triangles = triangles;
    d.mesh_triangle_count = triangle_count;
    return d;
}
