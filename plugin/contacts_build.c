/// @file contacts_build.c
/// Builds, on the host and only when bodies or shapes change, the contact pipeline's flat arrays:
/// the live-shape table, the world-compatible (feature, shape) candidate lists — a feature of
/// environment e meets shapes of e and of -1; a feature of -1 meets all — stably sorted by shape
/// (seed 000 section 2; DFM_DISABLE_SHAPE_SORT keeps feature order), the record buffers sized to
/// the capacity and per-particle list heads.
#include <stdlib.h>
#include <string.h>

#include "contacts.h"
#include "error.h"
#include "world_internal.h"

#define CALLOC(ptr, count) ((ptr) = calloc((size_t)(count) + 1u, sizeof(*(ptr))), (ptr) != NULL)

int dfm_contact_records_alloc(dfm_contact_records* r, size_t n) {
    int ok = 1;
#define ALLOC(type, name, width) ok = CALLOC(r->name, (width)*n) && ok; /* assigns every field, also after a failure */
    DFM_CONTACT_RECORD_FIELDS(ALLOC)
#undef ALLOC
    if (!ok) dfm_contact_records_free(r);
    return ok;
}

void dfm_contact_records_free(dfm_contact_records* r) {
#define FREE(type, name, width) \
    free(r->name);              \
    r->name = NULL;
    DFM_CONTACT_RECORD_FIELDS(FREE)
#undef FREE
}

void dfm_contact_candidates_free(dfm_contact_candidates* c) {
    for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k) free(c->pairs[k]);
    memset(c, 0, sizeof(*c));
}

void dfm_contacts_free(dfm_contacts* c) {
    free(c->shape_slot);
    free(c->rt);
    dfm_contact_candidates_free(&c->cand);
    dfm_contact_records_free(&c->rec);
    free(c->head);
    free(c->next);
    free(c->acc_f);
    free(c->acc_H);
    free(c->guess_normal);
    free(c->guess_gap);
    free(c->record_force);
    free(c->node_part);
    free(c->residual);
    free(c->body_extra);
    free(c->node_friction);
    free(c->node_body_friction);
    free(c->detect_pose);
    free(c->detect_speed);
    free(c->detect_corner);
    free(c->detect_corner_shape);
    dfm_contact_records_free(&c->scratch);
    dfm_cpu_rigid_broad_free(&c->broad);
    int64_t dropped_total = c->dropped_total, generation = c->generation, forks = c->detect_forks;
    memset(c, 0, sizeof(*c));
    c->dropped_total = dropped_total;
    c->generation = generation;
    c->detect_forks = forks;
}

/// Shapes grouped by environment: shared shapes (-1) and, per environment, its own shapes.
typedef struct env_shapes {
    int32_t* offsets; /* environment_count + 1 */
    int32_t* items;   /* shape indices of environment e */
    int32_t shared_count;
    int32_t* shared;
} env_shapes;

/// Counts or writes the candidates of `n` features whose environments are `env_of(f)`.
static int64_t emit(const env_shapes* es, int32_t total_shapes, const int32_t* feat_env, int32_t n, int32_t* out) {
    int64_t k = 0;
    for (int32_t f = 0; f < n; ++f) {
        int32_t e = feat_env[f];
        if (e < 0) {
            for (int32_t s = 0; s < total_shapes; ++s, ++k)
                if (out) {
                    out[2 * k] = f;
                    out[2 * k + 1] = s;
                }
            continue;
        }
        /* merge shared and own shapes in ascending shape order */
        int32_t i = 0, j = es->offsets[e], jend = es->offsets[e + 1];
        while (i < es->shared_count || j < jend) {
            int32_t s;
            if (j >= jend || (i < es->shared_count && es->shared[i] < es->items[j]))
                s = es->shared[i++];
            else
                s = es->items[j++];
            if (out) {
                out[2 * k] = f;
                out[2 * k + 1] = s;
            }
            ++k;
        }
    }
    return k;
}

