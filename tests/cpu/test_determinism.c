/// Two identical runs are bitwise equal, and so is a run with one CPU thread (particles of one
/// color are independent, so the thread count cannot change the arithmetic).
#include "dfm_test.h"

static float* run(int threads, int32_t* out_n) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.cpu_threads = threads;
    dfm_world* w = NULL;
    dfm_world_create(DFM_ABI_VERSION, &def, &w);
    dfm_test_grid g = dfm_test_make_grid(24, 24, 0.4f, 0.4f, 0, 0, 1);
    dfm_body_id c = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    int32_t pins[2] = {0, 23};
    dfm_body_set_vertex_mode(w, c, pins, 2, DFM_VERTEX_PINNED);
    int32_t nv, nt;
    dfm_tet_box_counts(5, 5, 5, &nv, &nt);
    float* tp = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    int32_t* tets = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)nt);
    float lo[3] = {1, 0, 0}, hi[3] = {1.1f, 0.1f, 0.1f};
    dfm_tet_box_generate(5, 5, 5, lo, hi, tp, tets);
    dfm_volume_def vd = dfm_volume_def_default();
    vd.positions = tp;
    vd.vertex_count = nv;
    vd.tets = tets;
    vd.tet_count = nt;
    dfm_body_id v;
    dfm_world_add_volume(w, &vd, &v);
    int32_t pin = 0;
    dfm_body_set_vertex_mode(w, v, &pin, 1, DFM_VERTEX_PINNED);
    for (int s = 0; s < 60; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    *out_n = st.particle_count;
    free(tp);
    free(tets);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return x;
}

int main(void) {
    int32_t n1, n2, n3;
    float* a = run(0, &n1);
    float* b = run(0, &n2);
    float* c = run(1, &n3);
    CHECK(n1 == n2 && n1 == n3, "particle counts differ");
    CHECK(memcmp(a, b, sizeof(float) * 3 * (size_t)n1) == 0, "two identical runs differ");
    CHECK(memcmp(a, c, sizeof(float) * 3 * (size_t)n1) == 0, "one-thread run differs from the default");
    int finite = 1;
    for (int32_t i = 0; i < 3 * n1; ++i) finite &= isfinite(a[i]) != 0;
    CHECK(finite, "non-finite positions");
    free(a);
    free(b);
    free(c);
    return dfm_test_finish("test_determinism");
}
