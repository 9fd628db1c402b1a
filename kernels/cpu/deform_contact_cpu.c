/// @file deform_contact_cpu.c
/// CPU detection of deformable-deformable contact pairs and their per-particle lists (see
/// deform_contact_cpu.h); the force math is kernels/shared/deform_contact.h.
///
/// Parallelism review (seed 001):
/// - P1 level batching: does-not-apply: no tree recursion here (the BVH build and query are in
///   bvh_cpu.c, whose review covers them).
/// - P2 parallel independent columns: applies-TODO: the narrow-phase test of each candidate and
///   the guess bound of each particle are independent items; serial here, in candidate and
///   particle order, so that the pair list is the same for any thread count (a parallel version
///   needs a count pass and a scan, like the broad phase on CUDA).
/// - P3 loop-invariant hoisting: applies-and-done: the query radius and the advance's bound are
///   computed once per advance; the pairs' lists and the sub-colours once per advance, not per
///   iteration; each pair's distance at x_prev once (narrow phase, reused by the guess bound);
///   each pair's terms at the final iterate once for its 4 corners (final forces); whether the
///   filters let anything pair once per model (plugin/deform_contacts.c). In the sweeps a pair is
///   evaluated once per corner: its corners are solved at different times of a Gauss-Seidel
///   sweep, at different iterates, so that is not redundant work (the lanes evaluate W of a
///   particle's pairs at a time instead, vbd_simd_lanes.h).
/// - P4 offline memory layout: applies-and-done: each particle's items are contiguous (CSR) in
///   pair order, so its gather walks one run; pairs store their 4 vertices inline.
#include "deform_contact_cpu.h"

#include "vbd_simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/// Splits each colour into sub-colours (see dfm_cpu_dc_detect): greedy in colour order, then a
/// counting sort by sub-colour, stable in colour order.
static void split_colors(dfm_cpu_dc* s, int32_t color_count, const int32_t* color_offsets,
                         const int32_t* color_particles, const int32_t* particle_color) {
    int32_t out = 0;
    for (int32_t c = 0; c < color_count; ++c) {
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
    s->sub_offsets[(size_t)color_count * DFM_DC_SUBCOLOR_SLOTS] = out;
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

void dfm_cpu_dc_detect(dfm_cpu_dc* s, const dfm_vbd_view* v, int32_t color_count, const int32_t* color_offsets,
                       const int32_t* color_particles, const int32_t* particle_color) {
    const int32_t n = v->particle_count;
    float ymax = 0.0f;
    for (int32_t i = 0; i < n; ++i)
        if (s->surface[i]) ymax = dfm_fmaxf(ymax, dfm_v3_len(dfm_v3_load(v->y + 3 * i)));
    const float rq = s->radius + dfm_fmaxf(s->radius, 3.0f * ymax);
    s->query_radius = rq;
    dfm_bvh_input in;
    memset(&in, 0, sizeof(in));
    in.x = v->x_prev;
    in.vertex_count = n;
    in.filter = s->filter;
    in.body_count = s->body_count;
    in.radius = rq;
    int64_t vt = 0, ee = 0;
    if (s->pairable && s->tri_count > 0 && s->point_count > 0) {
        in.tree_prims = s->tris;
        in.tree_count = s->tri_count;
        in.query_prims = s->points;
        in.query_count = s->point_count;
        in.self_set = 0;
        vt = query(s, s->tri_tree, &in, 0);
    }
    const int64_t vt_kept = vt < s->candidate_capacity ? vt : s->candidate_capacity;
    if (s->pairable && s->edge_count > 0) {
        in.tree_prims = s->edges;
        in.tree_count = s->edge_count;
        in.query_prims = s->edges;
        in.query_count = s->edge_count;
        in.self_set = 1;
        ee = query(s, s->edge_tree, &in, vt_kept);
    }
    const int64_t total = vt + ee, kept = total < s->candidate_capacity ? total : s->candidate_capacity;
    s->candidates = total;
    s->dropped = total - kept;
    /* narrow phase: the exact distance at the start positions; farther than rq is not a pair */
    int32_t np = 0;
    if (s->simd) { /* every candidate's stencil, W at a time (the same bits), then kept in order */
        for (int64_t k = 0; k < kept; ++k) s->pairs[k] = candidate_pair(s, k, vt_kept);
        dfm_cpu_simd_pair_eval(s->simd, s->pairs, (int32_t)kept, v->x_prev, NULL, 0.0f, 0.0f, 0.0f, 0.0f, s->pair_dist,
                               NULL);
        for (int64_t k = 0; k < kept; ++k)
            if (s->pair_dist[k] < rq) {
                s->pair_dist[np] = s->pair_dist[k];
                s->pairs[np++] = s->pairs[k];
            }
    } else {
        for (int64_t k = 0; k < kept; ++k) {
            const dfm_dc_pair pr = candidate_pair(s, k, vt_kept);
            float w[4];
            const float d0 = dfm_v3_len(dfm_dc_pair_stencil(&pr, v->x_prev, w));
            if (d0 < rq) {
                s->pair_dist[np] = d0;
                s->pairs[np++] = pr;
            }
        }
    }
    s->pair_count = np;
    build_lists(s, n);
    split_colors(s, color_count, color_offsets, color_particles, particle_color);
    s->view.pairs = s->pairs;
    s->view.offsets = s->offsets;
    s->view.items = s->items;
    s->view.radius = s->radius;
    s->view.ke = s->ke;
    s->view.mu = s->mu;
    s->view.total_bound = DFM_DC_BOUND_FRACTION * rq;
    /* the initial guess as a step from x_prev: every surface particle moves together, each within
       the bound of its own gaps at x_prev */
    for (int32_t i = 0; i < n; ++i) {
        if (!s->surface[i] || v->mode[i] != 0) continue;
        float gap = 3.0e38f; /* each pair's distance at x_prev, from the narrow phase (the same value) */
        for (int32_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k)
            gap = dfm_fminf(gap, s->pair_dist[s->items[k] >> 2]);
        dfm_v3 d = dfm_v3_load(v->d + 3 * i);
        dfm_v3 b = dfm_dc_bound_step(dfm_v3_zero(), d, gap, s->view.total_bound);
        dfm_v3_store(b, v->d + 3 * i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v->x_prev + 3 * i), b), v->x + 3 * i);
    }
}