/// Stable counting sort of (feature, shape) pairs by shape.
static int sort_by_shape(int32_t* pairs, int32_t n, int32_t shapes) {
    int32_t* off = calloc((size_t)shapes + 1u, sizeof(int32_t));
    int32_t* tmp = malloc((size_t)n * 2u * sizeof(int32_t) + 1);
    if (!off || !tmp) {
        free(off);
        free(tmp);
        return -1;
    }
    for (int32_t i = 0; i < n; ++i) off[pairs[2 * i + 1] + 1]++;
    for (int32_t s = 0; s < shapes; ++s) off[s + 1] += off[s];
    for (int32_t i = 0; i < n; ++i) {
        int32_t d = off[pairs[2 * i + 1]]++;
        tmp[2 * d] = pairs[2 * i];
        tmp[2 * d + 1] = pairs[2 * i + 1];
    }
    memcpy(pairs, tmp, (size_t)n * 2u * sizeof(int32_t));
    free(off);
    free(tmp);
    return 0;
}

/// Builds candidate list `kind` of the contacts for features whose environment is feat_env[f].
static dfm_result build_list(dfm_world* w, const env_shapes* es, const int32_t* feat_env, int32_t n, int kind) {
    static const char* const k_kind_name[DFM_CANDIDATE_KINDS] = {"particle", "edge", "face"};
    const char* name = k_kind_name[kind];
    dfm_contact_candidates* cand = &w->contacts.cand;
    int64_t count = emit(es, w->contacts.shape_count, feat_env, n, NULL);
    if (count > INT32_MAX / 3)
        return dfm_fail(w, DFM_ERROR_CAPACITY, "%lld %s candidate pairs exceed the 32-bit index space",
                        (long long)count, name);
    if (!CALLOC(cand->pairs[kind], 2 * count))
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of memory for %s candidates", name);
    emit(es, w->contacts.shape_count, feat_env, n, cand->pairs[kind]);
    cand->count[kind] = (int32_t)count;
    if (!(w->def.disable_flags & DFM_DISABLE_SHAPE_SORT) &&
        sort_by_shape(cand->pairs[kind], (int32_t)count, w->contacts.shape_count) != 0)
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of memory sorting %s candidates", name);
    return DFM_OK;
}

