/// Sample 03 (headless): a two-finger gripper lifts a cloth from a table.
///
/// A 0.3 m cloth lies on a table top (a 2 cm slab on a narrower base) with 15 cm hanging over the
/// slab's edge; the overhang drapes down past the slab and hangs free. Two box pads (kinematic
/// host bodies, moved every tick through dfm_world_set_shape_states) wait open on both sides of
/// the hanging strip (one under the slab), close on it (squeeze), pull it away from the table,
/// lift it 0.3 m, hold it for 2 s and open (release). Friction between pads and cloth carries the cloth's weight. Writes cloth and
/// pad OBJ frames and prints a summary; exits non-zero unless the cloth followed the pads during
/// the hold (or, with --mu 0, unless it fell).
///
/// Usage: 03_gripper_lift [--res N] [--mu MU] [--slab-mu MU] [--every K] [--out DIR]
///        [--backend cpu|cuda|auto] [--deterministic] [--squeeze MM] [--trace] [--body-translation]
///        [--force-bound] [--worst] [--worst-support] [--substeps N] [--iterations N]
/// --substeps, --iterations: solver counts (default 5 x 10).
/// --slab-mu: the slab's friction (default 0.3; docs/physics.md on what Coulomb needs there).
/// --force-bound: the force bound below is part of the verdict (issue 13; it does not hold yet:
/// the CTest sample_03_gripper_lift_force_bound_known_failure runs it, WILL_FAIL).
/// --worst: prints the contact records of the step whose reactions went furthest past the bound
/// (samples/common/worst_contacts.h; docs/physics.md, "Sample 03's force bound");
/// --worst-support: the same, scoring the slab and base only.
/// --body-translation: run with DFM_FEATURE_BODY_TRANSLATION (docs/physics.md).
/// --trace: one line per 0.1 s (and per phase change) with the cloth's centroid, lowest vertex
/// and the contact counters.
/// --squeeze: how far each pad presses past the cloth surface, mm (default 1, what this comment
/// always said; the code pressed 0.2 mm, a tenth of the contact radius; hold rates on CUDA in
/// docs/perf.md).
#include <dfm/dfm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "obj_writer.h"
#include "dfm_scene_gripper_table.h"
#include "sample_log.h"
#include "worst_contacts.h"

/// Gripper phases (s).
enum { PH_SETTLE, PH_SQUEEZE, PH_PULL, PH_LIFT, PH_HOLD, PH_RELEASE, PH_DONE };
static const double k_phase_end[] = {0.8, 1.2, 2.4, 3.4, 5.4, 5.9, 6.9};

static int phase_at(double t) {
    int p = 0;
    while (p < PH_DONE && t >= k_phase_end[p]) ++p;
    return p;
}

/// Smooth 0 -> 1 ramp over phase p at time t.
static double ramp(double t, int p) {
    double t0 = p == 0 ? 0.0 : k_phase_end[p - 1], t1 = k_phase_end[p];
    double s = (t - t0) / (t1 - t0);
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    return s * s * (3 - 2 * s);
}

