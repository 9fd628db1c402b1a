/// The CPU per-color solve W particles at a time (kernels/cpu/vbd_simd_lanes.h: SSE2 W = 4, AVX2
/// W = 8 where the CPU has AVX2 and FMA) gives positions bitwise equal (memcmp) to the scalar path
/// (DFM_CPU_SIMD=scalar) after N steps of two scenes with contacts: the game-cloth workload (a
/// 24 x 24 cloth of 0.3 m dropped over a 4 cm sphere on a table box, 240 Hz, 4 x 10; it lands,
/// drapes and slides: membranes, hinges with damping, particle/edge/face contacts) and a soft cube
/// (5^3-vertex tet box, damped) dropped onto a box; and the shapes' reactions of the last step. Every lane does the scalar operations in the
/// scalar order, so there is no tolerance: one differing bit fails. Argument `fma` runs the lanes
/// with FMA contraction (DFM_CPU_SIMD=avx2-fma) instead, which is a different arithmetic order:
/// that run must differ (the CTest test_cpu_simd_fma_differs expects this program to fail, showing
/// the check can fail), and it prints the largest position difference against the scalar path.
/// Two more scenes have deformable contact on (world radius 5 mm; their particles with pairs take
/// the lanes too, issue 16): the `fold` cloth of tests/physics/test_physics_deform_contact.c (11 x
/// 16, folded onto itself 2 cm up, self-collision on: vertex-triangle and edge-edge pairs, the
/// sub-colours and the displacement bound) and two soft cubes stacked on a box (tets with pairs);
/// both are also run on 2 threads against the 1-thread scalar reference, and print an FNV-1a hash
/// of the reference positions and reactions (to compare the scalar path across revisions by hand;
/// DFM_TEST_ALL_PAIRS=1 keeps every deformable pair, DFM_DISABLE_DEFORMABLE_PAIR_FILTER, so that its
/// hashes compare with revisions before the one-contact-per-feature filter).
/// A fifth scene is the game cloth with two corners pinned (inactive lanes inside the lane groups:
/// the layout's per-group mask of dynamic particles, issue 18 slice 5).
#define _POSIX_C_SOURCE 200809L
#include <dfm_scene_cubes.h>
#include <dfm_scene_fold.h>
#include <dfm_scene_shape.h>

#include "dfm_test.h"
#include "dfm_test_shapes.h"

#define STEPS 120
/// Steps of the deformable-contact scenes (the fold's halves meet within ~5 steps).
#define DC_STEPS 30
/// Scenes: game cloth, soft cube, folded cloth, stacked cubes, game cloth with pinned corners.
#define SCENES 5
/// The scenes with deformable contact.
#define DC_SCENE(s) ((s) == 2 || (s) == 3)

/// Adds the folded cloth of the physics test's `fold` (scenes/dfm_scene_fold.h, self-collision on).
static dfm_body_id add_fold(dfm_world* w) {
    dfm_scene_grid fold;
    dfm_test_scene(w, dfm_scene_fold_make(11, 8, 0.0f, &fold), "the folded cloth");
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.self_collision = 1;
    dfm_body_id id = dfm_test_add_cloth(w, &fold, cd);
    dfm_scene_grid_free(&fold);
    return id;
}

