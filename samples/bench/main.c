/// dfm_bench: the cloth-lift, soft-lift, game-cloth and cloth-fold benchmarks (docs/bench.md).
///
/// Usage: dfm_bench [--workload cloth-lift|soft-lift|both|game-cloth|cloth-fold] [--envs N] [--substeps N]
///                  [--iterations N] [--backend cpu|cuda|auto] [--steps N] [--windows N]
///                  [--warmup N] [--json PATH] [--attribution] [--scaling] [--quiet]
///                  [--body-translation] [--coarse-correction] [--threads N] [--hz F] [--res N] [--no-self-collision]
/// --no-self-collision: cloth-fold with the cloth's self_collision 0 (the same scene, for the ratio).
/// --no-deformable-contact: cloth-fold with world deformable_contact_radius 0 as well (self_collision -1 in the JSON).
/// --all-pairs: DFM_DISABLE_DEFORMABLE_PAIR_FILTER (every narrow-phase pair kept, the behaviour before session 13).
/// cloth-fold runs on the CPU backend unless --backend cuda asks for the CUDA one (issue 16's host-assisted first
/// slice: eager steps; its phases are folded into detection, solve and reactions, see the JSON note).
/// --body-translation: run with DFM_FEATURE_BODY_TRANSLATION (CPU backend only).
/// --coarse-correction: run with DFM_FEATURE_COARSE_CORRECTION (the two-level solve; CPU, or CUDA host-assisted).
/// --threads: world_def.cpu_threads (0 = all, the default). --hz: host steps per second (60).
/// --res: vertices per side (default 24 for cloth-lift, 6 for soft-lift, 24 and 64 for game-cloth).
/// Under `valgrind --tool=callgrind --instr-atstart=no` only the timed windows are instrumented
/// (instruction counts per step without the build and the warm-up).
/// Prints a table on stdout and writes the JSON (default out/bench.json under the current
/// directory, which it creates; out/ is ignored by git, so a run never overwrites a tracked file). Env-steps/s and wall time
/// per env step are medians over `windows` timed windows of `steps` steps after `warmup` steps.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include "workload.h"

typedef struct run_result {
    bench_kind kind;
    int32_t envs, particles, elements, colors, backend, res, threads;
    double env_steps_per_s, wall_ms_per_env_step, wall_ms_per_step;
    int32_t contacts_active, contacts_capacity;
    int64_t contacts_dropped;
    int64_t device_memory_bytes; ///< 0 on the CPU.
    int phases_valid;            ///< Phase times measured (CUDA backend).
    dfm_phase_times phases;      ///< Kernel ms per step of an instrumented (eager, evented) step.
    double lift_m;               ///< How far the gripper had risen at the end, m (0: the lift never began).
    int32_t held_envs;           ///< Environments whose body rose with it (bench_workload_held); -1 unchecked.
    int grasp_failed;            ///< Some environment's body did not rise with the gripper (the run fails).
    double peak_w[4];            ///< Environment 0: each shape's largest reaction |F| over the run (table, pad -y,
                                 ///< pad +y, palm), in weights of its body.
    double peak_pad_vertical_w;  ///< ... the pads' largest vertical (friction-carried) part, in weights.
    double min_push_w;           ///< ... the least push of a shape along its outward direction (pads apart, table
                                 ///< down, palm up), in weights: below 0 a shape was pulled (attractive).
    double force_bound_worst;    ///< The largest of peak / bound over the bounded reactions (force_bound).
    double body_min_z, body_centroid_z; ///< Environment 0's body at the end: lowest vertex, centroid height (m).
    int ok;                             ///< Every step succeeded and the timing is valid.
    int32_t self_collision;             ///< cloth-fold: the cloth's self_collision.
    int32_t deformable_pairs, deformable_candidates; ///< cloth-fold: of the last advance.
    int64_t deformable_dropped_total;                ///< cloth-fold: candidates dropped for capacity over the run.
    double fold_min_sd; ///< cloth-fold: bench_cloth_fold_min_signed_distance at the end, m.
} run_result;

