/// @file model_build.c
/// Rebuilds the world-wide model and state from the body records when topology changed.
/// Bodies are laid out in slot order; their per-particle state (positions, velocities, modes,
/// kinematic targets) is carried over from the previous layout.
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model.h"
#include "world_internal.h"

#define ALLOC(ptr, count) ((ptr) = calloc((size_t)(count) + 1u, sizeof(*(ptr))), (ptr) != NULL)

void dfm_model_free(dfm_model* m) {
#define FREE_ROW(type, name, count, width) free(m->name);
    DFM_MODEL_ARRAYS(FREE_ROW)
#undef FREE_ROW
    free(m->body_offsets);
    free(m->color_offsets);
    dfm_adjacency_free(&m->adjacency);
    memset(m, 0, sizeof(*m));
}

void dfm_state_free(dfm_state* s) {
#define FREE_ROW(type, name, count, width) free(s->name);
    DFM_STATE_ARRAYS(FREE_ROW)
#undef FREE_ROW
    memset(s, 0, sizeof(*s));
}

/// Allocates every table row of the model (whose counts are set) and of the state, zeroed, with
/// one spare item so that an empty array is not NULL; stops at the first failure.
static int model_alloc(dfm_model* m, dfm_state* s) {
    int ok = 1;
#define ALLOC_ROW(type, name, count, width) ok = ok && ALLOC(m->name, (int64_t)m->count * (width));
    DFM_MODEL_ARRAYS(ALLOC_ROW)
#undef ALLOC_ROW
#define ALLOC_ROW(type, name, count, width) ok = ok && ALLOC(s->name, (int64_t)m->count * (width));
    DFM_STATE_ARRAYS(ALLOC_ROW)
#undef ALLOC_ROW
    return ok;
}

/// Appends one body's contact features (offset to world particle indices) at fp/fe/ff.
static void place_features(dfm_model* m, const dfm_body* b, int32_t p0, int32_t fp, int32_t fe, int32_t ff) {
    for (int32_t i = 0; i < b->surf_particle_count; ++i) m->feat_particles[fp + i] = p0 + b->surf_particles[i];
    for (int32_t i = 0; i < 2 * b->surf_edge_count; ++i) m->feat_edges[2 * fe + i] = p0 + b->surf_edges[i];
    for (int32_t i = 0; i < 3 * b->surf_face_count; ++i) m->feat_faces[3 * ff + i] = p0 + b->surf_faces[i];
}

/// Appends one body's elements and particles at the given offsets.
static void place_body(dfm_model* m, dfm_state* s, const dfm_state* old, const dfm_body* b, int32_t p0, int32_t t0,
                       int32_t e0, int32_t k0) {
    for (int32_t i = 0; i < b->vertex_count; ++i) {
        int32_t p = p0 + i;
        m->mass[p] = b->mass[i];
        m->radius[p] = b->contact_radius;
        m->drag[p] = b->drag ? b->drag[i] : 0.0f;
        m->environment[p] = b->environment;
        m->particle_color[p] = b->coloring.color[i];
    }
    size_t bytes3 = (size_t)b->vertex_count * 3u * sizeof(float);
    if (b->first_particle >= 0) {
        size_t o = (size_t)b->first_particle;
        memcpy(s->x + 3 * (size_t)p0, old->x + 3 * o, bytes3);
        memcpy(s->v + 3 * (size_t)p0, old->v + 3 * o, bytes3);
        memcpy(s->kin_start + 3 * (size_t)p0, old->kin_start + 3 * o, bytes3);
        memcpy(s->kin_target + 3 * (size_t)p0, old->kin_target + 3 * o, bytes3);
        memcpy(s->mode + p0, old->mode + o, (size_t)b->vertex_count);
    } else {
        memcpy(s->x + 3 * (size_t)p0, b->initial_positions, bytes3);
        memcpy(s->kin_start + 3 * (size_t)p0, b->initial_positions, bytes3);
        memcpy(s->kin_target + 3 * (size_t)p0, b->initial_positions, bytes3);
        if (b->initial_mode) memcpy(s->mode + p0, b->initial_mode, (size_t)b->vertex_count);
    }
    memcpy(s->x_prev + 3 * (size_t)p0, s->x + 3 * (size_t)p0, bytes3);
    for (int32_t t = 0; t < b->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) m->tris[3 * (t0 + t) + k] = p0 + b->triangles[3 * t + k];
        memcpy(m->tri_dinv + 4 * (size_t)(t0 + t), b->tri_dinv + 4 * (size_t)t, 4 * sizeof(float));
        m->tri_area[t0 + t] = b->tri_area[t];
        memcpy(m->tri_material + 3 * (size_t)(t0 + t), b->tri_material, 3 * sizeof(float));
    }
    for (int32_t e = 0; e < b->edge_count; ++e) {
        for (int k = 0; k < 4; ++k) {
            int32_t v = b->edges[4 * e + k];
            m->edges[4 * (e0 + e) + k] = v < 0 ? -1 : p0 + v;
        }
        m->edge_rest_angle[e0 + e] = b->edge_rest_angle[e];
        m->edge_rest_length[e0 + e] = b->edge_rest_length[e];
        memcpy(m->edge_material + 2 * (size_t)(e0 + e), b->edge_material, 2 * sizeof(float));
    }
    for (int32_t t = 0; t < b->tet_count; ++t) {
        for (int k = 0; k < 4; ++k) m->tets[4 * (k0 + t) + k] = p0 + b->tets[4 * t + k];
        memcpy(m->tet_dminv + 9 * (size_t)(k0 + t), b->tet_dminv + 9 * (size_t)t, 9 * sizeof(float));
        m->tet_volume[k0 + t] = b->tet_volume[t];
        memcpy(m->tet_material + 3 * (size_t)(k0 + t), b->tet_material, 3 * sizeof(float));
    }
}

