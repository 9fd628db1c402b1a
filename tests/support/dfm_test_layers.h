/// @file dfm_test_layers.h
/// The layered deformable-contact scenes (issue 16: scenes/dfm_scene_cloth_stack.h,
/// dfm_scene_fold.h and dfm_scene_cubes.h) run with the tests' policy (exit 2 when the scene cannot be built, CHECK_OK on
/// the steps): tests/physics/test_physics_deform_contact.c runs them on the CPU and
/// tests/gpu/test_gpu_deform_contact_parity.c runs the same runs on both backends. 60 Hz steps.
#ifndef DFM_TEST_LAYERS_H
#define DFM_TEST_LAYERS_H

#include <dfm_scene_cloth_stack.h>
#include <dfm_scene_cubes.h>
#include <dfm_scene_fold.h>

#include "dfm_test.h"
#include "dfm_test_shapes.h"

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

/// The `cubes` scene in a world: two soft 6 cm cubes (5^3 vertices) stacked `gap` apart on the
/// frictionless floor (dfm_test_add_frictionless_floor), and scratch for their positions.
typedef struct dfm_test_cubes {
    dfm_shape_id floor_id;            ///< The floor.
    dfm_test_tets box[2];             ///< The cubes' meshes, bottom first (owned).
    dfm_body_id bot, top;             ///< The bottom and the top cube.
    dfm_body_info bot_info, top_info; ///< Their infos (total_mass, kg).
    float *xb, *xt;                   ///< The last positions of the bottom and the top cube (owned).
    double min_gap;                   ///< Smallest dfm_scene_z_gap top over bottom so far, m (1e30: none).
} dfm_test_cubes;

/// Adds the floor and the two cubes to `w` (exits 2 when they cannot be built).
static inline dfm_test_cubes dfm_test_add_cubes(dfm_world* w, float gap) {
    dfm_test_cubes c;
    memset(&c, 0, sizeof(c));
    c.floor_id = dfm_test_add_frictionless_floor(w);
    dfm_body_id id[2];
    dfm_test_scene(w, dfm_scene_add_cube_stack(w, 2, 5, 0.06f, 0.0f, gap, dfm_volume_def_default(), c.box, id),
                   "the cubes");
    c.bot = id[0];
    c.top = id[1];
    c.bot_info = dfm_body_info_init();
    c.top_info = dfm_body_info_init();
    CHECK_OK(w, dfm_body_get_info(w, c.bot, &c.bot_info));
    CHECK_OK(w, dfm_body_get_info(w, c.top, &c.top_info));
    c.xb = (float*)malloc(sizeof(float) * 3 * (size_t)c.box[0].vertex_count);
    c.xt = (float*)malloc(sizeof(float) * 3 * (size_t)c.box[1].vertex_count);
    c.min_gap = 1e30;
    return c;
}

/// Steps `w` by 1/60 s, reads both cubes' positions into c->xb, c->xt and updates c->min_gap.
static inline void dfm_test_cubes_step(dfm_world* w, dfm_test_cubes* c) {
    const int32_t nb = c->box[0].vertex_count, nt = c->box[1].vertex_count;
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    CHECK_OK(w, dfm_body_get_positions(w, c->bot, 0, nb, c->xb, 0));
    CHECK_OK(w, dfm_body_get_positions(w, c->top, 0, nt, c->xt, 0));
    const float gap = dfm_scene_z_gap(c->xb, nb, c->xt, nt);
    if (gap < c->min_gap) c->min_gap = gap;
}

/// Frees the scene's meshes and scratch (the bodies stay in their world).
static inline void dfm_test_free_cubes(dfm_test_cubes* c) {
    for (int k = 0; k < 2; ++k) dfm_test_free_tets(&c->box[k]);
    free(c->xb);
    free(c->xt);
}

#endif
