/// dfm_world_def.feature_flags (ABI 1.5): unknown bits are refused; a world with
/// DFM_FEATURE_BODY_TRANSLATION is created on the backend DFM_TEST_BACKEND picks (the CPU, or CUDA
/// in test_gpu_feature_flags) and steps a cloth in free fall exactly: the body-level translation
/// of a body without contacts is the inertia target, so the centroid follows implicit Euler's
/// z0 - g h^2 n (n + 1) / 2 within float rounding. DFM_FEATURE_COARSE_CORRECTION is accepted on
/// the CUDA backend (a world is created, or refused only for want of a device) and refused with
/// deformable contact; a free-falling cloth with it follows the same implicit-Euler path on the
/// backend DFM_TEST_BACKEND picks (its coarse correction of a body at its inertia target is zero:
/// no elastic force, f = 0), and a CPU world with it swaps to CUDA where a device is usable.
#include "dfm_test.h"

int main(void) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.feature_flags = 1u << 7;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    CHECK(r == DFM_ERROR_INVALID_VALUE && !w, "unknown feature bit: %s", dfm_result_string(r));
    CHECK(strstr(dfm_world_last_error(NULL), "feature_flags") != NULL, "message '%s'", dfm_world_last_error(NULL));

    def.feature_flags = DFM_FEATURE_BODY_TRANSLATION;
    dfm_test_pick_backend(&def);
    w = dfm_test_create(&def);
    dfm_test_grid g = dfm_test_make_grid(6, 6, 0.2f, 0.2f, 0, 0, 1.0f);
    dfm_body_id b = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    for (int s = 0; s < 30; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float x[3 * 36];
    CHECK_OK(w, dfm_body_get_positions(w, b, 0, 36, x, 0));
    double z = 0.0;
    for (int i = 0; i < 36; ++i) z += x[3 * i + 2] / 36.0;
    /* implicit Euler over 120 substeps of h: z0 - g h^2 n (n + 1) / 2 */
    const double h = 1.0 / 240.0, n = 120.0, want = 1.0 - 9.81 * h * h * n * (n + 1.0) / 2.0;
    CHECK(fabs(z - want) < 1e-4, "free fall: centroid z %.6f m, implicit Euler %.6f m", z, want);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);

    def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    def.feature_flags = DFM_FEATURE_COARSE_CORRECTION;
    w = NULL;
    r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    CHECK((r == DFM_OK && w) || (r == DFM_ERROR_DEVICE_UNAVAILABLE && !w), "coarse correction on CUDA: %s (%s)",
          dfm_result_string(r), dfm_world_last_error(NULL));
    if (w) dfm_world_destroy(w);
    w = NULL;
    def.backend = DFM_BACKEND_CPU;
    def.deformable_contact_radius = 0.002f;
    r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    CHECK(r == DFM_ERROR_UNSUPPORTED && !w, "coarse correction with deformable contact: %s", dfm_result_string(r));

    {
        def = dfm_world_def_default();
        def.feature_flags = DFM_FEATURE_COARSE_CORRECTION;
        dfm_test_pick_backend(&def);
        w = dfm_test_create(&def);
        g = dfm_test_make_grid(6, 6, 0.2f, 0.2f, 0, 0, 1.0f);
        b = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
        for (int s = 0; s < 30; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        CHECK_OK(w, dfm_body_get_positions(w, b, 0, 36, x, 0));
        z = 0.0;
        for (int i = 0; i < 36; ++i) z += x[3 * i + 2] / 36.0;
        CHECK(fabs(z - want) < 1e-4, "free fall with the coarse correction: centroid z %.6f m, implicit Euler %.6f m",
              z, want);
        if (!dfm_test_on_cuda()) {
            r = dfm_world_set_solver(w, "vbd", DFM_BACKEND_CUDA);
            CHECK(r == DFM_OK || r == DFM_ERROR_DEVICE_UNAVAILABLE, "swap to CUDA with the coarse correction: %s (%s)",
                  dfm_result_string(r), dfm_world_last_error(w));
        }
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        dfm_test_free_grid(&g);
        dfm_world_destroy(w);
    }
    return dfm_test_finish("test_feature_flags");
}
