/// CPU benchmark of the rigid broad phase (issue 16, kernels/cpu/rigid_broad_cpu.c): detection of
/// the all-pairs candidate list against the BVH selection + detection of the selection, on one
/// 32 x 32 cloth (0.9 m, 1024 particles, 2945 edges, 1922 faces; --res R for R x R) resting, after 12 steps, on a
/// plane and a pile of N boxes and spheres (scenes/dfm_scene_pile.h) for each N on the command line
/// (default 1 4 16 64 256 1000). One thread; the two paths run interleaved, `reps` times each,
/// timed by the thread's CPU time (CLOCK_THREAD_CPUTIME_ID: user + system time of this thread,
/// robust to other processes on a loaded machine, unlike wall time). Prints a line per N; asserts
/// only that both paths write the same records (timings are figures for docs/perf.md).
/// Usage: bench_rigid_broad [--res R] [N ...] (R x R cloth vertices, default 32)
#include <math.h>
#include <time.h>

#include <dfm_scene_pile.h>
#include <dfm_scene_shape.h>

#include "contacts_cpu.h"
#include "dfm_test.h"
#include "host_view.h"
#include "rigid_broad_cpu.h"

static int cmp_i32(const void* a, const void* b) {
    int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return x < y ? -1 : (x > y);
}

