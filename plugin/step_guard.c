/// @file step_guard.c
/// See step_guard.h.
#include "step_guard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "world_internal.h"

/// Saved shape bookkeeping (one per live shape slot).
typedef struct saved_shape {
    dfm_xform body_prev, body_last;
    float aabb_prev[6];
    float reaction[6];
} saved_shape;

static int grow(void** p, size_t* cap, size_t bytes) {
    if (bytes <= *cap) return 1;
    void* q = realloc(*p, bytes);
    if (!q) return 0;
    *p = q;
    *cap = bytes;
    return 1;
}

dfm_result dfm_step_guard_save(dfm_world* w) {
    dfm_step_guard* g = &w->guard;
    const size_t n = (size_t)w->model.particle_count * 3u;
    if (!grow((void**)&g->state, &g->state_bytes, 3u * n * sizeof(float) + sizeof(float)) ||
        !grow((void**)&g->shapes, &g->shapes_bytes, (size_t)w->shape_pool.count * sizeof(saved_shape) + 1u))
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY,
                        "out of host memory for the step's rollback copy (%zu particles)", n / 3u);
    dfm_copy_floats(g->state, w->state.x, n);
    dfm_copy_floats(g->state + n, w->state.v, n);
    dfm_copy_floats(g->state + 2u * n, w->state.kin_start, n);
    saved_shape* ss = (saved_shape*)g->shapes;
    for (int32_t i = 0; i < w->shape_pool.count; ++i) {
        const dfm_shape* s = dfm_world_shape_at(w, i);
        if (!s) continue;
        ss[i].body_prev = s->body_prev;
        ss[i].body_last = s->body_last;
        memcpy(ss[i].aabb_prev, s->aabb_prev, sizeof(ss[i].aabb_prev));
        memcpy(ss[i].reaction, s->reaction, sizeof(ss[i].reaction));
    }
    return DFM_OK;
}

dfm_result dfm_step_guard_check(dfm_world* w, dfm_result r) {
    if (r != DFM_OK) return r;
    const int32_t np = w->model.particle_count;
    int32_t bad = -1, kind = DFM_GUARD_NON_FINITE;
    for (int32_t i = 0; i < 3 * np && bad < 0; ++i)
        if (!isfinite(w->state.x[i]) || !isfinite(w->state.v[i])) bad = i / 3;
    for (int32_t i = 0; i < 3 * np && bad < 0; ++i)
        if (fabsf(w->state.x[i]) > DFM_MAX_COORD) bad = i / 3, kind = DFM_GUARD_OUT_OF_BOUNDS;
    if (bad < 0) return DFM_OK;
    dfm_step_guard* g = &w->guard;
    const size_t n = (size_t)np * 3u;
    dfm_copy_floats(w->state.x, g->state, n);
    dfm_copy_floats(w->state.v, g->state + n, n);
    dfm_copy_floats(w->state.kin_start, g->state + 2u * n, n);
    const saved_shape* ss = (const saved_shape*)g->shapes;
    for (int32_t i = 0; i < w->shape_pool.count; ++i) {
        dfm_shape* s = dfm_world_shape_at(w, i);
        if (!s) continue;
        s->body_prev = ss[i].body_prev;
        s->body_last = ss[i].body_last;
        memcpy(s->aabb_prev, ss[i].aabb_prev, sizeof(s->aabb_prev));
        memcpy(s->reaction, ss[i].reaction, sizeof(s->reaction));
    }
    return dfm_step_guard_refuse(w, bad, kind);
}

dfm_result dfm_step_guard_refuse(dfm_world* w, int32_t bad, int kind) {
    w->contacts.count = 0;       /* the failed step's records are gone with it */
    dfm_host_bodies_rollback(w); /* and its host bodies' corrections and kicks */
    w->nonfinite_steps++;
    const int32_t body = w->model.particle_body && bad >= 0 && bad < w->model.particle_count
                             ? w->model.particle_body[bad]
                             : -1;
    const int32_t vertex = body >= 0 ? bad - w->model.body_offsets[body] : bad;
    const int bounds = kind == DFM_GUARD_OUT_OF_BOUNDS;
    const char* what = bounds ? "moved a particle beyond DFM_MAX_COORD from the origin"
                              : "produced a non-finite position or velocity";
    const char* advice = bounds ? "remove or slow the body, or move the scene nearer the origin"
                                : "check gravity, materials, masses and targets for values the solver cannot take";
    dfm_log(w, DFM_LOG_ERROR, "step %lld %s (vertex %d of the world's body %d); rolled back", (long long)w->step_count,
            what, vertex, body);
    return dfm_fail(w, bounds ? DFM_ERROR_OUT_OF_BOUNDS : DFM_ERROR_NON_FINITE,
                    "the step %s (vertex %d of the world's body %d, particle %d): the world is as it was before the "
                    "step (dfm_world_stats.nonfinite_steps counts these); %s",
                    what, vertex, body, bad, advice);
}
