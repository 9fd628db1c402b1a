/// CPU benchmark of the broad phase (issue 16): BVH (build + query) against the brute-force
/// all-pairs check (kernels/cpu/bvh_cpu.c), vertex-triangle plus edge-edge, on the folded cloth
/// of tests/support/bvh_scenes.h (unit square, layers half a cell apart, radius 0.75 cell) at the grid sizes given on the command line (default 9 17 33
/// 65 129), one thread. Prints one line per size; asserts only that both find the same number
/// of pairs (timings are figures for docs/perf.md, not pass/fail bounds).
/// Usage: bench_bvh_cpu [m ...]
#include <time.h>

#include "bvh_cpu.h"
#include "bvh_scenes.h"
#include "dfm_test.h"

static char g_err[512];

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/// One BVH pass over in (build + query); returns the pair count.
static int64_t bvh_once(dfm_cpu_bvh* b, const dfm_bvh_input* in, dfm_bvh_pair* p, int64_t cap) {
    int64_t n = 0;
    if (dfm_cpu_bvh_build(b, in, g_err, sizeof(g_err)) != DFM_OK ||
        dfm_cpu_bvh_query(b, in, p, cap, &n, g_err, sizeof(g_err)) != DFM_OK)
        fprintf(stderr, "bvh: %s\n", g_err);
    return n;
}

int main(int argc, char** argv) {
    int sizes[16] = {9, 17, 33, 65, 129}, count = 5;
    if (argc > 1) {
        count = 0;
        for (int i = 1; i < argc && count < 16; ++i) sizes[count++] = atoi(argv[i]);
    }
    printf(
        "bench_bvh_cpu: folded cloth, unit square, layers 0.5 cell apart, radius 0.75 cell; vertex-triangle + edge-edge, 1 thread\n");
    for (int k = 0; k < count; ++k) {
        int m = sizes[k];
        if (m < 3) continue;
        /* layers half a cell apart, radius 0.75 cells: the contact radius is a fraction of the edge length */
        float cell = 1.0f / (float)(m - 1);
        bvh_scene s = bvh_scene_fold(m, 0.5f * cell, 0);
        dfm_bvh_input in[2] = {bvh_input_vt(&s, 0.75f * cell), bvh_input_ee(&s, 0.75f * cell)};
        int64_t cap = 1 << 22;
        dfm_bvh_pair* p = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)cap);
        dfm_cpu_bvh b[2];
        for (int i = 0; i < 2; ++i) dfm_cpu_bvh_init(&b[i], in[i].tree_count, g_err, sizeof(g_err));
        double t0 = now_s(), t_bvh = 0.0, t_brute = 0.0;
        int reps = 0;
        int64_t n_bvh = 0, n_brute = 0;
        do {
            n_bvh = bvh_once(&b[0], &in[0], p, cap) + bvh_once(&b[1], &in[1], p, cap);
            ++reps;
            t_bvh = now_s() - t0;
        } while (t_bvh < 0.2);
        t_bvh /= reps;
        t0 = now_s();
        int breps = 0;
        do {
            n_brute = 0;
            for (int i = 0; i < 2; ++i) {
                int64_t n = 0;
                dfm_cpu_bvh_brute(&in[i], p, cap, &n, g_err, sizeof(g_err));
                n_brute += n;
            }
            ++breps;
            t_brute = now_s() - t0;
        } while (t_brute < 0.2);
        t_brute /= breps;
        printf("bench_bvh_cpu: m %3d: %6d triangles, %6d edges, %8lld pairs: bvh %9.3f ms, brute %10.3f ms, "
               "brute/bvh %7.1f\n",
               m, (int)in[0].tree_count, (int)in[1].tree_count, (long long)n_bvh, 1e3 * t_bvh, 1e3 * t_brute,
               t_brute / t_bvh);
        CHECK(n_bvh == n_brute, "m %d: bvh %lld pairs, brute force %lld", m, (long long)n_bvh, (long long)n_brute);
        for (int i = 0; i < 2; ++i) dfm_cpu_bvh_free(&b[i]);
        free(p);
        bvh_scene_free(&s);
    }
    return dfm_test_finish("bench_bvh_cpu");
}