/// The alternative design, timed for comparison only: one tree over the features (points, edges,
/// triangles of the cloth) built once and refitted every pass, queried by every non-plane shape's
/// box grown by margin + gap + the largest feature growth, each shape's hits sorted (as the exact
/// selection would need them). Returns the hit count.
static int64_t feature_tree_pass(dfm_cpu_bvh* t, const dfm_bvh_input* bi, const dfm_contact_view* cv, float grow,
                                 dfm_bvh_pair* pairs, int32_t* feats, int64_t cap) {
    char err[256];
    if (dfm_cpu_bvh_refit(t, bi, err, sizeof(err)) != DFM_OK) fprintf(stderr, "refit: %s\n", err);
    dfm_bvh_view v = {t->leaf_count, t->left, t->right, t->boxes, t->leaf_prim, t->prims, t->filter};
    dfm_bvh_prim qp = {{-1, -1, -1}, 0};
    int64_t hits = 0;
    for (int32_t s = 0; s < cv->shape_count; ++s) {
        const dfm_shape_rt* r = &cv->shapes[s];
        if (r->is_plane) continue;
        float gs = r->margin + r->gap + grow;
        dfm_bvh_box q;
        for (int a = 0; a < 3; ++a) {
            q.lo[a] = r->aabb_min[a] - gs;
            q.hi[a] = r->aabb_max[a] + gs;
        }
        int32_t ovf = 0;
        int32_t found = dfm_bvh_query_one(&v, s, &qp, &q, 0, pairs, cap, &ovf);
        for (int32_t k = 0; k < found && k < cap; ++k) feats[k] = pairs[k].b;
        qsort(feats, (size_t)(found < cap ? found : cap), sizeof(int32_t), cmp_i32);
        hits += found;
    }
    return hits;
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
    int sizes[32] = {1, 4, 16, 64, 256, 1000}, count = 6, res = 32, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--res")) {
        res = atoi(argv[2]);
        first = 3;
    }
    if (argc > first) {
        count = 0;
        for (int i = first; i < argc && count < 32; ++i) sizes[count++] = atoi(argv[i]);
    }
    printf("bench_rigid_broad: %d x %d cloth on a plane + N shapes, 1 thread, thread CPU time per detection pass\n",
           res, res);
    printf("| N shapes | candidates | selected | records | brute ms | bvh select ms | bvh detect ms | bvh total ms | "
           "brute/bvh | feature-tree cull ms |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < count; ++k) {
        const int32_t n = sizes[k];
        dfm_world_def def = dfm_world_def_default();
        def.backend = DFM_BACKEND_CPU;
        def.gravity[2] = -9.81f;
        def.cpu_threads = 1;
        dfm_world* w = dfm_test_create(&def);
        dfm_shape_def plane = dfm_scene_plane_def();
        dfm_shape_id id;
        CHECK_OK(w, dfm_scene_add_shape(w, &plane, 0, 0, 0, NULL, &id));
        CHECK_OK(w, dfm_scene_pile_add(w, n, -1, 0.45f, 2026u, NULL));
        dfm_test_grid g = dfm_test_make_grid(res, res, 0.9f, 0.9f, -0.45f, -0.45f, 0.2f);
        (void)dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
        dfm_test_free_grid(&g);
        const float dt = 1.0f / 60.0f;
        for (int s = 0; s < 12; ++s) CHECK_OK(w, dfm_world_step(w, dt));
        dfm_contact_view cv = dfm_world_contact_view(w);
        dfm_detect_input in;
        in.x = w->state.x;
        in.v = w->state.v;
        in.radius = w->model.radius;
        in.h = dt / (float)def.substeps;
        const int64_t total = dfm_contact_candidates_total(&cv.cand);
        int reps = (int)(2000000 / (total + 1)) + 3;
        if (reps > 200) reps = 200;
        dfm_cpu_rigid_broad broad;
        memset(&broad, 0, sizeof(broad));
        double t_brute = 0, t_sel = 0, t_det = 0;
        int32_t rec_brute = 0, rec_bvh = 0;
        int same = 1;
        dfm_contact_records keep;
        CHECK(dfm_contact_records_alloc(&keep, (size_t)cv.capacity), "out of memory");
        /* the feature tree of the alternative design: every feature as a primitive of one body */
        const dfm_model* m = &w->model;
        const int32_t nf = m->feat_particle_count + m->feat_edge_count + m->feat_face_count;
        dfm_bvh_prim* fp = (dfm_bvh_prim*)malloc(sizeof(dfm_bvh_prim) * (size_t)nf);
        for (int32_t f = 0, q = 0; f < nf; ++f, ++q) {
            dfm_bvh_prim p = {{-1, -1, -1}, 0};
            if (f < m->feat_particle_count) {
                p.v[0] = m->feat_particles[f];
            } else if (f < m->feat_particle_count + m->feat_edge_count) {
                int32_t e = f - m->feat_particle_count;
                p.v[0] = m->feat_edges[2 * e];
                p.v[1] = m->feat_edges[2 * e + 1];
            } else {
                int32_t t = f - m->feat_particle_count - m->feat_edge_count;
                for (int j = 0; j < 3; ++j) p.v[j] = m->feat_faces[3 * t + j];
            }
            fp[f] = p;
        }
        dfm_bvh_filter all = {0, 1u, 0xFFFFFFFFu, 1};
        dfm_bvh_input bi;
        memset(&bi, 0, sizeof(bi));
        bi.x = in.x;
        bi.vertex_count = m->particle_count;
        bi.tree_prims = fp;
        bi.tree_count = nf;
        bi.filter = &all;
        bi.body_count = 1;
        dfm_cpu_bvh ft;
        char err[256];
        CHECK(dfm_cpu_bvh_init(&ft, nf, err, sizeof(err)) == DFM_OK &&
                  dfm_cpu_bvh_build(&ft, &bi, err, sizeof(err)) == DFM_OK,
              "feature tree: %s", err);
        float grow = 0.0f;
        for (int32_t i = 0; i < m->particle_count; ++i) {
            const float* vi = in.v + 3 * i;
            float gi = in.radius[i] + sqrtf(vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]) * in.h;
            if (gi > grow) grow = gi;
        }
        dfm_bvh_pair* fpairs = (dfm_bvh_pair*)malloc(sizeof(dfm_bvh_pair) * (size_t)nf);
        int32_t* ffeat = (int32_t*)malloc(sizeof(int32_t) * (size_t)nf);
        double t_ft = 0;
        int64_t ft_hits = 0;
        for (int r = 0; r < reps; ++r) {
            double t0 = cpu_s();
            dfm_cpu_contacts_detect(&cv, &in);
            double t1 = cpu_s();
            rec_brute = *cv.count;
            int32_t kept = rec_brute < cv.capacity ? rec_brute : cv.capacity;
            if (r == 0) dfm_contact_records_copy(keep, 0, cv.rec, 0, kept);
            double t2 = cpu_s();
            int ok = dfm_cpu_rigid_broad_select(&broad, &cv, &in, w->model.environment, 1, 1) == 0;
            double t3 = cpu_s();
            if (ok) dfm_cpu_contacts_detect_selected(&cv, &in, broad.selected, broad.selected_count, NULL, 1);
            double t4 = cpu_s();
            CHECK(ok, "select failed");
            rec_bvh = *cv.count;
            if (r == 0)
                same = rec_bvh == rec_brute && memcmp(keep.candidate, cv.rec.candidate, sizeof(int32_t) * kept) == 0 &&
                       memcmp(keep.normal, cv.rec.normal, 3 * sizeof(float) * kept) == 0 &&
                       memcmp(keep.pen0, cv.rec.pen0, sizeof(float) * kept) == 0;
            double t5 = cpu_s();
            ft_hits = feature_tree_pass(&ft, &bi, &cv, grow, fpairs, ffeat, nf);
            t_ft += cpu_s() - t5;
            t_brute += t1 - t0;
            t_sel += t3 - t2;
            t_det += t4 - t3;
        }
        CHECK(same, "N = %d: the BVH path wrote other records (%d vs %d)", n, rec_bvh, rec_brute);
        const double ms = 1e3 / reps;
        printf("| %d | %lld | %lld | %d | %.3f | %.3f | %.3f | %.3f | %.2f | %.3f (%lld hits) |\n", n, (long long)total,
               (long long)broad.selected_count, rec_brute, t_brute * ms, t_sel * ms, t_det * ms, (t_sel + t_det) * ms,
               t_brute / (t_sel + t_det), t_ft * ms, (long long)ft_hits);
        dfm_cpu_bvh_free(&ft);
        free(fp);
        free(fpairs);
        free(ffeat);
        fflush(stdout);
        dfm_contact_records_free(&keep);
        dfm_cpu_rigid_broad_free(&broad);
        dfm_world_destroy(w);
    }
    return dfm_test_finish("bench_rigid_broad");
}
