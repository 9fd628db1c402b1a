/// @file dfm_scene_tets.c
/// See dfm_scene_tets.h.
#include "dfm_scene_tets.h"

#include <stdlib.h>
#include <string.h>

dfm_result dfm_scene_tets_make(int32_t n, const float lo[3], const float hi[3], dfm_scene_tets* out) {
    memset(out, 0, sizeof(*out));
    dfm_result r = dfm_tet_box_counts(n, n, n, &out->vertex_count, &out->tet_count);
    if (r != DFM_OK) return r;
    out->positions = (float*)malloc(sizeof(float) * 3 * (size_t)out->vertex_count);
    out->tets = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)out->tet_count);
    if (!out->positions || !out->tets) {
        dfm_scene_tets_free(out);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    return dfm_tet_box_generate(n, n, n, lo, hi, out->positions, out->tets);
}

void dfm_scene_tets_free(dfm_scene_tets* b) {
    free(b->positions);
    free(b->tets);
    b->positions = NULL;
    b->tets = NULL;
}

dfm_volume_def dfm_scene_tets_volume_def(const dfm_scene_tets* b, dfm_volume_def def) {
    def.positions = b->positions;
    def.vertex_count = b->vertex_count;
    def.tets = b->tets;
    def.tet_count = b->tet_count;
    return def;
}

dfm_result dfm_scene_add_volume(dfm_world* w, const dfm_scene_tets* b, dfm_volume_def def, dfm_body_id* out) {
    *out = (dfm_body_id)DFM_NULL_BODY_ID;
    def = dfm_scene_tets_volume_def(b, def);
    return dfm_world_add_volume(w, &def, out);
}

dfm_result dfm_scene_set_layer_mode(dfm_world* w, dfm_body_id body, int32_t n, int32_t layer, dfm_vertex_mode mode) {
    const int32_t count = n * n;
    int32_t* idx = (int32_t*)malloc(sizeof(int32_t) * (size_t)count);
    if (!idx) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    for (int32_t k = 0; k < count; ++k) idx[k] = layer * count + k;
    dfm_result r = dfm_body_set_vertex_mode(w, body, idx, count, mode);
    free(idx);
    return r;
}
