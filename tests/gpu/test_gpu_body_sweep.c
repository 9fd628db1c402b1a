/// The per-body sweeps reproduce the per-color solve bitwise: the same per-particle code in the
/// same color order, only where it reads positions from changes.
/// - DFM_CUDA_BODY_SWEEP=1 (issue 15, first slice: a block per body walks every color of an
///   iteration on global memory, kernels/cuda/vbd_cuda.cu solve_body_sweep_kernel) against the
///   per-color tiled solve (every color forced tiled: DFM_CUDA_TILED_MAX).
/// - DFM_CUDA_BODY_SWEEP=2 (second slice: the body's x, x_prev, d, y staged in shared memory,
///   the substep's iterations in one launch, kernels/cuda/vbd_cuda_sweep_shared.cuh) against the
///   per-color path with every color tiled and with every color serial (DFM_CUDA_TILED_MAX=0; the
///   sweep takes each color's layout from the per-color path); with the AVBD penalty ramp on
///   (one launch per iteration, staged per iteration); and with DFM_CUDA_SWEEP_SHARED capping the
///   staged bytes so that the larger of two cloths (or both) takes the global fallback; and with
///   tiled thresholds that split the colors (mixed layouts).
/// Scenes: a pinched cloth with contacts, a soft cube (the tet-only kernel), four environments
/// (four bodies, four blocks), two cloths of different sizes. Deterministic mode throughout. The
/// knobs are read at world creation; bad values are refused. `--small`: 25 steps a run instead of 60
/// (for compute-sanitizer; the pinch's pads touch the cloth from about step 10). Skips (77) without
/// a usable CUDA device.
#define _POSIX_C_SOURCE 200112L /* setenv, unsetenv */
#include <stdlib.h>

#include "gpu_contact_scenes.h"

/// Steps of each run (--small: 25).
static int32_t g_steps = 60;

/// Every color tiled (DFM_CUDA_TILED_MAX above any color).
#define ALL_TILED "2147483647"
/// Every color serial.
#define ALL_SERIAL "0"

/// One run with the sweep knob, the tiled threshold and the shared cap (NULL: unset, the device limit).
static gcs_run_result run_with(const char* sweep, const char* tiled_max, const char* shared, gcs_run_desc d,
                               float beta) {
    setenv("DFM_CUDA_BODY_SWEEP", sweep, 1);
    setenv("DFM_CUDA_TILED_MAX", tiled_max, 1);
    if (shared) setenv("DFM_CUDA_SWEEP_SHARED", shared, 1);
    gcs_run_result r = gcs_run_beta(d, beta);
    unsetenv("DFM_CUDA_BODY_SWEEP");
    unsetenv("DFM_CUDA_TILED_MAX");
    unsetenv("DFM_CUDA_SWEEP_SHARED");
    return r;
}

/// Checks run `b` bitwise equal to the reference `a` (positions and the shapes' reactions).
static void same(const char* what, const char* how, const gcs_run_result* a, const gcs_run_result* b) {
    const int equal = a->count == b->count && memcmp(a->x, b->x, sizeof(float) * 3 * (size_t)a->count) == 0;
    printf("%s, %s: max diff %.3g m (bitwise %s)\n", what, how, gcs_max_diff(a, b), equal ? "equal" : "DIFFERENT");
    CHECK(equal, "%s, %s: differs from the per-color solve", what, how);
    CHECK(b->reaction_z == a->reaction_z, "%s, %s: reactions differ (%.9g vs %.9g N)", what, how, b->reaction_z,
          a->reaction_z);
}

