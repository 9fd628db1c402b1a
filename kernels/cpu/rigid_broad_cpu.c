/// @file rigid_broad_cpu.c
/// The per-advance BVH selection of rigid-contact candidates (rigid_broad_cpu.h): one tree over
/// each environment's shape AABBs, rebuilt every advance, queried by every feature box. See the
/// header for why the selection is exact.
///
/// Parallelism review (seed 001):
/// - P1 level batching: does-not-apply (one pass over the features, one sort by shape).
/// - P2 parallel independent columns: applies-and-done — the per-feature queries of a kind fork
///   from DFM_CPU_BROAD_PARALLEL_MIN features: contiguous feature ranges, one buffer each,
///   concatenated in range order (the serial hit order); the sort by shape and the selection stay
///   serial (O(hits)). The detection of the selection forks by its work (contacts_cpu.c).
/// - P3 loop-invariant hoisting: applies-and-done — the per-shape block offsets of the sorted
///   lists and the environment's shape sets are built once per candidate rebuild (generation),
///   only the trees and the selection per advance.
/// - P4 offline memory layout: applies-and-done — the selection comes out shape-major like the
///   lists (seed 000 section 2), so detection keeps its per-shape locality.
#include "rigid_broad_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

/// One worker's hits of a forked query pass (feature-major, as the serial pass writes them).
typedef struct dfm_cpu_broad_part {
    int32_t* feature;
    int32_t* shape;
    int64_t count, cap;
    dfm_bvh_pair* pairs; ///< max_env_shapes: one feature's tree hits.
    int32_t pairs_cap;
    int failed; ///< 1: out of memory or a query overflow (the select then detects everything).
} dfm_cpu_broad_part;

/// Relative slack of the conservative boxes: 1e-5 of the magnitudes involved, about 80 float
/// ulps, far above the few roundings by which the early-out's own sums can differ from ours.
#define BROAD_SLACK 1e-5f

void dfm_cpu_rigid_broad_free(dfm_cpu_rigid_broad* b) {
    for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k) free(b->block[k]);
    if (b->trees)
        for (int32_t e = 0; e < b->env_count; ++e) dfm_cpu_bvh_free(&b->trees[e]);
    free(b->trees);
    free(b->tree_ok);
    free(b->env_off);
    free(b->env_shape);
    free(b->corners);
    free(b->prims);
    free(b->hit_feature);
    free(b->hit_shape);
    free(b->sorted_feature);
    free(b->bucket);
    free(b->selected);
    for (int32_t t = 0; t < b->part_count; ++t) {
        free(b->parts[t].feature);
        free(b->parts[t].shape);
        free(b->parts[t].pairs);
    }
    free(b->parts);
    memset(b, 0, sizeof(*b));
}

int dfm_cpu_rigid_broad_threshold(const char* value, int64_t* threshold) {
    *threshold = DFM_CPU_RIGID_BVH_SHAPES;
    if (!value || !strcmp(value, "auto")) return 0;
    if (!strcmp(value, "bvh")) {
        *threshold = 0;
        return 0;
    }
    if (!strcmp(value, "brute")) {
        *threshold = INT64_MAX;
        return 0;
    }
    if (!*value) return -1;
    int64_t t = 0;
    for (const char* p = value; *p; ++p) {
        if (*p < '0' || *p > '9' || t > (INT64_MAX - 9) / 10) return -1;
        t = 10 * t + (*p - '0');
    }
    *threshold = t;
    return 0;
}

