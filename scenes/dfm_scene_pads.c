/// @file dfm_scene_pads.c
/// See dfm_scene_pads.h.
#include "dfm_scene_pads.h"

#include "dfm_scene_shape.h"

float dfm_scene_pinch_half_gap(float pad_half_thickness, float contact_radius, float squeeze) {
    return pad_half_thickness + contact_radius - squeeze;
}

void dfm_scene_pad_pair_states(const float centre[3], int axis, float half_gap, dfm_shape_state out[2]) {
    for (int k = 0; k < 2; ++k) {
        float p[3] = {centre[0], centre[1], centre[2]};
        p[axis] = k == 0 ? centre[axis] - half_gap : centre[axis] + half_gap;
        out[k] = dfm_scene_state(p[0], p[1], p[2], NULL);
    }
}

dfm_result dfm_scene_add_pad_pair(dfm_world* w, const dfm_shape_def* pad, uint64_t first_host_body,
                                  const float centre[3], int axis, float half_gap, dfm_shape_id out[2]) {
    dfm_shape_state st[2];
    dfm_scene_pad_pair_states(centre, axis, half_gap, st);
    for (int k = 0; k < 2; ++k) {
        dfm_shape_def d = *pad;
        d.host_body = first_host_body + (uint64_t)k;
        const float* p = st[k].position;
        dfm_result r = dfm_scene_add_shape(w, &d, p[0], p[1], p[2], NULL, &out[k]);
        if (r != DFM_OK) return r;
    }
    return DFM_OK;
}

dfm_result dfm_scene_move_pad_pair(dfm_world* w, const dfm_shape_id ids[2], const float centre[3], int axis,
                                   float half_gap) {
    dfm_shape_state st[2];
    dfm_scene_pad_pair_states(centre, axis, half_gap, st);
    for (int k = 0; k < 2; ++k) {
        dfm_result r = dfm_world_set_shape_states(w, &ids[k], 0, &st[k], 0, 1);
        if (r != DFM_OK) return r;
    }
    return DFM_OK;
}
