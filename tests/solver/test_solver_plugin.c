/// A third-party provider loaded from its own shared library (toy_provider.c, "damped-freefall"):
/// registration through dfm_register_solver_library, listing, a world swapped onto it mid-run
/// (positions carry over bitwise, the toy's motion matches its closed form within 1e-5 m, the
/// log says the shapes are ignored), and back to vbd. Refusals: a missing file, a library
/// without the entry (libdfm itself), a table with a wrong struct_size, a second registration
/// of the same name, a bad provider ABI major, NULLs.
/// Usage: test_solver_plugin <toy.so> <toy_bad_size.so> <libdfm.so>
#include "dfm_test.h"

static char g_log[1024];
static void on_log(void* user, dfm_log_level level, const char* msg) {
    (void)user;
    if (level == DFM_LOG_INFO && strstr(msg, "solver ")) snprintf(g_log, sizeof(g_log), "%s", msg);
}

static dfm_result noop_create(int32_t b, void** o, char* e, size_t n) {
    (void)b;
    (void)e;
    (void)n;
    *o = NULL;
    return DFM_OK;
}
static void noop_destroy(void* p) { (void)p; }
static dfm_result noop_import(void* p, const dfm_solver_state* s, char* e, size_t n) {
    (void)p;
    (void)s;
    (void)e;
    (void)n;
    return DFM_OK;
}
static dfm_result noop_step(void* p, dfm_solver_state* s, float dt, char* e, size_t n) {
    (void)p;
    (void)s;
    (void)dt;
    (void)e;
    (void)n;
    return DFM_OK;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s toy.so toy_bad.so libdfm.so\n", argv[0]);
        return 2;
    }
    const char* name = NULL;
    CHECK(dfm_register_solver_library(NULL, &name) == DFM_ERROR_NULL_POINTER, "NULL path");
    CHECK(dfm_register_solver_library("/nonexistent/toy.so", &name) == DFM_ERROR_INVALID_VALUE, "missing file");
    printf("missing file: %s\n", dfm_world_last_error(NULL));
    CHECK(dfm_register_solver_library(argv[3], &name) == DFM_ERROR_INVALID_VALUE, "library without the entry");
    printf("no entry: %s\n", dfm_world_last_error(NULL));
    CHECK(dfm_register_solver_library(argv[2], &name) == DFM_ERROR_STRUCT_SIZE, "wrong struct_size accepted");
    printf("bad size: %s\n", dfm_world_last_error(NULL));
    int32_t before = dfm_solver_count();
    CHECK(dfm_register_solver_library(argv[1], &name) == DFM_OK, "toy refused: %s", dfm_world_last_error(NULL));
    CHECK(name && !strcmp(name, "damped-freefall"), "name %s", name ? name : "(null)");
    CHECK(dfm_solver_count() == before + 1, "count %d -> %d", before, dfm_solver_count());
    CHECK(dfm_register_solver_library(argv[1], &name) == DFM_ERROR_INVALID_VALUE, "second registration accepted");
    printf("twice: %s\n", dfm_world_last_error(NULL));
    dfm_solver_info info = dfm_solver_info_init();
    CHECK(dfm_solver_get_info(before, &info) == DFM_OK && !strcmp(info.name, "damped-freefall") && !info.builtin &&
              info.backends == DFM_SOLVER_BACKEND_CPU,
          "listing of the toy");
    /* Tables registered directly: a bad ABI major and missing functions are refused. */
    dfm_solver_provider_v1 p = {(uint32_t)sizeof(p),
                                DFM_SOLVER_PROVIDER_ABI + (1u << 16),
                                "other",
                                "",
                                0,
                                DFM_SOLVER_BACKEND_CPU,
                                noop_create,
                                noop_destroy,
                                noop_import,
                                noop_step,
                                NULL};
    CHECK(dfm_register_solver(&p) == DFM_ERROR_ABI_MISMATCH, "provider ABI major 2 accepted");
    p.provider_abi = DFM_SOLVER_PROVIDER_ABI;
    p.step = NULL;
    CHECK(dfm_register_solver(&p) == DFM_ERROR_INVALID_VALUE, "table without step accepted");
    p.step = noop_step;
    p.name = "Bad Name";
    CHECK(dfm_register_solver(&p) == DFM_ERROR_INVALID_VALUE, "bad name accepted");
    CHECK(dfm_register_solver(NULL) == DFM_ERROR_NULL_POINTER, "NULL table");

    /* A world swapped onto the toy mid-run. */
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.log_fn = on_log;
    def.log_level = DFM_LOG_INFO;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) return 2;
    dfm_shape_def plane = dfm_shape_def_default();
    plane.type = DFM_SHAPE_PLANE;
    dfm_shape_id sid;
    CHECK_OK(w, dfm_world_add_shape(w, &plane, &sid));
    dfm_test_grid g = dfm_test_make_grid(6, 6, 0.2f, 0.2f, 0, 0, 1.0f);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    int32_t pin = 0;
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, &pin, 1, DFM_VERTEX_PINNED));
    const float dt = 1.0f / 60.0f;
    for (int s = 0; s < 10; ++s) CHECK_OK(w, dfm_world_step(w, dt));
    size_t n3 = 3 * (size_t)g.vertex_count;
    float *x0 = malloc(sizeof(float) * n3), *v0 = malloc(sizeof(float) * n3), *x1 = malloc(sizeof(float) * n3);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x0, 0));
    CHECK_OK(w, dfm_body_get_velocities(w, id, 0, g.vertex_count, v0, 0));
    CHECK_OK(w, dfm_world_set_solver(w, "damped-freefall", DFM_BACKEND_AUTO));
    printf("log: %s\n", g_log);
    CHECK(strstr(g_log, "no contacts") != NULL, "log does not say shapes are ignored");
    const char* cur = NULL;
    CHECK_OK(w, dfm_world_get_solver(w, &cur, NULL));
    CHECK(cur && !strcmp(cur, "damped-freefall"), "current solver %s", cur ? cur : "(null)");
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x1, 0));
    CHECK(memcmp(x0, x1, sizeof(float) * n3) == 0, "positions changed by the swap");
    CHECK(dfm_world_set_solver(w, "damped-freefall", DFM_BACKEND_CUDA) == DFM_ERROR_UNSUPPORTED, "toy on cuda");
    for (int s = 0; s < 5; ++s) CHECK_OK(w, dfm_world_step(w, dt));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x1, 0));
    /* Closed form of the toy for the last dynamic vertex (z only). */
    int32_t k = g.vertex_count - 1;
    double z = x0[3 * k + 2], vz = v0[3 * k + 2];
    for (int s = 0; s < 5; ++s) {
        vz = (float)(((float)vz + dt * -9.81f) / (1.0f + dt * 0.5f));
        z = (float)((float)z + dt * (float)vz);
    }
    printf("toy: vertex %d z %.6f (closed form %.6f); pinned vertex moved %.3g m\n", k, x1[3 * k + 2], z,
           fabs(x1[2] - x0[2]));
    CHECK(fabs(x1[3 * k + 2] - z) < 1e-5, "toy motion off: %.6f vs %.6f", x1[3 * k + 2], z);
    CHECK(x1[0] == x0[0] && x1[1] == x0[1] && x1[2] == x0[2], "pinned vertex moved under the toy");
    CHECK_OK(w, dfm_world_set_solver(w, "vbd", DFM_BACKEND_CPU));
    for (int s = 0; s < 5; ++s) CHECK_OK(w, dfm_world_step(w, dt));
    free(x0);
    free(v0);
    free(x1);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_solver_plugin");
}