/// Per-generation tables: each list's per-shape blocks, each environment's shape set and its tree
/// buffers. Returns 0, or -1 (out of memory, or a list not sorted by shape).
static int prepare(dfm_cpu_rigid_broad* b, const dfm_contact_view* c, int32_t env_count, int64_t generation) {
    const int32_t ns = c->shape_count;
    const int32_t ne = env_count > 0 ? env_count : 1;
    dfm_cpu_rigid_broad_free(b);
    b->shape_count = ns;
    b->env_count = ne;
    for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k) {
        b->block[k] = (int32_t*)calloc((size_t)ns + 1u, sizeof(int32_t));
        if (!b->block[k]) return -1;
        const int32_t* pairs = c->cand.pairs[k];
        for (int32_t i = 0; i < c->cand.count[k]; ++i) {
            int32_t s = pairs[2 * i + 1];
            if (s < 0 || s >= ns || (i > 0 && s < pairs[2 * i - 1])) return -1; /* not shape-sorted */
            b->block[k][s + 1]++;
            if (pairs[2 * i] + 1 > b->features[k]) b->features[k] = pairs[2 * i] + 1;
        }
        for (int32_t s = 0; s < ns; ++s) b->block[k][s + 1] += b->block[k][s];
    }
    b->env_off = (int32_t*)calloc((size_t)ne + 1u, sizeof(int32_t));
    b->trees = (dfm_cpu_bvh*)calloc((size_t)ne, sizeof(dfm_cpu_bvh));
    b->tree_ok = (int32_t*)calloc((size_t)ne, sizeof(int32_t));
    if (!b->env_off || !b->trees || !b->tree_ok) return -1;
    int32_t shared = 0;
    for (int32_t s = 0; s < ns; ++s) {
        const dfm_shape_rt* r = &c->shapes[s];
        if (r->is_plane) continue;
        if (r->environment < 0 || r->environment >= ne)
            ++shared;
        else
            b->env_off[r->environment + 1]++;
    }
    for (int32_t e = 0; e < ne; ++e) {
        int32_t n = b->env_off[e + 1] + shared;
        if (n > b->max_env_shapes) b->max_env_shapes = n;
        b->env_off[e + 1] = b->env_off[e] + n;
    }
    const int32_t entries = b->env_off[ne];
    b->env_shape = (int32_t*)malloc(((size_t)entries + 1u) * sizeof(int32_t));
    b->corners = (float*)malloc(((size_t)entries + 1u) * 6u * sizeof(float));
    b->prims = (dfm_bvh_prim*)malloc(((size_t)b->max_env_shapes + 1u) * sizeof(dfm_bvh_prim));
    b->bucket = (int32_t*)malloc(((size_t)ns + 2u) * sizeof(int32_t));
    if (!b->env_shape || !b->corners || !b->prims || !b->bucket) return -1;
    for (int32_t e = 0; e < ne; ++e) {
        int32_t k = b->env_off[e];
        for (int32_t s = 0; s < ns; ++s) { /* own and shared shapes merged in ascending order */
            const dfm_shape_rt* r = &c->shapes[s];
            if (!r->is_plane && (r->environment == e || r->environment < 0 || r->environment >= ne))
                b->env_shape[k++] = s;
        }
        int32_t n = b->env_off[e + 1] - b->env_off[e];
        char err[160];
        if (n > 0 && dfm_cpu_bvh_init(&b->trees[e], n, err, sizeof(err)) != 0) return -1;
    }
    for (int32_t i = 0; i < b->max_env_shapes; ++i) {
        b->prims[i].v[0] = 2 * i;
        b->prims[i].v[1] = 2 * i + 1;
        b->prims[i].v[2] = -1;
        b->prims[i].body = 0;
    }
    b->generation = generation;
    return 0;
}

/// Grows the hit scratch to hold at least `need` hits. Returns 0 or -1.
static int hits_room(dfm_cpu_rigid_broad* b, int64_t need) {
    if (need <= b->hit_cap) return 0;
    int64_t cap = b->hit_cap > 0 ? b->hit_cap : 4096;
    while (cap < need) cap *= 2;
    int32_t* f = (int32_t*)realloc(b->hit_feature, (size_t)cap * sizeof(int32_t));
    if (f) b->hit_feature = f;
    int32_t* s = (int32_t*)realloc(b->hit_shape, (size_t)cap * sizeof(int32_t));
    if (s) b->hit_shape = s;
    int32_t* o = (int32_t*)realloc(b->sorted_feature, (size_t)cap * sizeof(int32_t));
    if (o) b->sorted_feature = o;
    if (!f || !s || !o) return -1;
    b->hit_cap = cap;
    return 0;
}

/// Grows the selection to hold at least `need` indices (never beyond the candidate count, which
/// bounds it). Returns 0 or -1.
static int selected_room(dfm_cpu_rigid_broad* b, int64_t need) {
    if (need <= b->selected_cap) return 0;
    int64_t cap = b->selected_cap > 0 ? b->selected_cap : 4096;
    while (cap < need) cap *= 2;
    int32_t* p = (int32_t*)realloc(b->selected, (size_t)cap * sizeof(int32_t));
    if (!p) return -1;
    b->selected = p;
    b->selected_cap = cap;
    return 0;
}

