/// The coarse correction (DFM_FEATURE_COARSE_CORRECTION) on CUDA against the CPU: the static
/// scenes of test_physics_static at 3 substeps x 3 iterations (a hanging strip pinned along its top
/// row, 240 steps; a soft cube on a frictionless box, 180 steps) on both backends, CUDA in
/// deterministic mode.
///
/// Bounds:
/// - each scene's settled figure (the strip's elongation, the cube's shortening) on CUDA within 1%
///   of the CPU's. The CUDA host-assisted slice runs the CPU's own coarse code (coarse_cpu.c) on
///   the host between the device sweeps; what differs is only the sweeps' float arithmetic
///   (contraction, the tiled solve's summation order), which changes neither the steady state nor
///   the coarse step's reach: without the correction the same scenes settle 446x and 13x off at
///   4 x 10 (docs/physics.md), so a correction that ran wrongly or not at all misses 1% by far;
/// - the CUDA backend ran exactly substeps x (iterations - 1) host-assisted corrections per step
///   (vbd_cpu.c's call points: after every sweep but the last), read from the world's internals,
///   and said so once in an info log line.
/// Prints both figures and their ratios to analytic. Skips (77) without a usable CUDA device.
#include "dfm_test.h"
#include "dfm_test_shapes.h"
#include "dfm_test_statics.h"
#include "coarse_cpu.h"
#include "world_internal.h" /* coarse_cuda_corrections, the level's counters */

#define SUBSTEPS 3
#define ITERATIONS 3

/// Info log lines announcing the host-assisted correction, counted per world.
static int g_announced;

static void on_log(void* user, dfm_log_level level, const char* message) {
    (void)user;
    if (level == DFM_LOG_INFO && strstr(message, "coarse correction on CUDA")) ++g_announced;
}

/// A world with the feature at 3 x 3 on `backend` (exits 77 when CUDA is asked for and absent).
static dfm_world* make_world(dfm_backend backend) {
    dfm_world_def def = dfm_world_def_default();
    def.substeps = SUBSTEPS;
    def.iterations = ITERATIONS;
    def.backend = backend;
    def.deterministic = backend == DFM_BACKEND_CUDA;
    def.feature_flags = DFM_FEATURE_COARSE_CORRECTION;
    def.log_fn = on_log;
    def.log_level = DFM_LOG_INFO;
    return dfm_test_create(&def);
}

/// After `steps` steps of w: the corrections CUDA ran must be steps x substeps x (iterations - 1).
static void check_corrections(dfm_world* w, dfm_backend backend, int steps, const char* scene) {
    if (backend != DFM_BACKEND_CUDA) {
        CHECK(w->coarse_cuda_corrections == 0, "%s on the CPU: %lld corrections counted on CUDA", scene,
              (long long)w->coarse_cuda_corrections);
        return;
    }
    const long long want = (long long)steps * SUBSTEPS * (ITERATIONS - 1);
    CHECK(w->coarse_cuda_corrections == want, "%s on CUDA: %lld host-assisted corrections, want %lld", scene,
          (long long)w->coarse_cuda_corrections, want);
    CHECK(w->coarse && w->coarse->corrections > 0, "%s on CUDA: the level corrected no body", scene);
    printf("%s on CUDA: %lld host-assisted corrections (%lld body corrections, %lld factorizations)\n", scene,
           (long long)w->coarse_cuda_corrections, (long long)(w->coarse ? w->coarse->corrections : 0),
           (long long)(w->coarse ? w->coarse->factorizations : 0));
}

/// The hanging strip's settled elongation (m; dfm_test_statics.h), its analytic figure in *analytic.
static double strip_elongation(dfm_backend backend, double* analytic) {
    const int steps = 240;
    dfm_world* w = make_world(backend);
    dfm_test_grid g;
    dfm_cloth_def cd;
    const dfm_body_id id = dfm_test_strip_add(w, &g, &cd);
    for (int s = 0; s < steps; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    check_corrections(w, backend, steps, "strip");
    const double drop = dfm_test_strip_measure(w, id, &g, &cd, analytic);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return drop;
}

/// The soft cube's settled shortening (m; dfm_test_statics.h), its analytic figure in *analytic.
static double cube_shortening(dfm_backend backend, double* analytic) {
    const int steps = 180;
    dfm_world* w = make_world(backend);
    dfm_test_tets box;
    dfm_volume_def vd;
    const dfm_body_id id = dfm_test_cube_add(w, &box, &vd);
    for (int s = 0; s < steps; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    check_corrections(w, backend, steps, "cube");
    const double shortening = dfm_test_cube_measure(w, id, &box, &vd, analytic);
    dfm_test_free_tets(&box);
    dfm_world_destroy(w);
    return shortening;
}

int main(void) {
    double strip_ref = 0.0, cube_ref = 0.0;
    /* CUDA first: without a device the test skips before spending the CPU runs */
    g_announced = 0;
    const double strip_gpu = strip_elongation(DFM_BACKEND_CUDA, &strip_ref);
    CHECK(g_announced == 1, "strip on CUDA: %d info lines announcing the host-assisted correction, want 1",
          g_announced);
    g_announced = 0;
    const double cube_gpu = cube_shortening(DFM_BACKEND_CUDA, &cube_ref);
    CHECK(g_announced == 1, "cube on CUDA: %d info lines announcing the host-assisted correction, want 1", g_announced);
    g_announced = 0;
    const double strip_cpu = strip_elongation(DFM_BACKEND_CPU, &strip_ref);
    const double cube_cpu = cube_shortening(DFM_BACKEND_CPU, &cube_ref);
    CHECK(g_announced == 0, "the CPU runs announced %d host-assisted corrections", g_announced);
    printf("%d x %d with the coarse correction: strip elongation CPU %.5g m (%.4fx analytic), CUDA %.5g m (%.4fx); "
           "cube shortening CPU %.5g m (%.4fx), CUDA %.5g m (%.4fx)\n",
           SUBSTEPS, ITERATIONS, strip_cpu, strip_cpu / strip_ref, strip_gpu, strip_gpu / strip_ref, cube_cpu,
           cube_cpu / cube_ref, cube_gpu, cube_gpu / cube_ref);
    CHECK(strip_cpu > 0.0 && fabs(strip_gpu - strip_cpu) <= 0.01 * strip_cpu,
          "strip elongation on CUDA %.5g m vs CPU %.5g m: %.3f%% apart (bound 1%%)", strip_gpu, strip_cpu,
          100.0 * fabs(strip_gpu - strip_cpu) / strip_cpu);
    CHECK(cube_cpu > 0.0 && fabs(cube_gpu - cube_cpu) <= 0.01 * cube_cpu,
          "cube shortening on CUDA %.5g m vs CPU %.5g m: %.3f%% apart (bound 1%%)", cube_gpu, cube_cpu,
          100.0 * fabs(cube_gpu - cube_cpu) / cube_cpu);
    return dfm_test_finish("test_gpu_coarse_parity");
}