int main(int argc, char** argv) {
    int res = 16, every = 15, substeps = 5, iterations = 10;
    float mu = 0.8f, slab_mu = 0.3f;
    const char* out = "out/03_gripper_lift";
    int backend = DFM_BACKEND_AUTO, deterministic = 0, trace = 0, body_translation = 0, worst_probe = 0,
        force_bound = 0;
    float squeeze_mm = 1.0f;
    for (int i = 1; i < argc; ++i) {
        // clang-format off
        if (!strcmp(argv[i], "--res") && i + 1 < argc) res = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mu") && i + 1 < argc) mu = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--slab-mu") && i + 1 < argc) slab_mu = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--every") && i + 1 < argc) every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--squeeze") && i + 1 < argc) squeeze_mm = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--deterministic")) deterministic = 1;
        else if (!strcmp(argv[i], "--trace")) trace = 1;
        else if (!strcmp(argv[i], "--body-translation")) body_translation = 1;
        else if (!strcmp(argv[i], "--worst")) worst_probe = 1;
        else if (!strcmp(argv[i], "--worst-support")) worst_probe = 2;
        else if (!strcmp(argv[i], "--force-bound")) force_bound = 1;
        else if (!strcmp(argv[i], "--substeps") && i + 1 < argc) substeps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atoi(argv[++i]);
        // clang-format on
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            ++i;
            backend = !strcmp(argv[i], "cpu")    ? DFM_BACKEND_CPU
                      : !strcmp(argv[i], "cuda") ? DFM_BACKEND_CUDA
                                                 : DFM_BACKEND_AUTO;
        } else {
            fprintf(stderr,
                    "usage: %s [--res N] [--mu MU] [--slab-mu MU] [--every K] [--out DIR] [--backend cpu|cuda|auto] "
                    "[--deterministic] [--squeeze MM] [--trace] [--body-translation] [--force-bound] [--worst] "
                    "[--worst-support] [--substeps N] [--iterations N]\n",
                    argv[0]);
            return 2;
        }
    }
    if (res < 4 || every < 1 || substeps < 1 || iterations < 1 || !(mu >= 0.0f) ||
        !(squeeze_mm >= 0.0f && squeeze_mm < 20.0f)) {
        fprintf(stderr, "need res >= 4, every >= 1, substeps >= 1, iterations >= 1, mu >= 0, 0 <= squeeze < 20 mm\n");
        return 2;
    }
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = backend;
    wd.deterministic = deterministic;
    if (body_translation) wd.feature_flags |= DFM_FEATURE_BODY_TRANSLATION;
    wd.substeps = substeps;
    wd.iterations = iterations;
    wd.log_fn = dfm_sample_log;
    dfm_world* world = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &world) != DFM_OK) {
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        return 1;
    }
    /* Table: a slab whose top is z = 0 and whose edge is x = 0.2, on a base inset by 5 cm; two
     * box pads (kinematic host bodies, moved every tick through dfm_world_set_shape_states) wait
     * open at the pinch height; the cloth lies on the slab with 15 cm hanging over its edge. */
    const float edge = DFM_SCENE_GRIPPER_TABLE_EDGE, pinch_z = DFM_SCENE_GRIPPER_PINCH_Z;
    dfm_scene_gripper_table scene;
    if (dfm_scene_gripper_table_build(world, res, mu, slab_mu, 1, &scene) != DFM_OK) {
        fprintf(stderr, "scene: %s\n", dfm_world_last_error(world));
        return 1;
    }
    dfm_shape_id* ids = scene.ids; /* slab, base, pad 0, pad 1 */
    dfm_shape_state* st = scene.states;
    const dfm_shape_def pad = scene.pad;
    const float* pad_x = scene.pad_open;
    const dfm_cloth_def cd = scene.cloth_def;
    const dfm_body_id cloth = scene.cloth;
    const int32_t nv = scene.vertex_count, nt = scene.triangle_count;
    float* x = scene.positions;
    const int32_t* tris = scene.triangles;
    dfm_body_info info = dfm_body_info_init();
    dfm_body_get_info(world, cloth, &info);
    if (dfm_sample_make_dir(out) != 0) {
        fprintf(stderr, "cannot create %s\n", out);
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    const int frames = (int)(k_phase_end[PH_DONE] / dt + 0.5);
    double worst_follow = 0, hold_dz0 = 0, hold_slide = 0, lift_cz0 = 0, hold_end_cz = 0, end_cz = 0;
    int32_t on_table = 0, draped = 0;
    float strip_x = edge + cd.contact_radius;
    const float squeeze = 1e-3f * squeeze_mm; /* each pad presses this far past the cloth surface, m */
    const float pull = 0.3f, lift = 0.3f;
    float closed[2] = {pad_x[0], pad_x[1]};
    int written = 0;
    /* The force bound (issue 13, docs/bench.md): the slab and base carry at most the cloth's
     * weight, and the pads' vertical part what they lift, each within 3 W; nothing is pulled. */
    dfm_body_info bi = dfm_body_info_init();
    const double weight = dfm_body_get_info(world, cloth, &bi) == DFM_OK ? (double)bi.total_mass * 9.81 : 0.0;
    double peak_support_w = 0.0, peak_pad_vertical_w = 0.0, min_push_w = 0.0, min_pad_push_w = 0.0;
    dfm_worst_contacts worst = {0};
    clock_t c0 = clock();
    for (int f = 0; f < frames; ++f) {
        double t = (f + 1) * dt;
        int ph = phase_at(t);
        /* Scripted pad path (pad centres). */
        float px[2], pz = pinch_z;
        if (ph == PH_SQUEEZE && phase_at(t - dt) == PH_SETTLE) {
            strip_x = dfm_scene_gripper_table_strip_x(world, &scene, x); /* where the hanging strip is now */
            closed[0] = strip_x - cd.contact_radius - pad.half_extents[0] + squeeze;
            closed[1] = strip_x + cd.contact_radius + pad.half_extents[0] - squeeze;
        }
        if (ph == PH_SETTLE) {
            px[0] = pad_x[0];
            px[1] = pad_x[1];
        } else if (ph == PH_SQUEEZE) {
            double s = ramp(t, PH_SQUEEZE);
            px[0] = (float)(pad_x[0] + (closed[0] - pad_x[0]) * s);
            px[1] = (float)(pad_x[1] + (closed[1] - pad_x[1]) * s);
        } else if (ph == PH_PULL) {
            double s = ramp(t, PH_PULL);
            px[0] = (float)(closed[0] + pull * s);
            px[1] = (float)(closed[1] + pull * s);
        } else if (ph == PH_LIFT || ph == PH_HOLD) {
            double s = ph == PH_LIFT ? ramp(t, PH_LIFT) : 1.0;
            px[0] = closed[0] + pull;
            px[1] = closed[1] + pull;
            pz = (float)(pinch_z + lift * s);
        } else {
            double s = ramp(t, PH_RELEASE);
            px[0] = (float)(closed[0] + pull - 0.04 * s);
            px[1] = (float)(closed[1] + pull + 0.04 * s);
            pz = pinch_z + lift;
        }
        for (int k = 0; k < 2; ++k) {
            st[2 + k].position[0] = px[k];
            st[2 + k].position[2] = pz;
        }
        if (dfm_world_set_shape_states(world, ids + 2, 0, st + 2, 0, 2) != DFM_OK ||
            dfm_world_step(world, dt) != DFM_OK) {
            fprintf(stderr, "t %.2f: %s\n", t, dfm_world_last_error(world));
            return 1;
        }
        {
            float rf[12];
            double score = 0.0; /* this step's worst reaction over its bound (3 W) */
            if (weight > 0.0 && dfm_world_get_shape_reactions(world, ids, scene.shape_count, rf, NULL, 0) == DFM_OK)
                for (int k = 0; k < scene.shape_count; ++k) {
                    const float* F = rf + 3 * k;
                    if (k >= scene.first_pad) {
                        peak_pad_vertical_w = fmax(peak_pad_vertical_w, fabs((double)F[2]) / weight);
                        if (worst_probe != 2) score = fmax(score, fabs((double)F[2]) / weight / 3.0);
                        /* pad 0 (the lower x) is pushed toward -x, pad 1 toward +x */
                        min_pad_push_w = fmin(min_pad_push_w, (k == scene.first_pad ? -F[0] : F[0]) / weight);
                    } else {
                        const double m = sqrt((double)F[0] * F[0] + (double)F[1] * F[1] + (double)F[2] * F[2]);
                        peak_support_w = fmax(peak_support_w, m / weight);
                        min_push_w = fmin(min_push_w, -(double)F[2] / weight); /* supports are pushed down */
                        score = fmax(score, m / weight / 3.0);
                    }
                }
            if (worst_probe) dfm_worst_contacts_offer(&worst, world, t, score, rf, scene.shape_count);
        }
        dfm_body_get_positions(world, cloth, 0, nv, x, 0);
        double cx = 0, cz = 0;
        for (int32_t i = 0; i < nv; ++i) {
            cx += x[3 * i];
            cz += x[3 * i + 2];
        }
        cx /= nv;
        cz /= nv;
        double mid_x = 0.5 * (px[0] + px[1]);
        if (trace && ((f + 1) % 6 == 0 || phase_at(t - dt) != ph)) {
            float lo = x[2];
            for (int32_t i = 1; i < nv; ++i) lo = fminf(lo, x[3 * i + 2]);
            dfm_contact_stats ts = dfm_contact_stats_init();
            dfm_world_get_contact_stats(world, &ts);
            printf("trace t %.3f phase %d: centroid (%.4f, %.4f) m, lowest z %.4f m, pads x %.4f %.4f z %.4f; "
                   "contacts %d (p %d e %d f %d), max penetration %.2e m\n",
                   t, ph, cx, cz, (double)lo, (double)px[0], (double)px[1], (double)pz, ts.active, ts.particle_contacts,
                   ts.edge_contacts, ts.face_contacts, (double)ts.max_penetration);
        }
        if (ph == PH_LIFT && phase_at(t - dt) == PH_PULL) lift_cz0 = cz;
        if (ph == PH_HOLD) {
            double off = sqrt((cx - mid_x) * (cx - mid_x) + (cz - pz) * (cz - pz));
            if (off > worst_follow) worst_follow = off;
            if (phase_at(t - dt) == PH_LIFT) hold_dz0 = cz - pz;
            hold_slide = (cz - pz) - hold_dz0;
            on_table = 0;
            for (int32_t i = 0; i < nv; ++i) on_table += x[3 * i] < edge && x[3 * i + 2] < 0.01f;
            /* Vertices lying on a pad's top face: the cloth hangs over the pad like a towel on a rail,
             * carried by the top face's normal force, not by the pinch's friction. */
            draped = 0;
            for (int32_t i = 0; i < nv; ++i)
                for (int k = 0; k < 2; ++k)
                    draped += fabsf(x[3 * i] - px[k]) < pad.half_extents[0] + cd.contact_radius &&
                              x[3 * i + 2] > pz + pad.half_extents[2];
            hold_end_cz = cz;
        }
        end_cz = cz;
        if ((f + 1) % every == 0 || f + 1 == frames) {
            char path[1200];
            snprintf(path, sizeof(path), "%s/cloth_%04d.obj", out, f + 1);
            int bad = dfm_sample_write_obj(path, x, nv, tris, nt) != 0;
            float centres[6] = {px[0], 0, pz, px[1], 0, pz};
            float halves[6] = {pad.half_extents[0], pad.half_extents[1], pad.half_extents[2],
                               pad.half_extents[0], pad.half_extents[1], pad.half_extents[2]};
            snprintf(path, sizeof(path), "%s/pads_%04d.obj", out, f + 1);
            bad |= dfm_sample_write_boxes_obj(path, centres, halves, 2) != 0;
            if (bad) {
                fprintf(stderr, "cannot write frames into %s\n", out);
                return 1;
            }
            ++written;
        }
    }
    double wall = (double)(clock() - c0) / CLOCKS_PER_SEC;
    double rise = hold_end_cz - lift_cz0;
    dfm_contact_stats cs = dfm_contact_stats_init();
    dfm_world_get_contact_stats(world, &cs);
    /* Held: the cloth came off the table and rose with the pads (its centroid by at least 0.15 m:
     * the hanging part ends lower than it started), during the 2 s hold its centroid stayed
     * within follow_bound of the pads' centre (it hangs from the pinch: a 0.3 m cloth hung
     * straight from a pinch at its very edge has its centroid half its side, 0.15 m, below the
     * pinch line, which may lie at the pads' lower edge, a pad half height below their centre;
     * session 14 saw a CUDA run carried 0.299 m up and sliding 1.7 mm in the pinch fail the former
     * 0.15 m at 0.159 m) and moved less than 3 cm vertically
     * relative to them (the bunched cloth settles by 1-2 cm; sliding out of the pinch drops it,
     * as the mu = 0 run shows). A frictionless cloth can still be carried by draping over a pad's top
     * face (seen after a change of summation order: the part pulled off the table fell across the
     * inner pad): the mu = 0 control accepts that, and only that, as a way to rise. The friction
     * run drapes partly too (the summary prints how many vertices lie over a pad top), so this
     * sample shows a lift, not friction alone; tests/contact (pinch) and tests/friction do. */
    const double follow_bound = 0.5 * DFM_SCENE_GRIPPER_CLOTH_SIZE + pad.half_extents[2];
    int held = rise > 0.15 && on_table == 0 && worst_follow < follow_bound && fabs(hold_slide) < 0.03;
    int ok = mu > 0.0f ? held : (rise < 0.05 || draped > 0);
    printf(
        "03_gripper_lift: %d particles, mu %.2f: cloth centroid rose %.3f m during the lift (pads 0.300 m); during "
        "the 2 s hold it stayed within %.3f m of the pads (limit %.3f) and moved %.4f m along z relative to them, %d vertices "
        "left on the table, %d over a pad top; %lld contact records dropped; %.2f s CPU for %.1f s sim; %d frames in %s; %s\n",
        nv, (double)mu, rise, worst_follow, follow_bound, hold_slide, on_table, draped, (long long)cs.dropped_total,
        wall, frames * dt, written, out,
        ok ? (mu > 0.0f
                  ? "HELD"
                  : (rise < 0.05 ? "FELL as expected without friction" : "CARRIED only by draping over a pad top"))
           : "FAILED");
    /* The force bound (issue 13, docs/bench.md): the supports carry at most the cloth's weight and
     * the pads' vertical parts what they lift, each within 3 W (weight, acceleration, swing); no
     * support is pulled up and no pad toward the other (0.01 W of slack). Not met yet at any
     * resolution (docs/physics.md, "Sample 03's force bound"): part of the verdict only with
     * --force-bound. */
    const int bounded = peak_support_w <= 3.0 && peak_pad_vertical_w <= 3.0 && min_push_w >= -0.01 &&
                        min_pad_push_w >= -0.01;
    printf("03_gripper_lift: peak reactions in cloth weights: slab/base %.2f, pads' vertical %.2f; least downward "
           "push on the supports %.3f, least outward push on the pads %.3f: %s the force bound (3 W, none pulled%s)\n",
           peak_support_w, peak_pad_vertical_w, min_push_w, min_pad_push_w, bounded ? "within" : "EXCEEDS",
           force_bound ? "; part of the verdict" : "; issue 13: not part of the verdict without --force-bound");
    if (force_bound && !bounded) ok = 0;
    if (worst_probe) {
        const char* names4[] = {"slab", "base", "pad 0", "pad 1"};
        const char* names3[] = {"slab", "pad 0", "pad 1"};
        dfm_worst_contacts_print(&worst, ids, scene.shape_count == 4 ? names4 : names3, scene.shape_count, weight,
                                 0.01 * weight, 40);
        dfm_worst_contacts_free(&worst);
    }
    (void)end_cz;
    dfm_scene_gripper_table_free(&scene);
    dfm_world_destroy(world);
    return ok ? 0 : 1;
}
