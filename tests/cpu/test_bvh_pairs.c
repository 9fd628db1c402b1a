/// The broad phase's CPU BVH (kernels/cpu/bvh_cpu.c) finds exactly the pairs of a brute-force
/// all-pairs check written independently in tests/support/bvh_scenes.h (its own boxes and filter
/// rules): vertex-triangle and edge-edge, on random triangle-strip soups over six bodies in two
/// environments (with self-collision off on one body and a group mask on two), on a cloth folded
/// onto itself (with a twin in another environment that must pair with nothing), on a tet cube's
/// boundary (its face, vertex and edge counts checked against the closed form), on coincident primitives (equal Morton codes) and on one and two leaves.
/// Sorted pair lists must be equal element for element: the tests have no tolerance because
/// both sides run the same float comparisons on the same boxes. Also checked: the tree's
/// structure (every leaf reached once, each parent box is exactly the merge of its children),
/// the library's own brute force, and geometric truth on the fold (every vertex of the upper
/// layer away from the fold and the edges finds a triangle of the lower layer, h < radius).
#include "bvh_cpu.h"
#include "bvh_scenes.h"
#include "dfm_test.h"

static char g_err[512];

/// Walks the tree from the root: each leaf once, children's parent pointers, exact parent boxes.
static void check_tree(const dfm_cpu_bvh* b, const char* what) {
    int32_t n = b->leaf_count;
    int32_t* seen = (int32_t*)calloc((size_t)n, sizeof(int32_t));
    int32_t* stack = (int32_t*)malloc(sizeof(int32_t) * (size_t)(2 * n));
    int top = 0, bad_parent = 0, bad_box = 0, depth_max = 0;
    int32_t* depth = (int32_t*)calloc((size_t)(2 * n), sizeof(int32_t));
    stack[top++] = 0;
    while (top > 0) {
        int32_t node = stack[--top];
        if (depth[node] > depth_max) depth_max = depth[node];
        if (node >= n - 1) {
            ++seen[node - (n - 1)];
            continue;
        }
        int32_t l = b->left[node], r = b->right[node];
        bad_parent += b->parent[l] != node || b->parent[r] != node;
        dfm_bvh_box m = dfm_bvh_box_merge(b->boxes[l], b->boxes[r]);
        bad_box += memcmp(&m, b->boxes + node, sizeof(m)) != 0;
        depth[l] = depth[r] = depth[node] + 1;
        stack[top++] = l;
        stack[top++] = r;
    }
    int missing = 0;
    for (int32_t k = 0; k < n; ++k) missing += seen[k] != 1;
    CHECK(missing == 0 && bad_parent == 0 && bad_box == 0,
          "%s: %d leaves not reached once, %d wrong parents, %d parent boxes not the merge of their children", what,
          missing, bad_parent, bad_box);
    CHECK(depth_max < DFM_BVH_STACK, "%s: depth %d", what, depth_max);
    free(seen);
    free(stack);
    free(depth);
}

/// BVH query == library brute force == independent reference, as sorted lists. Returns the count.
static int64_t compare(const dfm_bvh_input* in, const char* what) {
    dfm_cpu_bvh b;
    CHECK(dfm_cpu_bvh_init(&b, in->tree_count, g_err, sizeof(g_err)) == DFM_OK, "%s: init: %s", what, g_err);
    CHECK(dfm_cpu_bvh_build(&b, in, g_err, sizeof(g_err)) == DFM_OK, "%s: build: %s", what, g_err);
    check_tree(&b, what);
    int64_t ref_n = 0, n = 0, brute_n = 0;
    dfm_bvh_pair* ref = bvh_ref_pairs(in, &ref_n);
    int64_t cap = ref_n + 16;
    dfm_bvh_pair* got = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)cap);
    dfm_bvh_pair* brute = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)cap);
    CHECK(dfm_cpu_bvh_query(&b, in, got, cap, &n, g_err, sizeof(g_err)) == DFM_OK, "%s: query: %s", what, g_err);
    CHECK(dfm_cpu_bvh_brute(in, brute, cap, &brute_n, g_err, sizeof(g_err)) == DFM_OK, "%s: brute: %s", what, g_err);
    bvh_pairs_sort(got, n);
    int same = n == ref_n && memcmp(got, ref, sizeof(dfm_bvh_pair) * (size_t)n) == 0;
    int same_brute = brute_n == ref_n && memcmp(brute, ref, sizeof(dfm_bvh_pair) * (size_t)n) == 0;
    printf("%s: %d tree, %d query primitives: %lld pairs (reference %lld, library brute force %lld)\n", what,
           (int)in->tree_count, (int)in->query_count, (long long)n, (long long)ref_n, (long long)brute_n);
    CHECK(same, "%s: BVH pairs (%lld) differ from the reference (%lld)", what, (long long)n, (long long)ref_n);
    CHECK(same_brute, "%s: library brute force (%lld) differs from the reference (%lld)", what, (long long)brute_n,
          (long long)ref_n);
    free(ref);
    free(got);
    free(brute);
    dfm_cpu_bvh_free(&b);
    return ref_n;
}

