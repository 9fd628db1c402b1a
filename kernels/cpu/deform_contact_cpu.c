/// @file deform_contact_cpu.c
/// CPU detection of deformable-deformable contact pairs and their per-particle lists (see
/// deform_contact_cpu.h); the force math is kernels/shared/deform_contact.h.
///
/// Parallelism review (seed 001):
/// - P1 level batching: does-not-apply: no tree recursion here (the BVH build and query are in
///   bvh_cpu.c, whose review covers them).
/// - P2 parallel independent columns: applies-and-done: on s->threads workers (dfm_cpu_dc_build)
///   the narrow phase and the redundancy marks run over contiguous candidate ranges that start at
///   a new query vertex, each compacting its kept pairs at its own start, then the ranges are
///   joined in order (serial: a copy per pair and the dropped pairs' bound); the colours are
///   sub-coloured in parallel (independent); the guess bound per particle and the reuse's pair
///   distances per pair range. Bitwise the serial result for any count. Serial still: the CSR
///   lists (a per-particle count and scan; parallel needs per-worker counts) and the join.
/// - P3 loop-invariant hoisting: applies-and-done: the query radius and the advance's bound are
///   computed once per advance; the pairs' lists and the sub-colours once per advance, not per
///   iteration; each pair's distance at x_prev once (narrow phase, reused by the guess bound);
///   each pair's terms at the final iterate once for its 4 corners (final forces); whether the
///   filters let anything pair once per model (plugin/deform_contacts.c). In the sweeps a pair is
///   evaluated once per corner: its corners are solved at different times of a Gauss-Seidel
///   sweep, at different iterates, so that is not redundant work (the lanes evaluate W of a
/// - P4 offline memory layout: applies-and-done: each particle's items are contiguous (CSR) in
///   pair order, so its gather walks one run; pairs store their 4 vertices inline.
#include "deform_contact_cpu.h"

#include "deform_balance_terms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_threads.h"
#include "vbd_simd.h"

/// Most candidate ranges of dfm_cpu_dc_build (workers beyond it share them).
#define DFM_DC_BUILD_CHUNKS 64
/// The redundant mark of a pair in dfm_cpu_dc.feature (above its feature bits).
#define DFM_DC_DROP 0x80000000u

/// Fills the CSR of each particle's pair items (4 per pair, in pair order).
static void build_lists(dfm_cpu_dc* s, int32_t n) {
    memset(s->offsets, 0, sizeof(int32_t) * ((size_t)n + 1u));
    for (int32_t p = 0; p < s->pair_count; ++p)
        for (int j = 0; j < 4; ++j) s->offsets[s->pairs[p].v[j] + 1]++;
    for (int32_t i = 0; i < n; ++i) s->offsets[i + 1] += s->offsets[i];
    /* fill with a running cursor per particle: offsets[i] is advanced, then shifted back */
    for (int32_t p = 0; p < s->pair_count; ++p)
        for (int j = 0; j < 4; ++j) s->items[s->offsets[s->pairs[p].v[j]]++] = 4 * p + j;
    for (int32_t i = n; i > 0; --i) s->offsets[i] = s->offsets[i - 1];
    s->offsets[0] = 0;
}

/// Queries one tree; appends to s->cand from slot `used`. Returns the pairs found (all of them,
/// also those beyond the capacity).
static int64_t query(dfm_cpu_dc* s, dfm_cpu_bvh* tree, const dfm_bvh_input* in, int64_t used) {
    char err[256];
    if (dfm_cpu_bvh_build(tree, in, err, sizeof(err)) != 0) return 0;
    int64_t room = s->candidate_capacity - used, found = 0;
    if (room < 0) room = 0;
    dfm_cpu_bvh_query(tree, in, room > 0 ? s->cand + used : NULL, room, &found, err, sizeof(err));
    return found;
}

