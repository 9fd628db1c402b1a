/// One contact per feature (issue 16, session 13): the detection's filter of redundant
/// deformable pairs (kernels/cpu/deform_contact_cpu.c feasible_pairs, with the shared rules of
/// kernels/shared/deform_contact.h: dfm_dc_vt_feature, dfm_dc_vt_covered,
/// dfm_dc_edge_edge_interior), run through dfm_cpu_dc_build (the narrow phase both backends use)
/// on hand-made candidates. Radius r = 5 mm, query radius 2r (the resting regime where it filters).
/// - vertex: a point 4 mm over the centre vertex of a flat 3 x 3 grid (8 triangles, 6 of them at
///   that vertex, all with the same closest point): one vertex-triangle pair kept, at 4 mm;
/// - face: a point over a triangle's interior near its corner: only that triangle's pair kept;
/// - crease: a point inside a concave crease (two faces at 120 degrees) over both faces' interiors:
///   both kept (two contacts, not duplicates);
/// - edges: two crossing edges 4 mm apart kept; an edge whose closest point is an end of the other
///   and two parallel edges dropped;
/// - random: 400 points over a bumpy 5 x 5 grid against all 32 triangles: each point's closest pair
///   is always kept (its distance is the brute-force minimum up to the rounding of one closest point
///   computed through two triangles, 1e-5 relative), no point loses all its pairs,
///   and the filter drops some;
/// - bound: every particle of a dropped pair gets vertex_bound <= 0.45 of that pair's distance
///   (the rest 0.45 of the query radius);
/// - off: feasible 0 or a query radius above 2r keeps every pair (no per-particle bound).
/// The checks can fail: without the filter the vertex case keeps 6 pairs and the random case drops
/// nothing; with a covered rule that ignores distance the random case loses closest pairs.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deform_contact_cpu.h"
#include "dfm_test.h"

#define MAXP 64   /* particles */
#define MAXC 4096 /* candidates */

typedef struct scene {
    float x[3 * MAXP];
    int32_t n;
    dfm_bvh_prim points[MAXP], edges[MAXP], tris[MAXP];
    int32_t np, ne, nt;
    dfm_bvh_pair cand[MAXC];
    int64_t vt, ee;
} scene;

static dfm_dc_pair g_pairs[MAXC];
static float g_dist[MAXC], g_vbound[MAXP];
static uint32_t g_feature[MAXC];
static int32_t g_offsets[MAXP + 1], g_items[4 * MAXC], g_sub_particles[MAXP], g_color_particles[MAXP];
static int32_t g_sub_offsets[DFM_DC_SUBCOLOR_SLOTS + 1], g_particle_color[MAXP];
static uint8_t g_sub_of[MAXP];

static int32_t add_vertex(scene* s, float x, float y, float z) {
    s->x[3 * s->n] = x, s->x[3 * s->n + 1] = y, s->x[3 * s->n + 2] = z;
    return s->n++;
}
static int32_t add_point(scene* s, int32_t v) {
    s->points[s->np] = (dfm_bvh_prim){{v, -1, -1}, 0};
    return s->np++;
}
static int32_t add_tri(scene* s, int32_t a, int32_t b, int32_t c) {
    s->tris[s->nt] = (dfm_bvh_prim){{a, b, c}, 0};
    return s->nt++;
}
static int32_t add_edge(scene* s, int32_t a, int32_t b) {
    s->edges[s->ne] = (dfm_bvh_prim){{a, b, -1}, 0};
    return s->ne++;
}
/// A grid of nu x nu vertices, spacing h (m), z from zf (NULL: 0), two triangles per cell.
static void add_grid(scene* s, int nu, float h, const float* zf) {
    const int32_t base = s->n;
    for (int j = 0; j < nu; ++j)
        for (int i = 0; i < nu; ++i) add_vertex(s, h * (float)i, h * (float)j, zf ? zf[j * nu + i] : 0.0f);
    for (int j = 0; j + 1 < nu; ++j)
        for (int i = 0; i + 1 < nu; ++i) {
            const int32_t a = base + j * nu + i, b = a + 1, c = a + nu, d = c + 1;
            add_tri(s, a, b, d);
            add_tri(s, a, d, c);
        }
}
/// Point prim p against every triangle.
static void all_triangles(scene* s, int32_t p) {
    for (int32_t t = 0; t < s->nt; ++t) s->cand[s->vt++] = (dfm_bvh_pair){p, t};
}

