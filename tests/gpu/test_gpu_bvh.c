/// The CUDA broad phase (kernels/cuda/bvh_cuda.cu) against its CPU twin (kernels/cpu/bvh_cpu.c),
/// bitwise: the same sorted leaves, the same node boxes (min/max merges, no FMA contraction in
/// the Morton codes), and the same pair list in the same order (count pass, scan, emit pass), on
/// the soup and folded-cloth scenes of tests/support/bvh_scenes.h, vertex-triangle and edge-edge,
/// with the filters; then a refit after motion (== the CPU refit and == the independent brute
/// force), an overflow (DFM_ERROR_CAPACITY, true count, the first pairs kept) and two runs
/// (bitwise equal). `--small`: smaller scenes, for compute-sanitizer. Skips (77) without a usable
/// CUDA device.
#include "bvh_cpu.h"
#include "bvh_cuda.h"
#include "bvh_scenes.h"
#include "device_probe.h"
#include "dfm_test.h"

static char g_err[512];

typedef struct run_out {
    dfm_bvh_pair* pairs;
    int64_t count;
    dfm_bvh_box* boxes;
    int32_t* leaf_prim;
} run_out;

static void run_free(run_out* r) {
    free(r->pairs);
    free(r->boxes);
    free(r->leaf_prim);
}

static const int64_t k_cap = 1 << 20;

static run_out run_cpu(const dfm_bvh_input* in, dfm_cpu_bvh* b) {
    run_out r;
    r.pairs = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)k_cap);
    CHECK(dfm_cpu_bvh_query(b, in, r.pairs, k_cap, &r.count, g_err, sizeof(g_err)) == DFM_OK, "cpu query: %s", g_err);
    size_t n = (size_t)b->leaf_count;
    r.boxes = (dfm_bvh_box*)malloc(sizeof(dfm_bvh_box) * (2 * n - 1));
    r.leaf_prim = (int32_t*)malloc(sizeof(int32_t) * n);
    memcpy(r.boxes, b->boxes, sizeof(dfm_bvh_box) * (2 * n - 1));
    memcpy(r.leaf_prim, b->leaf_prim, sizeof(int32_t) * n);
    return r;
}

static run_out run_gpu(const dfm_bvh_input* in, dfm_cuda_bvh* g) {
    run_out r;
    r.pairs = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)k_cap);
    CHECK(dfm_cuda_bvh_query(g, in, r.pairs, k_cap, &r.count, g_err, sizeof(g_err)) == DFM_OK, "gpu query: %s", g_err);
    size_t n = (size_t)in->tree_count;
    r.boxes = (dfm_bvh_box*)malloc(sizeof(dfm_bvh_box) * (2 * n - 1));
    r.leaf_prim = (int32_t*)malloc(sizeof(int32_t) * n);
    CHECK(dfm_cuda_bvh_download_tree(g, r.boxes, r.leaf_prim, g_err, sizeof(g_err)) == DFM_OK, "download: %s", g_err);
    return r;
}

static void compare(const run_out* c, const run_out* g, int32_t n, const char* what) {
    int leaves = memcmp(c->leaf_prim, g->leaf_prim, sizeof(int32_t) * (size_t)n) == 0;
    int boxes = memcmp(c->boxes, g->boxes, sizeof(dfm_bvh_box) * (size_t)(2 * n - 1)) == 0;
    int pairs = c->count == g->count && memcmp(c->pairs, g->pairs, sizeof(dfm_bvh_pair) * (size_t)c->count) == 0;
    printf("%s: %lld CPU pairs, %lld GPU pairs; leaves %s, boxes %s, pair lists %s\n", what, (long long)c->count,
           (long long)g->count, leaves ? "equal" : "DIFFER", boxes ? "equal" : "DIFFER", pairs ? "equal" : "DIFFER");
    CHECK(leaves && boxes && pairs, "%s: GPU differs from the CPU twin", what);
}

static dfm_cuda_bvh* create(const dfm_bvh_input* in) {
    dfm_cuda_bvh_caps caps = {in->tree_count, in->query_count, in->vertex_count, in->body_count, k_cap};
    dfm_cuda_bvh* g = NULL;
    int r = dfm_cuda_bvh_create(&caps, &g, g_err, sizeof(g_err));
    if (r == DFM_ERROR_DEVICE_UNAVAILABLE) {
        printf("no usable CUDA device: %s\n", g_err);
        exit(77);
    }
    CHECK(r == DFM_OK, "create: %s", g_err);
    if (r != DFM_OK) exit(dfm_test_finish("test_gpu_bvh"));
    return g;
}