/// Sub-colours colour c (see dfm_cpu_dc_detect): greedy in colour order, then a counting sort by
/// sub-colour, stable in colour order, into sub_particles from `out` (the colours before c hold
/// exactly their particles). Reads and writes only colour c's particles' sub_of: colours are
/// independent of each other.
static void split_color(dfm_cpu_dc* s, int32_t c, int32_t out, const int32_t* color_offsets,
                        const int32_t* color_particles, const int32_t* particle_color) {
    const int32_t b = color_offsets[c], e = color_offsets[c + 1];
    for (int32_t k = b; k < e; ++k) s->sub_of[color_particles[k]] = 0xFF;
    int32_t count[DFM_DC_SUBCOLOR_SLOTS] = {0};
    for (int32_t k = b; k < e; ++k) {
        const int32_t i = color_particles[k];
        uint64_t used = 0;
        for (int32_t t = s->offsets[i]; t < s->offsets[i + 1]; ++t) {
            const dfm_dc_pair* pr = s->pairs + (s->items[t] >> 2);
            for (int j = 0; j < 4; ++j) {
                const int32_t q = pr->v[j];
                if (q != i && particle_color[q] == c && s->sub_of[q] < DFM_DC_SUBCOLORS)
                    used |= (uint64_t)1 << s->sub_of[q];
            }
        }
        int sub = 0;
        while (sub < DFM_DC_SUBCOLORS && (used >> sub) & 1u) ++sub;
        s->sub_of[i] = (uint8_t)sub;
        ++count[sub];
    }
    int32_t* off = s->sub_offsets + (size_t)c * DFM_DC_SUBCOLOR_SLOTS;
    int32_t fill[DFM_DC_SUBCOLOR_SLOTS];
    for (int sub = 0; sub < DFM_DC_SUBCOLOR_SLOTS; ++sub) {
        off[sub] = out;
        fill[sub] = out;
        out += count[sub];
    }
    for (int32_t k = b; k < e; ++k) {
        const int32_t i = color_particles[k];
        s->sub_particles[fill[s->sub_of[i]]++] = i;
    }
}

/// The build's shared state for its range passes (dfm_cpu_run).
typedef struct dc_build_ctx {
    dfm_cpu_dc* s;
    const float* x_prev;
    int64_t vt_kept; ///< Candidates below this are vertex-triangle.
    float rq;        ///< Query radius, m.
    int32_t color_count;
    const int32_t* color_offsets;
    const int32_t* color_particles;
    const int32_t* particle_color;
    int32_t chunks; ///< Candidate ranges (1: serial).
    int64_t* start; ///< chunks + 1: each range's first candidate.
    int32_t* kept;  ///< chunks: the pairs each range kept (from its start).
} dc_build_ctx;

/// Colours [begin, end) into sub-colours (split_color).
static void split_range(void* ctx, int32_t begin, int32_t end) {
    const dc_build_ctx* b = (const dc_build_ctx*)ctx;
    for (int32_t c = begin; c < end; ++c)
        split_color(b->s, c, b->color_offsets[c] - b->color_offsets[0], b->color_offsets, b->color_particles,
                    b->particle_color);
}

/// Marks the redundant pairs among pairs [b, e) (feasible_pairs; drop bit in s->feature): the
/// edge-edge pairs whose closest points are not interior to both edges and the vertex-triangle
/// pairs covered by another pair of the same vertex (a vertex's pairs are consecutive, in query
/// order, and never straddle b or e). Each pair's test reads the originals only.
static void mark_redundant(dfm_cpu_dc* s, const float* x_prev, int64_t b, int64_t e) {
    uint32_t* feature = s->feature;
    for (int64_t k = b; k < e; ++k)
        feature[k] = s->pairs[k].kind == DFM_DC_VERTEX_TRIANGLE ? dfm_dc_vt_feature(s->pairs + k, x_prev) : 0u;
    const float tol = DFM_DC_COVER_TOL * s->radius;
    for (int64_t k = b, g0 = b; k < e; ++k) {
        const dfm_dc_pair* pk = s->pairs + k;
        if (pk->kind != DFM_DC_VERTEX_TRIANGLE) {
            if (!dfm_dc_edge_edge_interior(pk, x_prev)) feature[k] |= DFM_DC_DROP;
            continue;
        }
        if (k == b || s->pairs[k - 1].kind != DFM_DC_VERTEX_TRIANGLE || s->pairs[k - 1].v[0] != pk->v[0]) g0 = k;
        const uint32_t fk = feature[k] & 7u;
        if (fk == 7u || fk == 0u) continue; /* a face interior (or no feature) is never covered */
        for (int64_t j = g0; j < e; ++j) {
            const dfm_dc_pair* pj = s->pairs + j;
            if (pj->kind != DFM_DC_VERTEX_TRIANGLE || pj->v[0] != pk->v[0]) break;
            if (j != k &&
                dfm_dc_vt_covered(pk, fk, s->pair_dist[k], pj, feature[j] & 7u, s->pair_dist[j], j < k, tol)) {
                feature[k] |= DFM_DC_DROP;
                break;
            }
        }
    }
}

