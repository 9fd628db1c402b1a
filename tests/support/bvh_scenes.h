/// @file bvh_scenes.h
/// Broad-phase test scenes shared by tests/cpu/test_bvh_*.c, tests/gpu/test_gpu_bvh.c and the
/// benchmark: random triangle-strip soups, a folded cloth grid and a tet cube, as primitive sets
/// (plugin/bvh_prims.h) with body filters; an independent brute-force pair finder (its own box
/// and filter code, not kernels/shared/bvh_query.h) and pair-list helpers.
#ifndef DFM_TEST_BVH_SCENES_H
#define DFM_TEST_BVH_SCENES_H

#include <dfm/dfm_base.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_prims.h"
#include "bvh_query.h"

/// A scene: positions, meshes per body, their primitive sets and filters.
typedef struct bvh_scene {
    float* x;
    int32_t vertex_count;
    int32_t* idx; ///< All element indices (tris then tets per body), owned.
    dfm_bvh_mesh* meshes;
    dfm_bvh_filter* filter;
    int32_t body_count;
    dfm_bvh_prim_sets sets;
} bvh_scene;

static uint32_t g_bvh_rng = 12345u;
/// Uniform in [0, 1) (xorshift32; fixed seed so every run sees the same scenes).
static inline float bvh_rand(void) {
    g_bvh_rng ^= g_bvh_rng << 13;
    g_bvh_rng ^= g_bvh_rng >> 17;
    g_bvh_rng ^= g_bvh_rng << 5;
    return (float)(g_bvh_rng >> 8) * (1.0f / 16777216.0f);
}

static inline void bvh_scene_free(bvh_scene* s) {
    free(s->x);
    free(s->idx);
    free(s->meshes);
    free(s->filter);
    dfm_bvh_prims_free(&s->sets);
    memset(s, 0, sizeof(*s));
}

/// Builds s->sets from s->meshes; exits 2 on failure.
static inline void bvh_scene_finish(bvh_scene* s) {
    char err[256];
    if (dfm_bvh_prims_build(s->meshes, s->body_count, s->x, s->vertex_count, &s->sets, err, sizeof(err)) != DFM_OK) {
        fprintf(stderr, "bvh scene: %s\n", err);
        exit(2);
    }
}

/// Default filter of body b: environment env, group 1, mask all, self-collision on.
static inline dfm_bvh_filter bvh_filter(int32_t env) {
    dfm_bvh_filter f = {env, 1u, 0xFFFFFFFFu, 1};
    return f;
}

/// `bodies` triangle strips along reflecting random walks in the unit cube, `verts` vertices each
/// with steps of up to `step` m: strip triangles share vertices with their neighbours, and the
/// walks cross themselves and each other. Bodies alternate between environments 0 and 1; body 1
/// has self-collision off; body 2 is in group 2 with mask ~2 (it meets no group-2 body, not even
/// body 4, also group 2); the rest are default.
static inline bvh_scene bvh_scene_soup(int32_t bodies, int32_t verts, float step) {
    bvh_scene s;
    memset(&s, 0, sizeof(s));
    s.body_count = bodies;
    s.vertex_count = bodies * verts;
    s.x = (float*)malloc(sizeof(float) * 3 * (size_t)s.vertex_count);
    int32_t tris = verts - 2;
    s.idx = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)(bodies * tris));
    s.meshes = (dfm_bvh_mesh*)calloc((size_t)bodies, sizeof(dfm_bvh_mesh));
    s.filter = (dfm_bvh_filter*)malloc(sizeof(dfm_bvh_filter) * (size_t)bodies);
    for (int32_t b = 0; b < bodies; ++b) {
        float p[3] = {bvh_rand(), bvh_rand(), bvh_rand()};
        for (int32_t i = 0; i < verts; ++i) {
            for (int k = 0; k < 3; ++k) {
                p[k] += (bvh_rand() * 2.0f - 1.0f) * step;
                if (p[k] < 0.0f) p[k] = -p[k];
                if (p[k] > 1.0f) p[k] = 2.0f - p[k];
                s.x[3 * (b * verts + i) + k] = p[k];
            }
        }
        int32_t* t = s.idx + 3 * b * tris;
        for (int32_t i = 0; i < tris; ++i)
            for (int c = 0; c < 3; ++c) t[3 * i + c] = b * verts + i + c;
        s.meshes[b].tris = t;
        s.meshes[b].tri_count = tris;
        s.filter[b] = bvh_filter(b % 2);
        if (b == 1) s.filter[b].self_collision = 0;
        if (b == 2 || b == 4) {
            s.filter[b].group = 2u;
            s.filter[b].mask = ~2u;
        }
    }
    bvh_scene_finish(&s);
    return s;
}

