/// @file dfm_scene_gripper_table.c
/// See dfm_scene_gripper_table.h.
#include "dfm_scene_gripper_table.h"

#include "dfm_scene_grid.h"
#include "dfm_scene_shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

dfm_result dfm_scene_gripper_table_build(dfm_world* world, int32_t res, float pad_mu, float slab_mu, int with_base,
                                         dfm_scene_gripper_table* t) {
    memset(t, 0, sizeof(*t));
    dfm_shape_def slab = dfm_scene_box_def(0.2f, 0.3f, 0.01f);
    slab.host_body = 1;
    slab.mu = slab_mu;
    dfm_shape_def base = slab; /* inset by 5 cm under the slab */
    base.half_extents[0] = 0.15f;
    base.half_extents[2] = 0.2f;
    dfm_shape_def pad = dfm_scene_box_def(0.01f, 0.06f, 0.025f);
    pad.mu = pad_mu;
    pad.ke = 2e4f;
    t->pad = pad;
    dfm_shape_def defs[4];
    int32_t n = 0;
    defs[n++] = slab;
    if (with_base) defs[n++] = base;
    t->first_pad = n;
    defs[n] = pad;
    defs[n++].host_body = 2;
    defs[n] = pad;
    defs[n++].host_body = 3;
    t->shape_count = n;
    for (int32_t k = 0; k < n; ++k) {
        dfm_result r = dfm_world_add_shape(world, &defs[k], &t->ids[k]);
        if (r != DFM_OK) return r;
        t->states[k].rotation[3] = 1.0f;
        t->states[k].aabb_min[0] = 1.0f; /* inverted: dfm computes the AABB */
        t->states[k].aabb_max[0] = -1.0f;
    }
    t->states[0].position[2] = -0.01f;
    if (with_base) {
        t->states[1].position[0] = -0.05f;
        t->states[1].position[2] = -0.22f;
    }
    /* Pads wait open at the pinch height: the inner one under the slab (between the base and the
     * slab's edge), the outer one beyond the arc the overhang sweeps while it drapes. */
    t->pad_open[0] = DFM_SCENE_GRIPPER_TABLE_EDGE - 0.06f;
    t->pad_open[1] = DFM_SCENE_GRIPPER_TABLE_EDGE + 0.12f;
    for (int k = 0; k < 2; ++k) {
        t->states[t->first_pad + k].position[0] = t->pad_open[k];
        t->states[t->first_pad + k].position[2] = DFM_SCENE_GRIPPER_PINCH_Z;
    }
    dfm_result r = dfm_world_set_shape_states(world, t->ids, 0, t->states, 0, n);
    if (r != DFM_OK) return r;
    dfm_cloth_def cd = dfm_cloth_def_default();
    /* 15 cm of overhang: with 22 cm the cloth slid off the table during the settle at res 12 and
     * 20 on the CPU and in some CUDA default-mode runs (it then passed under the pads). */
    const float size = DFM_SCENE_GRIPPER_CLOTH_SIZE, overhang = 0.15f;
    const float origin[3] = {DFM_SCENE_GRIPPER_TABLE_EDGE + overhang - size, -0.5f * size, cd.contact_radius};
    const float au[3] = {size, 0, 0}, av[3] = {0, size, 0};
    dfm_scene_grid g;
    r = dfm_scene_grid_make(res, res, origin, au, av, &g);
    t->vertex_count = g.vertex_count;
    t->triangle_count = g.triangle_count;
    t->positions = g.positions;
    t->triangles = g.triangles;
    if (r != DFM_OK) return r;
    cd.air_drag = 0.5f;
    cd = dfm_scene_grid_cloth_def(&g, cd);
    t->cloth_def = cd;
    return dfm_world_add_cloth(world, &cd, &t->cloth);
}

float dfm_scene_gripper_table_strip_x(dfm_world* world, const dfm_scene_gripper_table* t, float* x) {
    dfm_body_get_positions(world, t->cloth, 0, t->vertex_count, x, 0);
    double sx = 0.0;
    int cnt = 0;
    for (int32_t i = 0; i < t->vertex_count; ++i)
        if (fabsf(x[3 * i + 2] - DFM_SCENE_GRIPPER_PINCH_Z) < 0.02f &&
            x[3 * i] > DFM_SCENE_GRIPPER_TABLE_EDGE - 0.02f) {
            sx += x[3 * i];
            ++cnt;
        }
    return cnt ? (float)(sx / cnt) : DFM_SCENE_GRIPPER_TABLE_EDGE + t->cloth_def.contact_radius;
}

void dfm_scene_gripper_table_free(dfm_scene_gripper_table* t) {
    free(t->positions);
    free(t->triangles);
    t->positions = NULL;
    t->triangles = NULL;
}