/// Runs one scene with DFM_CPU_SIMD=mode on `threads` threads and returns its positions
/// (malloc'ed; *n particles).
static float* run(const char* mode, int scene, int threads, int32_t* n) {
    setenv("DFM_CPU_SIMD", mode, 1);
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.cpu_threads = threads;
    if (DC_SCENE(scene)) def.deformable_contact_radius = 0.005f;
    const char* all = getenv("DFM_TEST_ALL_PAIRS"); /* 1: every deformable pair (the hashes before session 13) */
    if (all && all[0] == '1') def.disable_flags |= DFM_DISABLE_DEFORMABLE_PAIR_FILTER;
    /* DFM_TEST_FEATURES=coarse: the two-level solve on the scenes without deformable contact (CTest
       test_cpu_simd_bitwise_coarse; until session 18 its scalar force pass added in another order) */
    const char* feat = getenv("DFM_TEST_FEATURES");
    if (feat && strstr(feat, "coarse") && !DC_SCENE(scene)) def.feature_flags |= DFM_FEATURE_COARSE_CORRECTION;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) return NULL;
    dfm_body_id body;
    dfm_shape_id shapes[2];
    dfm_shape_state states[2];
    int ns = 0;
    float hz = 60.0f;
    if (scene == 0 || scene == 4) {
        dfm_cloth_def cd = dfm_cloth_def_default();
        const float origin[3] = {-0.15f, -0.15f, 0.04f + cd.contact_radius + 0.01f};
        const float u[3] = {0.3f, 0, 0}, v[3] = {0, 0.3f, 0};
        dfm_test_grid g = dfm_test_make_grid_uv(24, 24, origin, u, v);
        body = dfm_test_add_cloth(w, &g, cd);
        dfm_test_free_grid(&g);
        if (scene == 4) { /* two corners of one edge pinned */
            const int32_t pins[2] = {0, 23};
            CHECK_OK(w, dfm_body_set_vertex_mode(w, body, pins, 2, DFM_VERTEX_PINNED));
        }
        dfm_shape_def table = dfm_scene_box_def(0.25f, 0.25f, 0.02f), sphere = dfm_scene_sphere_def(0.04f);
        table.host_body = 1;
        sphere.host_body = 2;
        CHECK_OK(w, dfm_world_add_shape(w, &table, &shapes[0]));
        CHECK_OK(w, dfm_world_add_shape(w, &sphere, &shapes[1]));
        states[0] = dfm_scene_state(0, 0, -0.02f, NULL);
        states[1] = dfm_scene_state(0.05f, 0, 0, NULL);
        ns = 2;
        hz = 240.0f;
    } else if (scene == 2 || scene == 3) {
        if (scene == 2) {
            body = add_fold(w);
        } else {
            /* the upper cube 6 mm up and 1 cm along x: its edge overhangs the lower one */
            const float H = 0.06f;
            dfm_test_tets box[2];
            dfm_volume_def vd = dfm_volume_def_default();
            dfm_test_scene(w, dfm_scene_add_cube(w, 5, H, 0.0f, 0.0f, 0.0f, vd, &box[0], &body), "a cube");
            dfm_test_scene(w, dfm_scene_add_cube(w, 5, H, 0.01f, 0.0f, H + 0.006f, vd, &box[1], &body), "a cube");
            for (int c = 0; c < 2; ++c) dfm_test_free_tets(&box[c]);
        }
        dfm_shape_def table = dfm_scene_table_def();
        table.host_body = 1;
        CHECK_OK(w, dfm_world_add_shape(w, &table, &shapes[0]));
        states[0] = dfm_scene_state(0, 0, DFM_SCENE_TABLE_Z, NULL);
        ns = 1;
    } else {
        const float lo[3] = {-0.05f, -0.05f, 0.03f}, hi[3] = {0.05f, 0.05f, 0.13f};
        dfm_test_tets b = dfm_test_make_tet_box(5, lo, hi);
        dfm_volume_def vd = dfm_volume_def_default();
        body = dfm_test_add_volume(w, &b, vd);
        dfm_test_free_tets(&b);
        dfm_shape_def table = dfm_scene_box_def(0.25f, 0.25f, 0.02f);
        table.host_body = 1;
        CHECK_OK(w, dfm_world_add_shape(w, &table, &shapes[0]));
        states[0] = dfm_scene_state(0.01f, 0, 0, NULL);
        ns = 1;
    }
    (void)body;
    for (int s = 0; s < (DC_SCENE(scene) ? DC_STEPS : STEPS); ++s) {
        CHECK_OK(w, dfm_world_set_shape_states(w, shapes, 0, states, 0, ns));
        CHECK_OK(w, dfm_world_step(w, 1.0f / hz));
    }
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    /* Positions, then the shapes' reaction forces and torques of the last step (6 floats per shape,
     * padded to 2 shapes): the residual pass of the lanes feeds those. */
    float* x = (float*)calloc(3 * (size_t)st.particle_count + 12, sizeof(float));
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    float* rf = x + 3 * (size_t)st.particle_count;
    CHECK_OK(w, dfm_world_get_shape_reactions(w, shapes, ns, rf, rf + 6, 0));
    if (DC_SCENE(scene) && !strcmp(mode, "scalar") && threads == 1)
        printf("scene %d: %d deformable pairs in the last advance\n", scene, st.deformable_pairs);
    if (DC_SCENE(scene)) CHECK(st.deformable_pairs > 0, "scene %d: no deformable pairs (nothing compared)", scene);
    *n = st.particle_count;
    dfm_world_destroy(w);
    return x;
}