/// An m x m vertex cloth on [0, 1]^2 folded onto itself at u = 0.5: the half u < 0.5 lies at z = 0,
/// the half u > 0.5 comes back over it at z = h, the fold column at z = h / 2. Body 0 (environment
/// 0, self-collision on). With `twin`, body 1 is the same cloth at the same place in environment 1
/// with self-collision off: it may produce no pair at all.
static inline bvh_scene bvh_scene_fold(int32_t m, float h, int twin) {
    bvh_scene s;
    memset(&s, 0, sizeof(s));
    s.body_count = twin ? 2 : 1;
    int32_t nv = m * m, nt = 2 * (m - 1) * (m - 1);
    s.vertex_count = nv * s.body_count;
    s.x = (float*)malloc(sizeof(float) * 3 * (size_t)s.vertex_count);
    s.idx = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)(nt * s.body_count));
    s.meshes = (dfm_bvh_mesh*)calloc((size_t)s.body_count, sizeof(dfm_bvh_mesh));
    s.filter = (dfm_bvh_filter*)malloc(sizeof(dfm_bvh_filter) * (size_t)s.body_count);
    for (int32_t b = 0; b < s.body_count; ++b) {
        for (int32_t j = 0; j < m; ++j)
            for (int32_t i = 0; i < m; ++i) {
                float u = (float)i / (float)(m - 1), v = (float)j / (float)(m - 1);
                float* p = s.x + 3 * (b * nv + j * m + i);
                int col2 = 2 * i - (m - 1); /* sign of u - 0.5, exactly */
                p[0] = col2 <= 0 ? u : 1.0f - u;
                p[1] = v;
                p[2] = col2 < 0 ? 0.0f : (col2 == 0 ? 0.5f * h : h);
            }
        int32_t* t = s.idx + 3 * b * nt;
        int32_t k = 0;
        for (int32_t j = 0; j + 1 < m; ++j)
            for (int32_t i = 0; i + 1 < m; ++i) {
                int32_t a = b * nv + j * m + i;
                int32_t q[6] = {a, a + 1, a + m + 1, a, a + m + 1, a + m};
                for (int c = 0; c < 6; ++c) t[k++] = q[c];
            }
        s.meshes[b].tris = t;
        s.meshes[b].tri_count = nt;
        s.filter[b] = bvh_filter(b);
        if (b == 1) s.filter[b].self_collision = 0;
    }
    bvh_scene_finish(&s);
    return s;
}

/// A cube of n^3 cells of side `cell` m at `origin`, six tets per cell (Kuhn subdivision, conforming),
/// one body in environment 0. Its boundary has 12 n^2 triangles, (n+1)^3 - (n-1)^3 vertices and
/// 18 n^2 edges (closed genus-0 surface: E = 3F/2).
static inline bvh_scene bvh_scene_tet_cube(int32_t n, float cell, const float origin[3]) {
    bvh_scene s;
    memset(&s, 0, sizeof(s));
    s.body_count = 1;
    int32_t m = n + 1;
    s.vertex_count = m * m * m;
    s.x = (float*)malloc(sizeof(float) * 3 * (size_t)s.vertex_count);
    for (int32_t k = 0; k < m; ++k)
        for (int32_t j = 0; j < m; ++j)
            for (int32_t i = 0; i < m; ++i) {
                float* p = s.x + 3 * ((k * m + j) * m + i);
                p[0] = origin[0] + cell * (float)i;
                p[1] = origin[1] + cell * (float)j;
                p[2] = origin[2] + cell * (float)k;
            }
    int32_t tets = 6 * n * n * n;
    s.idx = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)tets);
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int32_t w = 0;
    for (int32_t k = 0; k < n; ++k)
        for (int32_t j = 0; j < n; ++j)
            for (int32_t i = 0; i < n; ++i)
                for (int p = 0; p < 6; ++p) {
                    int c[3] = {i, j, k};
                    s.idx[w++] = (c[2] * m + c[1]) * m + c[0];
                    for (int a = 0; a < 3; ++a) {
                        c[perm[p][a]] += 1;
                        s.idx[w++] = (c[2] * m + c[1]) * m + c[0];
                    }
                }
    s.meshes = (dfm_bvh_mesh*)calloc(1, sizeof(dfm_bvh_mesh));
    s.meshes[0].tets = s.idx;
    s.meshes[0].tet_count = tets;
    s.filter = (dfm_bvh_filter*)malloc(sizeof(dfm_bvh_filter));
    s.filter[0] = bvh_filter(0);
    bvh_scene_finish(&s);
    return s;
}

