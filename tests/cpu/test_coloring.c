/// Coloring validity (no element has two corners of one color) on grids, random triangle meshes
/// and tet boxes; determinism; balance; and the world-level coloring through the ABI.
#include "coloring.h"
#include "dfm_test.h"
#include "topology.h"

static uint32_t g_rng = 12345u;
static uint32_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

static void check_mesh(const char* name, int32_t n, const int32_t* tris, int32_t nt, const int32_t* edges, int32_t ne,
                       const int32_t* tets, int32_t ntet) {
    dfm_coloring a, b;
    CHECK(dfm_coloring_compute(&a, n, tris, nt, edges, ne, tets, ntet) == 0, "oom");
    CHECK(dfm_coloring_compute(&b, n, tris, nt, edges, ne, tets, ntet) == 0, "oom");
    int32_t bad = dfm_coloring_first_conflict(&a, tris, nt, edges, ne, tets, ntet);
    CHECK(bad < 0, "%s: element %d has two corners of one color", name, bad);
    CHECK(memcmp(a.color, b.color, sizeof(int32_t) * (size_t)n) == 0, "%s: coloring not deterministic", name);
    int32_t sizes[64] = {0};
    for (int32_t v = 0; v < n; ++v) {
        CHECK(a.color[v] >= 0 && a.color[v] < a.color_count && a.color_count <= 64, "%s: color %d", name, a.color[v]);
        if (a.color[v] >= 0 && a.color[v] < 64) sizes[a.color[v]]++;
    }
    int32_t lo = n, hi = 0;
    for (int32_t c = 0; c < a.color_count; ++c) {
        if (sizes[c] < lo) lo = sizes[c];
        if (sizes[c] > hi) hi = sizes[c];
    }
    printf("%s: %d vertices, %d colors, sizes %d..%d\n", name, n, a.color_count, lo, hi);
    dfm_coloring_free(&a);
    dfm_coloring_free(&b);
}

int main(void) {
    for (int32_t n = 2; n <= 32; n *= 2) {
        dfm_test_grid g = dfm_test_make_grid(n, n + 1, 1, 1, 0, 0, 0);
        int32_t *edges = NULL, ne = 0, nm = 0;
        dfm_topology_bending_edges(g.triangles, g.triangle_count, &edges, &ne, &nm);
        char name[64];
        snprintf(name, sizeof(name), "grid %dx%d", n, n + 1);
        check_mesh(name, g.vertex_count, g.triangles, g.triangle_count, edges, ne, NULL, 0);
        free(edges);
        dfm_test_free_grid(&g);
    }
    /* Random triangle soups over few vertices: dense, irregular graphs. */
    for (int trial = 0; trial < 20; ++trial) {
        int32_t n = 20 + (int32_t)(rnd() % 200), nt = 10 + (int32_t)(rnd() % 400);
        int32_t* tris = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)nt);
        for (int32_t t = 0; t < nt; ++t) {
            int32_t a = (int32_t)(rnd() % (uint32_t)n), b, c;
            // clang-format off
            do b = (int32_t)(rnd() % (uint32_t)n); while (b == a);
            do c = (int32_t)(rnd() % (uint32_t)n); while (c == a || c == b);
            // clang-format on
            tris[3 * t] = a;
            tris[3 * t + 1] = b;
            tris[3 * t + 2] = c;
        }
        int32_t *edges = NULL, ne = 0, nm = 0;
        dfm_topology_bending_edges(tris, nt, &edges, &ne, &nm);
        check_mesh("random triangles", n, tris, nt, edges, ne, NULL, 0);
        free(edges);
        free(tris);
    }
    /* Tet boxes. */
    for (int32_t n = 2; n <= 6; n += 2) {
        int32_t nv, ntet;
        dfm_tet_box_counts(n, n + 1, n, &nv, &ntet);
        float* p = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
        int32_t* tets = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)ntet);
        float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        dfm_tet_box_generate(n, n + 1, n, lo, hi, p, tets);
        check_mesh("tet box", nv, NULL, 0, NULL, 0, tets, ntet);
        free(p);
        free(tets);
    }
    /* World coloring through the ABI: two bodies, colors valid over their triangles. */
    dfm_world* w = dfm_test_world(-9.81f, 1, 1);
    dfm_test_grid g = dfm_test_make_grid(8, 8, 1, 1, 0, 0, 0);
    dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    int32_t colors[128];
    CHECK_OK(w, dfm_world_get_particle_colors(w, colors, 128));
    for (int body = 0; body < 2; ++body)
        for (int32_t t = 0; t < g.triangle_count; ++t) {
            const int32_t* c = g.triangles + 3 * t;
            int32_t o = 64 * body;
            CHECK(colors[o + c[0]] != colors[o + c[1]] && colors[o + c[1]] != colors[o + c[2]] &&
                      colors[o + c[0]] != colors[o + c[2]],
                  "world coloring conflict in body %d triangle %d", body, t);
        }
    dfm_world_stats s = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &s));
    printf("world: %d colors, sizes %d..%d\n", s.color_count, s.color_min_size, s.color_max_size);
    CHECK(s.color_count >= 3 && s.color_count <= 12, "color count %d", s.color_count);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_coloring");
}
