/// Sample 05 (headless): the gripper scene of sample 03 while the deformable solver is swapped at
/// run time every N frames: vbd/cuda -> vbd/cpu -> xpbd/cpu -> vbd/cuda -> ... (a CUDA stage is
/// skipped where dfm_world_set_solver answers DFM_ERROR_DEVICE_UNAVAILABLE). A 0.3 m cloth lies on
/// a table with its end hanging over the edge; two box pads close on the hanging strip, pull it
/// off and lift it. Prints every swap (the library's info log says what carried over) and a
/// summary; exits non-zero if a step or a swap other than an unavailable CUDA fails, positions
/// become non-finite or jump (any particle faster than 20 m/s), or the lift did not happen: at the
/// end the cloth's centroid must be within 0.15 m of the pads' midpoint (the pads pull the strip
/// 0.2 m away from the table and lift it 0.2 m, so a held cloth hangs around them; one left on the
/// table or dropped is far away). The pads close on the strip where it hangs when the squeeze
/// begins (sample 03's law); with a fixed closing position they missed it and the cloth fell.
/// Known defect (issue 13): with xpbd in the cycle (`--cycle all`, the default) the cloth is not
/// held: the xpbd stage throws it up off the slab, after which it falls through. That cycle
/// reports FAILED and CTest runs it as a known failure (WILL_FAIL) until xpbd is fixed; the vbd
/// cycle (`--cycle vbd`: vbd/cpu and vbd/cuda) holds.
///
/// Usage: 05_solver_swap [--res N] [--every FRAMES] [--frames N] [--cycle all|vbd] [--out DIR]
#include <dfm/dfm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj_writer.h"
#include "dfm_scene_gripper_table.h"
#include "sample_log.h"

static double smooth(double t, double t0, double t1) {
    double s = (t - t0) / (t1 - t0);
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    return s * s * (3 - 2 * s);
}