/// Rebuilds every environment's tree over its shapes' grown AABBs of this advance.
static void build_trees(dfm_cpu_rigid_broad* b, const dfm_contact_view* c) {
    for (int32_t e = 0; e < b->env_count; ++e) {
        const int32_t off = b->env_off[e], n = b->env_off[e + 1] - off;
        b->tree_ok[e] = 0;
        if (n == 0) continue;
        float* x = b->corners + 6 * (size_t)off;
        for (int32_t i = 0; i < n; ++i) {
            const dfm_shape_rt* r = &c->shapes[b->env_shape[off + i]];
            float grow = r->margin + r->gap, mag = grow;
            for (int a = 0; a < 3; ++a) mag = dfm_fmaxf(mag, dfm_fmaxf(fabsf(r->aabb_min[a]), fabsf(r->aabb_max[a])));
            grow += BROAD_SLACK * (grow + mag);
            for (int a = 0; a < 3; ++a) {
                x[6 * i + a] = r->aabb_min[a] - grow;
                x[6 * i + 3 + a] = r->aabb_max[a] + grow;
            }
        }
        dfm_bvh_filter all = {0, 1u, 0xFFFFFFFFu, 1};
        dfm_bvh_input bi;
        memset(&bi, 0, sizeof(bi));
        bi.x = x;
        bi.vertex_count = 2 * n;
        bi.tree_prims = b->prims;
        bi.tree_count = n;
        bi.filter = &all;
        bi.body_count = 1;
        char err[160];
        /* a non-finite box fails the build's validation: then every shape of e is a hit */
        b->tree_ok[e] = dfm_cpu_bvh_build(&b->trees[e], &bi, err, sizeof(err)) == 0;
        b->trees[e].filter = NULL; /* borrowed from this frame: the query below passes its own */
    }
}

/// The conservative box of feature f of `kind`: its corners' box grown by the largest corner
/// radius plus the largest corner speed times h, and the slack. Returns 0 when it is not finite.
static int feature_box(const dfm_contact_view* c, const dfm_detect_input* in, int kind, int32_t f, dfm_bvh_box* out,
                       int32_t* first_particle) {
    int32_t p[3];
    int n = kind + 1;
    if (kind == DFM_CANDIDATE_PARTICLE) {
        p[0] = c->feat_particles[f];
    } else if (kind == DFM_CANDIDATE_EDGE) {
        p[0] = c->feat_edges[2 * f];
        p[1] = c->feat_edges[2 * f + 1];
    } else {
        p[0] = c->feat_faces[3 * f];
        p[1] = c->feat_faces[3 * f + 1];
        p[2] = c->feat_faces[3 * f + 2];
    }
    *first_particle = p[0];
    dfm_bvh_box bx = dfm_bvh_box_empty();
    float r = 0.0f, speed = 0.0f;
    for (int j = 0; j < n; ++j) {
        const float* x = in->x + 3 * (size_t)p[j];
        for (int a = 0; a < 3; ++a) {
            bx.lo[a] = dfm_fminf(bx.lo[a], x[a]);
            bx.hi[a] = dfm_fmaxf(bx.hi[a], x[a]);
        }
        r = dfm_fmaxf(r, in->radius[p[j]]);
        speed = dfm_fmaxf(speed, dfm_v3_len(dfm_v3_load(in->v + 3 * (size_t)p[j])));
    }
    float grow = r + speed * in->h, mag = grow;
    for (int a = 0; a < 3; ++a) mag = dfm_fmaxf(mag, dfm_fmaxf(fabsf(bx.lo[a]), fabsf(bx.hi[a])));
    grow += BROAD_SLACK * (grow + mag);
    int finite = isfinite(grow);
    for (int a = 0; a < 3; ++a) {
        bx.lo[a] -= grow;
        bx.hi[a] += grow;
        finite = finite && isfinite(bx.lo[a]) && isfinite(bx.hi[a]);
    }
    *out = bx;
    return finite;
}

