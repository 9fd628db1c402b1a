/// @file dfm_test.h
/// Minimal test helpers: CHECK macros that report file/line and count failures, plus the scene
/// library's cloth grids and tet boxes (scenes/) with the tests' policy: exit 2 on failure.
#ifndef DFM_TEST_H
#define DFM_TEST_H

#include <dfm/dfm.h>
#include <dfm_scene_grid.h>
#include <dfm_scene_tets.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_dfm_test_failures = 0;

/// Records a failure (with a printf-style explanation) when `cond` is false.
#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
            ++g_dfm_test_failures;                                                   \
        }                                                                            \
    } while (0)

/// Fails the test unless the call returned DFM_OK (prints the world's last error).
#define CHECK_OK(world, call)                                                                                \
    do {                                                                                                     \
        dfm_result r_ = (call);                                                                              \
        if (r_ != DFM_OK) {                                                                                  \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call, dfm_result_string(r_), \
                    dfm_world_last_error(world));                                                            \
            ++g_dfm_test_failures;                                                                           \
        }                                                                                                    \
    } while (0)

/// Ends main(): prints a summary line and returns the process status.
static inline int dfm_test_finish(const char* name) {
    if (g_dfm_test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, g_dfm_test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

/// The backend the physics tests run on: the CPU, or with DFM_TEST_BACKEND=cuda the CUDA backend
/// in deterministic mode, or with DFM_TEST_BACKEND=cuda-default in default mode (the GPU machine
/// runs the CPU physics tests that way; see tests/gpu/run-on-gpu.sh). DFM_TEST_FEATURES=body
/// turns on DFM_FEATURE_BODY_TRANSLATION (CTest's *_body variants), DFM_TEST_FEATURES=coarse
/// DFM_FEATURE_COARSE_CORRECTION (the *_coarse variants; both: "body,coarse").
static inline void dfm_test_pick_backend(dfm_world_def* def) {
    const char* b = getenv("DFM_TEST_BACKEND");
    def->backend = DFM_BACKEND_CPU;
    if (b && strncmp(b, "cuda", 4) == 0) {
        def->backend = DFM_BACKEND_CUDA;
        def->deterministic = strcmp(b, "cuda-default") != 0;
    }
    const char* f = getenv("DFM_TEST_FEATURES");
    if (f && strstr(f, "body")) def->feature_flags |= DFM_FEATURE_BODY_TRANSLATION;
    if (f && strstr(f, "coarse")) def->feature_flags |= DFM_FEATURE_COARSE_CORRECTION;
}

/// Whether DFM_TEST_BACKEND asks for the CUDA backend.
static inline int dfm_test_on_cuda(void) {
    const char* b = getenv("DFM_TEST_BACKEND");
    return b && strncmp(b, "cuda", 4) == 0;
}

/// Creates a world from `def`; exits 77 (skipped) when DFM_TEST_BACKEND asks for a CUDA device
/// that is not there, 2 on any other failure.
static inline dfm_world* dfm_test_create(const dfm_world_def* def) {
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, def, &w);
    if (r == DFM_ERROR_DEVICE_UNAVAILABLE && def->backend == DFM_BACKEND_CUDA) {
        printf("DFM_TEST_BACKEND=cuda but no usable CUDA device: %s\n", dfm_world_last_error(NULL));
        exit(77);
    }
    if (r != DFM_OK) {
        fprintf(stderr, "world creation failed: %s\n", dfm_world_last_error(NULL));
        exit(2);
    }
    return w;
}

/// Creates a world (CPU unless DFM_TEST_BACKEND=cuda) with the given gravity z, substeps and iterations (exits on failure).
static inline dfm_world* dfm_test_world(float gz, int substeps, int iterations) {
    dfm_world_def def = dfm_world_def_default();
    def.gravity[2] = gz;
    def.substeps = substeps;
    def.iterations = iterations;
    dfm_test_pick_backend(&def);
    return dfm_test_create(&def);
}

/// A generated cloth grid (positions + triangles) owned by the test (the scene library's grid).
typedef dfm_scene_grid dfm_test_grid;

/// Generates an nu x nv grid from `origin` spanning `u` and `v` (m, world frame; see dfm_scene_grid_make).
static inline dfm_test_grid dfm_test_make_grid_uv(int32_t nu, int32_t nv, const float origin[3], const float u[3],
                                                  const float v[3]) {
    dfm_test_grid g;
    if (dfm_scene_grid_make(nu, nv, origin, u, v, &g) != DFM_OK) {
        fprintf(stderr, "grid generation failed (%d x %d)\n", (int)nu, (int)nv);
        exit(2);
    }
    return g;
}

/// Generates an nu x nv grid spanning size_u x size_v from `origin` along +x (u) and +y (v).
static inline dfm_test_grid dfm_test_make_grid(int32_t nu, int32_t nv, float size_u, float size_v, float ox, float oy,
                                               float oz) {
    float o[3] = {ox, oy, oz}, u[3] = {size_u, 0, 0}, v[3] = {0, size_v, 0};
    return dfm_test_make_grid_uv(nu, nv, o, u, v);
}

/// Frees a generated grid.
static inline void dfm_test_free_grid(dfm_test_grid* g) { dfm_scene_grid_free(g); }

/// The default cloth def with the grid's mesh in it (for adds that are expected to fail).
static inline dfm_cloth_def dfm_test_grid_cloth_def(const dfm_test_grid* g) {
    return dfm_scene_grid_cloth_def(g, dfm_cloth_def_default());
}

/// Adds the grid as a cloth body with the given def tweaks already applied to `def`.
static inline dfm_body_id dfm_test_add_cloth(dfm_world* w, const dfm_test_grid* g, dfm_cloth_def def) {
    dfm_body_id id = DFM_NULL_BODY_ID;
    if (dfm_scene_add_cloth(w, g, def, &id) != DFM_OK) {
        fprintf(stderr, "add_cloth failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    return id;
}

/// A generated n x n x n-vertex tet box (positions + tets, 5 tets per cell) owned by the test.
typedef dfm_scene_tets dfm_test_tets;

/// Generates an n^3-vertex tet box spanning [lo, hi] (m).
static inline dfm_test_tets dfm_test_make_tet_box(int32_t n, const float lo[3], const float hi[3]) {
    dfm_test_tets b;
    if (dfm_scene_tets_make(n, lo, hi, &b) != DFM_OK) {
        fprintf(stderr, "tet box generation failed (n = %d)\n", (int)n);
        exit(2);
    }
    return b;
}

/// Frees a generated tet box.
static inline void dfm_test_free_tets(dfm_test_tets* b) { dfm_scene_tets_free(b); }

/// Adds the tet box as a volume body with the given def tweaks already applied to `def`.
static inline dfm_body_id dfm_test_add_volume(dfm_world* w, const dfm_test_tets* b, dfm_volume_def def) {
    dfm_body_id id = DFM_NULL_BODY_ID;
    if (dfm_scene_add_volume(w, b, def, &id) != DFM_OK) {
        fprintf(stderr, "add_volume failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    return id;
}

/// Kinetic energy (J) of a body: sum of 1/2 m |v|^2 using per-vertex masses `mass`.
static inline double dfm_test_kinetic_energy(dfm_world* w, dfm_body_id id, int32_t n, const float* mass) {
    float* v = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    dfm_body_get_velocities(w, id, 0, n, v, 0);
    double e = 0.0;
    for (int32_t i = 0; i < n; ++i)
        e += 0.5 * mass[i] *
             ((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] + (double)v[3 * i + 2] * v[3 * i + 2]);
    free(v);
    return e;
}

#endif
