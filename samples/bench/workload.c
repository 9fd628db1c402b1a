/// @file workload.c
/// See workload.h.
#include "workload.h"

#include <dfm_scenes.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ENV_SPACING 2.0f
#define TABLE_TOP 0.0f
#define PAD_HALF_THICKNESS 0.005f
#ifndef BENCH_PAD_MU
#define BENCH_PAD_MU 0.8f /* pads' friction; a probe build may override it */
#endif
/* cloth-lift: the hanging cloth's top row and the pads' centre height while they pinch (m). */
#define CLOTH_TOP 0.35f
#define CLOTH_PINCH_Z 0.33f
/* Grasp timeline (s): pads close over [0, CLOSE_END], the hook lets go at RELEASE_T, the
 * gripper rises at LIFT_SPEED from LIFT_T. */
#define CLOSE_END 0.2
#define RELEASE_T 0.25
#define LIFT_T 0.3
#define LIFT_SPEED 0.2

double bench_workload_estimate_bytes(const bench_options* o) {
    double verts = o->kind == BENCH_CLOTH_LIFT ? (double)o->res * o->res : (double)o->res * o->res * o->res;
    /* ~250 B per particle of model+state+adjacency, and per particle/edge/face candidate against 4
     * shapes ~100 B of candidates + records; a cloth has ~3 edges and 2 faces per vertex. */
    if (o->kind == BENCH_GAME_CLOTH || o->kind == BENCH_CLOTH_FOLD) verts = (double)o->res * o->res;
    double features = o->kind == BENCH_SOFT_LIFT ? 3.0 * verts : 6.0 * verts;
    return (double)o->envs * (250.0 * verts + 4.0 * features * 100.0);
}

/// Adds the four shapes of environment e (table, pad -y, pad +y, palm); the table at its pose.
static dfm_result add_gripper(bench_workload* w, int32_t e, float ox) {
    dfm_shape_def table = dfm_scene_box_def(0.3f, 0.3f, 0.02f),
                  pad = dfm_scene_box_def(0.02f, PAD_HALF_THICKNESS, 0.03f),
                  palm = dfm_scene_box_def(0.03f, 0.04f, 0.01f);
    table.environment = pad.environment = palm.environment = e;
    pad.mu = BENCH_PAD_MU;
    const dfm_shape_def* defs[4] = {&table, &pad, &pad, &palm};
    for (int k = 0; k < 4; ++k) {
        dfm_shape_def d = *defs[k];
        d.host_body = (uint64_t)(4 * e + k + 1);
        dfm_result r = dfm_world_add_shape(w->world, &d, &w->shapes[4 * e + k]);
        if (r != DFM_OK) return r;
    }
    w->states[4 * e + 0] = dfm_scene_state(ox, 0, TABLE_TOP - 0.02f, NULL);
    return DFM_OK;
}

