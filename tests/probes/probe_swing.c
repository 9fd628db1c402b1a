/// Probe (docs/physics.md sessions 9, 10 and 12; not built by CMake): the 12 x 12, 0.4 m cloth of
/// test_hanging_cloth pinned at its two top corners (`probe_swing n 0`) or along its top edge
/// (`probe_swing n 1`), released flat, 3 s at 60 Hz (a third argument: other step counts), 4 x 10: the centroid height every 0.1 s, the
/// mean force_residual_relative and the kinetic energy. DFM_TEST_FEATURES=coarse turns on the
/// two-level solve. Compare runs with probe_swing_cmp.py against a converged reference.
#include "dfm_test.h"
int main(int argc, char** argv) {
    const int32_t n = argc > 1 ? atoi(argv[1]) : 12;
    const float size = 0.4f, dt = 1.0f / 60.0f;
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    dfm_test_grid g = dfm_test_make_grid(n, n, size, size, 0, 0, 1);
    float* masses = (float*)malloc(sizeof(float) * (size_t)g.vertex_count);
    for (int32_t i = 0; i < g.vertex_count; ++i) masses[i] = 0.2f * size * size / (float)g.vertex_count;
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.vertex_masses = masses;
    if (getenv("PROBE_NODAMP")) cd.stretch_damping = 0.0f, cd.bend_damping = 0.0f;
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    int32_t pins[64] = {n * (n - 1), n * n - 1};
    int np = 2;
    if (argc > 2 && atoi(argv[2]) == 1) {
        np = n;
        for (int k = 0; k < n; ++k) pins[k] = n * (n - 1) + k;
    }
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, pins, np, DFM_VERTEX_PINNED));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    double peak = 0, rsum = 0;
    const int steps = argc > 3 ? atoi(argv[3]) : 180;
    for (int s = 1; s <= steps; ++s) {
        CHECK_OK(w, dfm_world_step(w, dt));
        double ke = dfm_test_kinetic_energy(w, id, g.vertex_count, masses);
        if (ke > peak) peak = ke;
        dfm_world_stats st = dfm_world_stats_init();
        dfm_world_get_stats(w, &st);
        rsum += st.force_residual_relative;
        if (s % 6 == 0) {
            CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
            double cz = 0, cy = 0;
            for (int32_t i = 0; i < g.vertex_count; ++i) cz += x[3 * i + 2], cy += x[3 * i + 1];
            printf("%.1f:%.3f ", s * dt, cz / g.vertex_count);
        }
    }
    printf("| resid %.3f peakKE %.4f finalKE %.5f\n", rsum / steps, peak,
           dfm_test_kinetic_energy(w, id, g.vertex_count, masses));
    return 0;
}
