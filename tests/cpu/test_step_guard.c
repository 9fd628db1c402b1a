/// The step guard's two refusals on the CPU side (plugin/step_guard.h), driven directly: a state
/// poisoned after dfm_step_guard_save with a NaN velocity is refused with DFM_ERROR_NON_FINITE,
/// one with a position beyond DFM_MAX_COORD with DFM_ERROR_OUT_OF_BOUNDS; both restore the saved
/// state and count in world_stats.nonfinite_steps. (The public inputs that reached the non-finite
/// branch are refused earlier since ABI 1.5, so the ABI test test_nonfinite_step drives only the
/// bounds branch.)
#include <math.h>

#include "dfm_test.h"
#include "step_guard.h"

int main(void) {
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    dfm_test_grid g = dfm_test_make_grid(4, 4, 0.2f, 0.2f, 0, 0, 0.1f);
    dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    const size_t n3 = 3u * (size_t)w->model.particle_count;
    float* x0 = (float*)malloc(n3 * sizeof(float));
    float* v0 = (float*)malloc(n3 * sizeof(float));
    memcpy(x0, w->state.x, n3 * sizeof(float));
    memcpy(v0, w->state.v, n3 * sizeof(float));
    CHECK_OK(w, dfm_step_guard_save(w));
    w->state.v[3 * 5 + 1] = NAN;
    w->state.x[3 * 9] = 2e6f;
    dfm_result r = dfm_step_guard_check(w, DFM_OK);
    CHECK(r == DFM_ERROR_NON_FINITE, "NaN velocity: %s (non-finite is reported before out of bounds)",
          dfm_result_string(r));
    CHECK(strstr(dfm_world_last_error(w), "particle 5") != NULL, "message '%s' names particle 5",
          dfm_world_last_error(w));
    CHECK(memcmp(x0, w->state.x, n3 * sizeof(float)) == 0 && memcmp(v0, w->state.v, n3 * sizeof(float)) == 0,
          "state not restored");
    CHECK_OK(w, dfm_step_guard_save(w));
    w->state.x[3 * 9 + 2] = -2e6f;
    r = dfm_step_guard_check(w, DFM_OK);
    CHECK(r == DFM_ERROR_OUT_OF_BOUNDS, "position -2e6 m: %s", dfm_result_string(r));
    CHECK(strstr(dfm_world_last_error(w), "particle 9") != NULL, "message '%s' names particle 9",
          dfm_world_last_error(w));
    CHECK(memcmp(x0, w->state.x, n3 * sizeof(float)) == 0, "state not restored");
    CHECK(dfm_step_guard_check(w, DFM_ERROR_INVALID_VALUE) == DFM_ERROR_INVALID_VALUE,
          "an error result is not passed on");
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    CHECK(st.nonfinite_steps == 2, "nonfinite_steps %lld (want 2)", (long long)st.nonfinite_steps);
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    free(x0);
    free(v0);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_step_guard");
}