typedef struct cli {
    bench_options base;
    int steps, windows, warmup, both, attribution, scaling, quiet, res;
    double hz; ///< Host steps per second.
    const char* json;
} cli;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : (x > y);
}

static const char* kind_name(bench_kind k) {
    return k == BENCH_CLOTH_LIFT   ? "cloth-lift"
           : k == BENCH_SOFT_LIFT  ? "soft-lift"
           : k == BENCH_CLOTH_FOLD ? "cloth-fold"
                                   : "game-cloth";
}
static const char* backend_name(int b) {
    return b == DFM_BACKEND_CUDA ? "cuda" : (b == DFM_BACKEND_CPU ? "cpu" : "auto");
}

/// Progress bar on stderr (only for runs that take more than a few seconds).
static void progress(const cli* c, const char* what, int done, int total, double started) {
    if (c->quiet || now_s() - started < 3.0) return;
    int width = 30, filled = total > 0 ? done * width / total : width;
    fprintf(stderr, "\r%-28s [", what);
    for (int i = 0; i < width; ++i) fputc(i < filled ? '#' : '.', stderr);
    fprintf(stderr, "] %d/%d", done, total);
    if (done == total) fputc('\n', stderr);
}

/// Tracks environment 0's reactions after a step: each shape's largest |F|, the pads' largest
/// vertical part (the weight they carry by friction), in weights of the body, and the least push
/// along each shape's outward direction (pad -y: -y, pad +y: +y, table: -z, palm: +z).
static void track_reactions(const bench_workload* w, double weight, run_result* res) {
    float f[12];
    if (w->kind == BENCH_GAME_CLOTH || w->kind == BENCH_CLOTH_FOLD || !(weight > 0.0) ||
        dfm_world_get_shape_reactions(w->world, w->shapes, 4, f, NULL, 0) != DFM_OK)
        return;
    const double push[4] = {-f[2], -f[4], f[7], f[11]};
    for (int k = 0; k < 4; ++k)
        if (push[k] / weight < res->min_push_w) res->min_push_w = push[k] / weight;
    for (int k = 0; k < 4; ++k) {
        double m = sqrt((double)f[3 * k] * f[3 * k] + (double)f[3 * k + 1] * f[3 * k + 1] +
                        (double)f[3 * k + 2] * f[3 * k + 2]);
        if (m / weight > res->peak_w[k]) res->peak_w[k] = m / weight;
        if ((k == 1 || k == 2) && fabs((double)f[3 * k + 2]) / weight > res->peak_pad_vertical_w)
            res->peak_pad_vertical_w = fabs((double)f[3 * k + 2]) / weight;
    }
}

/// The force bound of issue 13 (docs/bench.md): the reactions the physics requires, in body
/// weights, given the squeeze the host applies. The pads' squeeze is the host's choice (where it
/// puts them), so their magnitude is not bounded; everything else is:
///   - cloth-lift: the table, the palm and each pad's vertical part carry at most the cloth's
///     weight times (1 + a/g) and its swing: 3 W (the lift's acceleration is a small fraction of g;
///     the factor leaves room for the pendulum swing of the cloth below the pads);
///   - soft-lift: as much plus the squeeze's Poisson push: a cube squeezed along y by S pushes
///     along z on what confines it (the table, the palm, the pads' friction) with up to nu S
///     (uniaxial stress with z held: sigma_z = nu sigma_y), nu = lambda / (2 (lambda + mu)) of the
///     cube's material, S the larger pad's peak reaction.
/// Returns the worst peak / bound (<= 1: within the bound).
static double force_bound_worst(const run_result* r) {
    double extra = 0.0;
    if (r->kind == BENCH_SOFT_LIFT) {
        const dfm_volume_def vd = dfm_volume_def_default(); /* the workload's cube material */
        const double nu = vd.lambda / (2.0 * ((double)vd.lambda + vd.mu));
        extra = nu * fmax(r->peak_w[1], r->peak_w[2]);
    }
    const double bound = 3.0 + extra;
    return fmax(fmax(r->peak_w[0], r->peak_w[3]), r->peak_pad_vertical_w) / bound;
}

