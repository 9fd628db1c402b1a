/// ABI basics: versions, ABI mismatch, struct sizes (older caller gets defaults), result strings,
/// generational ids (stale, foreign, null), last error and log callback.
#include "dfm_test.h"

static int g_log_errors = 0;
static char g_last_log[512];

static void on_log(void* user, dfm_log_level level, const char* msg) {
    (void)user;
    if (level == DFM_LOG_ERROR) ++g_log_errors;
    snprintf(g_last_log, sizeof(g_last_log), "%s", msg);
}

static void test_versions(void) {
    CHECK(dfm_abi_version() == DFM_ABI_VERSION, "runtime ABI %x != header %x", dfm_abi_version(), DFM_ABI_VERSION);
    CHECK(dfm_version() && strlen(dfm_version()) >= 5, "version string '%s'", dfm_version());
    dfm_world* w = (dfm_world*)0x1;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION + (1u << 16), NULL, &w);
    CHECK(r == DFM_ERROR_ABI_MISMATCH, "major+1 gave %s", dfm_result_string(r));
    CHECK(w == NULL, "out_world not cleared on failure");
    CHECK(strstr(dfm_world_last_error(NULL), "ABI 2.") != NULL, "message: %s", dfm_world_last_error(NULL));
    /* A newer minor of the same major is accepted. */
    r = dfm_world_create(DFM_ABI_VERSION + 1u, NULL, &w);
    CHECK(r == DFM_OK && w, "minor+1 refused: %s", dfm_world_last_error(NULL));
    dfm_world_destroy(w);
    dfm_world_destroy(NULL);
}

static void test_struct_sizes(void) {
    dfm_world* w = NULL;
    dfm_world_def def = dfm_world_def_default();
    def.struct_size = 0;
    CHECK(dfm_world_create(DFM_ABI_VERSION, &def, &w) == DFM_ERROR_STRUCT_SIZE, "size 0 accepted");
    def.struct_size = sizeof(def) + 8;
    CHECK(dfm_world_create(DFM_ABI_VERSION, &def, &w) == DFM_ERROR_STRUCT_SIZE, "oversize accepted");
    CHECK(strstr(dfm_world_last_error(NULL), "world_def.struct_size") != NULL, "msg: %s", dfm_world_last_error(NULL));

    /* An older caller knew only up to environment_count: garbage beyond must be ignored. */
    def = dfm_world_def_default();
    def.struct_size = (uint32_t)(offsetof(dfm_world_def, environment_count) + sizeof(int32_t));
    def.backend = 12345;  /* invalid if it were read */
    def.cpu_threads = -7; /* invalid if it were read */
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    CHECK(r == DFM_OK, "older world def refused: %s", dfm_world_last_error(NULL));

    dfm_test_grid g = dfm_test_make_grid(4, 4, 0.1f, 0.1f, 0, 0, 0);
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.struct_size = (uint32_t)offsetof(dfm_cloth_def, stretch_mu); /* knows masses/density, not materials */
    cd.positions = g.positions;
    cd.vertex_count = g.vertex_count;
    cd.triangles = g.triangles;
    cd.triangle_count = g.triangle_count;
    cd.stretch_mu = NAN;       /* must not be read */
    cd.bend_stiffness = -1.0f; /* must not be read */
    dfm_body_id id;
    r = dfm_world_add_cloth(w, &cd, &id);
    CHECK(r == DFM_OK, "older cloth def refused: %s", dfm_world_last_error(w));
    cd.struct_size = (uint32_t)offsetof(dfm_cloth_def, triangles); /* below the 1.0 minimum */
    r = dfm_world_add_cloth(w, &cd, &id);
    CHECK(r == DFM_ERROR_STRUCT_SIZE, "too-small cloth def gave %s", dfm_result_string(r));

    /* Output structs too: an older stats struct is filled only up to its size. */
    struct {
        dfm_world_stats s;
        int32_t canary;
    } old;
    memset(&old, 0x5A, sizeof(old));
    old.s.struct_size = (uint32_t)(offsetof(dfm_world_stats, triangle_count) + sizeof(int32_t));
    r = dfm_world_get_stats(w, &old.s);
    CHECK(r == DFM_OK, "older stats refused: %s", dfm_world_last_error(w));
    CHECK(old.s.body_count == 1 && old.s.particle_count == 16 && old.s.triangle_count == 18, "stats %d %d %d",
          old.s.body_count, old.s.particle_count, old.s.triangle_count);
    CHECK(old.s.bending_edge_count == 0x5A5A5A5A, "stats wrote beyond the caller's struct_size");
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
}