/// Candidate k of the advance as a pair (vertex-triangle below vt_kept, then edge-edge).
static inline dfm_dc_pair candidate_pair(const dfm_cpu_dc* s, int64_t k, int64_t vt_kept) {
    dfm_dc_pair pr;
    const dfm_bvh_pair c = s->cand[k];
    if (k < vt_kept) {
        pr.v[0] = s->points[c.a].v[0];
        for (int j = 0; j < 3; ++j) pr.v[1 + j] = s->tris[c.b].v[j];
        pr.kind = DFM_DC_VERTEX_TRIANGLE;
    } else {
        for (int j = 0; j < 2; ++j) {
            pr.v[j] = s->edges[c.a].v[j];
            pr.v[2 + j] = s->edges[c.b].v[j];
        }
        pr.kind = DFM_DC_EDGE_EDGE;
    }
    return pr;
}

/// Narrow phase of candidates [k0, k1): the exact distance at the start positions; those closer
/// than rq are kept, in order, at pairs / pair_dist [k0, k0 + kept). Returns kept.
static int32_t narrow_range(dfm_cpu_dc* s, const float* x_prev, int64_t k0, int64_t k1, int64_t vt_kept, float rq) {
    int64_t np = k0;
    if (s->simd) { /* every candidate's stencil, W at a time (the same bits), then kept in order */
        for (int64_t k = k0; k < k1; ++k) s->pairs[k] = candidate_pair(s, k, vt_kept);
        dfm_cpu_simd_pair_eval(s->simd, s->pairs + k0, (int32_t)(k1 - k0), x_prev, NULL, 0.0f, 0.0f, 0.0f, 0.0f,
                               s->pair_dist + k0, NULL);
        for (int64_t k = k0; k < k1; ++k)
            if (s->pair_dist[k] < rq) {
                s->pair_dist[np] = s->pair_dist[k];
                s->pairs[np++] = s->pairs[k];
            }
    } else {
        for (int64_t k = k0; k < k1; ++k) {
            const dfm_dc_pair pr = candidate_pair(s, k, vt_kept);
            float w[4];
            const float d0 = dfm_v3_len(dfm_dc_pair_stencil(&pr, x_prev, w));
            if (d0 < rq) {
                s->pair_dist[np] = d0;
                s->pairs[np++] = pr;
            }
        }
    }
    return (int32_t)(np - k0);
}

/// Candidate ranges [begin, end): narrow phase, then (when the pairs are filtered) the marks.
static void narrow_chunks(void* ctx, int32_t begin, int32_t end) {
    const dc_build_ctx* b = (const dc_build_ctx*)ctx;
    for (int32_t c = begin; c < end; ++c) {
        b->kept[c] = narrow_range(b->s, b->x_prev, b->start[c], b->start[c + 1], b->vt_kept, b->rq);
        if (b->s->pairs_filtered) mark_redundant(b->s, b->x_prev, b->start[c], b->start[c] + b->kept[c]);
    }
}

/// Splits candidates [0, kept) into `chunks` ranges of about equal size, each starting where the
/// query vertex changes (or among the edge-edge candidates), so that a vertex's pairs, whose
/// redundancy is decided together (mark_redundant), are in one range.
static void chunk_starts(const dfm_cpu_dc* s, int64_t kept, int64_t vt_kept, int32_t chunks, int64_t* start) {
    start[0] = 0;
    for (int32_t c = 1; c < chunks; ++c) {
        int64_t k = kept * c / chunks;
        if (k < start[c - 1]) k = start[c - 1];
        while (k > 0 && k < vt_kept && s->points[s->cand[k].a].v[0] == s->points[s->cand[k - 1].a].v[0]) ++k;
        start[c] = k;
    }
    start[chunks] = kept;
}

/// Whether two ranges' kept pairs would join one vertex's run across their boundary (a query
/// vertex listed twice, its candidates apart: the ranges then do not see its whole run).
static int runs_straddle(const dfm_cpu_dc* s, const dc_build_ctx* b) {
    int64_t last = -1; /* the last kept pair of the ranges before */
    for (int32_t c = 0; c < b->chunks; ++c) {
        if (b->kept[c] == 0) continue;
        const dfm_dc_pair* f = s->pairs + b->start[c];
        if (last >= 0 && f->kind == DFM_DC_VERTEX_TRIANGLE && s->pairs[last].kind == DFM_DC_VERTEX_TRIANGLE &&
            s->pairs[last].v[0] == f->v[0])
            return 1;
        last = b->start[c] + b->kept[c] - 1;
    }
    return 0;
}

/// Particles [begin, end): no dropped pair yet (compact_pairs).
static void gap_init(void* ctx, int32_t begin, int32_t end) {
    float* gap = ((const dc_build_ctx*)ctx)->s->vertex_bound;
    for (int32_t i = begin; i < end; ++i) gap[i] = 3.0e38f;
}