/// Runs dfm_cpu_dc_build (feasible on or off, query radius rq) over the scene; returns the state.
static dfm_cpu_dc run(scene* s, int feasible, float rq) {
    dfm_cpu_dc d;
    memset(&d, 0, sizeof(d));
    d.points = s->points, d.point_count = s->np;
    d.edges = s->edges, d.edge_count = s->ne;
    d.tris = s->tris, d.tri_count = s->nt;
    d.body_count = 1;
    d.particle_color = g_particle_color;
    d.cand = s->cand;
    d.candidate_capacity = MAXC;
    d.pairs = g_pairs, d.pair_dist = g_dist, d.feature = g_feature, d.vertex_bound = g_vbound;
    d.offsets = g_offsets, d.items = g_items, d.sub_of = g_sub_of, d.sub_particles = g_sub_particles;
    d.sub_offsets = g_sub_offsets;
    d.radius = 0.005f, d.ke = 1e3f, d.feasible = feasible;
    d.query_radius = rq;
    for (int32_t i = 0; i < s->n; ++i) g_color_particles[i] = i, g_particle_color[i] = 0;
    const int32_t color_offsets[2] = {0, s->n};
    dfm_cpu_dc_build(&d, s->x, s->n, s->vt, s->ee, 1, color_offsets, g_color_particles, g_particle_color);
    return d;
}

/// The build's outputs (copied out of the shared buffers).
typedef struct snapshot {
    int32_t pair_count, dropped, filtered;
    dfm_dc_pair pairs[MAXC];
    float dist[MAXC], vbound[MAXP];
    int32_t offsets[MAXP + 1], items[4 * MAXC], sub_particles[MAXP], sub_offsets[3 * DFM_DC_SUBCOLOR_SLOTS + 1];
} snapshot;

/// Runs dfm_cpu_dc_build over the scene on `threads` workers, forking from 1 candidate, with 3
/// colours (particle i in colour i % 3); copies the outputs into *o.
static void run_threads(scene* s, int threads, snapshot* o) {
    static int32_t sub_offsets[3 * DFM_DC_SUBCOLOR_SLOTS + 1];
    dfm_cpu_dc d;
    memset(&d, 0, sizeof(d));
    d.points = s->points, d.point_count = s->np;
    d.edges = s->edges, d.edge_count = s->ne;
    d.tris = s->tris, d.tri_count = s->nt;
    d.body_count = 1;
    d.particle_color = g_particle_color;
    d.cand = s->cand;
    d.candidate_capacity = MAXC;
    d.pairs = g_pairs, d.pair_dist = g_dist, d.feature = g_feature, d.vertex_bound = g_vbound;
    d.offsets = g_offsets, d.items = g_items, d.sub_of = g_sub_of, d.sub_particles = g_sub_particles;
    d.sub_offsets = sub_offsets;
    d.radius = 0.005f, d.ke = 1e3f, d.feasible = 1;
    d.query_radius = 0.01f;
    d.threads = threads;
    d.fork_min = 1;
    int32_t color_offsets[4] = {0, 0, 0, 0}, fill[3] = {0, 0, 0};
    for (int32_t i = 0; i < s->n; ++i) g_particle_color[i] = i % 3, ++color_offsets[i % 3 + 1];
    for (int c = 0; c < 3; ++c) color_offsets[c + 1] += color_offsets[c], fill[c] = color_offsets[c];
    for (int32_t i = 0; i < s->n; ++i) g_color_particles[fill[i % 3]++] = i;
    memset(g_vbound, 0, sizeof(g_vbound));
    dfm_cpu_dc_build(&d, s->x, s->n, s->vt, s->ee, 3, color_offsets, g_color_particles, g_particle_color);
    CHECK((d.build_forks > 0) == (threads > 1), "threads %d: the build forked %lld times", threads,
          (long long)d.build_forks);
    memset(o, 0, sizeof(*o));
    o->pair_count = d.pair_count, o->dropped = d.dropped_redundant, o->filtered = d.pairs_filtered;
    memcpy(o->pairs, g_pairs, sizeof(dfm_dc_pair) * (size_t)d.pair_count);
    memcpy(o->dist, g_dist, sizeof(float) * (size_t)d.pair_count);
    memcpy(o->vbound, g_vbound, sizeof(float) * (size_t)s->n);
    memcpy(o->offsets, g_offsets, sizeof(int32_t) * ((size_t)s->n + 1u));
    memcpy(o->items, g_items, sizeof(int32_t) * 4u * (size_t)d.pair_count);
    memcpy(o->sub_particles, g_sub_particles, sizeof(int32_t) * (size_t)s->n);
    memcpy(o->sub_offsets, sub_offsets, sizeof(sub_offsets));
}

