/// Two identical runs are bitwise equal, and so is a run with one CPU thread (particles of one
/// color are independent, so the thread count cannot change the arithmetic). The second scene, a
/// 15^3-vertex soft box on a table, has colors of ~840 particles and ~21k solve work each, above
/// DFM_CPU_SOLVE_WORK_MIN (kernels/cpu/cpu_threads.h), so on 2 threads its colors fork: the 1- and
/// 2-thread runs must agree bitwise there too. Its contact detection (~11k work units per advance,
/// contact_detect.h) stays below DFM_CPU_DETECT_WORK_MIN and must not fork; with the threshold
/// lowered through DFM_CPU_DETECT_WORK it must fork (the world's internal fork counter says so) and
/// still agree bitwise with the 1-thread run (the forked detection keeps the serial record order).
/// A bad value of the variable is refused with DFM_ERROR_INVALID_VALUE.
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "dfm_test.h"
#include "world_internal.h" /* w->contacts.detect_forks: the detections that ran forked */

#include <stdlib.h>

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

/// A 15^3-vertex tet box (0.3 m) dropped 2 cm onto a box shape: `steps` steps on `threads` threads;
/// *forks: the detections that ran forked.
static float* run_big_box(int threads, int steps, int32_t* out_n, int64_t* forks) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.cpu_threads = threads;
    dfm_world* w = NULL;
    dfm_world_create(DFM_ABI_VERSION, &def, &w);
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_BOX;
    sd.half_extents[0] = sd.half_extents[1] = 0.5f;
    sd.half_extents[2] = 0.05f;
    dfm_shape_id shape;
    CHECK_OK(w, dfm_world_add_shape(w, &sd, &shape));
    dfm_shape_state st0;
    memset(&st0, 0, sizeof(st0));
    st0.rotation[3] = 1.0f;
    st0.aabb_min[0] = 1.0f; /* min > max: dfm computes the AABB */
    st0.aabb_max[0] = -1.0f;
    CHECK_OK(w, dfm_world_set_shape_states(w, &shape, 0, &st0, 0, 1));
    const float lo[3] = {-0.15f, -0.15f, 0.07f}, hi[3] = {0.15f, 0.15f, 0.37f};
    dfm_test_tets b = dfm_test_make_tet_box(15, lo, hi);
    dfm_body_id v;
    CHECK_OK(w, dfm_scene_add_volume(w, &b, dfm_volume_def_default(), &v));
    for (int s = 0; s < steps; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    *forks = w->contacts.detect_forks;
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    /* ~24 work units per tet particle here: colors of 700+ particles are above DFM_CPU_SOLVE_WORK_MIN */
    CHECK(st.color_min_size >= 700, "soft box: smallest color %d particles (the 2-thread run would not fork)",
          (int)st.color_min_size);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    printf("soft box: %d particles, colors of %d-%d particles, %d steps on %d thread(s), %lld forked detections, "
           "last detection %lld work units\n",
           (int)st.particle_count, (int)st.color_min_size, (int)st.color_max_size, steps, threads, (long long)*forks,
           (long long)w->contacts.detect_work);
    float zmin = 1e9f;
    for (int32_t i = 0; i < st.particle_count; ++i) zmin = x[3 * i + 2] < zmin ? x[3 * i + 2] : zmin;
    CHECK(zmin < 0.06f, "soft box: lowest particle at z = %.4f m, it never reached the table (top 0.05)", zmin);
    *out_n = st.particle_count;
    dfm_test_free_tets(&b);
    dfm_world_destroy(w);
    return x;
}

int main(void) {
    {
        int32_t m1, m2, m3;
        int64_t f1, f2, f3;
        float* p = run_big_box(1, 5, &m1, &f1);
        float* q = run_big_box(2, 5, &m2, &f2);
        CHECK(m1 == m2, "soft box: particle counts differ");
        CHECK(memcmp(p, q, sizeof(float) * 3 * (size_t)m1) == 0, "soft box: the 2-thread run differs from 1 thread");
        CHECK(f1 == 0, "soft box: %lld detections forked on 1 thread", (long long)f1);
        CHECK(f2 == 0, "soft box: %lld detections forked on 2 threads below DFM_CPU_DETECT_WORK_MIN", (long long)f2);
        /* the fork by work: every detection from step 2 on forks (step 1 has no previous work, and its
           first detection's 7k candidates are below DFM_CPU_DETECT_PARALLEL_MIN) */
        setenv("DFM_CPU_DETECT_WORK", "1024", 1);
        float* r = run_big_box(2, 5, &m3, &f3);
        unsetenv("DFM_CPU_DETECT_WORK");
        CHECK(m1 == m3, "soft box: particle counts differ (forked detection)");
        CHECK(f3 == 4 * 4, "soft box: %lld of steps 2-5's 16 detections forked at 1024 work units", (long long)f3);
        CHECK(memcmp(p, r, sizeof(float) * 3 * (size_t)m1) == 0,
              "soft box: the run with a forked detection differs from 1 thread");
        free(p);
        free(q);
        free(r);
    }
    { /* a bad threshold is refused by the step, with the specific code */
        dfm_world_def def = dfm_world_def_default();
        def.backend = DFM_BACKEND_CPU;
        dfm_world* w = NULL;
        CHECK_OK(w, dfm_world_create(DFM_ABI_VERSION, &def, &w));
        dfm_shape_def sd = dfm_shape_def_default();
        sd.type = DFM_SHAPE_BOX;
        sd.half_extents[0] = sd.half_extents[1] = sd.half_extents[2] = 0.5f;
        dfm_shape_id shape;
        CHECK_OK(w, dfm_world_add_shape(w, &sd, &shape));
        const float lo[3] = {-0.05f, -0.05f, 0.6f}, hi[3] = {0.05f, 0.05f, 0.7f};
        dfm_test_tets b = dfm_test_make_tet_box(3, lo, hi);
        dfm_body_id v;
        CHECK_OK(w, dfm_scene_add_volume(w, &b, dfm_volume_def_default(), &v));
        const char* bad[3] = {"0", "12x", "-5"};
        for (int k = 0; k < 3; ++k) {
            setenv("DFM_CPU_DETECT_WORK", bad[k], 1);
            const dfm_result rc = dfm_world_step(w, 1.0f / 60.0f);
            CHECK(rc == DFM_ERROR_INVALID_VALUE,
                  "DFM_CPU_DETECT_WORK=%s: step returned %d, not DFM_ERROR_INVALID_VALUE", bad[k], (int)rc);
        }
        unsetenv("DFM_CPU_DETECT_WORK");
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        dfm_test_free_tets(&b);
        dfm_world_destroy(w);
    }
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