/// Particles [begin, end): the bound from their dropped pairs' smallest distance (compact_pairs).
static void gap_bound(void* ctx, int32_t begin, int32_t end) {
    const dc_build_ctx* b = (const dc_build_ctx*)ctx;
    float* gap = b->s->vertex_bound;
    const float common = DFM_DC_BOUND_FRACTION * b->rq;
    for (int32_t i = begin; i < end; ++i) gap[i] = dfm_fminf(common, DFM_DC_BOUND_FRACTION * gap[i]);
}

/// One contact per feature (docs/DESIGN.md, issue 16 "one contact per feature"): compacts the
/// ranges' kept pairs (pairs, pair_dist at x_prev) in range order, dropping the pairs marked
/// redundant (mark_redundant: edge-edge pairs whose closest points are not interior to both edges,
/// dfm_dc_edge_edge_interior; vertex-triangle pairs covered by another pair of the same vertex,
/// dfm_dc_vt_covered). Every particle of a dropped pair gets a displacement bound over the span of
/// DFM_DC_BOUND_FRACTION of that pair's distance at x_prev (vertex_bound, capped by the common
/// bound), so that no dropped pair can close either: its primitives each move less than half
/// their gap. Only in the resting regime (s->pairs_filtered: query radius 2r, rq <= 2 radius):
/// with faster motion the query radius grows with it and the pairs stay as found (a cap by the
/// dropped pairs' gaps would then bind the layers' common motion). Returns the pairs kept.
static int32_t compact_pairs(dfm_cpu_dc* s, dc_build_ctx* b, int32_t n, int fork, int nt) {
    const int filtered = s->pairs_filtered;
    if (filtered && b->chunks > 1 && runs_straddle(s, b)) { /* join the ranges, mark them as one */
        int64_t np = 0;
        for (int32_t c = 0; c < b->chunks; ++c) {
            memmove(s->pairs + np, s->pairs + b->start[c], sizeof(dfm_dc_pair) * (size_t)b->kept[c]);
            memmove(s->pair_dist + np, s->pair_dist + b->start[c], sizeof(float) * (size_t)b->kept[c]);
            np += b->kept[c];
        }
        b->chunks = 1;
        b->start[0] = 0;
        b->kept[0] = (int32_t)np;
        mark_redundant(s, b->x_prev, 0, np);
    }
    float* gap = s->vertex_bound; /* the dropped pairs' smallest distance per particle, first */
    const int fork_n = fork && n >= DFM_CPU_PARALLEL_MIN;
    if (filtered) dfm_cpu_run(fork_n, nt, n, gap_init, b);
    int32_t out = 0, np = 0; /* in place: a range's pairs move to lower slots only */
    for (int32_t c = 0; c < b->chunks; ++c) {
        const int64_t k0 = b->start[c], k1 = k0 + b->kept[c];
        np += b->kept[c];
        for (int64_t k = k0; k < k1; ++k) {
            const dfm_dc_pair pk = s->pairs[k];
            if (filtered && (s->feature[k] & DFM_DC_DROP)) {
                for (int j = 0; j < 4; ++j) gap[pk.v[j]] = dfm_fminf(gap[pk.v[j]], s->pair_dist[k]);
                continue;
            }
            s->pair_dist[out] = s->pair_dist[k];
            s->pairs[out++] = pk;
        }
    }
    s->dropped_redundant = np - out;
    if (filtered) dfm_cpu_run(fork_n, nt, n, gap_bound, b);
    return out;
}

/// The largest inertial displacement |y| of a surface particle (m).
static float surface_ymax(const dfm_cpu_dc* s, const float* y, int32_t n) {
    float ymax = 0.0f;
    for (int32_t i = 0; i < n; ++i)
        if (s->surface[i]) ymax = dfm_fmaxf(ymax, dfm_v3_len(dfm_v3_load(y + 3 * i)));
    return ymax;
}

float dfm_cpu_dc_query_radius(dfm_cpu_dc* s, const float* y, int32_t n) {
    const float rq = s->radius + dfm_fmaxf(s->radius, 3.0f * surface_ymax(s, y, n));
    s->query_radius = rq;
    return rq;
}

