/// The broad phase's CPU BVH under motion, overflow and repetition (kernels/cpu/bvh_cpu.c):
/// - refit: after every vertex of a soup and of the folded cloth moves by up to 2 cm, the refit
///   tree's boxes are exactly the merges of its children and its query returns the same sorted
///   pair list as a fresh build at the new positions and as the independent brute force
///   (tests/support/bvh_scenes.h); the refit must also change the list (the motion is large
///   enough that pairs appear and vanish, so a refit that did nothing would fail);
/// - overflow: with room for half the pairs the query returns DFM_ERROR_CAPACITY, the true count,
///   a message with both numbers, and exactly the first half of the full list;
/// - determinism: two builds and queries of the same input give bitwise equal, unsorted lists.
#include "bvh_cpu.h"
#include "bvh_scenes.h"
#include "dfm_test.h"

static char g_err[512];

static dfm_bvh_pair* query(const dfm_cpu_bvh* b, const dfm_bvh_input* in, int64_t* n) {
    int64_t cap = 1 << 21;
    dfm_bvh_pair* p = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)cap);
    CHECK(dfm_cpu_bvh_query(b, in, p, cap, n, g_err, sizeof(g_err)) == DFM_OK, "query: %s", g_err);
    return p;
}

static int same_sorted(dfm_bvh_pair* a, int64_t na, dfm_bvh_pair* b, int64_t nb) {
    bvh_pairs_sort(a, na);
    bvh_pairs_sort(b, nb);
    return na == nb && memcmp(a, b, sizeof(dfm_bvh_pair) * (size_t)na) == 0;
}

static void refit(bvh_scene* s, dfm_bvh_input in, const char* what) {
    dfm_cpu_bvh b, fresh;
    dfm_cpu_bvh_init(&b, in.tree_count, g_err, sizeof(g_err));
    dfm_cpu_bvh_init(&fresh, in.tree_count, g_err, sizeof(g_err));
    CHECK(dfm_cpu_bvh_build(&b, &in, g_err, sizeof(g_err)) == DFM_OK, "%s: build: %s", what, g_err);
    int64_t n0 = 0, n1 = 0, n2 = 0, nr = 0;
    dfm_bvh_pair* before = query(&b, &in, &n0);
    for (int64_t i = 0; i < 3 * (int64_t)s->vertex_count; ++i) s->x[i] += (bvh_rand() * 2.0f - 1.0f) * 0.02f;
    CHECK(dfm_cpu_bvh_refit(&b, &in, g_err, sizeof(g_err)) == DFM_OK, "%s: refit: %s", what, g_err);
    int32_t n = b.leaf_count, bad = 0;
    for (int32_t i = 0; i + 1 < n; ++i) {
        dfm_bvh_box m = dfm_bvh_box_merge(b.boxes[b.left[i]], b.boxes[b.right[i]]);
        bad += memcmp(&m, b.boxes + i, sizeof(m)) != 0;
    }
    CHECK(bad == 0, "%s: %d refit boxes are not the merge of their children", what, bad);
    dfm_bvh_pair* after = query(&b, &in, &n1);
    CHECK(dfm_cpu_bvh_build(&fresh, &in, g_err, sizeof(g_err)) == DFM_OK, "%s: fresh build: %s", what, g_err);
    dfm_bvh_pair* rebuilt = query(&fresh, &in, &n2);
    dfm_bvh_pair* ref = bvh_ref_pairs(&in, &nr);
    int changed = !same_sorted(before, n0, ref, nr);
    printf("%s: %lld pairs before the motion, %lld after the refit, %lld after a fresh build, %lld reference\n", what,
           (long long)n0, (long long)n1, (long long)n2, (long long)nr);
    CHECK(same_sorted(after, n1, rebuilt, n2), "%s: refit pairs (%lld) differ from a fresh build's (%lld)", what,
          (long long)n1, (long long)n2);
    CHECK(same_sorted(after, n1, ref, nr), "%s: refit pairs (%lld) differ from the reference (%lld)", what,
          (long long)n1, (long long)nr);
    CHECK(changed, "%s: the motion did not change the pair list; the refit check proves nothing", what);
    /* a refit with other primitives than the build's is refused */
    dfm_bvh_input other = in;
    other.tree_count = in.tree_count - 1;
    CHECK(dfm_cpu_bvh_refit(&b, &other, g_err, sizeof(g_err)) == DFM_ERROR_INVALID_STATE, "%s: foreign refit", what);
    free(before);
    free(after);
    free(rebuilt);
    free(ref);
    dfm_cpu_bvh_free(&b);
    dfm_cpu_bvh_free(&fresh);
}