/// Builds, warms up and times one configuration.
static run_result run_one(const cli* c, bench_options o) {
    run_result res;
    memset(&res, 0, sizeof(res));
    res.kind = o.kind;
    res.envs = o.envs;
    res.res = o.res;
    res.threads = o.threads;
    res.self_collision = o.self_collision;
    double need = bench_workload_estimate_bytes(&o);
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double avail = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    if (avail > 0.0 && need > 0.8 * avail) {
        fprintf(stderr,
                "dfm_bench: %s at %d environments needs about %.2f GiB of host memory; %.2f GiB are available. "
                "Use fewer environments (--envs).\n",
                kind_name(o.kind), o.envs, need / 1073741824.0, avail / 1073741824.0);
        return res;
    }
    bench_workload w;
    dfm_result r = bench_workload_build(&o, &w);
    if (r != DFM_OK) {
        fprintf(stderr, "dfm_bench: building %s failed: %s: %s\n", kind_name(o.kind), dfm_result_string(r),
                dfm_world_last_error(w.world));
        bench_workload_free(&w);
        return res;
    }
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w.world, &st);
    res.backend = st.backend;
    res.particles = w.particles;
    res.elements = w.elements;
    res.colors = w.colors;
    const float dt = (float)(1.0 / c->hz);
    dfm_body_info bi = dfm_body_info_init();
    const double weight = dfm_body_get_info(w.world, w.bodies[0], &bi) == DFM_OK ? (double)bi.total_mass * 9.81 : 0.0;
    double t = 0.0, started = now_s();
    int total = c->warmup + c->windows * c->steps, done = 0;
    char label[64];
    snprintf(label, sizeof(label), "%s x%d", kind_name(o.kind), o.envs);
    for (int s = 0; s < c->warmup; ++s, ++done) {
        t += dt;
        if (bench_workload_drive(&w, t) != DFM_OK || dfm_world_step(w.world, dt) != DFM_OK) goto fail;
        track_reactions(&w, weight, &res);
        progress(c, label, done + 1, total, started);
    }
    double* per_env_ms = (double*)malloc(sizeof(double) * (size_t)c->windows);
    CALLGRIND_START_INSTRUMENTATION;
    for (int win = 0; win < c->windows; ++win) {
        double t0 = now_s();
        for (int s = 0; s < c->steps; ++s, ++done) {
            t += dt;
            if (bench_workload_drive(&w, t) != DFM_OK || dfm_world_step(w.world, dt) != DFM_OK) {
                free(per_env_ms);
                goto fail;
            }
            track_reactions(&w, weight, &res); /* a host read of 4 shapes' averages: no device work */
            progress(c, label, done + 1, total, started);
        }
        per_env_ms[win] = (now_s() - t0) * 1e3 / ((double)c->steps * o.envs);
    }
    CALLGRIND_STOP_INSTRUMENTATION;
    qsort(per_env_ms, (size_t)c->windows, sizeof(double), cmp_double);
    res.wall_ms_per_env_step = per_env_ms[c->windows / 2];
    free(per_env_ms);
    res.wall_ms_per_step = res.wall_ms_per_env_step * o.envs;
    res.env_steps_per_s = 1e3 / res.wall_ms_per_env_step;
    /* Instrumented steps (CUDA only): kernel time per phase from CUDA events in eager launches;
     * the wall figure above comes from the normal captured run. Median step of 3 by total. */
    if (res.backend == DFM_BACKEND_CUDA && dfm_world_set_profiling(w.world, 1) == DFM_OK) {
        dfm_phase_times pt[3];
        for (int s = 0; s < 3; ++s) {
            t += dt;
            pt[s] = dfm_phase_times_init();
            if (bench_workload_drive(&w, t) != DFM_OK || dfm_world_step(w.world, dt) != DFM_OK ||
                dfm_world_get_phase_times(w.world, &pt[s]) != DFM_OK)
                goto fail;
        }
        dfm_world_set_profiling(w.world, 0);
        int lo = 0, hi = 0;
        for (int s = 1; s < 3; ++s) {
            if (pt[s].total_ms < pt[lo].total_ms) lo = s;
            if (pt[s].total_ms > pt[hi].total_ms) hi = s;
        }
        res.phases = pt[3 - lo - hi == lo || 3 - lo - hi == hi ? 0 : 3 - lo - hi];
        res.phases_valid = res.phases.valid;
    }
    dfm_world_stats st2 = dfm_world_stats_init();
    dfm_world_get_stats(w.world, &st2);
    res.device_memory_bytes = st2.device_memory_bytes;
    dfm_contact_stats cs = dfm_contact_stats_init();
    dfm_world_get_contact_stats(w.world, &cs);
    res.contacts_active = cs.active;
    res.contacts_capacity = cs.capacity;
    res.contacts_dropped = cs.dropped_total;
    res.deformable_pairs = st2.deformable_pairs;
    res.deformable_candidates = st2.deformable_candidates;
    res.deformable_dropped_total = st2.deformable_pairs_dropped_total;
    if (o.kind == BENCH_CLOTH_FOLD && bench_cloth_fold_min_signed_distance(&w, &res.fold_min_sd) != DFM_OK) goto fail;
    res.ok = isfinite(res.env_steps_per_s) && res.env_steps_per_s > 0.0;
    res.force_bound_worst = force_bound_worst(&res);
    /* The grasp is part of the workload: a run whose bodies did not rise with the gripper measured
     * something else (the cloth-lift "lift" used to be a snag at a pad's edge). */
    if (bench_workload_body_z(&w, &res.body_min_z, &res.body_centroid_z) != DFM_OK) goto fail;
    res.lift_m = bench_workload_lift(&w, t);
    res.held_envs = -1;
    if (res.lift_m > 0.0) {
        if (bench_workload_held(&w, t, &res.held_envs) != DFM_OK) goto fail;
        res.grasp_failed = res.held_envs != o.envs;
    }
    bench_workload_free(&w);
    return res;
