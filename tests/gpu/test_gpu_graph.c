/// Graph replay: a CUDA world stepping through one captured graph per step produces bitwise the
/// same positions as eager launches over 100 steps, while the host moves kinematic corners every
/// step (state uploads between replays) and changes dt halfway (forces a re-capture).
/// Substep growth with contacts (4 -> 8 -> 12 substeps, each re-sizing the per-advance shape
/// records and counters and re-capturing) steps fine and replaces the buffers: device memory grows
/// by the same amount per added substep both times (keeping the old buffers made the second
/// growth cost 12 advances' worth instead of 4).
/// Skips (77) without a usable CUDA device.
#include "dfm_test_shapes.h"
#include "gpu_scenes.h"

static float* run(uint32_t flags, int32_t* count, int* skipped) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    def.disable_flags = flags;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    if (r != DFM_OK) {
        printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
        *skipped = r == DFM_ERROR_DEVICE_UNAVAILABLE;
        if (!*skipped) exit(1);
        return NULL;
    }
    gpu_scene_hanging_cloths(w, 3, 16);
    dfm_test_grid g = dfm_test_make_grid(12, 12, 0.3f, 0.3f, 5.0f, 0, 1);
    dfm_body_id lifted = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_test_free_grid(&g);
    for (int s = 0; s < 100; ++s) {
        int32_t handles[2] = {132, 143};
        float z = 1.0f + 0.2f * (float)(s + 1) / 60.0f;
        float target[6] = {5.0f, 0.3f, z, 5.3f, 0.3f, z};
        CHECK_OK(w, dfm_body_set_kinematic_targets(w, lifted, handles, 2, target, 0));
        CHECK_OK(w, dfm_world_step(w, s < 50 ? 1.0f / 60.0f : 1.0f / 90.0f));
    }
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    *count = st.particle_count;
    dfm_world_destroy(w);
    return x;
}

/// Device memory after stepping a cloth-on-plane world at `substeps`, continuing the same world.
static int64_t memory_at(dfm_world* w, int32_t substeps) {
    CHECK_OK(w, dfm_world_set_solver_counts(w, substeps, 10));
    for (int s = 0; s < 3; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    return st.device_memory_bytes;
}

static void substep_growth(void) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) return;
    for (int k = 0; k < 8; ++k) dfm_test_add_shape(w, dfm_scene_plane_def(), 0, 0, -0.01f * (float)k, NULL);
    dfm_test_grid g = dfm_test_make_grid(10, 10, 0.2f, 0.2f, 0, 0, 0.01f);
    dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_test_free_grid(&g);
    int64_t m4 = memory_at(w, 4), m8 = memory_at(w, 8), m12 = memory_at(w, 12);
    printf("substep growth with contacts: device memory %lld -> %lld -> %lld bytes (+%lld, +%lld)\n", (long long)m4,
           (long long)m8, (long long)m12, (long long)(m8 - m4), (long long)(m12 - m8));
    CHECK(m8 > m4 && m12 - m8 == m8 - m4, "substep growth: memory grew by %lld then %lld bytes", (long long)(m8 - m4),
          (long long)(m12 - m8));
    dfm_world_destroy(w);
}

int main(void) {
    int skipped = 0;
    int32_t n_graph = 0, n_eager = 0;
    float* graph = run(0u, &n_graph, &skipped);
    if (skipped) return 77;
    float* eager = run(DFM_DISABLE_GRAPH_CAPTURE, &n_eager, &skipped);
    CHECK(n_graph == n_eager, "particle counts differ");
    int same = memcmp(graph, eager, sizeof(float) * 3 * (size_t)n_graph) == 0;
    double worst = 0;
    for (int32_t i = 0; i < 3 * n_graph; ++i) worst = fmax(worst, fabs((double)graph[i] - eager[i]));
    printf("graph vs eager: %d particles, 100 steps: bitwise %s (max diff %.3g m)\n", n_graph,
           same ? "equal" : "DIFFERENT", worst);
    CHECK(same, "graph replay differs from eager launches by up to %.3g m", worst);
    free(graph);
    free(eager);
    substep_growth();
    return dfm_test_finish("test_gpu_graph");
}
