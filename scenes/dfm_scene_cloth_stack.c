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

dfm_result dfm_scene_cloth_stack_run(dfm_world* w, const dfm_scene_cloth_stack* s, int32_t steps, float dt,
                                     float* x_lower, float* x_upper, double* min_out, int32_t* step_out) {
    *min_out = 1e30;
    *step_out = -1;
    dfm_result r = DFM_OK;
    for (int32_t k = 0; k < steps && r == DFM_OK; ++k) {
        r = dfm_world_step(w, dt);
        if (r == DFM_OK) r = dfm_body_get_positions(w, s->lower_id, 0, s->lower.vertex_count, x_lower, 0);
        if (r == DFM_OK) r = dfm_body_get_positions(w, s->upper_id, 0, s->upper.vertex_count, x_upper, 0);
        if (r != DFM_OK) break;
        const double sd = dfm_scene_cloth_stack_min_distance(s, x_lower, x_upper);
        if (sd < *min_out) *min_out = sd, *step_out = k;
    }
    return r;
}
