/// Every bad input of issue 2 returns its own dfm_result, a message naming the offending item,
/// and leaves the world usable (a valid body keeps stepping, nothing was added).
#include "dfm_test.h"

static dfm_world* g_world;
static dfm_body_id g_good;

/// Checks code and message, then that the world still steps and holds exactly one body.
static void expect(dfm_result got, dfm_result want, const char* needle, const char* what) {
    const char* msg = dfm_world_last_error(g_world);
    CHECK(got == want, "%s: got %s, want %s (%s)", what, dfm_result_string(got), dfm_result_string(want), msg);
    CHECK(needle == NULL || strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
    dfm_world_stats s = dfm_world_stats_init();
    CHECK(dfm_world_step(g_world, 1.0f / 60.0f) == DFM_OK, "%s: world no longer steps: %s", what,
          dfm_world_last_error(g_world));
    CHECK(dfm_world_get_stats(g_world, &s) == DFM_OK && s.body_count == 1 && s.particle_count == 16,
          "%s: world changed (bodies %d, particles %d)", what, s.body_count, s.particle_count);
    float p[3];
    CHECK(dfm_body_get_positions(g_world, g_good, 5, 1, p, 0) == DFM_OK && isfinite(p[0]) && isfinite(p[2]),
          "%s: good body corrupted", what);
}

int main(void) {
    g_world = dfm_test_world(-9.81f, 2, 4);
    dfm_test_grid g = dfm_test_make_grid(4, 4, 0.2f, 0.2f, 0, 0, 1);
    g_good = dfm_test_add_cloth(g_world, &g, dfm_cloth_def_default());
    int32_t pin = 0;
    CHECK_OK(g_world, dfm_body_set_vertex_mode(g_world, g_good, &pin, 1, DFM_VERTEX_PINNED));

    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.positions = g.positions;
    cd.vertex_count = g.vertex_count;
    cd.triangles = g.triangles;
    cd.triangle_count = g.triangle_count;
    dfm_body_id id;

    /* NULL pointers */
    expect(dfm_world_add_cloth(g_world, NULL, &id), DFM_ERROR_NULL_POINTER, "cloth_def is NULL", "null def");
    dfm_cloth_def d = cd;
    d.positions = NULL;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_NULL_POINTER, "positions", "null positions");
    d = cd;
    d.triangles = NULL;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_NULL_POINTER, "triangles", "null triangles");
    expect(dfm_body_get_positions(g_world, g_good, 0, 1, NULL, 0), DFM_ERROR_NULL_POINTER, "NULL", "null out buffer");
    expect(dfm_world_step(NULL, 0.1f), DFM_ERROR_NULL_POINTER, NULL, "null world");

    /* Zero or negative counts */
    d = cd;
    d.vertex_count = 0;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_INVALID_COUNT, "vertex_count is 0", "zero vertices");
    d = cd;
    d.triangle_count = -3;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_INVALID_COUNT, "count is -3", "negative triangles");
    float buf[48];
    expect(dfm_body_get_positions(g_world, g_good, 0, 0, buf, 0), DFM_ERROR_INVALID_COUNT, "count is 0", "zero read");

    /* Out-of-range indices */
    int32_t* bad_tris = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)g.triangle_count);
    memcpy(bad_tris, g.triangles, sizeof(int32_t) * 3 * (size_t)g.triangle_count);
    bad_tris[3 * 7 + 2] = 99;
    d = cd;
    d.triangles = bad_tris;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_INDEX_OUT_OF_RANGE, "triangle 7 corner 2 is vertex 99",
           "triangle index");
    d = cd;
    d.environment = 3;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_INDEX_OUT_OF_RANGE, "environment is 3", "environment");
    expect(dfm_body_get_positions(g_world, g_good, 10, 7, buf, 0), DFM_ERROR_INDEX_OUT_OF_RANGE, "[10, 17)",
           "read range");
    int32_t bad_vertex = 16;
    expect(dfm_body_set_vertex_mode(g_world, g_good, &bad_vertex, 1, DFM_VERTEX_PINNED), DFM_ERROR_INDEX_OUT_OF_RANGE,
           "vertices[0] is 16", "vertex list");

    /* NaN / Inf */
    float* bad_pos = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    memcpy(bad_pos, g.positions, sizeof(float) * 3 * (size_t)g.vertex_count);
    bad_pos[3 * 9 + 1] = NAN;
    d = cd;
    d.positions = bad_pos;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_NON_FINITE, "position of vertex 9", "NaN position");
    float inf3[3] = {0, INFINITY, 0};
    expect(dfm_body_set_positions(g_world, g_good, 4, 1, inf3, 0), DFM_ERROR_NON_FINITE, "vertex 4", "Inf teleport");
    expect(dfm_body_set_velocities(g_world, g_good, 2, 1, inf3, 0), DFM_ERROR_NON_FINITE, "vertex 2", "Inf velocity");

    /* Degenerate triangle: append a triangle along the first (collinear) grid row. */
    int32_t* deg_tris = (int32_t*)malloc(sizeof(int32_t) * 3 * ((size_t)g.triangle_count + 1));
    memcpy(deg_tris, g.triangles, sizeof(int32_t) * 3 * (size_t)g.triangle_count);
    deg_tris[3 * g.triangle_count + 0] = 0;
    deg_tris[3 * g.triangle_count + 1] = 1;
    deg_tris[3 * g.triangle_count + 2] = 2;
    d = cd;
    d.triangles = deg_tris;
    d.triangle_count = g.triangle_count + 1;
    char needle[64];
    snprintf(needle, sizeof(needle), "triangle %d has zero area", g.triangle_count);
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_DEGENERATE_ELEMENT, needle, "zero-area triangle");

    /* Tets: inverted and flat */
    float tp[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
    int32_t inverted[8] = {0, 1, 2, 3, 0, 2, 1, 3}; /* tet 1 swaps two corners */
    int32_t flat[8] = {0, 1, 2, 3, 0, 1, 2, 4};     /* tet 1 has all corners in z = 0 */
    dfm_volume_def vd = dfm_volume_def_default();
    vd.positions = tp;
    vd.vertex_count = 5;
    vd.tets = inverted;
    vd.tet_count = 2;
    vd.vertex_masses = NULL;
    expect(dfm_world_add_volume(g_world, &vd, &id), DFM_ERROR_INVERTED_ELEMENT, "tet 1 is inverted", "inverted tet");
    vd.tets = flat;
    expect(dfm_world_add_volume(g_world, &vd, &id), DFM_ERROR_DEGENERATE_ELEMENT, "tet 1 is flat", "flat tet");

    /* Stale and foreign ids */
    dfm_body_id tmp = dfm_test_add_cloth(g_world, &g, cd);
    CHECK_OK(g_world, dfm_world_remove_body(g_world, tmp));
    expect(dfm_body_get_positions(g_world, tmp, 0, 1, buf, 0), DFM_ERROR_STALE_ID, "stale", "stale id");
    dfm_world* other = dfm_test_world(-9.81f, 1, 1);
    dfm_body_id foreign = dfm_test_add_cloth(other, &g, cd);
    expect(dfm_body_get_positions(g_world, foreign, 0, 1, buf, 0), DFM_ERROR_FOREIGN_ID, "another world", "foreign id");
    dfm_world_destroy(other);

    /* Wrong struct size */
    d = cd;
    d.struct_size = 3;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_STRUCT_SIZE, "cloth_def.struct_size is 3", "struct size");

    /* Non-positive and non-finite dt */
    expect(dfm_world_step(g_world, 0.0f), DFM_ERROR_INVALID_VALUE, "dt is 0", "zero dt");
    expect(dfm_world_step(g_world, -0.01f), DFM_ERROR_INVALID_VALUE, "dt is -0.01", "negative dt");
    expect(dfm_world_step(g_world, NAN), DFM_ERROR_NON_FINITE, "dt is not finite", "NaN dt");

    /* Bad material and mode values */
    d = cd;
    d.stretch_mu = -1.0f;
    expect(dfm_world_add_cloth(g_world, &d, &id), DFM_ERROR_INVALID_VALUE, "stretch_mu is -1", "negative stiffness");
    expect(dfm_body_set_vertex_mode(g_world, g_good, &pin, 1, (dfm_vertex_mode)7), DFM_ERROR_INVALID_ENUM, "mode 7",
           "bad mode");

    /* ABI major mismatch (no world involved). */
    dfm_world* w2 = NULL;
    CHECK(dfm_world_create(DFM_ABI_VERSION ^ (3u << 16), NULL, &w2) == DFM_ERROR_ABI_MISMATCH && w2 == NULL,
          "ABI mismatch not refused");

    /* The pinned vertex stayed put through all those steps. */
    float p0[3];
    CHECK_OK(g_world, dfm_body_get_positions(g_world, g_good, 0, 1, p0, 0));
    CHECK(p0[0] == g.positions[0] && p0[1] == g.positions[1] && p0[2] == g.positions[2], "pinned vertex moved");

    free(bad_tris);
    free(bad_pos);
    free(deg_tris);
    dfm_test_free_grid(&g);
    dfm_world_destroy(g_world);
    return dfm_test_finish("test_bad_input");
}