fail:
    fprintf(stderr, "\ndfm_bench: step failed: %s\n", dfm_world_last_error(w.world));
    bench_workload_free(&w);
    return res;
}

static void print_row(const run_result* r) {
    printf("| %-10s | %-4s | %6d | %9d | %9d | %3d | %12.1f | %10.4f | %9.3f | %7d / %-8d |\n", kind_name(r->kind),
           backend_name(r->backend), r->envs, r->particles, r->elements, r->colors, r->env_steps_per_s,
           r->wall_ms_per_env_step, r->wall_ms_per_step, r->contacts_active, r->contacts_capacity);
    if (r->kind == BENCH_CLOTH_FOLD) {
        printf("|   self_collision %d: deformable pairs %d (candidates %d) last advance, %lld dropped over the run; "
               "deformable-contact share not split yet (CPU step has no phase timer) |\n",
               r->self_collision, r->deformable_pairs, r->deformable_candidates,
               (long long)r->deformable_dropped_total);
        printf("|   physical check: min signed distance upper layer over lower %.5f m (%s) |\n", r->fold_min_sd,
               r->fold_min_sd >= 0.0 ? "no vertex passed through" : "a vertex PASSED THROUGH the other layer");
    }
    if (r->kind == BENCH_GAME_CLOTH || r->kind == BENCH_CLOTH_FOLD) { /* no gripper: no reactions bound, no grasp */
        printf("|   cloth at the end: lowest vertex z %.4f m, centroid z %.4f m (table top z = 0) |\n", r->body_min_z,
               r->body_centroid_z);
        return;
    }
    if (r->phases_valid) {
        const dfm_phase_times* p = &r->phases;
        printf("|   kernel ms/step (instrumented) | detection %.3f | lists %.3f | duals %.3f | solve+gather %.3f | "
               "friction %.3f | reactions %.3f | other %.3f | total %.3f | device memory %.1f MiB |\n",
               p->detection_ms, p->lists_ms, p->duals_ms, p->solve_ms, p->friction_ms, p->reactions_ms, p->other_ms,
               p->total_ms, (double)r->device_memory_bytes / 1048576.0);
    }
    printf("|   reactions (env 0, peak over the run, body weights): table %.2f, pads %.2f / %.2f (vertical %.2f), "
           "palm %.2f |\n",
           r->peak_w[0], r->peak_w[1], r->peak_w[2], r->peak_pad_vertical_w, r->peak_w[3]);
    printf("|   force bound (docs/bench.md): worst %.3f of its bound%s; least outward push %.3f weights%s |\n",
           r->force_bound_worst, r->force_bound_worst <= 1.0 ? "" : " (EXCEEDED)", r->min_push_w,
           r->min_push_w >= -0.01 ? "" : " (a shape was pulled)");
    if (r->held_envs >= 0)
        printf("|   grasp: held in %d of %d environments after a %.3f m lift%s |\n", r->held_envs, r->envs, r->lift_m,
               r->held_envs == r->envs ? "" : " (FAILED: a body did not rise with the gripper)");
    else
        printf("|   grasp: not checked (the run ended before the lift began) |\n");
}