void dfm_cpu_dc_bvh_input(const dfm_cpu_dc* s, const float* x_prev, int32_t n, int edge_edge, dfm_bvh_input* in) {
    memset(in, 0, sizeof(*in));
    in->x = x_prev;
    in->vertex_count = n;
    in->filter = s->filter;
    in->body_count = s->body_count;
    in->radius = s->query_radius;
    if (!edge_edge) {
        in->tree_prims = s->tris;
        in->tree_count = s->tri_count;
        in->query_prims = s->points;
        in->query_count = s->point_count;
        in->self_set = 0;
    } else {
        in->tree_prims = s->edges;
        in->tree_count = s->edge_count;
        in->query_prims = s->edges;
        in->query_count = s->edge_count;
        in->self_set = 1;
    }
}

void dfm_cpu_dc_build(dfm_cpu_dc* s, const float* x_prev, int32_t n, int64_t vt, int64_t ee, int32_t color_count,
                      const int32_t* color_offsets, const int32_t* color_particles, const int32_t* particle_color) {
    const float rq = s->query_radius;
    const int64_t vt_kept = vt < s->candidate_capacity ? vt : s->candidate_capacity;
    const int64_t total = vt + ee, kept = total < s->candidate_capacity ? total : s->candidate_capacity;
    s->candidates = total;
    s->dropped = total - kept;
    s->pairs_filtered = s->feasible && s->vertex_bound && s->feature && !(rq > 2.0f * s->radius);
    /* the candidates in ranges, one per worker (1 below the fork threshold: the serial pass) */
    const int nt = s->threads > DFM_DC_BUILD_CHUNKS ? DFM_DC_BUILD_CHUNKS : (s->threads > 1 ? s->threads : 1);
    const int fork = dfm_cpu_forks(nt, kept, s->fork_min > 0 ? s->fork_min : DFM_CPU_DETECT_PARALLEL_MIN);
    int64_t start[DFM_DC_BUILD_CHUNKS + 1];
    int32_t kept_in[DFM_DC_BUILD_CHUNKS];
    dc_build_ctx b = {
        s,     x_prev, vt_kept, rq, color_count, color_offsets, color_particles, particle_color, fork ? nt : 1,
        start, kept_in};
    s->build_forks += fork;
    chunk_starts(s, kept, vt_kept, b.chunks, start);
    dfm_cpu_run(fork, nt, b.chunks, narrow_chunks, &b);
    s->pair_count = compact_pairs(s, &b, n, fork, nt);
    build_lists(s, n);
    dfm_cpu_run(fork && color_count > 1, nt, color_count, split_range, &b);
    s->sub_offsets[(size_t)color_count * DFM_DC_SUBCOLOR_SLOTS] = color_offsets[color_count] - color_offsets[0];
    s->view.pairs = s->pairs;
    s->view.offsets = s->offsets;
    s->view.items = s->items;
    s->view.radius = s->radius;
    s->view.ke = s->ke;
    s->view.mu = s->mu;
    s->view.total_bound = DFM_DC_BOUND_FRACTION * rq;
    s->view.vertex_bound = s->pairs_filtered ? s->vertex_bound : NULL;
}

/// What the detection's per-item passes read (pair_distances, guess_bound).
typedef struct dc_detect_ctx {
    dfm_cpu_dc* s;
    const dfm_vbd_view* v;
} dc_detect_ctx;

/// Pairs [begin, end)'s distances at x_prev into pair_dist (the narrow phase's expression, the
/// same bits; the lanes' results do not depend on where a batch starts).
static void pair_distances(void* ctx, int32_t begin, int32_t end) {
    dfm_cpu_dc* s = ((const dc_detect_ctx*)ctx)->s;
    const float* x_prev = ((const dc_detect_ctx*)ctx)->v->x_prev;
    if (s->simd) {
        dfm_cpu_simd_pair_eval(s->simd, s->pairs + begin, end - begin, x_prev, NULL, 0.0f, 0.0f, 0.0f, 0.0f,
                               s->pair_dist + begin, NULL);
        return;
    }
    for (int32_t k = begin; k < end; ++k) {
        float w[4];
        s->pair_dist[k] = dfm_v3_len(dfm_dc_pair_stencil(s->pairs + k, x_prev, w));
    }
}

/// Particles [begin, end): the initial guess as a step from x_prev, every surface particle within
/// the bound of its own gaps at x_prev (d and x rewritten).
static void guess_bound(void* ctx, int32_t begin, int32_t end) {
    const dfm_cpu_dc* s = ((const dc_detect_ctx*)ctx)->s;
    const dfm_vbd_view* v = ((const dc_detect_ctx*)ctx)->v;
    for (int32_t i = begin; i < end; ++i) {
        if (!s->surface[i] || v->mode[i] != 0) continue;
        float gap = 3.0e38f; /* each pair's distance at x_prev, from the narrow phase (the same value) */
        for (int32_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k)
            gap = dfm_fminf(gap, s->pair_dist[s->items[k] >> 2]);
        dfm_v3 d = dfm_v3_load(v->d + 3 * i);
        dfm_v3 b = dfm_dc_bound_step(dfm_v3_zero(), d, gap, dfm_dc_vertex_bound(&s->view, i));
        dfm_v3_store(b, v->d + 3 * i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v->x_prev + 3 * i), b), v->x + 3 * i);
    }
}

