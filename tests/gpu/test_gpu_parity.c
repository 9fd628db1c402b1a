/// Parity: the CUDA backend and the CPU backend step the same contact-free scenes (hanging cloths
/// pinned at two corners, a soft tet cube on a pinned base, both together, a cloth lifted by two
/// kinematic corners whose targets the host sets every step)
/// for 100 steps; positions agree within 5e-3 of the scene size (measured on an H200: 1.5e-7 to 3.2e-3) (floating-point contraction
/// differs between nvcc and the host compiler, so results are not bitwise equal). Skips (77)
/// without a usable CUDA device. `--small` runs one short scene (for compute-sanitizer).
#include "gpu_scenes.h"

/// Builds a scene; returns the id of a body whose vertex 0 is driven kinematically (null id: none).
typedef dfm_body_id (*scene_fn)(dfm_world* w);

static dfm_body_id no_driver(void) {
    dfm_body_id id = DFM_NULL_BODY_ID;
    return id;
}
static dfm_body_id scene_cloths(dfm_world* w) {
    gpu_scene_hanging_cloths(w, 4, 16);
    return no_driver();
}
static dfm_body_id scene_cube(dfm_world* w) {
    gpu_scene_tet_cube(w, 6, 0.0f);
    return no_driver();
}
static dfm_body_id scene_mixed(dfm_world* w) {
    gpu_scene_hanging_cloths(w, 1, 12);
    gpu_scene_tet_cube(w, 4, 2.0f);
    return no_driver();
}
/// A cloth lifted by two kinematic corners (host -> device state every step).
static dfm_body_id scene_dragged(dfm_world* w) {
    dfm_test_grid g = dfm_test_make_grid(12, 12, 0.3f, 0.3f, 0, 0, 1);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_test_free_grid(&g);
    return id;
}

/// Steps a scene on a backend; returns positions (malloc'ed) and their count.
static float* run(int backend, scene_fn scene, int steps, int32_t* count, int* skipped) {
    dfm_result r;
    dfm_world* w = gpu_scene_world(backend, 4, 10, &r);
    if (!w) {
        if (r == DFM_ERROR_DEVICE_UNAVAILABLE) {
            printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
            *skipped = 1;
            return NULL;
        }
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        exit(1);
    }
    dfm_body_id driven = scene(w);
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    CHECK(st.backend == backend, "world runs on backend %d, asked for %d", st.backend, backend);
    for (int s = 0; s < steps; ++s) {
        if (!dfm_body_id_is_null(driven)) {
            int32_t handles[2] = {132, 143}; /* the corners at v = max of the 12 x 12 grid */
            float z = 1.0f + 0.25f * (float)(s + 1) / 60.0f;
            float target[6] = {0.0f, 0.3f, z, 0.3f, 0.3f, z};
            CHECK_OK(w, dfm_body_set_kinematic_targets(w, driven, handles, 2, target, 0));
        }
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    }
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    *count = st.particle_count;
    dfm_world_destroy(w);
    return x;
}

static void compare(const char* name, scene_fn scene, int steps, float scale, int* skipped) {
    int32_t n_cpu = 0, n_gpu = 0;
    float* gpu = run(DFM_BACKEND_CUDA, scene, steps, &n_gpu, skipped);
    if (*skipped) return;
    float* cpu = run(DFM_BACKEND_CPU, scene, steps, &n_cpu, skipped);
    CHECK(n_cpu == n_gpu, "%s: particle counts differ", name);
    double worst = 0.0;
    int finite = 1;
    for (int32_t i = 0; i < 3 * n_cpu; ++i) {
        finite &= isfinite(gpu[i]) != 0;
        double d = fabs((double)gpu[i] - cpu[i]);
        if (!(d <= worst)) worst = d;
    }
    printf("%s: %d particles, %d steps: max |x_gpu - x_cpu| = %.3g m (%.3g of the scene size)\n", name, n_cpu, steps,
           worst, worst / scale);
    CHECK(finite, "%s: GPU produced non-finite positions", name);
    CHECK(worst < 5e-3 * scale, "%s: backends differ by %.3g m", name, worst);
    free(cpu);
    free(gpu);
}

int main(int argc, char** argv) {
    int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    int skipped = 0;
    if (small) {
        compare("mixed (small)", scene_mixed, 5, 2.0f, &skipped);
    } else {
        compare("hanging cloths", scene_cloths, 100, 3.3f, &skipped);
        if (!skipped) compare("tet cube", scene_cube, 100, 0.1f, &skipped);
        if (!skipped) compare("cloth + cube", scene_mixed, 100, 2.1f, &skipped);
        if (!skipped) compare("cloth lifted by kinematic corners", scene_dragged, 100, 0.5f, &skipped);
    }
    if (skipped) return 77;
    return dfm_test_finish("test_gpu_parity");
}
