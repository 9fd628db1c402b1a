/// @file dfm_scene_cubes.c
/// See dfm_scene_cubes.h.
#include "dfm_scene_cubes.h"

#include <string.h>

dfm_result dfm_scene_add_cube(dfm_world* w, int32_t n, float side, float cx, float cy, float z0, dfm_volume_def def,
                              dfm_scene_tets* mesh, dfm_body_id* out) {
    memset(out, 0, sizeof(*out)); /* the null id */
    const float h = 0.5f * side;
    const float lo[3] = {cx - h, cy - h, z0}, hi[3] = {cx + h, cy + h, z0 + side};
    dfm_result r = dfm_scene_tets_make(n, lo, hi, mesh);
    return r == DFM_OK ? dfm_scene_add_volume(w, mesh, def, out) : r;
}

dfm_result dfm_scene_add_cube_stack(dfm_world* w, int32_t count, int32_t n, float side, float z_base, float gap,
                                    dfm_volume_def def, dfm_scene_tets* meshes, dfm_body_id* ids) {
    memset(meshes, 0, sizeof(*meshes) * (size_t)(count > 0 ? count : 0));
    memset(ids, 0, sizeof(*ids) * (size_t)(count > 0 ? count : 0));
    for (int32_t c = 0; c < count; ++c) {
        dfm_result r = dfm_scene_add_cube(w, n, side, 0.0f, 0.0f, z_base + (float)c * (side + gap), def, &meshes[c],
                                          &ids[c]);
        if (r != DFM_OK) return r;
    }
    return DFM_OK;
}

float dfm_scene_z_gap(const float* x_below, int32_t n_below, const float* x_above, int32_t n_above) {
    float top = -1e30f, bottom = 1e30f;
    for (int32_t i = 0; i < n_below; ++i)
        if (x_below[3 * i + 2] > top) top = x_below[3 * i + 2];
    for (int32_t i = 0; i < n_above; ++i)
        if (x_above[3 * i + 2] < bottom) bottom = x_above[3 * i + 2];
    return bottom - top;
}