/// Runs the broad and narrow phases of dfm_cpu_dc_detect for `span` advances.
static void detect_pairs(dfm_cpu_dc* s, const dfm_vbd_view* v, float ymax, int32_t span, int32_t color_count,
                         const int32_t* color_offsets, const int32_t* color_particles, const int32_t* particle_color) {
    const int32_t n = v->particle_count;
    s->query_radius = s->radius + dfm_fmaxf(s->radius, 3.0f * ymax * (float)span);
    dfm_bvh_input in;
    int64_t vt = 0, ee = 0;
    if (s->pairable && s->tri_count > 0 && s->point_count > 0) {
        dfm_cpu_dc_bvh_input(s, v->x_prev, n, 0, &in);
        vt = query(s, s->tri_tree, &in, 0);
    }
    const int64_t vt_kept = vt < s->candidate_capacity ? vt : s->candidate_capacity;
    if (s->pairable && s->edge_count > 0) {
        dfm_cpu_dc_bvh_input(s, v->x_prev, n, 1, &in);
        ee = query(s, s->edge_tree, &in, vt_kept);
    }
    dfm_cpu_dc_build(s, v->x_prev, n, vt, ee, color_count, color_offsets, color_particles, particle_color);
    /* each advance's share of the span's bound on the motion from x_prev here (x / 1 = x: span 1
       is the bound of every advance's own detection) */
    s->view.total_bound = s->view.total_bound / (float)span;
    if (s->view.vertex_bound)
        for (int32_t i = 0; i < n; ++i) s->vertex_bound[i] = s->vertex_bound[i] / (float)span;
    s->span_budget = s->query_radius / (float)span;
    s->covered = span - 1;
    s->detected = 1;
}

void dfm_cpu_dc_detect(dfm_cpu_dc* s, const dfm_vbd_view* v, int32_t color_count, const int32_t* color_offsets,
                       const int32_t* color_particles, const int32_t* particle_color) {
    const int32_t n = v->particle_count;
    const float ymax = surface_ymax(s, v->y, n);
    const int nt = s->threads > 1 ? s->threads : 1;
    dc_detect_ctx ctx = {s, v};
    if (s->reuse && s->covered > 0 && 3.0f * ymax <= s->span_budget) {
        /* the last pairs still cover this advance: every vertex is within the span's bound of where
           they were found, and this advance's share of it exceeds its inertial motion */
        --s->covered;
        s->detected = 0;
        s->dropped = 0; /* counted once, at the detection (s->candidates stays its count) */
        dfm_cpu_run(dfm_cpu_forks(nt, s->pair_count, DFM_CPU_PARALLEL_MIN), nt, s->pair_count, pair_distances, &ctx);
    } else {
        int32_t span = s->reuse && s->covered > 0 ? s->covered : (s->span > 1 ? s->span : 1);
        /* no wider than one advance's radius r + max(r, 3 max |y|) = 2r: a span that would need
           more covers fewer advances (the same candidates as a detection per advance; fast motion
           detects every advance) */
        if (span > 1 && 3.0f * ymax * (float)span > s->radius) {
            const float fit = s->radius / (3.0f * ymax);
            span = fit < (float)span ? (fit >= 1.0f ? (int32_t)fit : 1) : span;
        }
        detect_pairs(s, v, ymax, span, color_count, color_offsets, color_particles, particle_color);
    }
    /* the initial guess as a step from x_prev: every surface particle moves together, each within
       the bound of its own gaps at x_prev */
    dfm_cpu_run(dfm_cpu_forks(nt, n, DFM_CPU_PARALLEL_MIN), nt, n, guess_bound, &ctx);
}

