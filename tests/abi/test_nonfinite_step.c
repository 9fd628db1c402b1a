/// A step that goes non-finite (gravity -3e38 m/s^2 overflows the velocities after about 68
/// steps) is refused with DFM_ERROR_NON_FINITE and rolled back: the positions are the step's
/// start, the step count does not advance, dfm_world_stats.nonfinite_steps counts it, and the world
/// steps again once the cause is removed. Runs on the CPU (test_nonfinite_step) and on CUDA with
/// DFM_TEST_BACKEND=cuda (test_gpu_nonfinite_step), where the check and the rollback run on the
/// device. Without the guard such a step returned DFM_OK and left the world non-finite.
#include "dfm_test.h"

int main(void) {
    /* A step that goes non-finite (gravity -3e38 m/s^2 overflows the velocities after ~68 steps) is
     * refused with DFM_ERROR_NON_FINITE, rolled back (the positions are the step's start, the step
     * count unchanged), counted, and the world steps again once the cause is removed. */
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
        CHECK(r == DFM_ERROR_NON_FINITE, "gravity -3e38: got %s after %d steps", dfm_result_string(r), s);
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
    return dfm_test_finish("test_nonfinite_step");
}
