/// @file dfm_scene_pile.c
/// See dfm_scene_pile.h.
#include "dfm_scene_pile.h"

#include "dfm_scene_shape.h"

/// Next value in [0, 1) of a 32-bit linear congruential sequence (Numerical Recipes' constants).
static float next_unit(uint32_t* s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) * (1.0f / 16777216.0f);
}

dfm_result dfm_scene_pile_add(dfm_world* w, int32_t count, int32_t environment, float half_extent, uint32_t seed,
                              dfm_shape_id* out) {
    uint32_t s = seed;
    for (int32_t k = 0; k < count; ++k) {
        float px = (2.0f * next_unit(&s) - 1.0f) * half_extent;
        float py = (2.0f * next_unit(&s) - 1.0f) * half_extent;
        float pz = 0.15f * next_unit(&s);
        float size = 0.015f + 0.025f * next_unit(&s);
        dfm_shape_def d = (k % 2 == 0) ? dfm_scene_box_def(size, size, size) : dfm_scene_sphere_def(size);
        d.environment = environment;
        dfm_shape_id id;
        dfm_result r = dfm_scene_add_shape(w, &d, px, py, pz, NULL, &id);
        if (r != DFM_OK) return r;
        if (out) out[k] = id;
    }
    return DFM_OK;
}
