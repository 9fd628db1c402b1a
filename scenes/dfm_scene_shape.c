/// @file dfm_scene_shape.c
/// See dfm_scene_shape.h.
#include "dfm_scene_shape.h"

#include <string.h>

dfm_shape_state dfm_scene_state(float px, float py, float pz, const float q[4]) {
    dfm_shape_state s;
    memset(&s, 0, sizeof(s));
    s.position[0] = px;
    s.position[1] = py;
    s.position[2] = pz;
    if (q)
        memcpy(s.rotation, q, 4 * sizeof(float));
    else
        s.rotation[3] = 1.0f;
    s.aabb_min[0] = 1.0f; /* inverted: dfm computes the AABB */
    s.aabb_max[0] = -1.0f;
    return s;
}

dfm_shape_def dfm_scene_box_def(float hx, float hy, float hz) {
    dfm_shape_def d = dfm_shape_def_default();
    d.type = DFM_SHAPE_BOX;
    d.half_extents[0] = hx;
    d.half_extents[1] = hy;
    d.half_extents[2] = hz;
    return d;
}

dfm_shape_def dfm_scene_table_def(void) { return dfm_scene_box_def(0.3f, 0.3f, 0.05f); }

dfm_shape_def dfm_scene_sphere_def(float radius) {
    dfm_shape_def d = dfm_shape_def_default();
    d.type = DFM_SHAPE_SPHERE;
    d.radius = radius;
    return d;
}

dfm_shape_def dfm_scene_plane_def(void) {
    dfm_shape_def d = dfm_shape_def_default();
    d.type = DFM_SHAPE_PLANE;
    return d;
}

dfm_result dfm_scene_add_shape(dfm_world* w, const dfm_shape_def* def, float px, float py, float pz, const float q[4],
                               dfm_shape_id* out) {
    *out = (dfm_shape_id)DFM_NULL_SHAPE_ID;
    dfm_result r = dfm_world_add_shape(w, def, out);
    if (r != DFM_OK) return r;
    return dfm_scene_move_shape(w, *out, px, py, pz, q);
}

dfm_result dfm_scene_move_shape(dfm_world* w, dfm_shape_id id, float px, float py, float pz, const float q[4]) {
    dfm_shape_state st = dfm_scene_state(px, py, pz, q);
    return dfm_world_set_shape_states(w, &id, 0, &st, 0, 1);
}