dfm_result dfm_contacts_ensure(dfm_world* w) {
    dfm_contacts* c = &w->contacts;
    if (!c->dirty) return DFM_OK;
    dfm_contacts_free(c);
    const dfm_model* m = &w->model;
    int32_t ns = w->shape_pool.live, ne = w->def.environment_count;
    dfm_result r = DFM_OK;
    env_shapes es;
    memset(&es, 0, sizeof(es));
    int32_t *env_p = NULL, *env_e = NULL, *env_f = NULL;
    c->shape_count = ns;
    if (!CALLOC(c->shape_slot, ns) || !CALLOC(c->rt, ns) || !CALLOC(es.offsets, ne + 1) || !CALLOC(es.items, ns) ||
        !CALLOC(es.shared, ns) || !CALLOC(env_p, m->feat_particle_count) || !CALLOC(env_e, m->feat_edge_count) ||
        !CALLOC(env_f, m->feat_face_count)) {
        r = dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building contact candidates");
        goto done;
    }
    for (int32_t i = 0, k = 0; i < w->shape_pool.count; ++i)
        if (dfm_world_shape_at(w, i)) c->shape_slot[k++] = i;
    for (int32_t k = 0; k < ns; ++k) {
        const dfm_shape* s = dfm_world_shape_at(w, c->shape_slot[k]);
        if (s->environment < 0)
            es.shared[es.shared_count++] = k;
        else
            es.offsets[s->environment + 1]++;
    }
    for (int32_t e = 0; e < ne; ++e) es.offsets[e + 1] += es.offsets[e];
    {
        int32_t* fill = calloc((size_t)ne + 1u, sizeof(int32_t));
        if (!fill) {
            r = dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory building contact candidates");
            goto done;
        }
        memcpy(fill, es.offsets, (size_t)ne * sizeof(int32_t));
        for (int32_t k = 0; k < ns; ++k) {
            const dfm_shape* s = dfm_world_shape_at(w, c->shape_slot[k]);
            if (s->environment >= 0) es.items[fill[s->environment]++] = k;
        }
        free(fill);
    }
    for (int32_t f = 0; f < m->feat_particle_count; ++f) env_p[f] = m->environment[m->feat_particles[f]];
    for (int32_t f = 0; f < m->feat_edge_count; ++f) env_e[f] = m->environment[m->feat_edges[2 * f]];
    for (int32_t f = 0; f < m->feat_face_count; ++f) env_f[f] = m->environment[m->feat_faces[3 * f]];
    r = build_list(w, &es, env_p, m->feat_particle_count, DFM_CANDIDATE_PARTICLE);
    if (r == DFM_OK && !(w->def.disable_flags & DFM_DISABLE_EDGE_CONTACTS))
        r = build_list(w, &es, env_e, m->feat_edge_count, DFM_CANDIDATE_EDGE);
    if (r == DFM_OK && !(w->def.disable_flags & DFM_DISABLE_FACE_CONTACTS))
        r = build_list(w, &es, env_f, m->feat_face_count, DFM_CANDIDATE_FACE);
    if (r != DFM_OK) goto done;
    {
        int64_t total = dfm_contact_candidates_total(&c->cand);
        int32_t cap = w->def.contact_capacity;
        if (cap == 0) {
            cap = total > DFM_MAX_CONTACT_CAPACITY ? DFM_MAX_CONTACT_CAPACITY : (int32_t)total;
            if (total > DFM_MAX_CONTACT_CAPACITY)
                dfm_log(w, DFM_LOG_WARNING,
                        "%lld contact candidate pairs, above DFM_MAX_CONTACT_CAPACITY: the capacity is %d records per "
                        "advance; records beyond it are dropped and counted (dfm_contact_stats.dropped_*)",
                        (long long)total, cap);
        }
        int32_t np = m->particle_count;
        c->capacity = cap;
        if (!dfm_contact_records_alloc(&c->rec, (size_t)cap) || !CALLOC(c->head, np) ||
            !CALLOC(c->next, 3 * (int64_t)cap) || !CALLOC(c->acc_f, 3 * (int64_t)np) ||
            !CALLOC(c->acc_H, 9 * (int64_t)np) || !CALLOC(c->guess_normal, 3 * (int64_t)np) ||
            !CALLOC(c->guess_gap, np) || !CALLOC(c->record_force, 3 * (int64_t)cap) ||
            !CALLOC(c->node_part, 9 * (int64_t)cap) || !CALLOC(c->residual, 3 * (int64_t)np) ||
            !CALLOC(c->body_extra, 3 * (int64_t)m->body_count) || !CALLOC(c->node_friction, 9 * (int64_t)cap) ||
            !CALLOC(c->node_body_friction, 9 * (int64_t)cap) || !CALLOC(c->detect_pose, ns) ||
            !CALLOC(c->detect_speed, np) || !CALLOC(c->detect_corner, 4 * (int64_t)np) ||
            !CALLOC(c->detect_corner_shape, np)) {
            r = dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %d contact records", cap);
            goto done;
        }
        dfm_log(w, DFM_LOG_INFO, "contact candidates: %d particle, %d edge, %d face pairs over %d shapes; capacity %d",
                c->cand.count[DFM_CANDIDATE_PARTICLE], c->cand.count[DFM_CANDIDATE_EDGE],
                c->cand.count[DFM_CANDIDATE_FACE], ns, cap);
    }
done:
    free(es.offsets);
    free(es.items);
    free(es.shared);
    free(env_p);
    free(env_e);
    free(env_f);
    if (r != DFM_OK) {
        dfm_contacts_free(c);
        c->dirty = 1;
        return r;
    }
    c->dirty = 0;
    c->generation++;
    return DFM_OK;
}
