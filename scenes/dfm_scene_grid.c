/// @file dfm_scene_grid.c
/// See dfm_scene_grid.h.
#include "dfm_scene_grid.h"

#include <stdlib.h>
#include <string.h>

dfm_result dfm_scene_grid_make(int32_t nu, int32_t nv, const float origin[3], const float u[3], const float v[3],
                               dfm_scene_grid* out) {
    memset(out, 0, sizeof(*out));
    out->nu = nu;
    out->nv = nv;
    dfm_result r = dfm_cloth_grid_counts(nu, nv, &out->vertex_count, &out->triangle_count);
    if (r != DFM_OK) return r;
    out->positions = (float*)malloc(sizeof(float) * 3 * (size_t)out->vertex_count);
    out->triangles = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)out->triangle_count);
    if (!out->positions || !out->triangles) {
        dfm_scene_grid_free(out);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    return dfm_cloth_grid_generate(nu, nv, origin, u, v, out->positions, out->triangles);
}

void dfm_scene_grid_free(dfm_scene_grid* g) {
    free(g->positions);
    free(g->triangles);
    g->positions = NULL;
    g->triangles = NULL;
}

dfm_cloth_def dfm_scene_grid_cloth_def(const dfm_scene_grid* g, dfm_cloth_def def) {
    def.positions = g->positions;
    def.vertex_count = g->vertex_count;
    def.triangles = g->triangles;
    def.triangle_count = g->triangle_count;
    return def;
}

dfm_result dfm_scene_add_cloth(dfm_world* w, const dfm_scene_grid* g, dfm_cloth_def def, dfm_body_id* out) {
    *out = (dfm_body_id)DFM_NULL_BODY_ID;
    def = dfm_scene_grid_cloth_def(g, def);
    return dfm_world_add_cloth(w, &def, out);
}

dfm_result dfm_scene_set_row_mode(dfm_world* w, dfm_body_id body, int32_t nu, int32_t row, dfm_vertex_mode mode) {
    int32_t* idx = (int32_t*)malloc(sizeof(int32_t) * (size_t)nu);
    if (!idx) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    for (int32_t k = 0; k < nu; ++k) idx[k] = row * nu + k;
    dfm_result r = dfm_body_set_vertex_mode(w, body, idx, nu, mode);
    free(idx);
    return r;
}