/// Both sweeps against the per-color path on one scene; returns 1 when there is no device.
static int pair(const char* what, gcs_setup_fn setup, gcs_drive_fn drive, int32_t envs, float beta) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, envs, g_steps, setup, drive, 0};
    gcs_run_result tiled = run_with("0", ALL_TILED, NULL, d, beta);
    if (tiled.skipped) return 1;
    gcs_run_result serial = run_with("0", ALL_SERIAL, NULL, d, beta);
    printf("%s: serial kernel vs tiled %.3g m (other rounding, not asserted)\n", what, gcs_max_diff(&tiled, &serial));
    gcs_run_result r[3];
    r[0] = run_with("1", ALL_TILED, NULL, d, beta);
    same(what, "sweep (global) vs per-color tiled", &tiled, &r[0]);
    r[1] = run_with("2", ALL_TILED, NULL, d, beta);
    same(what, "shared sweep vs per-color tiled", &tiled, &r[1]);
    r[2] = run_with("2", ALL_SERIAL, NULL, d, beta);
    same(what, "shared sweep vs per-color serial", &serial, &r[2]);
    for (int k = 0; k < 3; ++k) free(r[k].x);
    free(tiled.x);
    free(serial.x);
    return 0;
}

/// Two cloths on a plane: 6 x 6 (36 particles: 1728 bytes staged) and 14 x 14 (196: 9408 bytes).
static void two_sizes(dfm_world* w, gcs_scene* s) {
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_plane_def(), 0, 0, 0, NULL);
    gcs_cloth(w, s, 6, 0.1f, -0.3f, 0, 0.05f);
    gcs_cloth(w, s, 14, 0.3f, 0.3f, 0, 0.05f);
    s->size = 0.8f;
}

/// The global fallback: with 4096 bytes the small cloth is staged and the large one is not; with 0
/// neither; each in both layouts, bitwise the per-color path.
static void fallback(void) {
    const float beta = 0.0f;
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, 1, g_steps, two_sizes, NULL, 0};
    const char* layouts[2] = {ALL_TILED, ALL_SERIAL};
    const char* caps[2] = {"4096", "0"};
    for (int l = 0; l < 2; ++l) {
        gcs_run_result ref = run_with("0", layouts[l], NULL, d, beta);
        for (int k = 0; k < 2; ++k) {
            char how[160];
            snprintf(how, sizeof(how), "shared sweep, %s layout, DFM_CUDA_SWEEP_SHARED=%s (%s staged)",
                     l ? "serial" : "tiled", caps[k], k ? "no cloth" : "the small cloth");
            gcs_run_result r = run_with("2", layouts[l], caps[k], d, beta);
            same("two cloths", how, &ref, &r);
            free(r.x);
        }
        free(ref.x);
    }
}

/// Mixed layouts (some colors serial, some tiled: the sweep's third kernel): the per-color path and
/// the shared sweep at tiled thresholds between the colors' sizes (which thresholds split them
/// depends on the coloring, so several are tried; each pair must agree whatever it splits).
static void mixed(void) {
    const float beta = 0.0f;
    const char* thresholds[4] = {"16", "40", "64", "100"};
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, 4, g_steps, gcs_environments, NULL, 0};
    for (int k = 0; k < 4; ++k) {
        char how[96];
        snprintf(how, sizeof(how), "shared sweep vs per-color, DFM_CUDA_TILED_MAX=%s", thresholds[k]);
        gcs_run_result ref = run_with("0", thresholds[k], NULL, d, beta);
        gcs_run_result r = run_with("2", thresholds[k], NULL, d, beta);
        same("four environments", how, &ref, &r);
        free(ref.x);
        free(r.x);
    }
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

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "--small") == 0) g_steps = 25;
    if (pair("cloth pinch (contacts)", gcs_pinch, gcs_pinch_drive, 1, 0.0f)) return 77;
    pair("cloth pinch, penalty ramp (a launch per iteration)", gcs_pinch, gcs_pinch_drive, 1, 1e5f);
    pair("soft cube (tet-only kernel)", gcs_soft_cube, NULL, 1, 0.0f);
    pair("four environments (four blocks)", gcs_environments, NULL, 4, 0.0f);
    fallback();
    mixed();
    bad_knob("DFM_CUDA_BODY_SWEEP", "3");
    bad_knob("DFM_CUDA_SWEEP_BLOCK", "100");
    bad_knob("DFM_CUDA_SWEEP_MAX", "0");
    bad_knob("DFM_CUDA_SWEEP_SHARED", "-1");
    bad_knob("DFM_CUDA_SWEEP_SHARED", "64k");
    bad_knob("DFM_CUDA_SWEEP_SHARED", "1000000000"); /* above any device's limit */
    return dfm_test_finish("test_gpu_body_sweep");
}
