/// Sample 02 (headless): two cloths dropped from 0.3 m, one onto a sphere and one onto a box,
/// both above a ground plane. Writes OBJ frames (cloths and the two shapes' outlines as boxes)
/// and prints a summary: the deepest penetration seen, how high each cloth ends, and whether the
/// motion settled. Exits non-zero on NaN, a penetration deeper than 5 mm, or no settling.
///
/// Usage: 02_cloth_drop [--res N] [--frames N] [--every K] [--out DIR] [--backend cpu|auto]
#include <dfm/dfm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "obj_writer.h"

int main(int argc, char** argv) {
    int res = 20, frames = 180, every = 30;
    const char* out = "out/02_cloth_drop";
    int backend = DFM_BACKEND_AUTO;
    for (int i = 1; i < argc; ++i) {
        // clang-format off
        if (!strcmp(argv[i], "--res") && i + 1 < argc) res = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--every") && i + 1 < argc) every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        // clang-format on
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            ++i;
            backend = !strcmp(argv[i], "cpu") ? DFM_BACKEND_CPU : DFM_BACKEND_AUTO;
        } else {
            fprintf(stderr, "usage: %s [--res N] [--frames N] [--every K] [--out DIR] [--backend cpu|auto]\n", argv[0]);
            return 2;
        }
    }
    if (res < 3 || frames < 1 || every < 1) {
        fprintf(stderr, "need res >= 3, frames >= 1, every >= 1\n");
        return 2;
    }
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = backend;
    wd.substeps = 5;
    dfm_world* world = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &world) != DFM_OK) {
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        return 1;
    }
    /* Shapes: a sphere (r 0.1 m) at x = -0.3 and a box (0.2 x 0.2 x 0.1 m) at x = +0.3, on a ground plane. */
    dfm_shape_def sphere = dfm_shape_def_default(), box = dfm_shape_def_default(), ground = dfm_shape_def_default();
    sphere.type = DFM_SHAPE_SPHERE;
    sphere.radius = 0.1f;
    box.type = DFM_SHAPE_BOX;
    box.half_extents[0] = box.half_extents[1] = 0.1f;
    box.half_extents[2] = 0.05f;
    ground.type = DFM_SHAPE_PLANE;
    sphere.host_body = 1;
    box.host_body = 2;
    ground.host_body = 3;
    dfm_shape_id ids[3];
    const dfm_shape_def* defs[3] = {&sphere, &box, &ground};
    for (int k = 0; k < 3; ++k)
        if (dfm_world_add_shape(world, defs[k], &ids[k]) != DFM_OK) {
            fprintf(stderr, "shape: %s\n", dfm_world_last_error(world));
            return 1;
        }
    dfm_shape_state st[3];
    memset(st, 0, sizeof(st));
    const float centres[3][3] = {{-0.3f, 0, 0.1f}, {0.3f, 0, 0.05f}, {0, 0, 0}};
    for (int k = 0; k < 3; ++k) {
        memcpy(st[k].position, centres[k], sizeof(centres[k]));
        st[k].rotation[3] = 1.0f;
        st[k].aabb_min[0] = 1.0f; /* dfm computes the AABBs */
        st[k].aabb_max[0] = -1.0f;
    }
    dfm_world_set_shape_states(world, ids, 0, st, 0, 3);
    /* Two 0.4 m cloths 0.3 m above the shapes' tops. */
    int32_t nv, nt;
    dfm_cloth_grid_counts(res, res, &nv, &nt);
    float* x = malloc(sizeof(float) * 3 * (size_t)nv * 2);
    float* v = malloc(sizeof(float) * 3 * (size_t)nv * 2);
    int32_t* tris = malloc(sizeof(int32_t) * 3 * (size_t)nt);
    dfm_body_id cloth[2];
    for (int c = 0; c < 2; ++c) {
        const float top = c == 0 ? 0.2f : 0.1f;
        const float origin[3] = {centres[c][0] - 0.2f, -0.2f, top + 0.3f}, au[3] = {0.4f, 0, 0}, av[3] = {0, 0.4f, 0};
        dfm_cloth_grid_generate(res, res, origin, au, av, x, tris);
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.positions = x;
        cd.vertex_count = nv;
        cd.triangles = tris;
        cd.triangle_count = nt;
        cd.air_drag = 0.5f;
        if (dfm_world_add_cloth(world, &cd, &cloth[c]) != DFM_OK) {
            fprintf(stderr, "cloth: %s\n", dfm_world_last_error(world));
            return 1;
        }
    }
    if (dfm_sample_make_dir(out) != 0) {
        fprintf(stderr, "cannot create %s\n", out);
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    float worst_pen = 0.0f, final_speed = 0.0f, peak_speed = 0.0f;
    int written = 0;
    clock_t t0 = clock();
    for (int f = 1; f <= frames; ++f) {
        if (dfm_world_step(world, dt) != DFM_OK) {
            fprintf(stderr, "step %d: %s\n", f, dfm_world_last_error(world));
            return 1;
        }
        dfm_contact_stats cs = dfm_contact_stats_init();
        dfm_world_get_contact_stats(world, &cs);
        if (!(cs.max_penetration <= worst_pen)) worst_pen = cs.max_penetration;
        dfm_world_get_velocities(world, 0, 2 * nv, v, 0);
        float vmax = 0.0f;
        for (int32_t i = 0; i < 2 * nv; ++i)
            vmax = fmaxf(vmax, sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
        if (!(vmax <= peak_speed)) peak_speed = vmax;
        final_speed = vmax;
        if (f % every == 0 || f == frames) {
            char path[1200];
            int bad = 0;
            for (int c = 0; c < 2; ++c) {
                dfm_body_get_positions(world, cloth[c], 0, nv, x, 0);
                snprintf(path, sizeof(path), "%s/cloth%d_%04d.obj", out, c, f);
                bad |= dfm_sample_write_obj(path, x, nv, tris, nt) != 0;
            }
            if (bad) {
                fprintf(stderr, "cannot write frames into %s\n", out);
                return 1;
            }
            ++written;
        }
    }
    double wall = (double)(clock() - t0) / CLOCKS_PER_SEC;
    float zmin[2], zmax[2];
    for (int c = 0; c < 2; ++c) {
        dfm_body_get_positions(world, cloth[c], 0, nv, x, 0);
        zmin[c] = 1e30f;
        zmax[c] = -1e30f;
        for (int32_t i = 0; i < nv; ++i) {
            zmin[c] = fminf(zmin[c], x[3 * i + 2]);
            zmax[c] = fmaxf(zmax[c], x[3 * i + 2]);
        }
    }
    float reaction[3][3];
    dfm_world_get_shape_reactions(world, ids, 3, &reaction[0][0], NULL, 0);
    int ok = isfinite(final_speed) && worst_pen < 0.005f && final_speed < 0.2f * peak_speed;
    printf("02_cloth_drop: 2 x %d particles, %d frames in %.2f s CPU; deepest penetration %.2f mm; sphere cloth spans "
           "z %.3f..%.3f m (top 0.200), box cloth z %.3f..%.3f m (top 0.100); support forces: sphere %.3f N, box "
           "%.3f N, ground %.3f N; final speed %.3f m/s (peak %.2f); %d frame sets in %s; %s\n",
           nv, frames, wall, worst_pen * 1e3, zmin[0], zmax[0], zmin[1], zmax[1], reaction[0][2], reaction[1][2],
           reaction[2][2], final_speed, peak_speed, written, out, ok ? "settled" : "FAILED");
    free(x);
    free(v);
    free(tris);
    dfm_world_destroy(world);
    return ok ? 0 : 1;
}