int main(int argc, char** argv) {
    const int fma = argc > 1 && !strcmp(argv[1], "fma");
    const char* names[SCENES] = {"game-cloth 24x24", "soft cube", "folded cloth, self-collision",
                                 "stacked soft cubes, deformable contact", "game-cloth 24x24, two corners pinned"};
    /* mode, threads: the lanes at both widths, then (deformable contact) the lanes on 2 threads */
    const char* modes[4] = {"sse2", "avx2", "avx2", "avx2-fma"};
    const int mode_threads[4] = {1, 1, 2, 1};
    for (int scene = 0; scene < SCENES; ++scene) {
        if (fma && scene >= 2) break;
        int32_t n0 = 0;
        float* ref = run("scalar", scene, 1, &n0);
        CHECK(ref != NULL, "world creation failed");
        if (!ref) continue;
        int finite = 1;
        double zmin = 1e30;
        for (int32_t i = 0; i < n0; ++i) {
            finite &= isfinite(ref[3 * i]) && isfinite(ref[3 * i + 1]) && isfinite(ref[3 * i + 2]);
            zmin = ref[3 * i + 2] < zmin ? ref[3 * i + 2] : zmin;
        }
        CHECK(finite, "%s: non-finite positions", names[scene]);
        /* The scene must have reached its contacts (else the contact code paths were not compared). */
        /* table top + ~contact radius: 0 m, 0.02 m; the pinned cloth hangs from its edge over the sphere
           (top 0.04 m), its free corners below it */
        const double touch = scene == 0 ? 0.01 : (scene == 4 ? 0.04 : 0.025);
        uint64_t hash = 1469598103934665603ull;                            /* FNV-1a over the reference's bytes */
        for (size_t b = 0; b < sizeof(float) * (3 * (size_t)n0 + 12); ++b) /* positions and reactions */
            hash = (hash ^ ((const unsigned char*)ref)[b]) * 1099511628211ull;
        printf("%s: scalar reference hash %016llx\n", names[scene], (unsigned long long)hash);
        CHECK(zmin < touch, "%s: lowest vertex at %.4f m, never reached the table", names[scene], zmin);
        if (scene == 4) /* the pinned corners held their height (0.04 m + contact radius + 0.01 m) */
            for (int k = 0; k < 2; ++k) {
                const double z0 = 0.04 + dfm_cloth_def_default().contact_radius + 0.01, z = ref[3 * (k ? 23 : 0) + 2];
                CHECK(fabs(z - z0) < 1e-6, "%s: pinned corner %d at z %.6f m, not %.6f", names[scene], k, z, z0);
            }
        for (int m = fma ? 3 : 0; m < (fma ? 4 : (DC_SCENE(scene) ? 3 : 2)); ++m) {
            int32_t n1 = 0;
            float* x = run(modes[m], scene, mode_threads[m], &n1);
            CHECK(x && n1 == n0, "%s: %s run failed", names[scene], modes[m]);
            if (!x || n1 != n0) continue;
            double worst = 0.0;
            int32_t differ = 0;
            for (int32_t i = 0; i < 3 * n0; ++i) {
                double d = fabs((double)x[i] - (double)ref[i]);
                worst = d > worst ? d : worst;
                differ += memcmp(&x[i], &ref[i], sizeof(float)) != 0;
            }
            printf("%s, %s on %d thread(s) vs scalar after %d steps: %d of %d coordinates differ, largest %.3g m\n",
                   names[scene], modes[m], mode_threads[m], DC_SCENE(scene) ? DC_STEPS : STEPS, differ, 3 * n0, worst);
            CHECK(memcmp(x, ref, sizeof(float) * 3 * (size_t)n0) == 0, "%s: %s positions differ from the scalar path",
                  names[scene], modes[m]);
            CHECK(memcmp(x + 3 * n0, ref + 3 * n0, sizeof(float) * 12) == 0,
                  "%s: %s shape reactions differ from the scalar path", names[scene], modes[m]);
            free(x);
        }
        free(ref);
    }
    return dfm_test_finish(fma ? "test_cpu_simd_fma_differs" : "test_cpu_simd_bitwise");
}