/// First index in [lo, hi) of list `pairs` whose feature is f, or -1.
static int32_t find_feature(const int32_t* pairs, int32_t lo, int32_t hi, int32_t f) {
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (pairs[2 * mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < 0 || pairs[2 * lo] != f ? -1 : lo;
}

/// Room for `need` hits in part `p` (grown by doubling); 0, or -1 when memory ran out.
static int part_room(dfm_cpu_broad_part* p, int64_t need) {
    if (need <= p->cap) return 0;
    int64_t cap = p->cap > 0 ? p->cap : 4096;
    while (cap < need) cap *= 2;
    int32_t* f = (int32_t*)realloc(p->feature, (size_t)cap * sizeof(int32_t));
    if (f) p->feature = f;
    int32_t* s = (int32_t*)realloc(p->shape, (size_t)cap * sizeof(int32_t));
    if (s) p->shape = s;
    if (!f || !s) return -1;
    p->cap = cap;
    return 0;
}

/// The hits of features [f0, f1) of list `kind` into part `p`, in feature order (the loop of
/// select_kind's serial pass, with the part's own buffers); sets p->failed as that pass returns -1.
static void query_part(const dfm_cpu_rigid_broad* b, dfm_cpu_broad_part* p, const dfm_contact_view* c,
                       const dfm_detect_input* in, const int32_t* particle_env, int kind, int32_t f0, int32_t f1) {
    const int32_t ns = b->shape_count;
    p->count = 0;
    p->failed = 0;
    if (b->max_env_shapes > 0 && p->pairs_cap < b->max_env_shapes) { /* none: no environment has a shape */
        dfm_bvh_pair* q = (dfm_bvh_pair*)realloc(p->pairs, (size_t)b->max_env_shapes * sizeof(dfm_bvh_pair));
        if (!q) {
            p->failed = 1;
            return;
        }
        p->pairs = q;
        p->pairs_cap = b->max_env_shapes;
    }
    int64_t hits = 0;
    for (int32_t f = f0; f < f1; ++f) {
        dfm_bvh_box q;
        int32_t p0;
        const int finite = feature_box(c, in, kind, f, &q, &p0);
        const int32_t e = particle_env[p0];
        if (e < 0 || e >= b->env_count) {
            if (part_room(p, hits + ns) != 0) {
                p->failed = 1;
                return;
            }
            for (int32_t s = 0; s < ns; ++s)
                if (!c->shapes[s].is_plane) {
                    p->feature[hits] = f;
                    p->shape[hits++] = s;
                }
            continue;
        }
        const int32_t off = b->env_off[e], n = b->env_off[e + 1] - off;
        if (n == 0) continue;
        if (part_room(p, hits + n) != 0) {
            p->failed = 1;
            return;
        }
        if (!finite || !b->tree_ok[e]) {
            for (int32_t i = 0; i < n; ++i) {
                p->feature[hits] = f;
                p->shape[hits++] = b->env_shape[off + i];
            }
            continue;
        }
        const dfm_cpu_bvh* t = &b->trees[e];
        dfm_bvh_filter all = {0, 1u, 0xFFFFFFFFu, 1};
        dfm_bvh_view v = {t->leaf_count, t->left, t->right, t->boxes, t->leaf_prim, t->prims, &all};
        dfm_bvh_prim qp = {{-1, -1, -1}, 0};
        int32_t overflow = 0;
        const int32_t found = dfm_bvh_query_one(&v, f, &qp, &q, 0, p->pairs, b->max_env_shapes, &overflow);
        for (int32_t k = 0; k < found && k < n; ++k) {
            p->feature[hits] = f;
            p->shape[hits++] = b->env_shape[off + p->pairs[k].b];
        }
        if (overflow) {
            p->failed = 1;
            return;
        }
    }
    p->count = hits;
}

/// The hits of list `kind` (b->hit_feature / hit_shape, feature-major) by nt workers over
/// contiguous feature ranges (query_part each), concatenated in range order, so that any nt gives
/// the same hits (nt = 1: one part, no fork); writes the hit count to *out. 0, or -1 (out of memory,
/// a query overflow: the caller detects everything).
static int query_forked(dfm_cpu_rigid_broad* b, const dfm_contact_view* c, const dfm_detect_input* in,
                        const int32_t* particle_env, int kind, int32_t nt, int64_t* out) {
    const int32_t features = b->features[kind];
    if (b->part_count < nt) {
        dfm_cpu_broad_part* p = (dfm_cpu_broad_part*)realloc(b->parts, (size_t)nt * sizeof(dfm_cpu_broad_part));
        if (!p) return -1;
        memset(p + b->part_count, 0, (size_t)(nt - b->part_count) * sizeof(dfm_cpu_broad_part));
        b->parts = p;
        b->part_count = nt;
    }
    dfm_cpu_broad_part* parts = b->parts;
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
#endif
    for (int32_t t = 0; t < nt; ++t)
        query_part(b, &parts[t], c, in, particle_env, kind, (int32_t)((int64_t)features * t / nt),
                   (int32_t)((int64_t)features * (t + 1) / nt));
    int64_t hits = 0;
    for (int32_t t = 0; t < nt; ++t) {
        if (parts[t].failed) return -1;
        hits += parts[t].count;
    }
    if (hits_room(b, hits) != 0) return -1;
    int64_t at = 0;
    for (int32_t t = 0; t < nt; ++t) {
        if (parts[t].count == 0) continue;
        memcpy(b->hit_feature + at, parts[t].feature, (size_t)parts[t].count * sizeof(int32_t));
        memcpy(b->hit_shape + at, parts[t].shape, (size_t)parts[t].count * sizeof(int32_t));
        at += parts[t].count;
    }
    *out = hits;
    return 0;
}

/// Appends the selected candidates of list `kind` to b->selected.
static int select_kind(dfm_cpu_rigid_broad* b, const dfm_contact_view* c, const dfm_detect_input* in,
                       const int32_t* particle_env, int kind) {
    const int32_t ns = b->shape_count, features = b->features[kind];
    const int32_t* pairs = c->cand.pairs[kind];
    if (c->cand.count[kind] == 0) return 0;
    int64_t hits = 0;
    const int32_t nt = b->threads > 1 && features >= DFM_CPU_BROAD_PARALLEL_MIN ? b->threads : 1;
    if (query_forked(b, c, in, particle_env, kind, nt, &hits) != 0) return -1;
    /* stable counting sort of the hits by shape: features ascending within each shape */
    int32_t* bucket = b->bucket;
    memset(bucket, 0, ((size_t)ns + 1u) * sizeof(int32_t));
    for (int64_t i = 0; i < hits; ++i) bucket[b->hit_shape[i] + 1]++;
    for (int32_t s = 0; s < ns; ++s) bucket[s + 1] += bucket[s];
    for (int64_t i = 0; i < hits; ++i) b->sorted_feature[bucket[b->hit_shape[i]]++] = b->hit_feature[i];
    /* bucket[s] is now the end of shape s's hits (the start of s + 1's) */
    const int32_t first = dfm_contact_candidates_first(&c->cand, kind);
    const int32_t* block = b->block[kind];
    int32_t begin = 0;
    for (int32_t s = 0; s < ns; ++s) {
        const int32_t end = bucket[s];
        /* room for the whole block: the most this shape can add */
        if (selected_room(b, b->selected_count + (block[s + 1] - block[s])) != 0) return -1;
        if (c->shapes[s].is_plane) { /* the early-out passes every plane candidate */
            for (int32_t i = block[s]; i < block[s + 1]; ++i) b->selected[b->selected_count++] = first + i;
        } else {
            int32_t lo = block[s];
            for (int32_t k = begin; k < end; ++k) {
                int32_t i = find_feature(pairs, lo, block[s + 1], b->sorted_feature[k]);
                if (i < 0) continue; /* not a candidate (cannot happen: environments agree) */
                b->selected[b->selected_count++] = first + i;
                lo = i + 1;
            }
        }
        begin = end;
    }
    return 0;
}

int dfm_cpu_rigid_broad_select(dfm_cpu_rigid_broad* b, const dfm_contact_view* c, const dfm_detect_input* in,
                               const int32_t* particle_env, int32_t env_count, int64_t generation) {
    if (b->generation != generation || b->shape_count != c->shape_count) {
        if (prepare(b, c, env_count, generation) != 0) {
            dfm_cpu_rigid_broad_free(b);
            return -1;
        }
    }
    b->selected_count = 0;
    build_trees(b, c);
    for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k)
        if (select_kind(b, c, in, particle_env, k) != 0) {
            b->selected_count = 0;
            return -1;
        }
    return 0;
}
