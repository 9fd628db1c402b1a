/// @file workload.c
/// See workload.h.
#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ENV_SPACING 2.0f
#define TABLE_TOP 0.0f

static dfm_shape_state state_at(float x, float y, float z) {
    dfm_shape_state s;
    memset(&s, 0, sizeof(s));
    s.position[0] = x;
    s.position[1] = y;
    s.position[2] = z;
    s.rotation[3] = 1.0f;
    s.aabb_min[0] = 1.0f; /* inverted: dfm computes the AABB */
    s.aabb_max[0] = -1.0f;
    return s;
}

double bench_workload_estimate_bytes(const bench_options* o) {
    double verts = o->kind == BENCH_CLOTH_LIFT ? (double)o->res * o->res : (double)o->res * o->res * o->res;
    /* ~250 B per particle of model+state+adjacency, and per particle/edge/face candidate against 4
     * shapes ~100 B of candidates + records; a cloth has ~3 edges and 2 faces per vertex. */
    double features = o->kind == BENCH_CLOTH_LIFT ? 6.0 * verts : 3.0 * verts;
    return (double)o->envs * (250.0 * verts + 4.0 * features * 100.0);
}

/// Adds the four shapes of environment e (table, pad -y, pad +y, palm) at their start poses.
static dfm_result add_gripper(bench_workload* w, int32_t e, float ox) {
    dfm_shape_def table = dfm_shape_def_default(), pad = dfm_shape_def_default(), palm = dfm_shape_def_default();
    table.type = pad.type = palm.type = DFM_SHAPE_BOX;
    table.environment = pad.environment = palm.environment = e;
    table.half_extents[0] = table.half_extents[1] = 0.3f;
    table.half_extents[2] = 0.02f;
    pad.half_extents[0] = 0.02f;
    pad.half_extents[1] = 0.005f;
    pad.half_extents[2] = 0.03f;
    pad.mu = 0.8f;
    palm.half_extents[0] = 0.03f;
    palm.half_extents[1] = 0.04f;
    palm.half_extents[2] = 0.01f;
    const dfm_shape_def* defs[4] = {&table, &pad, &pad, &palm};
    for (int k = 0; k < 4; ++k) {
        dfm_shape_def d = *defs[k];
        d.host_body = (uint64_t)(4 * e + k + 1);
        dfm_result r = dfm_world_add_shape(w->world, &d, &w->shapes[4 * e + k]);
        if (r != DFM_OK) return r;
    }
    w->states[4 * e + 0] = state_at(ox, 0, TABLE_TOP - 0.02f);
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
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &wd, &out->world);
    if (r != DFM_OK) return r;
    out->envs = o->envs;
    out->shapes = (dfm_shape_id*)calloc((size_t)o->envs * 4u, sizeof(dfm_shape_id));
    out->states = (dfm_shape_state*)calloc((size_t)o->envs * 4u, sizeof(dfm_shape_state));
    if (!out->shapes || !out->states) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    int32_t nv, ne;
    float* x = NULL;
    int32_t* idx = NULL;
    if (o->kind == BENCH_CLOTH_LIFT) {
        r = dfm_cloth_grid_counts(o->res, o->res, &nv, &ne);
        if (r != DFM_OK) return r;
        x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
        idx = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)ne);
    } else {
        r = dfm_tet_box_counts(o->res, o->res, o->res, &nv, &ne);
        if (r != DFM_OK) return r;
        x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
        idx = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)ne);
    }
    if (!x || !idx) {
        free(x);
        free(idx);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (int32_t e = 0; e < o->envs && r == DFM_OK; ++e) {
        float ox = ENV_SPACING * (float)e;
        dfm_body_id body;
        if (o->kind == BENCH_CLOTH_LIFT) {
            dfm_cloth_def cd = dfm_cloth_def_default();
            const float origin[3] = {ox - 0.15f, -0.15f, TABLE_TOP + cd.contact_radius}, au[3] = {0.3f, 0, 0},
                        av[3] = {0, 0.3f, 0};
            dfm_cloth_grid_generate(o->res, o->res, origin, au, av, x, idx);
            cd.environment = e;
            cd.positions = x;
            cd.vertex_count = nv;
            cd.triangles = idx;
            cd.triangle_count = ne;
            r = dfm_world_add_cloth(out->world, &cd, &body);
        } else {
            dfm_volume_def vd = dfm_volume_def_default();
            const float lo[3] = {ox - 0.03f, -0.03f, TABLE_TOP + vd.contact_radius},
                        hi[3] = {ox + 0.03f, 0.03f, TABLE_TOP + vd.contact_radius + 0.06f};
            dfm_tet_box_generate(o->res, o->res, o->res, lo, hi, x, idx);
            vd.environment = e;
            vd.positions = x;
            vd.vertex_count = nv;
            vd.tets = idx;
            vd.tet_count = ne;
            vd.mu = 2e4f;
            vd.lambda = 1e5f;
            r = dfm_world_add_volume(out->world, &vd, &body);
        }
        if (r == DFM_OK) r = add_gripper(out, e, ox);
    }
    free(x);
    free(idx);
    if (r != DFM_OK) return r;
    r = bench_workload_drive(out, 0.0);
    dfm_world_stats st = dfm_world_stats_init();
    if (r == DFM_OK) r = dfm_world_get_stats(out->world, &st);
    out->particles = st.particle_count;
    out->elements = st.triangle_count + st.bending_edge_count + st.tet_count;
    out->colors = st.color_count;
    return r;
}

dfm_result bench_workload_drive(bench_workload* w, double t) {
    /* Approach (0-0.3 s: descend to the object), squeeze (0.3-0.5 s: pads close), lift (0.5 s on:
     * rise at 0.2 m/s). Pads close in y around the object's middle. */
    double descend = t < 0.3 ? t / 0.3 : 1.0;
    double close = t < 0.3 ? 0.0 : (t < 0.5 ? (t - 0.3) / 0.2 : 1.0);
    double lift = t < 0.5 ? 0.0 : 0.2 * (t - 0.5);
    float z = (float)(TABLE_TOP + 0.2 - 0.17 * descend + lift);
    float half_gap = (float)(0.06 - 0.032 * close);
    for (int32_t e = 0; e < w->envs; ++e) {
        float ox = ENV_SPACING * (float)e;
        w->states[4 * e + 1] = state_at(ox, -half_gap, z);
        w->states[4 * e + 2] = state_at(ox, half_gap, z);
        w->states[4 * e + 3] = state_at(ox, 0, z + 0.04f);
    }
    return dfm_world_set_shape_states(w->world, w->shapes, 0, w->states, 0, 4 * w->envs);
}

void bench_workload_free(bench_workload* w) {
    dfm_world_destroy(w->world);
    free(w->shapes);
    free(w->states);
    memset(w, 0, sizeof(*w));
}