/// Groups particles by color (counting sort, stable in particle order).
static int group_colors(dfm_model* m) {
    int32_t c_count = 0;
    for (int32_t p = 0; p < m->particle_count; ++p)
        if (m->particle_color[p] + 1 > c_count) c_count = m->particle_color[p] + 1;
    if (!ALLOC(m->color_offsets, c_count + 1)) return -1;
    for (int32_t p = 0; p < m->particle_count; ++p) m->color_offsets[m->particle_color[p] + 1]++;
    for (int32_t c = 0; c < c_count; ++c) m->color_offsets[c + 1] += m->color_offsets[c];
    int32_t* fill = calloc((size_t)c_count + 1u, sizeof(int32_t));
    if (!fill) return -1;
    memcpy(fill, m->color_offsets, (size_t)c_count * sizeof(int32_t));
    for (int32_t p = 0; p < m->particle_count; ++p) m->color_particles[fill[m->particle_color[p]]++] = p;
    free(fill);
    m->color_count = c_count;
    return 0;
}

dfm_result dfm_world_ensure_model(dfm_world* w) {
    if (!w->dirty) return DFM_OK;
    dfm_result sync = dfm_world_sync_host(w); /* the rebuild carries the newest state over */
    if (sync != DFM_OK) return sync;
    int32_t np = 0, nt = 0, ne = 0, ntet = 0;
    for (int32_t i = 0; i < w->body_pool.count; ++i) {
        const dfm_body* b = dfm_world_body_at(w, i);
        if (!b) continue;
        np += b->vertex_count;
        nt += b->triangle_count;
        ne += b->edge_count;
        ntet += b->tet_count;
    }
    dfm_model m;
    memset(&m, 0, sizeof(m));
    for (int32_t i = 0; i < w->body_pool.count; ++i) {
        const dfm_body* b = dfm_world_body_at(w, i);
        if (!b) continue;
        m.feat_particle_count += b->surf_particle_count;
        m.feat_edge_count += b->surf_edge_count;
        m.feat_face_count += b->surf_face_count;
    }
    dfm_state s;
    memset(&s, 0, sizeof(s));
    m.particle_count = np;
    m.tri_count = nt;
    m.edge_count = ne;
    m.tet_count = ntet;
    for (int32_t i = 0; i < w->body_pool.count; ++i) m.body_count += dfm_world_body_at(w, i) != NULL;
    if (!model_alloc(&m, &s) || !(m.body_offsets = calloc((size_t)m.body_count + 1u, sizeof(int32_t)))) goto oom;
    int32_t p0 = 0, t0 = 0, e0 = 0, k0 = 0, fp = 0, fe = 0, ff = 0, nb = 0;
    for (int32_t i = 0; i < w->body_pool.count; ++i) {
        const dfm_body* b = dfm_world_body_at(w, i);
        if (!b) continue;
        place_body(&m, &s, &w->state, b, p0, t0, e0, k0);
        place_features(&m, b, p0, fp, fe, ff);
        m.body_offsets[nb] = p0;
        for (int32_t v = 0; v < b->vertex_count; ++v) m.particle_body[p0 + v] = nb;
        ++nb;
        fp += b->surf_particle_count;
        fe += b->surf_edge_count;
        ff += b->surf_face_count;
        p0 += b->vertex_count;
        t0 += b->triangle_count;
        e0 += b->edge_count;
        k0 += b->tet_count;
    }
    m.body_offsets[nb] = p0;
    if (group_colors(&m) != 0) goto oom;
    if (dfm_adjacency_build(&m.adjacency, np, m.tris, nt, m.edges, ne, m.tets, ntet) != 0) goto oom;
    /* Commit: new offsets, free the initial positions that were consumed. */
    p0 = 0;
    for (int32_t i = 0; i < w->body_pool.count; ++i) {
        dfm_body* b = dfm_world_body_at(w, i);
        if (!b) continue;
        b->first_particle = p0;
        free(b->initial_positions);
        b->initial_positions = NULL;
        free(b->initial_mode);
        b->initial_mode = NULL;
        p0 += b->vertex_count;
    }
    dfm_model_free(&w->model);
    dfm_state_free(&w->state);
    w->model = m;
    w->state = s;
    w->dirty = 0;
    w->contacts.dirty = 1;
    w->model_generation++;
    dfm_log(w, DFM_LOG_INFO, "model rebuilt: %d particles, %d triangles, %d bending edges, %d tets, %d colors", np, nt,
            ne, ntet, m.color_count);
    return DFM_OK;
oom:
    dfm_model_free(&m);
    dfm_state_free(&s);
    return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory rebuilding the model (%d particles)", np);
}
