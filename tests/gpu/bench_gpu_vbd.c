/// Short benchmark of the contact-free VBD step: E hanging 24x24 cloths (4 substeps x 10
/// iterations) on the CPU and the CUDA backend; prints env-steps/s for each and their ratio.
/// Usage: bench_gpu_vbd [envs...]   (default 1 64 1024)
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include "gpu_scenes.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/// Env-steps per second of `envs` cloths on `backend` (0 when unavailable).
static double measure(int backend, int32_t envs, int steps, uint32_t flags) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = backend;
    def.disable_flags = flags;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) return 0.0;
    gpu_scene_hanging_cloths(w, envs, 24);
    dfm_world_step(w, 1.0f / 60.0f); /* warm-up: upload, first launches or capture */
    double t0 = now();
    for (int s = 0; s < steps; ++s)
        if (dfm_world_step(w, 1.0f / 60.0f) != DFM_OK) {
            fprintf(stderr, "step: %s\n", dfm_world_last_error(w));
            dfm_world_destroy(w);
            return 0.0;
        }
    double t = now() - t0;
    dfm_world_destroy(w);
    return (double)envs * steps / t;
}

int main(int argc, char** argv) {
    int32_t envs[8] = {1, 64, 1024};
    int n = 3;
    if (argc > 1) {
        n = 0;
        for (int i = 1; i < argc && n < 8; ++i) envs[n++] = atoi(argv[i]);
    }
    printf(
        "| envs | particles | CPU env-steps/s | GPU eager env-steps/s | GPU graph env-steps/s | graph/eager | graph/CPU |\n"
        "|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; ++i) {
        /* The CPU backend is measured up to 64 environments only (a 1024-environment step takes
         * tens of seconds there); its env-steps/s is flat in the environment count. */
        double cpu = envs[i] <= 64 ? measure(DFM_BACKEND_CPU, envs[i], envs[i] >= 64 ? 3 : 20, 0u) : 0.0;
        double eager = measure(DFM_BACKEND_CUDA, envs[i], 50, DFM_DISABLE_GRAPH_CAPTURE);
        double graph = measure(DFM_BACKEND_CUDA, envs[i], 50, 0u);
        if (cpu > 0.0)
            printf("| %d | %d | %.1f | %.1f | %.1f | %.2f | %.1f |\n", envs[i], envs[i] * 576, cpu, eager, graph,
                   eager > 0 ? graph / eager : 0.0, graph / cpu);
        else
            printf("| %d | %d | - | %.1f | %.1f | %.2f | - |\n", envs[i], envs[i] * 576, eager, graph,
                   eager > 0 ? graph / eager : 0.0);
        fflush(stdout);
    }
    return 0;
}
