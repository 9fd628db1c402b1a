/// The per-body sweep (issue 15, first slice: one block per small body runs every color of an
/// iteration, kernels/cuda/vbd_cuda.cu solve_body_sweep_kernel) reproduces the per-color tiled
/// solve bitwise: the same per-particle code, two particles per warp, in the same color order.
/// Both runs force the tiled kernel for every color (DFM_CUDA_TILED_MAX), deterministic mode, on
/// a pinched cloth with contacts, a soft cube (the tet-only kernel) and four environments (four
/// bodies, four blocks). The sweep's knobs are read at world creation; a bad value is refused.
/// Skips (77) without a usable CUDA device.
#define _POSIX_C_SOURCE 200112L /* setenv, unsetenv */
#include <stdlib.h>

#include "gpu_contact_scenes.h"

static gcs_run_result run_with(const char* sweep, const char* tiled_max, gcs_run_desc d) {
    setenv("DFM_CUDA_BODY_SWEEP", sweep, 1);
    setenv("DFM_CUDA_TILED_MAX", tiled_max, 1);
    gcs_run_result r = gcs_run(d);
    unsetenv("DFM_CUDA_BODY_SWEEP");
    unsetenv("DFM_CUDA_TILED_MAX");
    return r;
}

/// Returns 1 when there is no device.
static int pair(const char* what, gcs_setup_fn setup, gcs_drive_fn drive, int32_t envs) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, envs, 60, setup, drive, 0};
    gcs_run_result colors = run_with("0", "2147483647", d);
    if (colors.skipped) return 1;
    gcs_run_result sweep = run_with("1", "2147483647", d);
    gcs_run_result serial = run_with("0", "0", d); /* the serial kernel: other rounding (not asserted) */
    const int equal = colors.count == sweep.count &&
                      memcmp(colors.x, sweep.x, sizeof(float) * 3 * (size_t)colors.count) == 0;
    printf("%s: sweep vs per-color tiled max diff %.3g m (bitwise %s); serial kernel vs tiled %.3g m\n", what,
           gcs_max_diff(&colors, &sweep), equal ? "equal" : "DIFFERENT", gcs_max_diff(&colors, &serial));
    CHECK(equal, "%s: the per-body sweep differs from the per-color solve", what);
    CHECK(sweep.reaction_z == colors.reaction_z, "%s: reactions differ (%.9g vs %.9g N)", what, sweep.reaction_z,
          colors.reaction_z);
    free(colors.x);
    free(sweep.x);
    free(serial.x);
    return 0;
}

static void bad_knob(const char* name, const char* value) {
    setenv(name, value, 1);
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    unsetenv(name);
    printf("%s=%s: %s\n", name, value, r == DFM_OK ? "accepted" : dfm_world_last_error(NULL));
    CHECK(r == DFM_ERROR_INVALID_VALUE, "%s=%s: result %d, expected DFM_ERROR_INVALID_VALUE", name, value, (int)r);
    if (w) dfm_world_destroy(w);
}

int main(void) {
    if (pair("cloth pinch (contacts)", gcs_pinch, gcs_pinch_drive, 1)) return 77;
    pair("soft cube (tet-only kernel)", gcs_soft_cube, NULL, 1);
    pair("four environments (four blocks)", gcs_environments, NULL, 4);
    bad_knob("DFM_CUDA_BODY_SWEEP", "2");
    bad_knob("DFM_CUDA_SWEEP_BLOCK", "100");
    bad_knob("DFM_CUDA_SWEEP_MAX", "0");
    return dfm_test_finish("test_gpu_body_sweep");
}