/// Vertex-triangle input over s (points against triangles).
static inline dfm_bvh_input bvh_input_vt(const bvh_scene* s, float radius) {
    dfm_bvh_input in = {s->x,
                        s->vertex_count,
                        s->sets.triangles,
                        s->sets.triangle_count,
                        s->sets.points,
                        s->sets.point_count,
                        s->filter,
                        s->body_count,
                        radius,
                        0};
    return in;
}

/// Edge-edge input over s (edges against edges, each unordered pair once).
static inline dfm_bvh_input bvh_input_ee(const bvh_scene* s, float radius) {
    dfm_bvh_input in = {s->x,          s->vertex_count,
                        s->sets.edges, s->sets.edge_count,
                        s->sets.edges, s->sets.edge_count,
                        s->filter,     s->body_count,
                        radius,        1};
    return in;
}

static inline int bvh_pair_cmp(const void* a, const void* b) {
    const dfm_bvh_pair *p = (const dfm_bvh_pair*)a, *q = (const dfm_bvh_pair*)b;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : (p->b > q->b);
}

/// Sorts a pair list by (a, b).
static inline void bvh_pairs_sort(dfm_bvh_pair* p, int64_t n) {
    qsort(p, (size_t)n, sizeof(dfm_bvh_pair), bvh_pair_cmp);
}

/// Box of a primitive, written independently of bvh_box.h (same float operations: min, max, +-r).
static inline void bvh_ref_box(const float* x, const dfm_bvh_prim* p, float r, float lo[3], float hi[3]) {
    for (int k = 0; k < 3; ++k) {
        lo[k] = x[3 * p->v[0] + k];
        hi[k] = lo[k];
        for (int c = 1; c < 3 && p->v[c] >= 0; ++c) {
            float y = x[3 * p->v[c] + k];
            if (y < lo[k]) lo[k] = y;
            if (y > hi[k]) hi[k] = y;
        }
        lo[k] -= r;
        hi[k] += r;
    }
}

/// The rules of issue 16 written out again, for the reference: same environment; one body only
/// with self-collision; two bodies only when groups and masks agree both ways; no shared vertex.
static inline int bvh_ref_allowed(const dfm_bvh_prim* a, const dfm_bvh_prim* b, const dfm_bvh_filter* f) {
    if (f[a->body].env != f[b->body].env) return 0;
    if (a->body == b->body && !f[a->body].self_collision) return 0;
    if (a->body != b->body && ((f[a->body].group & f[b->body].mask) == 0 || (f[b->body].group & f[a->body].mask) == 0))
        return 0;
    for (int i = 0; i < 3 && a->v[i] >= 0; ++i)
        for (int j = 0; j < 3 && b->v[j] >= 0; ++j)
            if (a->v[i] == b->v[j]) return 0;
    return 1;
}

/// Independent brute force: all pairs of `in`, sorted by (a, b), malloc'ed; *count set.
static inline dfm_bvh_pair* bvh_ref_pairs(const dfm_bvh_input* in, int64_t* count) {
    int64_t cap = 1024, n = 0;
    dfm_bvh_pair* out = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)cap);
    float* tb = (float*)malloc(sizeof(float) * 6 * (size_t)in->tree_count);
    for (int32_t t = 0; t < in->tree_count; ++t)
        bvh_ref_box(in->x, in->tree_prims + t, 0.0f, tb + 6 * t, tb + 6 * t + 3);
    for (int32_t q = 0; q < in->query_count; ++q) {
        float lo[3], hi[3];
        bvh_ref_box(in->x, in->query_prims + q, in->radius, lo, hi);
        for (int32_t t = in->self_set ? q + 1 : 0; t < in->tree_count; ++t) {
            const float* b = tb + 6 * t;
            int hit = 1;
            for (int k = 0; k < 3; ++k) hit &= lo[k] <= b[3 + k] && b[k] <= hi[k];
            if (!hit || !bvh_ref_allowed(in->query_prims + q, in->tree_prims + t, in->filter)) continue;
            if (n == cap) {
                cap *= 2;
                out = (dfm_bvh_pair*)realloc(out, sizeof(dfm_bvh_pair) * (size_t)cap);
            }
            out[n].a = q;
            out[n].b = t;
            ++n;
        }
    }
    free(tb);
    *count = n;
    return out;
}

#endif
