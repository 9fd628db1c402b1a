/// The coarse step's friction per patch has room for DFM_PATCH_MAX shapes per body
/// (kernels/cpu/coarse_friction.h); a body touching more shapes with friction keeps a frictionless
/// coarse step, and that must not pass silently: the world logs one warning
/// (dfm_step_coarse_report, "without friction in the coarse step") and keeps the count.
/// Scene: a 0.3 m cloth (12 x 12) resting on a 3 x 3 grid of 9 box tops (0.09 m squares at z = 0,
/// 0.01 m apart, mu 0.5), DFM_FEATURE_COARSE_CORRECTION at 4 x 10, 40 steps at 60 Hz:
/// - 9 boxes with friction: exactly one such warning, and the cloth rests on the tops (its centroid
///   between z = 0 and 1 cm, and its lowest vertex above -2 mm: nothing lost with the coarse friction);
/// - the same with the ninth box frictionless (8 patches with friction): no warning, centroid on the
///   tops (a corner may slide off the frictionless box and hang over its edge).
#include "dfm_test_shapes.h"

typedef struct {
    int warnings;
} log_count;

static void on_log(void* user, dfm_log_level level, const char* message) {
    log_count* c = (log_count*)user;
    if (level == DFM_LOG_WARNING && strstr(message, "without friction in the coarse step")) ++c->warnings;
}

/// Runs the scene with `friction_boxes` of the 9 boxes at mu 0.5 (the rest at 0); returns the
/// warnings counted and writes the cloth's lowest and mean z at the end (m).
static int run(int friction_boxes, float* lowest, float* mean) {
    log_count c = {0};
    dfm_world_def def = dfm_world_def_default();
    dfm_test_pick_backend(&def);
    def.feature_flags |= DFM_FEATURE_COARSE_CORRECTION;
    def.log_fn = on_log;
    def.log_user = &c;
    dfm_world* w = dfm_test_create(&def);
    for (int k = 0; k < 9; ++k) {
        dfm_shape_def bx = dfm_scene_box_def(0.045f, 0.045f, 0.05f);
        bx.mu = k < friction_boxes ? 0.5f : 0.0f;
        (void)dfm_test_add_shape(w, bx, -0.1f + 0.1f * (float)(k % 3), -0.1f + 0.1f * (float)(k / 3), -0.05f, NULL);
    }
    const float r = dfm_cloth_def_default().contact_radius;
    dfm_test_grid g = dfm_test_make_grid(12, 12, 0.3f, 0.3f, -0.15f, -0.15f, r + 0.002f);
    dfm_body_id body = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    for (int s = 0; s < 40; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    CHECK_OK(w, dfm_body_get_positions(w, body, 0, g.vertex_count, x, 0));
    float zmin = 1e30f;
    double zm = 0.0;
    for (int32_t i = 0; i < g.vertex_count; ++i) {
        zmin = x[3 * i + 2] < zmin ? x[3 * i + 2] : zmin;
        zm += x[3 * i + 2] / g.vertex_count;
    }
    *lowest = zmin;
    *mean = (float)zm;
    free(x);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return c.warnings;
}

int main(void) {
    float low9 = 0.0f, low8 = 0.0f, mean9 = 0.0f, mean8 = 0.0f;
    const int w9 = run(9, &low9, &mean9), w8 = run(8, &low8, &mean8);
    printf("9 boxes with friction: %d warning(s), lowest vertex z %.4f m, centroid %.4f m; 8 with friction: %d "
           "warning(s), lowest %.4f m, centroid %.4f m\n",
           w9, low9, mean9, w8, low8, mean8);
    CHECK(w9 == 1, "9 shapes with friction: %d warnings about the frictionless coarse step, want exactly 1", w9);
    CHECK(w8 == 0, "8 shapes with friction: %d warnings, want none", w8);
    CHECK(low9 > -0.002f && mean9 > 0.0f && mean9 < 0.01f,
          "9 boxes: lowest vertex %.4f m, centroid %.4f m: not resting on the tops", low9, mean9);
    CHECK(mean8 > 0.0f && mean8 < 0.01f, "8 boxes: centroid at z %.4f m, not resting on the tops", mean8);
    return dfm_test_finish("test_coarse_friction_limit");
}
