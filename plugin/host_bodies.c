/// @file host_bodies.c
/// See host_bodies.h and abi/include/dfm/dfm_coupling.h.
#include "host_bodies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "world_internal.h"

void dfm_host_bodies_free(dfm_host_bodies* hb) {
    free(hb->entries);
    free(hb->rt);
    free(hb->shape_host);
    free(hb->first_shape);
    free(hb->record_offsets);
    free(hb->records);
    memset(hb, 0, sizeof(*hb));
}

/// The entry of host_body, or the index where it would be inserted (negative: -1 - index).
static int32_t find_entry(const dfm_host_bodies* hb, uint64_t host_body) {
    int32_t lo = 0, hi = hb->count;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        const uint64_t k = hb->entries[mid].host_body;
        if (k == host_body) return mid;
        if (k < host_body)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1 - lo;
}

/// DFM_OK when `d` can be simulated; a specific error naming bodies[i] otherwise.
static dfm_result check_dynamics(dfm_world* w, const dfm_host_body_dynamics* d, int32_t i) {
    const unsigned long long id = (unsigned long long)d->host_body;
    if (!isfinite(d->mass))
        return dfm_fail(w, DFM_ERROR_NON_FINITE, "bodies[%d] (host body %llu): mass is not finite", i, id);
    if (d->mass < 0.0f || d->mass > DFM_MAX_HOST_BODY_MASS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "bodies[%d] (host body %llu): mass %g kg; must be 0 (remove) or in (0, %g]", i, id,
                        (double)d->mass, (double)DFM_MAX_HOST_BODY_MASS);
    int zero = 1;
    double scale = 0.0;
    for (int k = 0; k < 9; ++k) {
        if (!isfinite(d->inertia[k]))
            return dfm_fail(w, DFM_ERROR_NON_FINITE, "bodies[%d] (host body %llu): inertia[%d] is not finite", i, id,
                            k);
        zero &= d->inertia[k] == 0.0f;
        scale = fmax(scale, fabs((double)d->inertia[k]));
    }
    if (zero || d->mass == 0.0f) return DFM_OK;
    const float* I = d->inertia;
    for (int r = 0; r < 3; ++r)
        for (int c = r + 1; c < 3; ++c)
            if (fabs((double)I[3 * r + c] - (double)I[3 * c + r]) > 1e-5 * scale)
                return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                                "bodies[%d] (host body %llu): inertia is not symmetric ([%d][%d] %g, [%d][%d] %g)", i,
                                id, r, c, (double)I[3 * r + c], c, r, (double)I[3 * c + r]);
    /* positive definite: the leading minors (Sylvester) */
    const double m1 = I[0], m2 = (double)I[0] * I[4] - (double)I[1] * I[3];
    const double m3 = I[0] * ((double)I[4] * I[8] - (double)I[5] * I[7]) -
                      I[1] * ((double)I[3] * I[8] - (double)I[5] * I[6]) +
                      I[2] * ((double)I[3] * I[7] - (double)I[4] * I[6]);
    if (!(m1 > 0.0) || !(m2 > 0.0) || !(m3 > 1e-12 * scale * scale * scale))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "bodies[%d] (host body %llu): inertia is not positive definite", i,
                        id);
    return DFM_OK;
}

dfm_result dfm_world_set_host_body_dynamics(dfm_world* w, const dfm_host_body_dynamics* bodies, int32_t stride,
                                            int32_t count) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!bodies) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "bodies is NULL");
    if (count <= 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "count is %d; must be >= 1", count);
    if (stride != 0 && (stride < (int32_t)sizeof(dfm_host_body_dynamics) || stride % 8 != 0))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "stride is %d bytes; must be 0 or a multiple of 8 >= %d", stride,
                        (int)sizeof(dfm_host_body_dynamics));
    const size_t st = stride ? (size_t)stride : sizeof(dfm_host_body_dynamics);