static void soups(void) {
    for (int trial = 0; trial < 3; ++trial) {
        bvh_scene s = bvh_scene_soup(6, 150 + 100 * trial, 0.04f);
        dfm_bvh_input vt = bvh_input_vt(&s, 0.01f), ee = bvh_input_ee(&s, 0.01f);
        char what[64];
        snprintf(what, sizeof(what), "soup %d vertex-triangle", trial);
        int64_t nvt = compare(&vt, what);
        snprintf(what, sizeof(what), "soup %d edge-edge", trial);
        int64_t nee = compare(&ee, what);
        CHECK(nvt > 100 && nee > 100, "soup %d: too few pairs to mean anything (%lld, %lld)", trial, (long long)nvt,
              (long long)nee);
        /* the filters must remove something: without them there are more pairs */
        dfm_bvh_filter open[6];
        for (int b = 0; b < 6; ++b) open[b] = bvh_filter(0);
        dfm_bvh_input all = vt;
        all.filter = open;
        int64_t nall = 0;
        free(bvh_ref_pairs(&all, &nall));
        CHECK(nall > nvt, "soup %d: the filters removed nothing (%lld vs %lld)", trial, (long long)nall,
              (long long)nvt);
        bvh_scene_free(&s);
    }
}

static void fold(void) {
    const int32_t m = 33;
    const float h = 0.01f, r = 0.015f;
    bvh_scene s = bvh_scene_fold(m, h, 1);
    dfm_bvh_input vt = bvh_input_vt(&s, r), ee = bvh_input_ee(&s, r);
    compare(&vt, "fold vertex-triangle");
    compare(&ee, "fold edge-edge");
    dfm_cpu_bvh b;
    dfm_cpu_bvh_init(&b, vt.tree_count, g_err, sizeof(g_err));
    dfm_cpu_bvh_build(&b, &vt, g_err, sizeof(g_err));
    int64_t n = 0, cap = 1 << 20;
    dfm_bvh_pair* p = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)cap);
    CHECK(dfm_cpu_bvh_query(&b, &vt, p, cap, &n, g_err, sizeof(g_err)) == DFM_OK, "fold: %s", g_err);
    /* geometric truth: an upper-layer vertex (z = h) away from the fold and the border lies at
       distance h < r above the lower layer, so it must pair with a lower-layer triangle */
    int32_t nv = m * m;
    char* found = (char*)calloc((size_t)s.sets.point_count, 1);
    int twin = 0;
    for (int64_t i = 0; i < n; ++i) {
        const dfm_bvh_prim* q = s.sets.points + p[i].a;
        const dfm_bvh_prim* t = s.sets.triangles + p[i].b;
        twin += q->body == 1 || t->body == 1;
        int lower = 1;
        for (int c = 0; c < 3; ++c) lower &= s.x[3 * t->v[c] + 2] == 0.0f;
        if (lower && s.x[3 * q->v[0] + 2] == h) found[p[i].a] = 1;
    }
    int missed = 0, expected = 0;
    for (int32_t k = 0; k < s.sets.point_count; ++k) {
        int32_t v = s.sets.points[k].v[0];
        if (v >= nv) continue;
        int32_t i = v % m, j = v / m;
        if (s.x[3 * v + 2] == h && i < m - 2 && i > m / 2 + 1 && j > 0 && j < m - 1) {
            ++expected;
            missed += !found[k];
        }
    }
    printf("fold: %lld vertex-triangle pairs; %d of %d upper interior vertices found the lower layer; %d twin pairs\n",
           (long long)n, expected - missed, expected, twin);
    CHECK(expected > 100 && missed == 0, "fold: %d of %d upper vertices found no lower triangle", missed, expected);
    CHECK(twin == 0, "fold: the twin cloth (other environment, self-collision off) produced %d pairs", twin);
    free(found);
    free(p);
    dfm_cpu_bvh_free(&b);
    bvh_scene_free(&s);
}

static void tet_cube(void) {
    const float origin[3] = {0.2f, 0.2f, 0.0f};
    bvh_scene s = bvh_scene_tet_cube(4, 0.05f, origin);
    int32_t n = 4;
    CHECK(s.sets.triangle_count == 12 * n * n, "tet cube: %d boundary triangles; expected %d", s.sets.triangle_count,
          12 * n * n);
    CHECK(s.sets.point_count == (n + 1) * (n + 1) * (n + 1) - (n - 1) * (n - 1) * (n - 1),
          "tet cube: %d surface vertices; expected %d", s.sets.point_count,
          (n + 1) * (n + 1) * (n + 1) - (n - 1) * (n - 1) * (n - 1));
    CHECK(s.sets.edge_count == 18 * n * n, "tet cube: %d surface edges; expected %d", s.sets.edge_count, 18 * n * n);
    dfm_bvh_input vt = bvh_input_vt(&s, 0.01f), ee = bvh_input_ee(&s, 0.01f);
    compare(&vt, "tet cube vertex-triangle");
    compare(&ee, "tet cube edge-edge");
    bvh_scene_free(&s);
}