/// Whether a share lambda (3 floats, N per N) of the shape contacts on particles [first, end)
/// would turn one of their nodes into a pull along its normal (dfm_contact_reaction_particle).
static int shape_pull(const dfm_vbd_view* v, const dfm_contact_view* c, const float* node_friction, int32_t first,
                      int32_t end, const double* lambda) {
    const int friction = node_friction && !(c->flags & DFM_DISABLE_STATIC_FRICTION);
    for (int32_t i = first; i < end; ++i) {
        if (v->mode[i] != 0) continue;
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            if (c->shapes[c->rec.shape[node / 3]].coupled) continue;
            const dfm_v3 q = dfm_dc_shape_node_force(c, v->d, v->h, node_friction, friction, node);
            if (dfm_dc_shape_node_pulls(c, q, node, lambda)) return 1;
        }
    }
    return 0;
}

/// The CPU's pull check of a balance round (dfm_dc_pull_fn): shape_pull over each tested body.
typedef struct dfm_cpu_dc_pull_ctx {
    const dfm_vbd_view* v;
    const dfm_contact_view* c;
    const float* node_friction;
    const int32_t* body_offsets;
} dfm_cpu_dc_pull_ctx;

static int cpu_pull(void* ctx, dfm_cpu_dc_body* B, int32_t body_count, const double* lambda) {
    const dfm_cpu_dc_pull_ctx* p = (const dfm_cpu_dc_pull_ctx*)ctx;
    for (int32_t b = 0; b < body_count; ++b)
        if (B[b].pull_test)
            B[b].pulls = (uint8_t)shape_pull(p->v, p->c, p->node_friction, p->body_offsets[b], p->body_offsets[b + 1],
                                             lambda + 3 * b);
    return 0;
}

/// Pair p's terms at positions x (dfm_dc_pair_force's operations up to the corner weight, in its
/// order; friction on the displacements dx).
static inline void pair_terms(const dfm_cpu_dc* s, const dfm_dc_pair* pr, const float* x, const float* dx, float h,
                              dfm_cpu_dc_terms* t) {
    dfm_v3 r = dfm_dc_pair_stencil(pr, x, t->w);
    float d = dfm_v3_len(r);
    t->on = 0;
    if (!(d < s->radius)) return;
    float dE, d2E;
    dfm_dc_energy_derivs(d, s->radius, s->ke, &dE, &d2E);
    t->n = dfm_dc_normal(r, d);
    t->m_dE = -dE;
    t->on = 1;
    if (dx && s->mu > 0.0f) {
        dfm_v3 D = dfm_v3_zero();
        for (int j = 0; j < 4; ++j) D = dfm_v3_madd(D, dfm_v3_load(dx + 3 * (int64_t)pr->v[j]), t->w[j]);
        dfm_v3 u = dfm_v3_madd(D, t->n, -dfm_v3_dot(D, t->n));
        float ul = dfm_v3_len(u), eps = DFM_DC_FRICTION_SPEED * h;
        float phi = ul > eps ? 1.0f / ul : (2.0f - ul / eps) / eps;
        t->u = u;
        t->c = s->mu * (-dE) * phi;
        t->on = 2;
    }
}

/// dfm_dc_pair_force's force on corner `corner` added to f, from the pair's terms.
static inline dfm_v3 add_corner(dfm_v3 f, const dfm_cpu_dc_terms* t, int corner) {
    if (!t->on) return f;
    const float wc = t->w[corner];
    f = dfm_v3_madd(f, t->n, t->m_dE * wc);
    if (t->on == 2) f = dfm_v3_madd(f, t->u, -t->c * wc);
    return f;
}