/// The build on 2..8 workers against 1 (candidate ranges, parallel sub-colours): bitwise the same
/// pairs, bounds, lists and sub-colours. A point over a vertex of a bumpy 5 x 5 grid (its pairs
/// are covered by each other), ten far points (every candidate rejected), the first point listed
/// again (its two runs join in the serial narrow phase: the ranges must be marked as one,
/// runs_straddle), 20 more points, and 10 lifted edges against the grid's rows (edge-edge pairs).
static void threads_case(void) {
    static scene s;
    static snapshot ref, got;
    memset(&s, 0, sizeof(s));
    float z[25];
    unsigned seed = 777u;
    for (int k = 0; k < 25; ++k) {
        seed = seed * 1664525u + 1013904223u;
        z[k] = 0.006f * ((float)(seed >> 8) / 16777216.0f - 0.5f);
    }
    add_grid(&s, 5, 0.02f, z);
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i + 1 < 5; ++i) add_edge(&s, 5 * j + i, 5 * j + i + 1);
    const int32_t grid_edges = s.ne;
    const int32_t a = add_vertex(&s, 0.04f, 0.04f, z[12] + 0.004f); /* over grid vertex 12 */
    all_triangles(&s, add_point(&s, a));
    for (int f = 0; f < 10; ++f) all_triangles(&s, add_point(&s, add_vertex(&s, 0.01f * (float)f, 0.0f, 0.05f)));
    all_triangles(&s, add_point(&s, a));
    int32_t prev = -1;
    for (int q = 0; q < 20; ++q) {
        seed = seed * 1664525u + 1013904223u;
        const float px = 0.08f * (float)(seed >> 8) / 16777216.0f;
        seed = seed * 1664525u + 1013904223u;
        const float py = 0.08f * (float)(seed >> 8) / 16777216.0f;
        seed = seed * 1664525u + 1013904223u;
        const float pz = 0.002f + 0.008f * (float)(seed >> 8) / 16777216.0f;
        const int32_t v = add_vertex(&s, px, py, pz);
        all_triangles(&s, add_point(&s, v));
        if (prev >= 0 && (q & 1)) add_edge(&s, prev, v);
        prev = v;
    }
    for (int32_t e = grid_edges; e < s.ne; ++e) /* after every vertex-triangle candidate */
        for (int32_t g = 0; g < grid_edges; ++g) s.cand[s.vt + s.ee++] = (dfm_bvh_pair){e, g};
    CHECK(s.n <= MAXP && s.vt + s.ee <= MAXC, "threads: scene too large (%d particles)", s.n);
    run_threads(&s, 1, &ref);
    CHECK(ref.filtered && ref.dropped > 0 && ref.pair_count > 0, "threads: filtered %d, %d dropped, %d kept",
          ref.filtered, ref.dropped, ref.pair_count);
    for (int t = 2; t <= 8; ++t) {
        run_threads(&s, t, &got);
        CHECK(memcmp(&ref, &got, sizeof(ref)) == 0, "threads: %d workers differ from 1 (%d vs %d pairs)", t,
              got.pair_count, ref.pair_count);
    }
}

static int count_kind(const dfm_cpu_dc* d, int kind) {
    int c = 0;
    for (int32_t k = 0; k < d->pair_count; ++k) c += d->pairs[k].kind == kind;
    return c;
}