dfm_result bench_workload_build(const bench_options* o, bench_workload* out) {
    memset(out, 0, sizeof(*out));
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = o->backend;
    wd.device_index = o->device;
    wd.substeps = o->substeps;
    wd.iterations = o->iterations;
    wd.environment_count = o->envs;
    wd.disable_flags = o->flags & ~BENCH_DETERMINISTIC;
    wd.deterministic = (o->flags & BENCH_DETERMINISTIC) != 0;
    wd.feature_flags = o->features;
    wd.cpu_threads = o->threads;
    if (o->kind == BENCH_CLOTH_FOLD && o->self_collision >= 0)
        wd.deformable_contact_radius = 0.005f; /* the fold test's radius; -1: deformable contact off */
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &wd, &out->world);
    if (r != DFM_OK) return r;
    out->envs = o->envs;
    out->res = o->res;
    out->shapes_per_env = o->kind == BENCH_GAME_CLOTH ? 2 : (o->kind == BENCH_CLOTH_FOLD ? 1 : 4);
    out->shapes = (dfm_shape_id*)calloc((size_t)o->envs * 4u, sizeof(dfm_shape_id));
    out->states = (dfm_shape_state*)calloc((size_t)o->envs * 4u, sizeof(dfm_shape_state));
    out->bodies = (dfm_body_id*)calloc((size_t)o->envs, sizeof(dfm_body_id));
    out->kind = o->kind;
    out->vertex_count = o->kind == BENCH_SOFT_LIFT    ? o->res * o->res * o->res
                        : o->kind == BENCH_CLOTH_FOLD ? o->res * (o->res / 2) * 2
                                                      : o->res * o->res;
    if (!out->shapes || !out->states || !out->bodies) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    for (int32_t e = 0; e < o->envs && r == DFM_OK; ++e) {
        float ox = ENV_SPACING * (float)e;
        dfm_body_id body;
        if (o->kind == BENCH_GAME_CLOTH) {
            r = bench_game_cloth_add_env(out, e, ox);
            continue;
        }
        if (o->kind == BENCH_CLOTH_FOLD) {
            r = bench_cloth_fold_add_env(out, e, ox, o->self_collision > 0);
            continue;
        }
        if (o->kind == BENCH_CLOTH_LIFT) {
            /* Hanging in the x-z plane from its top row (pinned: a hook) between the open pads. */
            dfm_cloth_def cd = dfm_cloth_def_default();
            const float origin[3] = {ox - 0.15f, 0.0f, CLOTH_TOP - 0.3f}, au[3] = {0.3f, 0, 0}, av[3] = {0, 0, 0.3f};
            dfm_scene_grid g;
            r = dfm_scene_grid_make(o->res, o->res, origin, au, av, &g);
            cd.environment = e;
            if (r == DFM_OK) r = dfm_scene_add_cloth(out->world, &g, cd, &body);
            dfm_scene_grid_free(&g);
            if (r == DFM_OK) {
                out->contact_radius = cd.contact_radius;
                r = dfm_scene_set_row_mode(out->world, body, o->res, o->res - 1, DFM_VERTEX_PINNED);
            }
        } else {
            dfm_volume_def vd = dfm_volume_def_default();
            const float lo[3] = {ox - 0.03f, -0.03f, TABLE_TOP + vd.contact_radius},
                        hi[3] = {ox + 0.03f, 0.03f, TABLE_TOP + vd.contact_radius + 0.06f};
            dfm_scene_tets b;
            r = dfm_scene_tets_make(o->res, lo, hi, &b);
            vd.environment = e;
            vd.mu = 2e4f;
            vd.lambda = 1e5f;
            if (r == DFM_OK) r = dfm_scene_add_volume(out->world, &b, vd, &body);
            dfm_scene_tets_free(&b);
            out->contact_radius = vd.contact_radius;
        }
        if (r == DFM_OK) out->bodies[e] = body;
        if (r == DFM_OK) r = add_gripper(out, e, ox);
    }
    if (r != DFM_OK) return r;
    r = bench_workload_drive(out, 0.0);
    dfm_world_stats st = dfm_world_stats_init();
    if (r == DFM_OK) r = dfm_world_get_stats(out->world, &st);
    out->particles = st.particle_count;
    out->elements = st.triangle_count + st.bending_edge_count + st.tet_count;
    out->colors = st.color_count;
    return r;
}

static double smooth01(double s) {
    s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    return s * s * (3.0 - 2.0 * s);
}

double bench_workload_lift(const bench_workload* w, double t) {
    if (w->kind == BENCH_GAME_CLOTH || w->kind == BENCH_CLOTH_FOLD) return 0.0; /* nothing lifts */
    double t0 = w->kind == BENCH_CLOTH_LIFT ? LIFT_T : 0.5;
    return t < t0 ? 0.0 : LIFT_SPEED * (t - t0);
}