#define BODY(i) ((const dfm_host_body_dynamics*)((const char*)bodies + st * (size_t)(i)))
    int64_t added = 0;
    for (int32_t i = 0; i < count; ++i) {
        dfm_result r = check_dynamics(w, BODY(i), i);
        if (r != DFM_OK) return r;
        if (BODY(i)->mass > 0.0f && find_entry(&w->host_bodies, BODY(i)->host_body) < 0) ++added;
    }
    dfm_host_bodies* hb = &w->host_bodies;
    if (hb->count + added > DFM_MAX_HOST_BODIES)
        return dfm_fail(w, DFM_ERROR_CAPACITY, "%lld host bodies with dynamics; at most %d",
                        (long long)(hb->count + added), DFM_MAX_HOST_BODIES);
    if (hb->count + added > hb->cap) {
        const int32_t cap = (int32_t)(hb->count + added) * 2;
        dfm_host_body_entry* e = (dfm_host_body_entry*)realloc(hb->entries, (size_t)cap * sizeof(*e));
        if (!e) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %d host bodies", cap);
        hb->entries = e;
        hb->cap = cap;
    }
    for (int32_t i = 0; i < count; ++i) {
        const dfm_host_body_dynamics* d = BODY(i);
        int32_t at = find_entry(hb, d->host_body);
        if (d->mass == 0.0f) {
            if (at >= 0) {
                memmove(hb->entries + at, hb->entries + at + 1, (size_t)(hb->count - at - 1) * sizeof(*hb->entries));
                --hb->count;
            }
            continue;
        }
        if (at < 0) {
            at = -1 - at;
            memmove(hb->entries + at + 1, hb->entries + at, (size_t)(hb->count - at) * sizeof(*hb->entries));
            ++hb->count;
            memset(&hb->entries[at], 0, sizeof(hb->entries[at]));
            hb->entries[at].host_body = d->host_body;
            hb->entries[at].solved_at = -1;
            hb->entries[at].saved_at = -1;
            hb->entries[at].last.host_body = d->host_body;
        }
        hb->entries[at].mass = d->mass;
        memcpy(hb->entries[at].inertia, d->inertia, sizeof(d->inertia));
    }
#undef BODY
    return DFM_OK;
}

dfm_result dfm_world_get_host_body_corrections(dfm_world* w, const uint64_t* host_bodies, int32_t count,
                                               dfm_host_body_correction* out, int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!host_bodies || !out)
        return dfm_fail(w, DFM_ERROR_NULL_POINTER, "%s is NULL", host_bodies ? "out" : "host_bodies");
    if (count <= 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "count is %d; must be >= 1", count);
    if (stride != 0 && (stride < (int32_t)sizeof(dfm_host_body_correction) || stride % 8 != 0))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "stride is %d bytes; must be 0 or a multiple of 8 >= %d", stride,
                        (int)sizeof(dfm_host_body_correction));
    const dfm_host_bodies* hb = &w->host_bodies;
    for (int32_t i = 0; i < count; ++i)
        if (find_entry(hb, host_bodies[i]) < 0)
            return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                            "host_bodies[%d] (%llu) has no dynamics (dfm_world_set_host_body_dynamics)", i,
                            (unsigned long long)host_bodies[i]);
    const size_t st = stride ? (size_t)stride : sizeof(dfm_host_body_correction);
    for (int32_t i = 0; i < count; ++i) {
        const dfm_host_body_entry* e = &hb->entries[find_entry(hb, host_bodies[i])];
        dfm_host_body_correction c;
        memset(&c, 0, sizeof(c));
        c.host_body = e->host_body;
        if (e->solved_at == w->step_count) c = e->last;
        memcpy((char*)out + st * (size_t)i, &c, sizeof(c));
    }
    return DFM_OK;
}