static void vertex_case(void) {
    scene s = {0};
    add_grid(&s, 3, 0.02f, NULL);
    const int32_t p = add_vertex(&s, 0.02f, 0.02f, 0.004f); /* over the centre vertex 4 */
    all_triangles(&s, add_point(&s, p));
    dfm_cpu_dc all = run(&s, 0, 0.01f), one = run(&s, 1, 0.01f);
    CHECK(all.pair_count == 6, "vertex: %d pairs without the filter, expected the 6 triangles at the vertex",
          all.pair_count);
    one = run(&s, 1, 0.01f);
    CHECK(one.pair_count == 1, "vertex: %d pairs kept, expected 1 (one contact with the vertex)", one.pair_count);
    CHECK(one.pair_count < 1 || fabsf(one.pair_dist[0] - 0.004f) < 1e-6f, "vertex: kept pair at %g m, expected 0.004",
          (double)one.pair_dist[0]);
    CHECK(one.pairs_filtered == 1 && one.dropped_redundant == 5, "vertex: filtered %d, dropped %d (expected 1, 5)",
          one.pairs_filtered, one.dropped_redundant);
    /* bound: the dropped pairs' corners are bounded by 0.45 of their distance (4 mm), others by 0.45 rq */
    CHECK(one.view.vertex_bound == g_vbound, "vertex: no per-particle bound in the view");
    CHECK(fabsf(g_vbound[p] - 0.45f * 0.004f) < 1e-7f, "vertex: the point's bound %g m, expected %g",
          (double)g_vbound[p], 0.45 * 0.004);
    CHECK(g_vbound[4] <= 0.45f * 0.004f + 1e-7f, "vertex: the centre vertex's bound %g m", (double)g_vbound[4]);
    CHECK(fabsf(g_vbound[2] - 0.45f * 0.01f) < 1e-7f,
          "vertex: vertex 2's bound %g m (in no dropped pair), expected 0.45 rq", (double)g_vbound[2]);
    /* a point 4 mm over an edge's midpoint (cell (0,0)'s diagonal 0-4, shared by its two triangles) */
    scene e = {0};
    add_grid(&e, 3, 0.02f, NULL);
    all_triangles(&e, add_point(&e, add_vertex(&e, 0.01f, 0.01f, 0.004f)));
    dfm_cpu_dc de = run(&e, 1, 0.01f);
    CHECK(de.pair_count == 1, "edge midpoint: %d pairs kept, expected 1", de.pair_count);
}

static void face_case(void) {
    scene s = {0};
    add_grid(&s, 3, 0.02f, NULL);
    /* over triangle (0, 1, 4)'s interior, 3 mm from vertex 1 horizontally: the triangles around
       vertex 1 and edge 1-4 see their edges or vertices at a larger distance */
    const int32_t p = add_vertex(&s, 0.02f - 0.002f, 0.001f, 0.004f);
    all_triangles(&s, add_point(&s, p));
    dfm_cpu_dc all = run(&s, 0, 0.01f);
    const int n_all = all.pair_count;
    dfm_cpu_dc d = run(&s, 1, 0.01f);
    CHECK(n_all > 1, "face: %d pairs without the filter, expected more than 1", n_all);
    CHECK(d.pair_count == 1 && d.pairs[0].v[1] == 0 && d.pairs[0].v[2] == 1 && d.pairs[0].v[3] == 4,
          "face: %d pairs kept, first (%d %d %d), expected only triangle (0 1 4)", d.pair_count, d.pairs[0].v[1],
          d.pairs[0].v[2], d.pairs[0].v[3]);
}

static void crease_case(void) {
    scene s = {0};
    const int32_t a = add_vertex(&s, 0.0f, 0.0f, 0.0f), b = add_vertex(&s, 0.0f, 0.04f, 0.0f);
    const int32_t c1 = add_vertex(&s, 0.04f, 0.02f, 0.0f);     /* flat face towards +x */
    const int32_t c2 = add_vertex(&s, -0.02f, 0.02f, 0.0346f); /* 120 degrees up, to -x */
    add_tri(&s, a, b, c1);
    add_tri(&s, a, b, c2);
    const int32_t p = add_vertex(&s, 0.002f, 0.02f, 0.0035f); /* inside the V, over both faces */
    all_triangles(&s, add_point(&s, p));
    dfm_cpu_dc d = run(&s, 1, 0.01f);
    CHECK(d.pair_count == 2, "crease: %d pairs kept, expected 2 (one per face)", d.pair_count);
}

