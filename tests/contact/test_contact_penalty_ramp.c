/// AVBD penalty ramp (world_def.contact_penalty_beta): each record's penalty starts at
/// min(contact_penalty_start, ke) and grows by beta * max(0, pen) per iteration, capped at ke.
/// A cloth resting on a plane (ke 1e4 N/m) sinks to pen = m g / k per vertex:
/// - beta = 0: k = ke from the start;
/// - start 10 N/m, beta tiny: k stays ~10 N/m, so the cloth rests ~1000x deeper;
/// - start 10 N/m, beta huge: k reaches the cap ke within the iterations, so it rests like beta = 0.
#include "dfm_test_shapes.h"

/// Returns the mean rest penetration (m) of the cloth's vertices below radius + margin.
static double rest_pen(float beta, float start) {
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = DFM_BACKEND_CPU;
    wd.contact_penalty_beta = beta;
    wd.contact_penalty_start = start;
    dfm_world* w = NULL;
    dfm_world_create(DFM_ABI_VERSION, &wd, &w);
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_PLANE;
    sd.ke = 1e4f;
    dfm_test_add_shape(w, sd, 0, 0, 0, NULL);
    dfm_test_grid g = dfm_test_make_grid(8, 8, 0.2f, 0.2f, -0.1f, -0.1f, 0.003f);
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    for (int s = 0; s < 90; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0);
    double pen = 0;
    for (int32_t i = 0; i < g.vertex_count; ++i) pen += cd.contact_radius - x[3 * i + 2];
    free(x);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return pen / g.vertex_count;
}

int main(void) {
    double fixed = rest_pen(0.0f, 1000.0f), slow = rest_pen(1e-3f, 10.0f), fast = rest_pen(1e11f, 10.0f);
    printf("rest penetration: beta 0 (k = ke) %.3g m; start 10 N/m, beta 1e-3 %.3g m; start 10 N/m, beta 1e11 %.3g m\n",
           fixed, slow, fast);
    CHECK(fixed > 0.0 && fixed < 1e-5, "fixed penalty: %.3g m", fixed);
    CHECK(slow > 100.0 * fixed, "a slow ramp from 10 N/m should rest much deeper (%.3g vs %.3g m)", slow, fixed);
    CHECK(fabs(fast - fixed) < 0.5 * fixed, "a fast ramp should reach ke (%.3g vs %.3g m)", fast, fixed);
    return dfm_test_finish("test_contact_penalty_ramp");
}
