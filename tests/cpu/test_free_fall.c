/// Free fall: an undeformed cloth and a tet box with initial velocity v0 follow the implicit
/// Euler trajectory x_N = x0 + v0 t + g h^2 N(N+1)/2 (h = substep, N = substeps taken), which
/// differs from x0 + v0 t + g t^2/2 by g t h / 2. Elastic forces vanish under rigid translation,
/// so the whole body moves as one and damping adds nothing.
#include "dfm_test.h"

static void check_body(dfm_world* w, dfm_body_id id, const float* x0, int32_t n, const float v0[3], const float g[3],
                       float h, int N, const char* name) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, n, x, 0));
    double t = (double)h * N, worst = 0.0, worst_analytic = 0.0;
    for (int32_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            double discrete = x0[3 * i + k] + v0[k] * t + g[k] * (double)h * h * N * (N + 1) / 2.0;
            double analytic = x0[3 * i + k] + v0[k] * t + g[k] * t * t / 2.0;
            double e = fabs(x[3 * i + k] - discrete), ea = fabs(x[3 * i + k] - analytic);
            if (e > worst) worst = e;
            if (ea > worst_analytic) worst_analytic = ea;
        }
    double bound = fabs(g[2]) * t * h / 2.0;
    printf("%s: t = %.3f s, max |x - discrete| = %.3g m, max |x - analytic| = %.4g m (O(h) bound %.4g m)\n", name, t,
           worst, worst_analytic, bound);
    CHECK(worst < 1e-4, "%s deviates %.3g m from the implicit Euler trajectory", name, worst);
    CHECK(worst_analytic < bound * 1.05 + 2e-4, "%s deviates %.3g m from the analytic parabola", name, worst_analytic);
    free(x);
}

int main(void) {
    const float g[3] = {0.0f, 0.0f, -9.81f};
    const int substeps = 4, steps = 60;
    const float dt = 1.0f / 60.0f;
    dfm_world* w = dfm_test_world(g[2], substeps, 5);
    dfm_test_grid cloth = dfm_test_make_grid(8, 8, 0.3f, 0.3f, 0, 0, 2);
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.stretch_damping = 0.1f;
    cd.bend_damping = 1e-3f;
    dfm_body_id c = dfm_test_add_cloth(w, &cloth, cd);

    int32_t nv, nt;
    dfm_tet_box_counts(3, 3, 3, &nv, &nt);
    float* tp = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    int32_t* tets = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)nt);
    float lo[3] = {1, 0, 2}, hi[3] = {1.1f, 0.1f, 2.1f};
    dfm_tet_box_generate(3, 3, 3, lo, hi, tp, tets);
    dfm_volume_def vd = dfm_volume_def_default();
    vd.positions = tp;
    vd.vertex_count = nv;
    vd.tets = tets;
    vd.tet_count = nt;
    dfm_body_id v;
    CHECK_OK(w, dfm_world_add_volume(w, &vd, &v));

    const float v0[3] = {0.3f, -0.2f, 1.5f};
    float* vel = (float*)malloc(sizeof(float) * 3 * (size_t)(cloth.vertex_count > nv ? cloth.vertex_count : nv));
    for (int32_t i = 0; i < (cloth.vertex_count > nv ? cloth.vertex_count : nv); ++i)
        memcpy(vel + 3 * i, v0, sizeof(v0));
    CHECK_OK(w, dfm_body_set_velocities(w, c, 0, cloth.vertex_count, vel, 0));
    CHECK_OK(w, dfm_body_set_velocities(w, v, 0, nv, vel, 0));
    for (int s = 0; s < steps; ++s) CHECK_OK(w, dfm_world_step(w, dt));
    check_body(w, c, cloth.positions, cloth.vertex_count, v0, g, dt / substeps, steps * substeps, "cloth");
    check_body(w, v, tp, nv, v0, g, dt / substeps, steps * substeps, "tet box");

    free(vel);
    free(tp);
    free(tets);
    dfm_test_free_grid(&cloth);
    dfm_world_destroy(w);
    return dfm_test_finish("test_free_fall");
}