static void edge_cases(void) {
    scene s = {0};
    const int32_t e0 = add_vertex(&s, 0.0f, 0.0f, 0.004f), e1 = add_vertex(&s, 0.04f, 0.0f, 0.004f);
    const int32_t f0 = add_vertex(&s, 0.02f, -0.02f, 0.0f), f1 = add_vertex(&s, 0.02f, 0.02f, 0.0f);
    const int32_t g0 = add_vertex(&s, 0.043f, -0.02f, 0.0f), g1 = add_vertex(&s, 0.043f, 0.02f, 0.0f);
    const int32_t h0 = add_vertex(&s, 0.0f, 0.003f, 0.0f), h1 = add_vertex(&s, 0.04f, 0.003f, 0.0f);
    const int32_t ea = add_edge(&s, e0, e1), fa = add_edge(&s, f0, f1), ga = add_edge(&s, g0, g1);
    const int32_t ha = add_edge(&s, h0, h1);
    s.cand[s.ee++] = (dfm_bvh_pair){ea, fa}; /* crossing, 4 mm apart: interior */
    s.cand[s.ee++] = (dfm_bvh_pair){ea, ga}; /* closest point at e1: clamped */
    s.cand[s.ee++] = (dfm_bvh_pair){ea, ha}; /* parallel */
    dfm_cpu_dc all = run(&s, 0, 0.01f);
    CHECK(all.pair_count == 3, "edges: %d pairs without the filter, expected 3", all.pair_count);
    dfm_cpu_dc d = run(&s, 1, 0.01f);
    CHECK(d.pair_count == 1 && d.pairs[0].v[2] == f0, "edges: %d pairs kept (expected only the crossing)",
          d.pair_count);
    CHECK(g_vbound[g0] <= 0.45f * 0.01f && g_vbound[h0] <= 0.45f * 0.005f,
          "edges: the dropped pairs' corners bounded %g, %g m", (double)g_vbound[g0], (double)g_vbound[h0]);
}

static void random_case(void) {
    unsigned seed = 12345u;
    float z[25];
    for (int k = 0; k < 25; ++k) {
        seed = seed * 1664525u + 1013904223u;
        z[k] = 0.006f * ((float)(seed >> 8) / 16777216.0f - 0.5f);
    }
    int dropped = 0, points = 0;
    for (int q = 0; q < 400; ++q) {
        scene s = {0};
        add_grid(&s, 5, 0.02f, z);
        seed = seed * 1664525u + 1013904223u;
        const float px = 0.08f * (float)(seed >> 8) / 16777216.0f;
        seed = seed * 1664525u + 1013904223u;
        const float py = 0.08f * (float)(seed >> 8) / 16777216.0f;
        seed = seed * 1664525u + 1013904223u;
        const float pz = 0.004f + 0.006f * (float)(seed >> 8) / 16777216.0f;
        all_triangles(&s, add_point(&s, add_vertex(&s, px, py, pz)));
        dfm_cpu_dc all = run(&s, 0, 0.01f);
        if (all.pair_count == 0) continue;
        float best = 3e38f;
        for (int32_t k = 0; k < all.pair_count; ++k) best = fminf(best, all.pair_dist[k]);
        const int32_t n_all = all.pair_count;
        dfm_cpu_dc d = run(&s, 1, 0.01f);
        float kept = 3e38f;
        for (int32_t k = 0; k < d.pair_count; ++k) kept = fminf(kept, d.pair_dist[k]);
        CHECK(d.pair_count >= 1 && fabsf(kept - best) <= 1e-5f * best, /* same feature via two triangles: rounding */
              "random %d: closest pair %g m dropped (kept min %g, %d of %d)", q, (double)best, (double)kept,
              d.pair_count, n_all);
        dropped += n_all - d.pair_count;
        ++points;
    }
    CHECK(points > 100 && dropped > points, "random: %d points, %d pairs dropped (expected some per point)", points,
          dropped);
    printf("random: %d points over a bumpy sheet, %d redundant pairs dropped, every closest pair kept\n", points,
           dropped);
}

static void off_cases(void) {
    scene s = {0};
    add_grid(&s, 3, 0.02f, NULL);
    all_triangles(&s, add_point(&s, add_vertex(&s, 0.02f, 0.02f, 0.004f)));
    dfm_cpu_dc off = run(&s, 0, 0.01f);
    CHECK(off.pair_count == 6 && off.view.vertex_bound == NULL && !off.pairs_filtered,
          "off: %d pairs, bound %p (expected 6, none)", off.pair_count, (const void*)off.view.vertex_bound);
    dfm_cpu_dc fast = run(&s, 1, 0.012f); /* query radius above 2r: fast motion keeps every pair */
    CHECK(fast.pair_count == 6 && fast.view.vertex_bound == NULL, "fast: %d pairs (expected 6, unfiltered)",
          fast.pair_count);
}

int main(void) {
    vertex_case();
    face_case();
    crease_case();
    edge_cases();
    random_case();
    threads_case();
    off_cases();
    return dfm_test_finish("test_deform_feature_filter");
}
