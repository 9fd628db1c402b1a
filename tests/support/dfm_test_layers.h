/// @file dfm_test_layers.h
/// The layered deformable-contact scenes (issue 16: scenes/dfm_scene_cloth_stack.h and
/// dfm_scene_fold.h) run with the tests' policy (exit 2 when the scene cannot be built, CHECK_OK on
/// the steps): tests/physics/test_physics_deform_contact.c runs them on the CPU and
/// tests/gpu/test_gpu_deform_contact_parity.c runs the same runs on both backends. 60 Hz steps.
#ifndef DFM_TEST_LAYERS_H
#define DFM_TEST_LAYERS_H

#include <dfm_scene_cloth_stack.h>
#include <dfm_scene_fold.h>

#include "dfm_test.h"

/// What one run of a layered scene measured.
typedef struct dfm_test_layer_run {
    double min_sd;         ///< Smallest signed distance across the layers over the run, m (1e30: no step).
    int32_t min_step;      ///< The first step (from 0) that saw it.
    float zl, zu;          ///< Stack: final mean heights of the lower and the upper cloth, m (fold: 0).
    dfm_world_stats stats; ///< The world's stats after the last step.
} dfm_test_layer_run;

/// Adds the stacked cloths (default cloth defs) to `w` and runs `steps` steps, measuring the upper
/// cloth over the lower one after each. The world stays with the caller.
static inline dfm_test_layer_run dfm_test_run_stack(dfm_world* w, int steps) {
    dfm_test_layer_run r;
    memset(&r, 0, sizeof(r));
    dfm_scene_cloth_stack sc;
    dfm_test_scene(w, dfm_scene_cloth_stack_add(w, dfm_cloth_def_default(), &sc), "the stacked cloths");
    const int32_t nl = sc.lower.vertex_count, nu = sc.upper.vertex_count;
    float* xl = (float*)malloc(sizeof(float) * 3 * (size_t)nl);
    float* xu = (float*)malloc(sizeof(float) * 3 * (size_t)nu);
    CHECK_OK(w, dfm_scene_cloth_stack_run(w, &sc, steps, 1.0f / 60.0f, xl, xu, &r.min_sd, &r.min_step));
    r.stats = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &r.stats));
    for (int32_t i = 0; i < nl; ++i) r.zl += xl[3 * i + 2] / (float)nl;
    for (int32_t i = 0; i < nu; ++i) r.zu += xu[3 * i + 2] / (float)nu;
    free(xl);
    free(xu);
    dfm_scene_cloth_stack_free(&sc);
    return r;
}

/// Adds the folded cloth (11 x 16 vertices, the given self_collision) on its table to `w`, runs
/// `steps` steps, measuring the upper half over the lower one after each, and prints the figures
/// as "fold[ label] (self_collision s): ...". The world stays with the caller.
static inline dfm_test_layer_run dfm_test_run_fold(dfm_world* w, const char* label, int self_collision, int steps) {
    dfm_test_layer_run r;
    memset(&r, 0, sizeof(r));
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.self_collision = self_collision;
    dfm_scene_fold fold;
    dfm_test_scene(w, dfm_scene_fold_add(w, 11, 8, cd, &fold), "the folded cloth");
    CHECK_OK(w, dfm_scene_fold_run(w, &fold, steps, 1.0f / 60.0f, &r.min_sd, &r.min_step));
    r.stats = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &r.stats));
    printf("fold%s%s (self_collision %d): min signed distance of the upper half over the lower %.5f m (step %d); %d "
           "pairs last advance\n",
           label[0] ? " " : "", label, self_collision, r.min_sd, r.min_step, r.stats.deformable_pairs);
    dfm_scene_fold_free(&fold);
    return r;
}

#endif