/// All triangles at the same place (every Morton code equal: the index tie break builds the
/// tree), and the one- and two-leaf trees.
static void degenerate(void) {
    bvh_scene s = bvh_scene_soup(2, 40, 0.0f);
    dfm_bvh_input vt = bvh_input_vt(&s, 0.0f);
    int64_t c = compare(&vt, "coincident vertex-triangle");
    CHECK(c > 0, "coincident: no pairs");
    for (int32_t t = 1; t <= 2; ++t) {
        dfm_bvh_input one = bvh_input_vt(&s, 0.0f);
        one.tree_count = t;
        compare(&one, t == 1 ? "one leaf" : "two leaves");
    }
    bvh_scene_free(&s);
}

static void bad_input(void) {
    bvh_scene s = bvh_scene_soup(2, 20, 0.05f);
    dfm_bvh_input in = bvh_input_vt(&s, 0.01f);
    dfm_cpu_bvh b;
    CHECK(dfm_cpu_bvh_init(&b, 0, g_err, sizeof(g_err)) == DFM_ERROR_INVALID_COUNT, "init 0");
    CHECK(dfm_cpu_bvh_init(&b, 4, g_err, sizeof(g_err)) == DFM_OK, "init: %s", g_err);
    CHECK(dfm_cpu_bvh_build(&b, &in, g_err, sizeof(g_err)) == DFM_ERROR_CAPACITY && strstr(g_err, "holds 4"),
          "over capacity: %s", g_err);
    dfm_cpu_bvh_free(&b);
    dfm_bvh_input bad = in;
    bad.radius = -1.0f;
    CHECK(dfm_bvh_validate(&bad, g_err, sizeof(g_err)) == DFM_ERROR_INVALID_VALUE && strstr(g_err, "radius"),
          "radius: %s", g_err);
    bad = in;
    bad.self_set = 1;
    CHECK(dfm_bvh_validate(&bad, g_err, sizeof(g_err)) == DFM_ERROR_INVALID_VALUE && strstr(g_err, "self_set"),
          "self_set: %s", g_err);
    dfm_bvh_prim* prims = (dfm_bvh_prim*)malloc(sizeof(dfm_bvh_prim) * (size_t)in.tree_count);
    memcpy(prims, in.tree_prims, sizeof(dfm_bvh_prim) * (size_t)in.tree_count);
    prims[3].v[1] = s.vertex_count;
    bad = in;
    bad.tree_prims = prims;
    CHECK(dfm_bvh_validate(&bad, g_err, sizeof(g_err)) == DFM_ERROR_INDEX_OUT_OF_RANGE &&
              strstr(g_err, "tree_prims[3].v[1]"),
          "vertex index: %s", g_err);
    prims[3] = in.tree_prims[3];
    prims[5].body = 7;
    CHECK(dfm_bvh_validate(&bad, g_err, sizeof(g_err)) == DFM_ERROR_INDEX_OUT_OF_RANGE &&
              strstr(g_err, "tree_prims[5].body"),
          "body index: %s", g_err);
    free(prims);
    float keep = s.x[7];
    s.x[7] = NAN;
    CHECK(dfm_bvh_validate(&in, g_err, sizeof(g_err)) == DFM_ERROR_NON_FINITE && strstr(g_err, "vertex 2"), "nan: %s",
          g_err);
    s.x[7] = keep;
    bad = in;
    bad.tree_count = 0;
    CHECK(dfm_bvh_validate(&bad, g_err, sizeof(g_err)) == DFM_ERROR_INVALID_COUNT, "count: %s", g_err);
    int32_t tri[3] = {0, 1, 99};
    dfm_bvh_mesh mesh = {tri, 1, NULL, 0};
    dfm_bvh_prim_sets sets;
    CHECK(dfm_bvh_prims_build(&mesh, 1, s.x, s.vertex_count, &sets, g_err, sizeof(g_err)) ==
                  DFM_ERROR_INDEX_OUT_OF_RANGE &&
              strstr(g_err, "tris[0] corner 2 is vertex 99"),
          "mesh index: %s", g_err);
    printf("bad input: the last message reads \"%s\"\n", g_err);
    bvh_scene_free(&s);
}

int main(void) {
    soups();
    fold();
    tet_cube();
    degenerate();
    bad_input();
    return dfm_test_finish("test_bvh_pairs");
}