static void test_result_strings(void) {
    const dfm_result all[] = {DFM_OK,
                              DFM_INCOMPLETE,
                              DFM_ERROR_NULL_POINTER,
                              DFM_ERROR_INVALID_COUNT,
                              DFM_ERROR_INDEX_OUT_OF_RANGE,
                              DFM_ERROR_NON_FINITE,
                              DFM_ERROR_DEGENERATE_ELEMENT,
                              DFM_ERROR_INVERTED_ELEMENT,
                              DFM_ERROR_STALE_ID,
                              DFM_ERROR_FOREIGN_ID,
                              DFM_ERROR_STRUCT_SIZE,
                              DFM_ERROR_ABI_MISMATCH,
                              DFM_ERROR_INVALID_VALUE,
                              DFM_ERROR_OUT_OF_HOST_MEMORY,
                              DFM_ERROR_CAPACITY,
                              DFM_ERROR_INVALID_STATE,
                              DFM_ERROR_OUT_OF_DEVICE_MEMORY,
                              DFM_ERROR_DEVICE_UNAVAILABLE,
                              DFM_ERROR_UNSUPPORTED,
                              DFM_ERROR_INVALID_ENUM,
                              DFM_ERROR_UNKNOWN_SOLVER,
                              DFM_ERROR_OUT_OF_BOUNDS};
    size_t n = sizeof(all) / sizeof(all[0]);
    for (size_t i = 0; i < n; ++i) {
        CHECK(strcmp(dfm_result_string(all[i]), "DFM_RESULT_UNKNOWN") != 0, "code %d has no name", all[i]);
        for (size_t j = 0; j < i; ++j)
            CHECK(strcmp(dfm_result_string(all[i]), dfm_result_string(all[j])) != 0, "codes %d and %d share a name",
                  all[i], all[j]);
    }
    CHECK(strcmp(dfm_result_string((dfm_result)-999), "DFM_RESULT_UNKNOWN") == 0, "unknown code has a name");
}

static void test_ids_and_log(void) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.log_fn = on_log;
    def.log_level = DFM_LOG_INFO;
    dfm_world *a = NULL, *b = NULL;
    CHECK_OK(NULL, dfm_world_create(DFM_ABI_VERSION, &def, &a));
    CHECK_OK(NULL, dfm_world_create(DFM_ABI_VERSION, &def, &b));
    dfm_test_grid g = dfm_test_make_grid(3, 3, 0.1f, 0.1f, 0, 0, 0);
    dfm_body_id ida = dfm_test_add_cloth(a, &g, dfm_cloth_def_default());
    dfm_body_id idb = dfm_test_add_cloth(b, &g, dfm_cloth_def_default());
    CHECK(ida.world_tag != idb.world_tag, "two worlds share tag %u", ida.world_tag);
    dfm_body_info info = dfm_body_info_init();
    CHECK(dfm_body_get_info(a, idb, &info) == DFM_ERROR_FOREIGN_ID, "foreign id accepted");
    CHECK(strstr(dfm_world_last_error(a), "another world") != NULL, "msg: %s", dfm_world_last_error(a));
    CHECK(g_log_errors >= 1 && strstr(g_last_log, "another world"), "log did not receive the error: %s", g_last_log);
    CHECK_OK(a, dfm_world_remove_body(a, ida));
    CHECK(dfm_body_get_info(a, ida, &info) == DFM_ERROR_STALE_ID, "stale id accepted");
    CHECK(dfm_world_remove_body(a, ida) == DFM_ERROR_STALE_ID, "double remove accepted");
    dfm_body_id ida2 = dfm_test_add_cloth(a, &g, dfm_cloth_def_default());
    CHECK(ida2.index1 == ida.index1 && ida2.generation != ida.generation, "slot reuse: %d/%u vs %d/%u", ida2.index1,
          ida2.generation, ida.index1, ida.generation);
    CHECK(dfm_body_get_info(a, ida, &info) == DFM_ERROR_STALE_ID, "old id resolved to the new body");
    CHECK_OK(a, dfm_body_get_info(a, ida2, &info));
    CHECK(info.vertex_count == 9 && info.triangle_count == 8 && info.kind == 1, "info %d %d %d", info.vertex_count,
          info.triangle_count, info.kind);
    dfm_body_id null_id = DFM_NULL_BODY_ID;
    CHECK(dfm_body_get_info(a, null_id, &info) == DFM_ERROR_STALE_ID, "null id accepted");
    CHECK(dfm_world_step(a, 0.01f) == DFM_OK, "world unusable after id errors: %s", dfm_world_last_error(a));
    CHECK(dfm_world_last_error(a)[0] == '\0', "last error not cleared by a successful call");
    dfm_test_free_grid(&g);
    dfm_world_destroy(a);
    dfm_world_destroy(b);
}

int main(void) {
    test_versions();
    test_struct_sizes();
    test_result_strings();
    test_ids_and_log();
    return dfm_test_finish("test_abi_basics");
}
