/// The specialized elasticity kernels reproduce the generic ones bitwise (seed 000 secs. 4 and 5):
/// - two particles per warp (half-warp XOR butterfly) == one particle per warp (same 16-lane
///   tree, upper half idle), on a cloth scene with contacts (pinch and lift) and a tet scene;
/// - the tet-only kernel == the generic tiled kernel on a tet-only model (soft cube on a box).
/// Contact scenes run in deterministic mode so that only the switched kernel can differ.
/// The scenes are small, so their colors take the tiled kernels. Each run's centroid is also checked
/// against the CPU's (within 2% of the scene size; the pinched flap is chaotic). Skips (77) without a usable CUDA device.
#include "gpu_contact_scenes.h"

static int equal(const gcs_run_result* a, const gcs_run_result* b) {
    return a->count == b->count && memcmp(a->x, b->x, sizeof(float) * 3 * (size_t)a->count) == 0;
}

static int pair(const char* what, gcs_setup_fn setup, gcs_drive_fn drive, uint32_t flag) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, 1, 60, setup, drive, 0};
    gcs_run_result a = gcs_run(d);
    if (a.skipped) return 1;
    d.disable_flags = flag;
    gcs_run_result b = gcs_run(d);
    d.backend = DFM_BACKEND_CPU;
    d.disable_flags = 0u;
    gcs_run_result cpu = gcs_run(d);
    double diff = gcs_max_diff(&a, &b), ga[9], gc[9], dc = 0.0;
    gcs_aggregates(&a, ga);
    gcs_aggregates(&cpu, gc);
    for (int k = 0; k < 3; ++k) dc = fmax(dc, fabs(ga[k] - gc[k]));
    printf("%s: specialized vs generic max diff %.3g m (bitwise %s); centroid vs CPU %.3g m\n", what, diff,
           equal(&a, &b) ? "equal" : "DIFFERENT", dc);
    CHECK(equal(&a, &b), "%s: kernels differ by %.3g m", what, diff);
    CHECK(dc < 0.02 * a.scene.size, "%s: GPU centroid strays %.3g m from the CPU's", what, dc);
    free(a.x);
    free(b.x);
    free(cpu.x);
    return 0;
}

/// The soft cube must be tet-only (no triangles or hinges) for the tet-only pair to compare two
/// different kernels.
static void check_tet_only_scene(void) {
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    gcs_scene s;
    memset(&s, 0, sizeof(s));
    gcs_soft_cube(w, &s);
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    CHECK(st.tet_count > 0 && st.triangle_count == 0 && st.bending_edge_count == 0,
          "soft cube is not tet-only: %d tets, %d triangles, %d hinges", st.tet_count, st.triangle_count,
          st.bending_edge_count);
    dfm_world_destroy(w);
}

int main(void) {
    if (pair("two particles per warp, cloth (pinch)", gcs_pinch, gcs_pinch_drive, DFM_DISABLE_TWO_PARTICLE_WARPS))
        return 77;
    pair("two particles per warp, tets (soft cube)", gcs_soft_cube, NULL, DFM_DISABLE_TWO_PARTICLE_WARPS);
    check_tet_only_scene();
    pair("tet-only kernel (soft cube)", gcs_soft_cube, NULL, DFM_DISABLE_TET_KERNEL);
    return dfm_test_finish("test_gpu_kernels_bitwise");
}