static void print_header(void) {
    printf(
        "| workload   | back | envs   | particles | elements  | col | env-steps/s  | ms/env-step | ms/step   | contacts (active / capacity) |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n");
}

static void json_run(FILE* f, const run_result* r, const cli* c) {
    fprintf(f,
            "{\"workload\": \"%s\", \"backend\": \"%s\", \"envs\": %d, \"particles\": %d, \"elements\": %d, "
            "\"colors\": %d, \"res\": %d, \"hz\": %.6g, \"cpu_threads\": %d, \"substeps\": %d, \"iterations\": %d, "
            "\"steps_per_window\": %d, \"windows\": %d, "
            "\"env_steps_per_s\": %.6g, \"wall_ms_per_env_step\": %.6g, \"wall_ms_per_step\": %.6g, "
            "\"contacts_active\": %d, \"contacts_capacity\": %d, \"contacts_dropped\": %lld, "
            "\"device_memory_bytes\": %lld, \"grasp_lift_m\": %.4g, \"grasp_held_envs\": %d, "
            "\"reaction_peak_w\": [%.4g, %.4g, %.4g, %.4g], \"reaction_peak_pad_vertical_w\": %.4g, "
            "\"force_bound_worst\": %.4g, \"reaction_min_push_w\": %.4g, \"body_min_z_m\": %.6g, "
            "\"body_centroid_z_m\": %.6g, ",
            kind_name(r->kind), backend_name(r->backend), r->envs, r->particles, r->elements, r->colors, r->res, c->hz,
            r->threads, c->base.substeps, c->base.iterations, c->steps, c->windows, r->env_steps_per_s,
            r->wall_ms_per_env_step, r->wall_ms_per_step, r->contacts_active, r->contacts_capacity,
            (long long)r->contacts_dropped, (long long)r->device_memory_bytes, r->lift_m, r->held_envs, r->peak_w[0],
            r->peak_w[1], r->peak_w[2], r->peak_w[3], r->peak_pad_vertical_w, r->force_bound_worst, r->min_push_w,
            r->body_min_z, r->body_centroid_z);
    if (r->kind == BENCH_CLOTH_FOLD)
        fprintf(f,
                "\"self_collision\": %d, \"deformable_contact_radius_m\": %g, \"deformable_pairs\": %d, "
                "\"deformable_candidates\": %d, \"deformable_pairs_dropped_total\": %lld, "
                "\"deformable_contact_share\": null, \"deformable_contact_share_note\": \"%s\", "
                "\"fold_min_signed_distance_m\": %.6g, \"fold_no_pass_through\": %s, ",
                r->self_collision, r->self_collision >= 0 ? 0.005 : 0.0, r->deformable_pairs, r->deformable_candidates,
                (long long)r->deformable_dropped_total,
                r->backend == DFM_BACKEND_CUDA
                    ? "not split yet: on CUDA the deformable-contact passes are timed inside the existing phases "
                      "(BVH build + query, host narrow phase, lists and sub-colours, guess bound: detection; "
                      "sub-colour solves: solve_with_gather; final forces: reactions); dfm_phase_times has no "
                      "fields of their own (an ABI addition); compare with --no-self-collision"
                    : "not split yet: the CPU step has no phase timer; compare with --no-self-collision",
                r->fold_min_sd, r->fold_min_sd >= 0.0 ? "true" : "false");
    fprintf(f, "\"phase_ms_per_env_step\": ");
    if (r->phases_valid) {
        const dfm_phase_times* p = &r->phases;
        double e = r->envs > 0 ? (double)r->envs : 1.0;
        fprintf(f,
                "{\"detection\": %.6g, \"contact_lists\": %.6g, \"duals\": %.6g, \"solve_with_gather\": %.6g, "
                "\"friction\": %.6g, \"reactions\": %.6g, \"other\": %.6g, \"total\": %.6g}}",
                p->detection_ms / e, p->lists_ms / e, p->duals_ms / e, p->solve_ms / e, p->friction_ms / e,
                p->reactions_ms / e, p->other_ms / e, p->total_ms / e);
    } else {
        fprintf(f, "null}");
    }
}