static void scene_pair(bvh_scene* s, dfm_bvh_input in, const char* what) {
    dfm_cpu_bvh b;
    dfm_cpu_bvh_init(&b, in.tree_count, g_err, sizeof(g_err));
    dfm_cuda_bvh* g = create(&in);
    CHECK(dfm_cpu_bvh_build(&b, &in, g_err, sizeof(g_err)) == DFM_OK, "cpu build: %s", g_err);
    CHECK(dfm_cuda_bvh_build(g, &in, g_err, sizeof(g_err)) == DFM_OK, "gpu build: %s", g_err);
    run_out c = run_cpu(&in, &b), q = run_gpu(&in, g);
    compare(&c, &q, in.tree_count, what);
    run_out again = run_gpu(&in, g);
    CHECK(again.count == q.count && memcmp(again.pairs, q.pairs, sizeof(dfm_bvh_pair) * (size_t)q.count) == 0,
          "%s: two GPU queries differ", what);
    /* refit after motion */
    for (int64_t i = 0; i < 3 * (int64_t)s->vertex_count; ++i) s->x[i] += (bvh_rand() * 2.0f - 1.0f) * 0.02f;
    CHECK(dfm_cpu_bvh_refit(&b, &in, g_err, sizeof(g_err)) == DFM_OK, "cpu refit: %s", g_err);
    CHECK(dfm_cuda_bvh_refit(g, &in, g_err, sizeof(g_err)) == DFM_OK, "gpu refit: %s", g_err);
    run_out c2 = run_cpu(&in, &b), q2 = run_gpu(&in, g);
    char w2[96];
    snprintf(w2, sizeof(w2), "%s after refit", what);
    compare(&c2, &q2, in.tree_count, w2);
    int64_t nr = 0;
    dfm_bvh_pair* ref = bvh_ref_pairs(&in, &nr);
    bvh_pairs_sort(q2.pairs, q2.count);
    CHECK(nr == q2.count && memcmp(ref, q2.pairs, sizeof(dfm_bvh_pair) * (size_t)nr) == 0,
          "%s: GPU refit pairs (%lld) differ from the reference (%lld)", what, (long long)q2.count, (long long)nr);
    /* overflow: room for half */
    int64_t cap = nr / 2, m = 0;
    dfm_bvh_pair* half = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)(cap + 1));
    int r = dfm_cuda_bvh_query(g, &in, half, cap, &m, g_err, sizeof(g_err));
    CHECK(r == DFM_ERROR_CAPACITY && m == nr && memcmp(half, c2.pairs, sizeof(dfm_bvh_pair) * (size_t)cap) == 0,
          "%s: overflow result %d, count %lld of %lld: %s", what, r, (long long)m, (long long)nr, g_err);
    free(half);
    free(ref);
    run_free(&c);
    run_free(&q);
    run_free(&again);
    run_free(&c2);
    run_free(&q2);
    dfm_cuda_bvh_destroy(g);
    dfm_cpu_bvh_free(&b);
}

int main(int argc, char** argv) {
    int small = argc > 1 && strcmp(argv[1], "--small") == 0; /* for compute-sanitizer (run-on-gpu.sh) */
    if (dfm_cuda_device_count() < 1) {
        printf("no usable CUDA device\n");
        return 77;
    }
    bvh_scene soup = bvh_scene_soup(6, small ? 300 : 2000, 0.02f);
    scene_pair(&soup, bvh_input_vt(&soup, 0.01f), "soup vertex-triangle");
    scene_pair(&soup, bvh_input_ee(&soup, 0.01f), "soup edge-edge");
    bvh_scene fold = bvh_scene_fold(small ? 17 : 65, 0.01f, 1);
    scene_pair(&fold, bvh_input_vt(&fold, 0.015f), "fold vertex-triangle");
    scene_pair(&fold, bvh_input_ee(&fold, 0.015f), "fold edge-edge");
    bvh_scene_free(&soup);
    bvh_scene_free(&fold);
    return dfm_test_finish("test_gpu_bvh");
}
