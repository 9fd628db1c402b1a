/// @file shape_probe.c
/// See shape_probe.h. Reads the world's shape record (plugin/world_internal.h) and evaluates the
/// same SDF code the contact pipeline runs (kernels/shared/sdf_shapes.h).
#include "shape_probe.h"

#include "sdf_shapes.h"
#include "transform.h"
#include "world_internal.h"

static const dfm_shape* find_shape(const dfm_world* w, dfm_shape_id id) {
    if (!w || id.world_tag != w->tag) return NULL;
    dfm_id_pool_status st;
    return (const dfm_shape*)dfm_id_pool_resolve(&w->shape_pool, id.index1, id.generation, &st);
}

int dfm_probe_shape_distance(dfm_world* world, dfm_shape_id shape, const float p_body[3], float* out_distance) {
    const dfm_shape* s = find_shape(world, shape);
    if (!s || !out_distance) return -1;
    dfm_v3 p = dfm_xform_point_inv(s->local, dfm_v3_make(p_body[0], p_body[1], p_body[2]));
    *out_distance = dfm_shape_sdf_value(&s->geom, p) - s->margin;
    return 0;
}

int dfm_probe_shape_margin(dfm_world* world, dfm_shape_id shape, float* out_margin) {
    const dfm_shape* s = find_shape(world, shape);
    if (!s || !out_margin) return -1;
    *out_margin = s->margin;
    return 0;
}