static void overflow(const dfm_bvh_input* in) {
    dfm_cpu_bvh b;
    dfm_cpu_bvh_init(&b, in->tree_count, g_err, sizeof(g_err));
    dfm_cpu_bvh_build(&b, in, g_err, sizeof(g_err));
    int64_t n = 0, m = 0;
    dfm_bvh_pair* full = query(&b, in, &n);
    int64_t cap = n / 2;
    dfm_bvh_pair* half = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)(cap + 1));
    half[cap].a = half[cap].b = -7; /* sentinel: nothing is written past the capacity */
    int r = dfm_cpu_bvh_query(&b, in, half, cap, &m, g_err, sizeof(g_err));
    char want[64];
    snprintf(want, sizeof(want), "%lld pairs found, capacity %lld", (long long)n, (long long)cap);
    printf("overflow: %s (message \"%s\")\n", dfm_result_string((dfm_result)r), g_err);
    CHECK(r == DFM_ERROR_CAPACITY && m == n && strstr(g_err, want), "overflow: result %d, count %lld of %lld: %s", r,
          (long long)m, (long long)n, g_err);
    CHECK(memcmp(half, full, sizeof(dfm_bvh_pair) * (size_t)cap) == 0,
          "overflow: the kept pairs are not the first %lld", (long long)cap);
    CHECK(half[cap].a == -7 && half[cap].b == -7, "overflow: a pair was written past the capacity");
    int64_t bn = 0;
    CHECK(dfm_cpu_bvh_brute(in, half, cap, &bn, g_err, sizeof(g_err)) == DFM_ERROR_CAPACITY && bn == n,
          "overflow: brute force result count %lld of %lld", (long long)bn, (long long)n);
    CHECK(dfm_cpu_bvh_query(&b, in, NULL, 0, &m, g_err, sizeof(g_err)) == DFM_ERROR_CAPACITY && m == n,
          "overflow: count-only query gave %lld of %lld", (long long)m, (long long)n);
    free(full);
    free(half);
    dfm_cpu_bvh_free(&b);
}

static void determinism(const dfm_bvh_input* in) {
    int64_t n[2];
    dfm_bvh_pair* p[2];
    for (int run = 0; run < 2; ++run) {
        dfm_cpu_bvh b;
        dfm_cpu_bvh_init(&b, in->tree_count, g_err, sizeof(g_err));
        dfm_cpu_bvh_build(&b, in, g_err, sizeof(g_err));
        p[run] = query(&b, in, &n[run]);
        dfm_cpu_bvh_free(&b);
    }
    int same = n[0] == n[1] && memcmp(p[0], p[1], sizeof(dfm_bvh_pair) * (size_t)n[0]) == 0;
    printf("determinism: %lld and %lld pairs, lists %s\n", (long long)n[0], (long long)n[1],
           same ? "bitwise equal" : "DIFFERENT");
    CHECK(same, "determinism: two runs differ");
    free(p[0]);
    free(p[1]);
}

int main(void) {
    bvh_scene soup = bvh_scene_soup(6, 400, 0.04f);
    refit(&soup, bvh_input_vt(&soup, 0.01f), "soup vertex-triangle refit");
    refit(&soup, bvh_input_ee(&soup, 0.01f), "soup edge-edge refit");
    bvh_scene fold = bvh_scene_fold(25, 0.01f, 0);
    refit(&fold, bvh_input_vt(&fold, 0.015f), "fold vertex-triangle refit");
    dfm_bvh_input ee = bvh_input_ee(&fold, 0.015f);
    overflow(&ee);
    determinism(&ee);
    bvh_scene_free(&soup);
    bvh_scene_free(&fold);
    return dfm_test_finish("test_bvh_refit");
}
