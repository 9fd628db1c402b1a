/// Sample 01 (headless): a 0.5 m cloth pinned at two corners swings down under gravity and
/// settles. Writes an OBJ every N frames and prints a one-line summary. Exits non-zero if the
/// simulation produced NaN, the cloth did not settle, or a pinned corner moved.
///
/// Usage: 01_hanging_cloth [--frames N] [--every K] [--out DIR] [--res R] [--backend cpu|auto]
#include <dfm/dfm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "obj_writer.h"
#include "sample_log.h"

int main(int argc, char** argv) {
    int frames = 300, every = 30, res = 16;
    const char* out = "out/01_hanging_cloth";
    int backend = DFM_BACKEND_AUTO;
    for (int i = 1; i < argc; ++i) {
        // clang-format off
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--every") && i + 1 < argc) every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--res") && i + 1 < argc) res = atoi(argv[++i]);
        // clang-format on
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            ++i;
            backend = !strcmp(argv[i], "cpu") ? DFM_BACKEND_CPU : DFM_BACKEND_AUTO;
        } else {
            fprintf(stderr, "usage: %s [--frames N] [--every K] [--out DIR] [--res R] [--backend cpu|auto]\n", argv[0]);
            return 2;
        }
    }
    if (frames < 1 || every < 1 || res < 2) {
        fprintf(stderr, "frames, every must be >= 1 and res >= 2\n");
        return 2;
    }
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = backend;
    wd.substeps = 10;
    wd.iterations = 10;
    wd.log_fn = dfm_sample_log;
    wd.log_level = DFM_LOG_WARNING;
    dfm_world* world = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &world) != DFM_OK) {
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        return 1;
    }
    int32_t nv, nt;
    dfm_cloth_grid_counts(res, res, &nv, &nt);
    float* x = malloc(sizeof(float) * 3 * (size_t)nv);
    float* v = malloc(sizeof(float) * 3 * (size_t)nv);
    int32_t* tris = malloc(sizeof(int32_t) * 3 * (size_t)nt);
    const float size = 0.5f, origin[3] = {-0.25f, -0.25f, 1.0f}, au[3] = {size, 0, 0}, av[3] = {0, size, 0};
    dfm_cloth_grid_generate(res, res, origin, au, av, x, tris);
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.positions = x;
    cd.vertex_count = nv;
    cd.triangles = tris;
    cd.triangle_count = nt;
    cd.air_drag = 2.0f; /* still air: lets the swing settle */
    dfm_body_id cloth;
    if (dfm_world_add_cloth(world, &cd, &cloth) != DFM_OK) {
        fprintf(stderr, "cloth: %s\n", dfm_world_last_error(world));
        return 1;
    }
    int32_t pins[2] = {res * (res - 1), res * res - 1};
    float pin0[3];
    memcpy(pin0, x + 3 * pins[0], sizeof(pin0));
    dfm_body_set_vertex_mode(world, cloth, pins, 2, DFM_VERTEX_PINNED);
    if (dfm_sample_make_dir(out) != 0) {
        fprintf(stderr, "cannot create %s\n", out);
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    double peak_speed = 0.0, final_speed = 0.0;
    int written = 0;
    clock_t t0 = clock();
    for (int f = 1; f <= frames; ++f) {
        if (dfm_world_step(world, dt) != DFM_OK) {
            fprintf(stderr, "step %d: %s\n", f, dfm_world_last_error(world));
            return 1;
        }
        dfm_body_get_velocities(world, cloth, 0, nv, v, 0);
        double vmax = 0.0;
        for (int32_t i = 0; i < nv; ++i)
            vmax = fmax(vmax, sqrt((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] +
                                   (double)v[3 * i + 2] * v[3 * i + 2]));
        if (!(vmax <= peak_speed)) peak_speed = vmax;
        final_speed = vmax;
        if (f % every == 0 || f == frames) {
            char path[1200];
            dfm_body_get_positions(world, cloth, 0, nv, x, 0);
            snprintf(path, sizeof(path), "%s/frame_%04d.obj", out, f);
            if (dfm_sample_write_obj(path, x, nv, tris, nt) != 0) {
                fprintf(stderr, "cannot write %s\n", path);
                return 1;
            }
            ++written;
        }
    }
    double wall = (double)(clock() - t0) / CLOCKS_PER_SEC;
    dfm_body_get_positions(world, cloth, 0, nv, x, 0);
    double zmin = 1e30;
    for (int32_t i = 0; i < nv; ++i) zmin = fmin(zmin, x[3 * i + 2]);
    int pinned_ok = memcmp(x + 3 * pins[0], pin0, sizeof(pin0)) == 0;
    int settled = isfinite(final_speed) && final_speed < 0.05 * peak_speed;
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(world, &st);
    printf("01_hanging_cloth: %d particles, %d colors, %d frames (%.1f s sim) in %.2f s CPU time; peak speed %.3f m/s, "
           "final %.4f m/s, lowest z %.3f m; %d OBJ files in %s; %s\n",
           st.particle_count, st.color_count, frames, frames * dt, wall, peak_speed, final_speed, zmin, written, out,
           (settled && pinned_ok) ? "settled" : "NOT SETTLED");
    free(x);
    free(v);
    free(tris);
    dfm_world_destroy(world);
    return (settled && pinned_ok) ? 0 : 1;
}
