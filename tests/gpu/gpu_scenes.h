/// @file gpu_scenes.h
/// Scenes stepped on both backends by the parity tests and the GPU benchmark, built from the scene
/// library (scenes/) through the test helpers (public ABI only).
#ifndef DFM_GPU_SCENES_H
#define DFM_GPU_SCENES_H

#include "dfm_test.h"

/// Creates a world on `backend`; returns NULL (and prints why) when it cannot be created.
static inline dfm_world* gpu_scene_world(int backend, int substeps, int iterations, dfm_result* out_result) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = backend;
    def.substeps = substeps;
    def.iterations = iterations;
    dfm_world* w = NULL;
    *out_result = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    return w;
}

/// Adds `count` cloths of n x n vertices (0.3 m), 1 m apart along x, each pinned at two corners.
static inline void gpu_scene_hanging_cloths(dfm_world* w, int32_t count, int32_t n) {
    dfm_test_grid g = dfm_test_make_grid(n, n, 0.3f, 0.3f, 0, 0, 1);
    for (int32_t c = 0; c < count; ++c) {
        for (int32_t i = 0; i < g.vertex_count; ++i) g.positions[3 * i] += (c == 0 ? 0.0f : 1.0f);
        dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
        int32_t pins[2] = {n * (n - 1), n * n - 1};
        dfm_body_set_vertex_mode(w, id, pins, 2, DFM_VERTEX_PINNED);
    }
    dfm_test_free_grid(&g);
}

/// Adds a soft tet cube (n^3 vertices, 0.1 m) whose bottom layer is pinned, at x offset ox.
static inline void gpu_scene_tet_cube(dfm_world* w, int32_t n, float ox) {
    float lo[3] = {ox, 0, 0}, hi[3] = {ox + 0.1f, 0.1f, 0.1f};
    dfm_test_tets b = dfm_test_make_tet_box(n, lo, hi);
    dfm_volume_def vd = dfm_volume_def_default();
    vd.mu = 2e4f;
    vd.lambda = 1.8e5f;
    vd.damping = 20.0f;
    dfm_body_id id = dfm_test_add_volume(w, &b, vd);
    dfm_test_free_tets(&b);
    CHECK_OK(w, dfm_scene_set_layer_mode(w, id, n, 0, DFM_VERTEX_PINNED));
}

#endif