/// Grows *p to hold n items of `size` bytes (capacity *cap); 0 when memory is short.
static int grow(void** p, int32_t* cap, int32_t n, size_t size) {
    if (n <= *cap) return 1;
    void* q = realloc(*p, (size_t)n * size);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

dfm_result dfm_host_bodies_begin_step(dfm_world* w, int32_t records, float dt, dfm_cpu_host_solve* out) {
    dfm_host_bodies* hb = &w->host_bodies;
    memset(out, 0, sizeof(*out));
    dfm_host_bodies_forget(w);
    if (hb->count == 0) return DFM_OK;
    const int32_t nb = hb->count, ns = w->contacts.shape_count;
    if (!grow((void**)&hb->first_shape, &hb->first_cap, nb, sizeof(int32_t)) ||
        !grow((void**)&hb->rt, &hb->rt_cap, nb, sizeof(*hb->rt)) ||
        !grow((void**)&hb->record_offsets, &hb->offsets_cap, 2 * nb + 1, sizeof(int32_t)) ||
        !grow((void**)&hb->shape_host, &hb->shape_cap, ns > 0 ? ns : 1, sizeof(int32_t)) ||
        !grow((void**)&hb->records, &hb->records_cap, records > 0 ? records : 1, sizeof(*hb->records)))
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the host bodies' solve (%d bodies)",
                        nb);
    for (int32_t b = 0; b < nb; ++b) { /* for a rollback of this step */
        dfm_host_body_entry* e = &hb->entries[b];
        memcpy(e->saved_end_velocity, e->end_velocity, sizeof(e->end_velocity));
        e->saved_has_end_velocity = e->has_end_velocity;
        e->saved_at = w->step_count;
    }
    for (int32_t b = 0; b < nb; ++b) {
        const dfm_host_body_entry* e = &hb->entries[b];
        dfm_host_body_rt* r = &hb->rt[b];
        memset(r, 0, sizeof(*r));
        r->mass = e->mass;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) r->inertia.m[i][j] = e->inertia[3 * i + j];
        hb->first_shape[b] = -1;
    }
    /* The host integrated the body with a velocity kick at the step's start (symplectic Euler:
     * v1 = v0 + dt a, x1 = x0 + dt v1), but the deformables feel their forces once per advance. So
     * the correction starts at -(v1 - v0) and takes the kick back as a constant acceleration a
     * over the advances: the body's path is then what the host's forces and the contacts do
     * together, advance by advance, and a body resting on a cloth is carried by the same force in
     * every advance (with the kick at the start it was 2 m g in the first of two, 0 in the second). */
    for (int32_t k = 0; k < ns; ++k) {
        const dfm_shape* s = dfm_world_shape_at(w, w->contacts.shape_slot[k]);
        const int32_t at = find_entry(hb, s->host_body);
        hb->shape_host[k] = at >= 0 ? at : -1;
        if (at >= 0 && hb->first_shape[at] < 0) hb->first_shape[at] = k;
        if (at < 0 || !hb->entries[at].has_end_velocity) continue;
        dfm_host_body_rt* r = &hb->rt[at];
        const float* v0 = hb->entries[at].end_velocity;
        const dfm_v3 kick = dfm_v3_sub(dfm_v3_load(s->velocity_cur), dfm_v3_load(v0));
        const dfm_v3 kick_w = dfm_v3_sub(dfm_v3_load(s->velocity_cur + 3), dfm_v3_load(v0 + 3));
        r->vc = dfm_v3_neg(kick);
        r->wtheta = dfm_v3_neg(kick_w);
        r->accel = dfm_v3_scale(kick, 1.0f / dt);
        r->alpha = dfm_v3_scale(kick_w, 1.0f / dt);
    }
    for (int32_t k = 0; k < ns; ++k) /* the shapes' velocities for the next step's kick */
        if (hb->shape_host[k] >= 0) {
            const dfm_shape* s = dfm_world_shape_at(w, w->contacts.shape_slot[k]);
            memcpy(hb->entries[hb->shape_host[k]].end_velocity, s->velocity_cur, sizeof(s->velocity_cur));
        }
    out->count = nb;
    out->bodies = hb->rt;
    out->shape_count = ns;
    out->shape_host = hb->shape_host;
    out->first_shape = hb->first_shape;
    out->shapes = w->contacts.rt;
    out->record_offsets = hb->record_offsets;
    out->records = hb->records;
    return DFM_OK;
}