int main(int argc, char** argv) {
    int res = 12, every = 60, frames = 300, vbd_only = 0;
    const char* out = "out/05_solver_swap";
    for (int i = 1; i < argc; ++i) {
        // clang-format off
        if (!strcmp(argv[i], "--res") && i + 1 < argc) res = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--every") && i + 1 < argc) every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        // clang-format on
        else if (!strcmp(argv[i], "--cycle") && i + 1 < argc) {
            ++i;
            if (!strcmp(argv[i], "vbd"))
                vbd_only = 1;
            else if (strcmp(argv[i], "all") != 0) {
                fprintf(stderr, "--cycle takes all or vbd\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: %s [--res N] [--every FRAMES] [--frames N] [--cycle all|vbd] [--out DIR]\n",
                    argv[0]);
            return 2;
        }
    }
    if (res < 4 || every < 1 || frames < 1) {
        fprintf(stderr, "need res >= 4, every >= 1, frames >= 1\n");
        return 2;
    }
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = DFM_BACKEND_CPU;
    wd.substeps = 5;
    wd.iterations = 10;
    wd.log_fn = dfm_sample_log;
    wd.log_level = DFM_LOG_INFO;
    dfm_world* world = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &world) != DFM_OK) {
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        return 1;
    }
    for (int32_t i = 0; i < dfm_solver_count(); ++i) {
        dfm_solver_info info = dfm_solver_info_init();
        if (dfm_solver_get_info(i, &info) == DFM_OK)
            printf("provider %s:%s%s - %s\n", info.name, (info.backends & DFM_SOLVER_BACKEND_CPU) ? " cpu" : "",
                   (info.backends & DFM_SOLVER_BACKEND_CUDA) ? " cuda" : "", info.description);
    }
    const float pinch_z = DFM_SCENE_GRIPPER_PINCH_Z;
    dfm_scene_gripper_table scene;
    if (dfm_scene_gripper_table_build(world, res, 0.8f, 0, &scene) != DFM_OK || dfm_sample_make_dir(out) != 0) {
        fprintf(stderr, "scene/output: %s\n", dfm_world_last_error(world));
        return 1;
    }
    dfm_shape_id* ids = scene.ids; /* slab, pad 0, pad 1 */
    const int32_t pad0 = scene.first_pad;
    dfm_shape_state* st = scene.states;
    const float* pad_open = scene.pad_open;
    const dfm_body_id cloth = scene.cloth;
    const int32_t nv = scene.vertex_count, nt = scene.triangle_count;
    float* x = scene.positions;
    const int32_t* tris = scene.triangles;
    float* v = malloc(sizeof(float) * 3 * (size_t)nv);
    static const char* const cycle_name[] = {"vbd", "vbd", "xpbd"};
    static const int32_t cycle_backend[] = {DFM_BACKEND_CUDA, DFM_BACKEND_CPU, DFM_BACKEND_CPU};
    const float dt = 1.0f / 60.0f;
    int stage = 0, swaps = 0, skipped = 0, ok = 1;
    float closed[2] = {pad_open[0], pad_open[1]}; /* set when the squeeze begins */
    float worst_speed = 0.0f;
    for (int f = 0; f < frames && ok; ++f) {
        if (f % every == 0) {
            /* Next stage of the cycle; CUDA stages are skipped where no device is usable. */
            for (int tries = 0; tries < 3; ++tries) {
                int s = stage++ % (vbd_only ? 2 : 3);
                dfm_result r = dfm_world_set_solver(world, cycle_name[s], cycle_backend[s]);
                if (r == DFM_OK) {
                    printf("frame %d: solver %s/%s\n", f, cycle_name[s],
                           cycle_backend[s] == DFM_BACKEND_CUDA ? "cuda" : "cpu");
                    ++swaps;
                    break;
                }
                if (r == DFM_ERROR_DEVICE_UNAVAILABLE) {
                    printf("frame %d: %s/cuda skipped (%s)\n", f, cycle_name[s], dfm_result_string(r));
                    ++skipped;
                    continue;
                }
                fprintf(stderr, "frame %d: swap to %s failed: %s\n", f, cycle_name[s], dfm_world_last_error(world));
                ok = 0;
                break;
            }
        }
        double t = (f + 1) * dt;
        double sq = smooth(t, 0.8, 1.2), up = smooth(t, 1.4, 2.6);
        if (t >= 0.8 && t - dt < 0.8) {
            /* Close on the hanging strip where it is (sample 03's law): its mean x at the pinch
             * height, each pad's inner face 1 mm past its contact surface. */
            const float strip_x = dfm_scene_gripper_table_strip_x(world, &scene, x);
            const float reach = scene.cloth_def.contact_radius + scene.pad.half_extents[0] - 0.001f;
            closed[0] = strip_x - reach;
            closed[1] = strip_x + reach;
        }
        for (int k = 0; k < 2; ++k) {
            st[pad0 + k].position[0] = (float)(pad_open[k] + (closed[k] - pad_open[k]) * sq + 0.2 * up);
            st[pad0 + k].position[2] = (float)(pinch_z + 0.2 * up);
        }
        dfm_result sr = dfm_world_set_shape_states(world, ids + pad0, 0, st + pad0, 0, 2);
        if (sr == DFM_OK) sr = dfm_world_step(world, dt);
        if (sr != DFM_OK) {
            fprintf(stderr, "frame %d: %s\n", f, dfm_world_last_error(world));
            ok = 0;
            break;
        }
        dfm_body_get_positions(world, cloth, 0, nv, x, 0);
        dfm_body_get_velocities(world, cloth, 0, nv, v, 0);
        for (int32_t i = 0; i < nv; ++i) {
            float s = sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
            if (!isfinite(x[3 * i] + x[3 * i + 1] + x[3 * i + 2]) || !(s <= 20.0f)) ok = 0;
            if (s > worst_speed || !isfinite(s)) worst_speed = s;
        }
        if ((f + 1) % every == 0 || f + 1 == frames) {
            char path[1200];
            snprintf(path, sizeof(path), "%s/cloth_%04d.obj", out, f + 1);
            dfm_sample_write_obj(path, x, nv, tris, nt);
        }
    }
    /* Held: the cloth came off the table with the pads, its centroid within 0.15 m of the
     * pads' midpoint at the end (a cloth left on the table is 0.2 m away, a dropped one far
     * below; a held 0.3 m cloth hangs about 0.1 m below the pads). */
    double c[3] = {0, 0, 0};
    for (int32_t i = 0; i < nv; ++i)
        for (int a = 0; a < 3; ++a) c[a] += x[3 * i + a] / nv;
    const double mid[3] = {0.5 * (st[pad0].position[0] + st[pad0 + 1].position[0]), st[pad0].position[1],
                           st[pad0].position[2]};
    const double dist = sqrt((c[0] - mid[0]) * (c[0] - mid[0]) + (c[1] - mid[1]) * (c[1] - mid[1]) +
                             (c[2] - mid[2]) * (c[2] - mid[2]));
    const int lifted = dist < 0.15;
    printf("05_solver_swap: %d frames, %d swaps, %d CUDA stages skipped, fastest particle %.3f m/s, cloth centroid "
           "(%.3f %.3f %.3f) m at the end, %.3f m from the pads (%s); %s\n",
           frames, swaps, skipped, (double)worst_speed, c[0], c[1], c[2], dist,
           lifted ? "held by the pads" : "not held: more than 0.15 m from the pads", ok && lifted ? "OK" : "FAILED");
    ok = ok && lifted;
    free(v);
    dfm_scene_gripper_table_free(&scene);
    dfm_world_destroy(world);
    return ok ? 0 : 1;
}
