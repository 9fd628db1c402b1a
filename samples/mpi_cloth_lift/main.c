/// mpi_cloth_lift: the cloth-lift workload (samples/bench) partitioned by environment across MPI
/// ranks. Each rank builds its slice of the environments in its own world on its own device
/// (rank % device count) or on the CPU, steps it, and the figures are reduced to rank 0, which
/// prints the table and writes JSON like dfm_bench's. The scene is the benchmark's
/// (samples/bench/workload.c, built from the scene library scenes/).
///
/// Usage: mpirun -n R mpi_cloth_lift [--envs N] [--steps N] [--warmup N] [--backend cpu|cuda]
///        [--json PATH]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t envs = 64, steps = 10, warmup = 5;
    int backend = DFM_BACKEND_CPU;
    const char* json = "mpi_cloth_lift.json";
    for (int i = 1; i < argc; ++i) {
        // clang-format off
        if (!strcmp(argv[i], "--envs") && i + 1 < argc) envs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        // clang-format on
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            ++i;
            backend = !strcmp(argv[i], "cuda") ? DFM_BACKEND_CUDA : DFM_BACKEND_CPU;
        } else {
            if (rank == 0)
                fprintf(
                    stderr,
                    "usage: mpirun -n R %s [--envs N] [--steps N] [--warmup N] [--backend cpu|cuda] [--json PATH]\n",
                    argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    /* Slice: environments [first, first + mine); the first envs % size ranks take one more. */
    int32_t mine = envs / size + (rank < envs % size ? 1 : 0);
    bench_options o;
    memset(&o, 0, sizeof(o));
    o.kind = BENCH_CLOTH_LIFT;
    o.envs = mine;
    o.res = 24;
    o.substeps = 4;
    o.iterations = 10;
    o.backend = backend;
    int devices = 1;
    if (backend == DFM_BACKEND_CUDA) {
        /* one world per device: rank r uses device r % count */
        devices = dfm_device_count();
        o.device = devices > 0 ? rank % devices : 0;
    }
    int ok = 1;
    bench_workload w;
    memset(&w, 0, sizeof(w));
    double elapsed = 0.0;
    int32_t active = 0, particles = 0;
    if (mine > 0) {
        dfm_result r = bench_workload_build(&o, &w);
        int built = r == DFM_OK;
        if (!built) {
            fprintf(stderr, "rank %d: building %d environments failed: %s\n", rank, mine,
                    dfm_world_last_error(w.world));
            ok = 0;
        }
        const float dt = 1.0f / 60.0f;
        double t = 0.0;
        for (int s = 0; s < warmup && ok; ++s) {
            t += dt;
            ok = bench_workload_drive(&w, t) == DFM_OK && dfm_world_step(w.world, dt) == DFM_OK;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int s = 0; s < steps && ok; ++s) {
            t += dt;
            ok = bench_workload_drive(&w, t) == DFM_OK && dfm_world_step(w.world, dt) == DFM_OK;
        }
        elapsed = MPI_Wtime() - t0;
        dfm_contact_stats cs = dfm_contact_stats_init();
        dfm_world_get_contact_stats(w.world, &cs);
        active = cs.active;
        particles = w.particles;
        if (!ok && built) fprintf(stderr, "rank %d: step failed: %s\n", rank, dfm_world_last_error(w.world));
        bench_workload_free(&w);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double max_elapsed = 0.0;
    long long total_active = 0, total_particles = 0, local_active = active, local_particles = particles;
    int all_ok = 0;
    int32_t total_envs = 0;
    MPI_Reduce(&elapsed, &max_elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local_active, &total_active, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local_particles, &total_particles, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &total_envs, 1, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0 && !all_ok) {
        fprintf(stderr, "mpi_cloth_lift: a rank failed (see above); no figures reported\n");
    } else if (rank == 0) {
        double env_steps_per_s = max_elapsed > 0.0 ? (double)total_envs * steps / max_elapsed : 0.0;
        printf("| ranks | backend | envs | particles | env-steps/s | ms/env-step | contacts active |\n"
               "|---|---|---|---|---|---|---|\n| %d | %s | %d | %lld | %.1f | %.4f | %lld |\n",
               size, backend == DFM_BACKEND_CUDA ? "cuda" : "cpu", total_envs, total_particles, env_steps_per_s,
               env_steps_per_s > 0 ? 1e3 / env_steps_per_s : 0.0, total_active);
        FILE* f = fopen(json, "w");
        if (f) {
            fprintf(
                f,
                "{\"tool\": \"mpi_cloth_lift\", \"ranks\": %d, \"runs\": [{\"workload\": \"cloth-lift\", \"backend\": "
                "\"%s\", \"envs\": %d, \"particles\": %lld, \"steps\": %d, \"env_steps_per_s\": %.6g, "
                "\"wall_ms_per_env_step\": %.6g, \"contacts_active\": %lld}]}\n",
                size, backend == DFM_BACKEND_CUDA ? "cuda" : "cpu", total_envs, total_particles, steps, env_steps_per_s,
                env_steps_per_s > 0 ? 1e3 / env_steps_per_s : 0.0, total_active);
            fclose(f);
        } else {
            all_ok = 0;
        }
    }
    MPI_Finalize();
    return rank == 0 ? (all_ok ? 0 : 1) : 0;
}
