/// @file dfm_scene_cloth_stack.c
/// See dfm_scene_cloth_stack.h.
#include "dfm_scene_cloth_stack.h"

#include <string.h>

#include "dfm_scene_layers.h"
#include "dfm_scene_shape.h"

dfm_result dfm_scene_cloth_stack_add(dfm_world* w, dfm_cloth_def def, dfm_scene_cloth_stack* out) {
    memset(out, 0, sizeof(*out));
    /* zero ids are the null ids (DFM_NULL_BODY_ID, DFM_NULL_SHAPE_ID) */
    const dfm_shape_def table = dfm_scene_table_def();
    dfm_result r = dfm_scene_add_shape(w, &table, 0, 0, DFM_SCENE_TABLE_Z, NULL, &out->table_id);
    const float lo_o[3] = {-0.2f, -0.2f, 0.006f}, lo_u[3] = {0.4f, 0, 0}, lo_v[3] = {0, 0.4f, 0};
    const float up_o[3] = {-0.15f, -0.15f, 0.046f}, up_u[3] = {0.3f, 0, 0}, up_v[3] = {0, 0.3f, 0};
    if (r == DFM_OK) r = dfm_scene_grid_make(13, 13, lo_o, lo_u, lo_v, &out->lower);
    if (r == DFM_OK) r = dfm_scene_grid_make(11, 11, up_o, up_u, up_v, &out->upper);
    if (r == DFM_OK) r = dfm_scene_add_cloth(w, &out->lower, def, &out->lower_id);
    if (r == DFM_OK) r = dfm_scene_add_cloth(w, &out->upper, def, &out->upper_id);
    return r;
}

void dfm_scene_cloth_stack_free(dfm_scene_cloth_stack* s) {
    dfm_scene_grid_free(&s->lower);
    dfm_scene_grid_free(&s->upper);
}

double dfm_scene_cloth_stack_min_distance(const dfm_scene_cloth_stack* s, const float* x_lower, const float* x_upper) {
    return dfm_scene_min_signed_distance(x_upper, NULL, s->upper.vertex_count, x_lower, s->lower.triangles,
                                         s->lower.triangle_count);
}
