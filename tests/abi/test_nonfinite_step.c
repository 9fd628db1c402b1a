/// A step that cannot be simulated is refused and rolled back. Gravity -3e38 m/s^2 overflowed the
/// velocities after about 68 steps (DFM_ERROR_NON_FINITE); since ABI 1.5 its first step, which
/// throws the cloth 1e34 m, is refused as DFM_ERROR_OUT_OF_BOUNDS (positions still finite but
/// beyond DFM_MAX_COORD). Either way: the positions are the step's
/// start, the step count does not advance, dfm_world_stats.nonfinite_steps counts it, and the world
/// steps again once the cause is removed. Runs on the CPU (test_nonfinite_step) and on CUDA with
/// DFM_TEST_BACKEND=cuda (test_gpu_nonfinite_step), where the check and the rollback run on the
/// device. Without the guard such a step returned DFM_OK and left the world non-finite.
/// A cloth that flies past DFM_MAX_COORD (from x = 9.9995e5 m at DFM_MAX_SPEED) is refused the
/// same way with DFM_ERROR_OUT_OF_BOUNDS (before, it kept stepping beyond the documented limit
/// where float spacing is 6 cm), and a velocity above DFM_MAX_SPEED is refused on input.
#include "dfm_test.h"

int main(void) {
    /* Gravity -3e38 m/s^2: the first step is refused (out of bounds), rolled back (the positions are
     * the step's start, the step count unchanged), counted, and the world steps again once the
     * cause is removed. */
    {
        dfm_world* gw = dfm_test_world(-3e38f, 4, 10);
        dfm_test_grid g3 = dfm_test_make_grid(4, 4, 0.2f, 0.2f, 0, 0, 0.1f);
        dfm_body_id gb = dfm_test_add_cloth(gw, &g3, dfm_cloth_def_default());
        float before[3 * 16], after[3 * 16];
        dfm_result r = DFM_OK;
        int s = 0;
        for (; s < 400 && r == DFM_OK; ++s) {
            CHECK_OK(gw, dfm_body_get_positions(gw, gb, 0, 16, before, 0));
            r = dfm_world_step(gw, 1.0f / 60.0f);
        }
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", dfm_world_last_error(gw));
        CHECK(r == DFM_ERROR_OUT_OF_BOUNDS && s == 1, "gravity -3e38: got %s after %d steps (want out of bounds at 1)",
              dfm_result_string(r), s);
        CHECK(strstr(msg, "as it was before the step") != NULL, "message '%s'", msg);
        CHECK_OK(gw, dfm_body_get_positions(gw, gb, 0, 16, after, 0));
        CHECK(memcmp(before, after, sizeof(before)) == 0, "positions changed by the refused step");
        dfm_world_stats st = dfm_world_stats_init();
        CHECK_OK(gw, dfm_world_get_stats(gw, &st));
        CHECK(st.nonfinite_steps == 1 && st.step_count == s - 1, "nonfinite_steps %lld, step_count %lld (%d tried)",
              (long long)st.nonfinite_steps, (long long)st.step_count, s);
        const float g_ok[3] = {0, 0, -9.81f};
        float zero[3 * 16];
        memset(zero, 0, sizeof(zero));
        CHECK_OK(gw, dfm_world_set_gravity(gw, g_ok));
        CHECK_OK(gw, dfm_body_set_positions(gw, gb, 0, 16, g3.positions, 0));
        CHECK_OK(gw, dfm_body_set_velocities(gw, gb, 0, 16, zero, 0));
        CHECK_OK(gw, dfm_world_step(gw, 1.0f / 60.0f));
        dfm_test_free_grid(&g3);
        dfm_world_destroy(gw);
    }
    /* Out of bounds: a 1 m cloth near x = DFM_MAX_COORD flying outward at DFM_MAX_SPEED. */
    {
        dfm_world* w = dfm_test_world(0.0f, 4, 10);
        dfm_test_grid g = dfm_test_make_grid(4, 4, 1.0f, 1.0f, 9.9995e5f, 0, 0);
        dfm_body_id b = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
        float vel[3 * 16], before[3 * 16], after[3 * 16];
        for (int i = 0; i < 16; ++i) vel[3 * i] = 2.0f * DFM_MAX_SPEED, vel[3 * i + 1] = vel[3 * i + 2] = 0.0f;
        CHECK(dfm_world_step(w, 1.0f / 60.0f) == DFM_OK, "a step at rest: %s", dfm_world_last_error(w));
        CHECK(dfm_body_set_velocities(w, b, 0, 16, vel, 0) == DFM_ERROR_INVALID_VALUE,
              "a velocity of 2 DFM_MAX_SPEED was taken");
        for (int i = 0; i < 16; ++i) vel[3 * i] = DFM_MAX_SPEED;
        CHECK_OK(w, dfm_body_set_velocities(w, b, 0, 16, vel, 0));
        dfm_result r = DFM_OK;
        int s = 0;
        for (; s < 60 && r == DFM_OK; ++s) {
            CHECK_OK(w, dfm_body_get_positions(w, b, 0, 16, before, 0));
            r = dfm_world_step(w, 1.0f / 60.0f);
        }
        CHECK(r == DFM_ERROR_OUT_OF_BOUNDS, "flying past DFM_MAX_COORD: got %s after %d steps", dfm_result_string(r),
              s);
        CHECK(strstr(dfm_world_last_error(w), "DFM_MAX_COORD") != NULL, "message '%s'", dfm_world_last_error(w));
        CHECK_OK(w, dfm_body_get_positions(w, b, 0, 16, after, 0));
        CHECK(memcmp(before, after, sizeof(before)) == 0, "positions changed by the refused step");
        float xmax = 0.0f;
        for (int i = 0; i < 16; ++i) xmax = after[3 * i] > xmax ? after[3 * i] : xmax;
        CHECK(xmax <= DFM_MAX_COORD, "a vertex is at x = %g m after the refusal", (double)xmax);
        dfm_world_stats st = dfm_world_stats_init();
        CHECK_OK(w, dfm_world_get_stats(w, &st));
        CHECK(st.nonfinite_steps == 1, "nonfinite_steps %lld", (long long)st.nonfinite_steps);
        memset(vel, 0, sizeof(vel));
        CHECK_OK(w, dfm_body_set_velocities(w, b, 0, 16, vel, 0));
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        dfm_test_free_grid(&g);
        dfm_world_destroy(w);
    }
    return dfm_test_finish("test_nonfinite_step");
}