void dfm_cpu_dc_final_forces(dfm_cpu_dc* s, const dfm_vbd_view* v, const dfm_contact_view* c,
                             const float* node_friction, const int32_t* particle_body, const int32_t* body_offsets,
                             int32_t body_count, const float* need_in) {
    if (s->pair_count == 0) { /* no pair: every pair force is zero, and no balance changes one */
        memset(s->final_force, 0, sizeof(float) * 3 * (size_t)v->particle_count);
        return;
    }
    /* each pair's terms at the final iterate once, for its 4 corners in steps 3 and 6 */
    if (s->simd) /* W pairs at a time, the same bits */
        dfm_cpu_simd_pair_eval(s->simd, s->pairs, s->pair_count, v->x, v->d, s->radius, s->ke, s->mu, v->h, NULL,
                               s->terms);
    else
        for (int32_t p = 0; p < s->pair_count; ++p) pair_terms(s, s->pairs + p, v->x, v->d, v->h, s->terms + p);
    dfm_cpu_dc_body* B = s->body_work;
    /* 1. per body: pinned (a pinned or kinematic vertex), its momentum need (the contact force its
       motion needs, summed over its dynamic particles) and its shape contacts' force R and
       magnitude sum S at the final iterate (dfm_contact_node_force; S over the shapes that take a
       share, as dfm_contact_body_extra) */
    const int friction = node_friction && c && !(c->flags & DFM_DISABLE_STATIC_FRICTION);
    for (int32_t b = 0; b < body_count; ++b) {
        memset(B + b, 0, sizeof(*B));
        B[b].root = b;
        for (int32_t i = body_offsets[b]; i < body_offsets[b + 1]; ++i) {
            if (v->mode[i] != 0) {
                B[b].pinned = 1;
                continue;
            }
            const dfm_v3 nd = need_in ? dfm_v3_load(need_in + 3 * i) : dfm_vbd_particle_need(v, i);
            B[b].need[0] += nd.x;
            B[b].need[1] += nd.y;
            B[b].need[2] += nd.z;
            for (int32_t node = c ? c->head[i] : -1; node >= 0; node = c->next[node]) {
                const dfm_v3 q = dfm_dc_shape_node_force(c, v->d, v->h, node_friction, friction, node);
                B[b].shape_force[0] += q.x;
                B[b].shape_force[1] += q.y;
                B[b].shape_force[2] += q.z;
                if (!c->shapes[c->rec.shape[node / 3]].coupled) B[b].shape_sum += dfm_v3_len(q);
            }
        }
    }
    /* 2. the body pairs that have pairs between them: sorted unique keys in the (now unused)
       broad-phase candidate buffer; at most min(pairs, bodies choose 2) of them */
    const int32_t ne = dfm_dc_balance_edges(s->pairs, s->pair_count, particle_body, s->cand, s->edge_work);
    /* 3. raw forces at the final iterate: per particle, per body (pairs with other bodies), and
       each body pair's corner-force magnitudes on each side */
    for (int32_t i = 0; i < v->particle_count; ++i) {
        dfm_v3 f = dfm_v3_zero();
        if (s->surface[i] && v->mode[i] == 0) {
            const int32_t bi = particle_body[i];
            for (int32_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k) {
                const int32_t item = s->items[k], p = item >> 2, corner = item & 3;
                const dfm_v3 fp = add_corner(dfm_v3_zero(), s->terms + p, corner); /* dfm_dc_pair_force's */
                f = dfm_v3_add(f, fp);
                int32_t a, b;
                dfm_dc_pair_bodies(s->pairs + p, particle_body, &a, &b);
                if (a == b) continue;
                dfm_cpu_dc_edge* E = s->edge_work + dfm_dc_balance_edge_index(s->cand, ne, a, b);
                if (bi == E->hi)
                    E->s_hi += dfm_v3_len(fp);
                else
                    E->s_lo += dfm_v3_len(fp);
                B[bi].raw[0] += fp.x;
                B[bi].raw[1] += fp.y;
                B[bi].raw[2] += fp.z;
            }
        }
        dfm_v3_store(f, s->final_force + 3 * i);
    }
    /* 4.-6a. the balance over the body graph (deform_balance.c, shared with CUDA): each body pair's
       change delta_e; the pull checks of its rounds are shape_pull's */
    const dfm_cpu_dc_pull_ctx pc = {v, c, node_friction, body_offsets};
    if (dfm_dc_balance_solve(B, body_count, s->edge_work, ne, s->solve_work, cpu_pull, (void*)&pc) <= 0)
        return; /* nothing solved: every pair keeps its raw force */
    /* 6b. each body pair's change spread over each side's corners in proportion to their force
       magnitudes */
    for (int32_t i = 0; i < v->particle_count; ++i) {
        if (!s->surface[i] || v->mode[i] != 0) continue;
        const int32_t bi = particle_body[i];
        dfm_v3 f = dfm_v3_load(s->final_force + 3 * i);
        for (int32_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k) {
            const int32_t item = s->items[k], p = item >> 2, corner = item & 3;
            int32_t a, b;
            dfm_dc_pair_bodies(s->pairs + p, particle_body, &a, &b);
            if (a == b) continue;
            const dfm_cpu_dc_edge* E = s->edge_work + dfm_dc_balance_edge_index(s->cand, ne, a, b);
            const double side = bi == E->hi ? E->s_hi : E->s_lo, sign = bi == E->hi ? 1.0 : -1.0;
            if (!(E->c > 0.0) || !(side > 0.0)) continue;
            const dfm_v3 fp = add_corner(dfm_v3_zero(), s->terms + p, corner);
            const double share = sign * (double)dfm_v3_len(fp) / side;
            f.x += (float)(share * E->delta[0]);
            f.y += (float)(share * E->delta[1]);
            f.z += (float)(share * E->delta[2]);
        }
        dfm_v3_store(f, s->final_force + 3 * i);
    }
}