void dfm_host_bodies_begin_advance(dfm_cpu_host_solve* hs, float h) {
    for (int32_t b = 0; b < hs->count; ++b) {
        const int32_t k = hs->first_shape[b];
        dfm_host_body_begin_advance(&hs->bodies[b], k >= 0 ? hs->shapes[k].body_end : hs->bodies[b].free_end, h);
    }
    dfm_cpu_place_host_shapes(hs, 1);
}

void dfm_host_bodies_end_advance(dfm_cpu_host_solve* hs, float h) {
    for (int32_t b = 0; b < hs->count; ++b) dfm_host_body_end_advance(&hs->bodies[b], h);
}

void dfm_host_bodies_finish_step(dfm_world* w, const dfm_cpu_host_solve* hs) {
    dfm_host_bodies* hb = &w->host_bodies;
    for (int32_t b = 0; b < hs->count; ++b) {
        const dfm_host_body_rt* r = &hs->bodies[b];
        dfm_host_body_entry* e = &hb->entries[b];
        dfm_host_body_correction* c = &e->last;
        c->solved = 1;
        dfm_v3_store(r->c, c->position);
        dfm_v3_store(r->theta, c->rotation);
        dfm_v3_store(r->vc, c->linear_velocity);
        dfm_v3_store(r->wtheta, c->angular_velocity);
        e->solved_at = w->step_count + 1; /* dfm_world_step counts the step after this */
        for (int a = 0; a < 3; ++a) {     /* begin_step stored the host's end velocity: add the correction */
            e->end_velocity[a] += c->linear_velocity[a];
            e->end_velocity[3 + a] += c->angular_velocity[a];
        }
        e->has_end_velocity = 1;
    }
    for (int32_t k = 0; k < hs->shape_count; ++k) {
        const int32_t b = hs->shape_host[k];
        if (b < 0) continue;
        const dfm_host_body_rt* r = &hs->bodies[b];
        dfm_shape* s = dfm_world_shape_at(w, w->contacts.shape_slot[k]);
        s->body_prev = s->body_last = dfm_xform_corrected(s->body_cur, r->c, r->theta);
        for (int a = 0; a < 3; ++a) { /* the host's box, moved along (the rotation's part is within the gap) */
            s->aabb_prev[a] = s->aabb_cur[a] + dfm_v3_get(r->c, a);
            s->aabb_prev[3 + a] = s->aabb_cur[3 + a] + dfm_v3_get(r->c, a);
        }
    }
}

void dfm_host_bodies_forget(dfm_world* w) {
    dfm_host_bodies* hb = &w->host_bodies;
    for (int32_t b = 0; b < hb->count; ++b) {
        const uint64_t id = hb->entries[b].host_body;
        memset(&hb->entries[b].last, 0, sizeof(hb->entries[b].last));
        hb->entries[b].last.host_body = id;
        hb->entries[b].solved_at = -1;
    }
}

void dfm_host_bodies_rollback(dfm_world* w) {
    dfm_host_bodies* hb = &w->host_bodies;
    for (int32_t b = 0; b < hb->count; ++b) {
        dfm_host_body_entry* e = &hb->entries[b];
        if (e->saved_at != w->step_count) continue; /* the refused step never began for it */
        memcpy(e->end_velocity, e->saved_end_velocity, sizeof(e->end_velocity));
        e->has_end_velocity = e->saved_has_end_velocity;
    }
    dfm_host_bodies_forget(w);
}