dfm_result bench_workload_drive(bench_workload* w, double t) {
    float z, half_gap;
    if (w->kind == BENCH_GAME_CLOTH || w->kind == BENCH_CLOTH_FOLD) /* static shapes: the same states every step */
        return dfm_world_set_shape_states(w->world, w->shapes, 0, w->states, 0, w->shapes_per_env * w->envs);
    if (!w->start_centroid_z && bench_workload_lift(w, t) > 0.0) { /* the lift begins: where the bodies are now */
        dfm_result r = bench_workload_mark_start(w);
        if (r != DFM_OK) return r;
    }
    /* Closed: each pad's inner face 1 mm past the object's contact surface (the squeeze). */
    const float closed = dfm_scene_pinch_half_gap(PAD_HALF_THICKNESS, w->contact_radius, 0.001f);
    if (w->kind == BENCH_CLOTH_LIFT) {
        /* Pinch (0-0.2 s: the pads close on the hanging cloth 2 cm below its hook), the hook lets go
         * at 0.25 s, lift at 0.2 m/s from 0.3 s: friction alone then carries the cloth. */
        if (!w->released && t >= RELEASE_T) {
            for (int32_t e = 0; e < w->envs; ++e) {
                dfm_result r = dfm_scene_set_row_mode(w->world, w->bodies[e], w->res, w->res - 1, DFM_VERTEX_DYNAMIC);
                if (r != DFM_OK) return r;
            }
            w->released = 1;
        }
        z = (float)(CLOTH_PINCH_Z + bench_workload_lift(w, t));
        half_gap = (float)(0.04 + (closed - 0.04) * smooth01(t / CLOSE_END));
    } else {
        /* Approach (0-0.3 s: descend to the cube), squeeze (0.3-0.5 s: pads close 7 mm into its
         * sides), lift at 0.2 m/s from 0.5 s. */
        double descend = t < 0.3 ? t / 0.3 : 1.0;
        double close = t < 0.3 ? 0.0 : (t < 0.5 ? (t - 0.3) / 0.2 : 1.0);
        z = (float)(TABLE_TOP + 0.2 - 0.17 * descend + bench_workload_lift(w, t));
        half_gap = (float)(0.06 - 0.032 * close);
    }
    for (int32_t e = 0; e < w->envs; ++e) {
        float ox = ENV_SPACING * (float)e;
        const float centre[3] = {ox, 0, z}; /* the pads face each other along y */
        dfm_scene_pad_pair_states(centre, 1, half_gap, &w->states[4 * e + 1]);
        w->states[4 * e + 3] = dfm_scene_state(ox, 0, z + 0.045f, NULL);
    }
    return dfm_world_set_shape_states(w->world, w->shapes, 0, w->states, 0, 4 * w->envs);
}

/// Centroid heights of every environment's body (m) into z (envs values).
static dfm_result centroid_heights(bench_workload* w, double* z) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)w->vertex_count);
    if (!x) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    for (int32_t e = 0; e < w->envs; ++e) {
        dfm_result r = dfm_body_get_positions(w->world, w->bodies[e], 0, w->vertex_count, x, 0);
        if (r != DFM_OK) {
            free(x);
            return r;
        }
        double zc = 0.0;
        for (int32_t i = 0; i < w->vertex_count; ++i) zc += x[3 * i + 2];
        z[e] = zc / w->vertex_count;
    }
    free(x);
    return DFM_OK;
}

dfm_result bench_workload_held(bench_workload* w, double t, int32_t* held) {
    *held = 0;
    double* z = (double*)malloc(sizeof(double) * (size_t)w->envs);
    if (!z) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    dfm_result r = centroid_heights(w, z);
    const double lift = bench_workload_lift(w, t);
    for (int32_t e = 0; r == DFM_OK && e < w->envs; ++e)
        if (z[e] - w->start_centroid_z[e] >= 0.9 * lift) ++*held;
    free(z);
    return r;
}

dfm_result bench_workload_mark_start(bench_workload* w) {
    w->start_centroid_z = (double*)calloc((size_t)w->envs, sizeof(double));
    return w->start_centroid_z ? centroid_heights(w, w->start_centroid_z) : DFM_ERROR_OUT_OF_HOST_MEMORY;
}

void bench_workload_free(bench_workload* w) {
    dfm_world_destroy(w->world);
    free(w->shapes);
    free(w->states);
    free(w->bodies);
    free(w->start_centroid_z);
    dfm_scene_grid_free(&w->fold);
    memset(w, 0, sizeof(*w));
}