/// The optimizations that can be switched off, in the seed's order.
static const struct {
    uint32_t flag;
    const char* name;
} k_switches[] = {{DFM_DISABLE_SHAPE_SORT, "shape_sort"},
                  {DFM_DISABLE_CONTACT_LISTS, "contact_lists"},
                  {DFM_DISABLE_AABB_CULL, "aabb_early_out"},
                  {DFM_DISABLE_SPLIT_SDF, "split_sdf"},
                  {DFM_DISABLE_GRAPH_CAPTURE, "graph_capture"},
                  {DFM_DISABLE_ACTIVE_PREFIX, "active_prefix"},
                  {DFM_DISABLE_TWO_PARTICLE_WARPS, "two_particle_warps"},
                  {DFM_DISABLE_TET_KERNEL, "tet_only_kernel"},
                  {BENCH_DETERMINISTIC, "deterministic_mode_on"}};

int main(int argc, char** argv) {
    cli c;
    memset(&c, 0, sizeof(c));
    c.base.kind = BENCH_CLOTH_LIFT;
    c.base.envs = 1024;
    c.base.substeps = 4;
    c.base.iterations = 10;
    c.base.backend = DFM_BACKEND_AUTO;
    c.base.self_collision = 1;
    c.steps = 10;
    c.windows = 5;
    c.warmup = 30;
    c.both = 1;
    c.hz = 60.0;
    c.json = NULL; /* out/bench.json */
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        // clang-format off
        if (!strcmp(a, "--workload") && v) {
            c.both = !strcmp(v, "both");
            c.base.kind = !strcmp(v, "soft-lift") ? BENCH_SOFT_LIFT : (!strcmp(v, "game-cloth") ? BENCH_GAME_CLOTH : (!strcmp(v, "cloth-fold") ? BENCH_CLOTH_FOLD : BENCH_CLOTH_LIFT));
            if (strcmp(v, "both") && strcmp(v, "cloth-lift") && strcmp(v, "soft-lift") && strcmp(v, "game-cloth") && strcmp(v, "cloth-fold")) goto usage;
            ++i;
        } else if (!strcmp(a, "--envs") && v) c.base.envs = atoi(argv[++i]);
        else if (!strcmp(a, "--substeps") && v) c.base.substeps = atoi(argv[++i]);
        else if (!strcmp(a, "--iterations") && v) c.base.iterations = atoi(argv[++i]);
        else if (!strcmp(a, "--steps") && v) c.steps = atoi(argv[++i]);
        else if (!strcmp(a, "--windows") && v) c.windows = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && v) c.warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--json") && v) c.json = argv[++i];
        else if (!strcmp(a, "--threads") && v) c.base.threads = atoi(argv[++i]);
        else if (!strcmp(a, "--hz") && v) c.hz = atof(argv[++i]);
        else if (!strcmp(a, "--res") && v) c.res = atoi(argv[++i]);
        else if (!strcmp(a, "--backend") && v) {
            c.base.backend = !strcmp(v, "cpu") ? DFM_BACKEND_CPU : (!strcmp(v, "cuda") ? DFM_BACKEND_CUDA : DFM_BACKEND_AUTO);
            ++i;
        } else if (!strcmp(a, "--attribution")) c.attribution = 1;
        else if (!strcmp(a, "--scaling")) c.scaling = 1;
        else if (!strcmp(a, "--quiet")) c.quiet = 1;
        else if (!strcmp(a, "--no-self-collision")) c.base.self_collision = 0;
        else if (!strcmp(a, "--no-deformable-contact")) c.base.self_collision = -1;
        else if (!strcmp(a, "--all-pairs")) c.base.flags |= DFM_DISABLE_DEFORMABLE_PAIR_FILTER;
        else if (!strcmp(a, "--body-translation")) c.base.features |= DFM_FEATURE_BODY_TRANSLATION;
        else if (!strcmp(a, "--coarse-correction")) c.base.features |= DFM_FEATURE_COARSE_CORRECTION;
        else goto usage;
        // clang-format on
    }
    if (c.base.envs < 1 || c.base.substeps < 1 || c.base.iterations < 1 || c.steps < 1 || c.windows < 1 ||
        c.warmup < 0 || c.base.threads < 0 || !(c.hz > 0.0) || c.res < 0 || (c.res > 0 && c.res < 2))
        goto usage;
    if (!c.both && c.base.kind == BENCH_CLOTH_FOLD) {
        if (c.base.backend != DFM_BACKEND_CUDA)
            c.base.backend = DFM_BACKEND_CPU;   /* auto: the CPU (as the world's AUTO) */
        if (c.res > 0 && c.res < 4) goto usage; /* two rows per half at least */
    }
    if (!c.json) { /* the default: out/bench.json, out/ created (ignored by git) */
        if (mkdir("out", 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "dfm_bench: cannot create out/: %s\n", strerror(errno));
            return 1;
        }
        c.json = "out/bench.json";
    }
    FILE* f = fopen(c.json, "w");
    if (!f) {
        fprintf(stderr, "dfm_bench: cannot write %s\n", c.json);
        return 1;
    }
    char host[128] = "unknown";
    gethostname(host, sizeof(host) - 1);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\"tool\": \"dfm_bench\", \"dfm_version\": \"%s\", \"date\": \"%s\", \"host\": \"%s\", \"runs\": [",
            dfm_version(), date, host);
    int failed = 0, first = 1;
    /* The runs: both = cloth-lift and soft-lift; game-cloth = the 24 and the 64 cloth; --res one size. */
    bench_kind kinds[2] = {BENCH_CLOTH_LIFT, BENCH_SOFT_LIFT};
    int32_t resolutions[2] = {24, 6};
    int nk = c.both ? 2 : 1;
    if (!c.both) {
        kinds[0] = kinds[1] = c.base.kind;
        resolutions[0] = c.base.kind == BENCH_SOFT_LIFT ? 6 : 24;
        if (c.base.kind == BENCH_GAME_CLOTH) {
            resolutions[1] = 64;
            nk = 2;
        }
    }
    if (c.res > 0) {
        nk = c.both ? 2 : 1;
        resolutions[0] = resolutions[1] = c.res;
    }
    print_header();
    for (int k = 0; k < nk; ++k) {
        bench_options o = c.base;
        o.kind = kinds[k];
        o.res = resolutions[k];
        int32_t sizes[6] = {1, 16, 256, 1024, 4096, 8192};
        int ns = c.scaling ? 6 : 1;
        for (int s = 0; s < ns; ++s) {
            if (c.scaling) o.envs = sizes[s];
            run_result r = run_one(&c, o);
            /* cloth-fold with self-collision on (1; -1 is --no-deformable-contact): a layer passing
             * through the other fails the run */
            failed |= !r.ok || r.grasp_failed ||
                      (r.kind == BENCH_CLOTH_FOLD && r.self_collision > 0 && r.fold_min_sd < 0.0);
            if (!r.ok) continue;
            print_row(&r);
            fprintf(f, "%s\n  ", first ? "" : ",");
            json_run(f, &r, &c);
            first = 0;
        }
        if (c.attribution) {
            o.envs = c.base.envs;
            run_result base = run_one(&c, o);
            failed |= !base.ok || base.grasp_failed;
            /* kernel: summed kernel time of an instrumented eager step (CUDA events), ms per env
             * step; it leaves out launch overhead, so graph capture shows in the wall column only. */
            const double base_k = base.phases_valid ? base.phases.total_ms / o.envs : 0.0;
            printf(
                "\nattribution (%s, %d envs, %s): ms per env step with one optimization off (wall; kernel sum)\n"
                "| switched off | wall ms | saving | share | kernel ms | saving | share |\n|---|---|---|---|---|---|---|\n"
                "| (none) | %.4f | - | - | %.4f | - | - |\n",
                kind_name(o.kind), o.envs, backend_name(base.backend), base.wall_ms_per_env_step, base_k);
            for (size_t q = 0; q < sizeof(k_switches) / sizeof(k_switches[0]) && base.ok; ++q) {
                bench_options oo = o;
                oo.flags = k_switches[q].flag;
                run_result r = run_one(&c, oo);
                if (!r.ok) continue;
                double saving = r.wall_ms_per_env_step - base.wall_ms_per_env_step;
                double km = r.phases_valid ? r.phases.total_ms / o.envs : 0.0, ks = km - base_k;
                printf("| %s | %.4f | %.4f | %.1f%% | %.4f | %.4f | %.1f%% |\n", k_switches[q].name,
                       r.wall_ms_per_env_step, saving, 100.0 * saving / r.wall_ms_per_env_step, km, ks,
                       km > 0.0 ? 100.0 * ks / km : 0.0);
                fprintf(f,
                        ",\n  {\"attribution_of\": \"%s\", \"switched_off\": \"%s\", \"wall_ms_per_env_step\": %.6g, "
                        "\"baseline_ms_per_env_step\": %.6g, \"saving_ms\": %.6g, \"kernel_ms_per_env_step\": %.6g, "
                        "\"baseline_kernel_ms_per_env_step\": %.6g}",
                        kind_name(o.kind), k_switches[q].name, r.wall_ms_per_env_step, base.wall_ms_per_env_step,
                        saving, km, base_k);
            }
        }
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    printf("\njson: %s\n", c.json);
    return failed ? 1 : 0;
usage:
    fprintf(
        stderr,
        "usage: %s [--workload cloth-lift|soft-lift|both|game-cloth|cloth-fold] [--envs N] [--substeps N] [--iterations N]\n"
        "          [--backend cpu|cuda|auto] [--steps N] [--windows N] [--warmup N] [--json PATH]\n"
        "          [--attribution] [--scaling] [--quiet] [--body-translation] [--coarse-correction] [--threads N] [--hz F] [--res N]\n"
        "          [--no-self-collision] [--no-deformable-contact] [--all-pairs]\n",
        argv[0]);
    return 2;
}