/// The body of each side of pair p: (body of v[0], body of the other primitive's first vertex).
static inline void pair_bodies(const dfm_dc_pair* pr, const int32_t* particle_body, int32_t* a, int32_t* b) {
    *a = particle_body[pr->v[0]];
    *b = particle_body[pr->kind == DFM_DC_VERTEX_TRIANGLE ? pr->v[1] : pr->v[2]];
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

void dfm_cpu_dc_final_forces(dfm_cpu_dc* s, const dfm_vbd_view* v, const int32_t* shape_head,
                             const int32_t* particle_body, const int32_t* body_offsets, int32_t body_count,
                             const float* need_in) {
    if (s->pair_count == 0) { /* no pair: every raw force is zero, so is every scaled one */
        memset(s->final_force, 0, sizeof(float) * 3 * (size_t)v->particle_count);
        return;
    }
    if (s->simd) /* W pairs at a time, the same bits */
        dfm_cpu_simd_pair_eval(s->simd, s->pairs, s->pair_count, v->x, v->d, s->radius, s->ke, s->mu, v->h, NULL,
                               s->terms);
    else
        for (int32_t p = 0; p < s->pair_count; ++p) pair_terms(s, s->pairs + p, v->x, v->d, v->h, s->terms + p);
    /* 1. raw forces at the final iterate, summed per body, and each body's momentum need */
    float* raw = s->body_scratch;                   /* 3 per body */
    float* need = s->body_scratch + 3 * body_count; /* 3 per body */
    float* scale = need + 3 * body_count;           /* 1 per body; < 0: supported (keeps raw forces) */
    for (int32_t b = 0; b < body_count; ++b) {
        dfm_v3 fr = dfm_v3_zero(), nd = dfm_v3_zero();
        int supported = 0;
        for (int32_t i = body_offsets[b]; i < body_offsets[b + 1]; ++i) {
            if (v->mode[i] != 0) {
                supported = 1;
                continue;
            }
            if (shape_head && shape_head[i] >= 0) supported = 1;
            nd = dfm_v3_add(nd, need_in ? dfm_v3_load(need_in + 3 * i) : dfm_vbd_particle_need(v, i));
            if (!s->surface[i]) continue;
            dfm_v3 f = dfm_v3_zero(); /* dfm_dc_gather's sum, in item order */
            for (int32_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k)
                f = add_corner(f, s->terms + (s->items[k] >> 2), s->items[k] & 3);
            fr = dfm_v3_add(fr, f);
        }
        dfm_v3_store(fr, raw + 3 * b);
        dfm_v3_store(nd, need + 3 * b);
        float rr = dfm_v3_dot(fr, fr);
        scale[b] = supported || !(rr > 0.0f) ? -1.0f : dfm_fmaxf(dfm_v3_dot(nd, fr) / rr, 0.0f);
    }
    /* 2. each pair scaled by the factor of its unsupported side (equal and opposite on both) */
    for (int32_t i = 0; i < v->particle_count; ++i) {
        dfm_v3 f = dfm_v3_zero();
        if (s->surface[i] && v->mode[i] == 0)
            for (int32_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k) {
                const int32_t item = s->items[k], p = item >> 2, corner = item & 3;
                int32_t a, b;
                pair_bodies(s->pairs + p, particle_body, &a, &b);
                float sc = scale[a] >= 0.0f ? scale[a] : (scale[b] >= 0.0f ? scale[b] : 1.0f);
                f = dfm_v3_madd(f, add_corner(dfm_v3_zero(), s->terms + p, corner), sc);
            }
        dfm_v3_store(f, s->final_force + 3 * i);
    }
}
