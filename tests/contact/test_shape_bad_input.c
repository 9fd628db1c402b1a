/// Bad input for shapes: every invalid dfm_world_add_shape / dfm_world_set_shape_states call
/// returns its specific dfm_result, its last-error message names the offending item (checked by
/// substring: the field with its index, e.g. "half_extents[1]"; for a batch, the entry, e.g.
/// "state 1"), the error is forwarded to the log callback, and the world is unchanged: a 10 x 10
/// cloth resting on a plane before the bad calls keeps resting after them (every vertex within
/// 0.2 mm of z = r for 60 more steps, finite), and the shape count is unchanged.
///
/// set_shape_states validates the whole batch before applying any of it: a batch whose first
/// entry is valid (it would move the plane 0.5 m down, so the cloth would fall) and whose second
/// is bad fails, and the plane must not have moved (the cloth still rests at z = r).
///
/// Open meshes: a 2-triangle mesh (the brief's example) is refused before the closedness check
/// (the library requires >= 4 triangles for a closed mesh): accepted here as DFM_ERROR_INVALID_COUNT
/// or DFM_ERROR_DEGENERATE_ELEMENT; a box with one face missing (10 triangles) must give
/// DFM_ERROR_DEGENERATE_ELEMENT with a message naming an open edge.
///
/// Deliberate breaks (made in a scratch copy of the library) seen to fail:
/// - shape.c: ke not validated: "ke -1" and "ke 0" are accepted (and the cloth is blown away);
/// - shape.c: set_shape_states applying each entry as it validates it: the failed batches move
///   the plane 0.5 m down and the cloth falls (z -0.498).
/// Known failures (library as of this test's writing): the half_extents messages do not name the
/// index ("shape_def.half_extents is 0"), and the stale / foreign id messages of a batch do not
/// name the entry (the foreign id {1, gen 0} reads like this world's plane).
#include "contact_scenes.h"

typedef struct log_count {
    int errors;
} log_count;

static void on_log(void* user, dfm_log_level level, const char* message) {
    (void)message;
    if (level == DFM_LOG_ERROR) ((log_count*)user)->errors++;
}

/// True when a batch error message says the bad entry is number 1 ("state 1", "ids[1]", "entry 1"
/// or "index 1").
static int names_entry_1(const char* msg) {
    return strstr(msg, "state 1") || strstr(msg, "ids[1]") || strstr(msg, "entry 1") || strstr(msg, "index 1") ||
           strstr(msg, "states[1]");
}

static log_count g_log;
static int g_cases = 0;

/// Checks the result code, the last-error message and the log forwarding of one bad call.
static void expect(dfm_world* w, const char* what, dfm_result got, dfm_result want, const char* needle) {
    const char* msg = dfm_world_last_error(w);
    ++g_cases;
    printf("  %-44s -> %-30s \"%s\"\n", what, dfm_result_string(got), msg);
    CHECK(got == want, "%s: got %s, want %s (\"%s\")", what, dfm_result_string(got), dfm_result_string(want), msg);
    CHECK(needle == NULL || strstr(msg, needle) != NULL, "%s: message \"%s\" does not name \"%s\"", what, msg, needle);
}

/// Candidate pairs of the last step: they grow by the cloth's feature count per live shape, so
/// equal counts before and after mean no failed add left a shape behind.
static int64_t pairs_of(dfm_world* w) { return cs_stats(w).candidate_pairs; }

int main(void) {
    cs_world_opts o = cs_opts();
    o.log_fn = on_log;
    o.log_user = &g_log;
    dfm_world* w = cs_world(o);
    dfm_test_grid g = dfm_test_make_grid(10, 10, 0.2f, 0.2f, -0.1f, -0.1f, 0.01f);
    dfm_body_id cloth = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    const float r = dfm_cloth_def_default().contact_radius;
    dfm_shape_id plane = dfm_test_add_shape(w, cs_shape_def(DFM_SHAPE_PLANE, 0.0f), 0, 0, 0, NULL);
    for (int s = 0; s < 60; ++s) CHECK_OK(w, dfm_world_step(w, CS_DT));
    float lo, hi;
    dfm_test_z_range(w, cloth, g.vertex_count, &lo, &hi);
    CHECK(fabsf(lo - r) < 2e-4f && fabsf(hi - r) < 2e-4f, "before: cloth not resting (%.6f..%.6f)", lo, hi);
    const int64_t pairs_before = pairs_of(w);

    printf("dfm_world_add_shape:\n");
    dfm_shape_id out = DFM_NULL_SHAPE_ID;
    dfm_shape_def d;
    expect(w, "NULL def", dfm_world_add_shape(w, NULL, &out), DFM_ERROR_NULL_POINTER, "shape_def");
    d = dfm_shape_def_default();
    expect(w, "NULL out_shape", dfm_world_add_shape(w, &d, NULL), DFM_ERROR_NULL_POINTER, "out_shape");
    d = dfm_shape_def_default();
    d.struct_size = 0;
    expect(w, "struct_size 0", dfm_world_add_shape(w, &d, &out), DFM_ERROR_STRUCT_SIZE, "struct_size");
    d = dfm_shape_def_default();
    d.struct_size = (uint32_t)sizeof(dfm_shape_def) + 8u;
    expect(w, "struct_size too large", dfm_world_add_shape(w, &d, &out), DFM_ERROR_STRUCT_SIZE, "struct_size");
    d = dfm_shape_def_default();
    d.type = 99;
    expect(w, "type 99", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_ENUM, "type");
    d.type = 0;
    expect(w, "type 0", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_ENUM, "type");
    d = dfm_shape_def_default();
    d.environment = 1;
    expect(w, "environment 1 of 1", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INDEX_OUT_OF_RANGE, "environment");
    d.environment = -2;
    expect(w, "environment -2", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INDEX_OUT_OF_RANGE, "environment");
    d = dfm_shape_def_default();
    d.radius = 0.0f;
    expect(w, "sphere radius 0", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "radius");
    d.radius = -0.1f;
    expect(w, "sphere radius -0.1", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "radius");
    d = dfm_shape_def_default();
    d.type = DFM_SHAPE_CAPSULE;
    d.radius = 0.0f;
    d.half_height = 0.1f;
    expect(w, "capsule radius 0", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "radius");
    d = dfm_shape_def_default();
    d.type = DFM_SHAPE_BOX;
    d.half_extents[0] = d.half_extents[2] = 0.1f;
    d.half_extents[1] = 0.0f;
    expect(w, "box half_extents[1] 0", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "half_extents[1]");
    d.half_extents[1] = -0.1f;
    expect(w, "box half_extents[1] -0.1", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "half_extents[1]");
    d = dfm_shape_def_default();
    d.local_position[1] = NAN;
    expect(w, "NaN local_position[1]", dfm_world_add_shape(w, &d, &out), DFM_ERROR_NON_FINITE, "local_position[1]");
    d = dfm_shape_def_default();
    d.local_rotation[3] = 2.0f;
    expect(w, "local_rotation norm 2", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "local_rotation");
    d.local_rotation[3] = 0.0f;
    expect(w, "local_rotation zero", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "local_rotation");
    d = dfm_shape_def_default();
    d.ke = -1.0f;
    expect(w, "ke -1", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "ke");
    d.ke = 0.0f;
    expect(w, "ke 0", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INVALID_VALUE, "ke");

    float verts[24];
    int32_t tris[36];
    cs_box_mesh(0.1f, 0.1f, 0.1f, verts, tris);
    d = dfm_shape_def_default();
    d.type = DFM_SHAPE_MESH;
    d.mesh_vertices = verts;
    d.mesh_vertex_count = 8;
    d.mesh_triangles = tris;
    d.mesh_triangle_count = 12;
    tris[3 * 3 + 1] = 8; /* triangle 3, corner 1 */
    expect(w, "mesh index 8 of 8 vertices", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INDEX_OUT_OF_RANGE,
           "triangle 3");
    tris[3 * 3 + 1] = -1;
    expect(w, "mesh index -1", dfm_world_add_shape(w, &d, &out), DFM_ERROR_INDEX_OUT_OF_RANGE, "triangle 3");
    cs_box_mesh(0.1f, 0.1f, 0.1f, verts, tris);
    d.mesh_triangle_count = 2; /* just the bottom face: open */
    {
        dfm_result rr = dfm_world_add_shape(w, &d, &out);
        const char* msg = dfm_world_last_error(w);
        ++g_cases;
        printf("  %-44s -> %-30s \"%s\"\n", "open mesh, 2 triangles", dfm_result_string(rr), msg);
        CHECK(rr == DFM_ERROR_DEGENERATE_ELEMENT || rr == DFM_ERROR_INVALID_COUNT, "2-triangle mesh: got %s",
              dfm_result_string(rr));
        CHECK(rr != DFM_ERROR_DEGENERATE_ELEMENT || strstr(msg, "edge") != NULL, "2-triangle mesh: \"%s\"", msg);
    }
    d.mesh_triangles = tris + 6; /* skip the bottom face: 10 triangles, open at the bottom */
    d.mesh_triangle_count = 10;
    expect(w, "open mesh, box without its bottom", dfm_world_add_shape(w, &d, &out), DFM_ERROR_DEGENERATE_ELEMENT,
           "edge (");
    d.mesh_triangles = tris;
    d.mesh_triangle_count = 12;
    {
        int32_t t = tris[3 * 5 + 1]; /* flip triangle 5 */
        tris[3 * 5 + 1] = tris[3 * 5 + 2];
        tris[3 * 5 + 2] = t;
    }
    expect(w, "mesh with one flipped triangle", dfm_world_add_shape(w, &d, &out), DFM_ERROR_DEGENERATE_ELEMENT,
           "triangle 5");

    printf("dfm_world_set_shape_states:\n");
    dfm_shape_id victim = dfm_test_add_shape(w, cs_shape_def(DFM_SHAPE_SPHERE, 0.0f), 5, 5, 5, NULL);
    CHECK_OK(w, dfm_world_remove_shape(w, victim));
    dfm_world* other = cs_world(cs_opts());
    dfm_shape_id foreign = dfm_test_add_shape(other, cs_shape_def(DFM_SHAPE_SPHERE, 0.0f), 0, 0, 0, NULL);
    dfm_shape_state good = dfm_test_state(0, 0, -0.5f, NULL); /* would drop the plane 0.5 m */
    dfm_shape_id ids[2] = {plane, plane};
    dfm_shape_state st[2] = {good, good};
    ids[1] = victim;
    expect(w, "batch: valid, then removed shape", dfm_world_set_shape_states(w, ids, 0, st, 0, 2), DFM_ERROR_STALE_ID,
           "stale");
    CHECK(names_entry_1(dfm_world_last_error(w)), "stale id: the message does not say which batch entry (1) is bad");
    ids[1] = foreign;
    expect(w, "batch: valid, then foreign id", dfm_world_set_shape_states(w, ids, 0, st, 0, 2), DFM_ERROR_FOREIGN_ID,
           "another world");
    CHECK(names_entry_1(dfm_world_last_error(w)),
          "foreign id: the message does not say which batch entry (1) is bad (the foreign id {1, gen 0} also names "
          "this world's plane)");
    ids[1] = plane;
    st[1].position[2] = NAN;
    expect(w, "batch: valid, then NaN position", dfm_world_set_shape_states(w, ids, 0, st, 0, 2), DFM_ERROR_NON_FINITE,
           "state 1");
    st[1] = good;
    st[1].linear_velocity[0] = INFINITY;
    expect(w, "batch: valid, then infinite velocity", dfm_world_set_shape_states(w, ids, 0, st, 0, 2),
           DFM_ERROR_NON_FINITE, "state 1");
    st[1] = good;
    st[1].rotation[0] = 0.5f; /* norm sqrt(1.25) */
    expect(w, "batch: valid, then non-unit rotation", dfm_world_set_shape_states(w, ids, 0, st, 0, 2),
           DFM_ERROR_INVALID_VALUE, "state 1 rotation");
    st[1] = good;
    expect(w, "count 0", dfm_world_set_shape_states(w, ids, 0, st, 0, 0), DFM_ERROR_INVALID_COUNT, "count");
    expect(w, "count -1", dfm_world_set_shape_states(w, ids, 0, st, 0, -1), DFM_ERROR_INVALID_COUNT, "count");
    expect(w, "NULL ids", dfm_world_set_shape_states(w, NULL, 0, st, 0, 1), DFM_ERROR_NULL_POINTER, "ids");
    expect(w, "NULL states", dfm_world_set_shape_states(w, ids, 0, NULL, 0, 1), DFM_ERROR_NULL_POINTER, "states");

    CHECK(g_log.errors == g_cases, "%d errors logged for %d failed calls", g_log.errors, g_cases);

    /* nothing changed: the plane did not move, the cloth keeps resting */
    float lo_all = 1e30f, hi_all = -1e30f;
    int finite = 1;
    for (int s = 0; s < 60; ++s) {
        CHECK_OK(w, dfm_world_step(w, CS_DT));
        dfm_test_z_range(w, cloth, g.vertex_count, &lo, &hi);
        if (!(lo >= lo_all)) lo_all = lo;
        if (!(hi <= hi_all)) hi_all = hi;
        finite &= cs_all_finite(w);
    }
    CHECK(pairs_of(w) == pairs_before, "candidate pairs changed from %lld to %lld: a failed add left a shape",
          (long long)pairs_before, (long long)pairs_of(w));
    dfm_world_stats ws = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &ws));
    printf("after %d failed calls (%d errors logged): cloth z %.6f..%.6f over 60 steps (want %.6f), finite %d, steps "
           "%lld\n",
           g_cases, g_log.errors, lo_all, hi_all, r, finite, (long long)ws.step_count);
    CHECK(fabsf(lo_all - r) < 2e-4f && fabsf(hi_all - r) < 2e-4f,
          "after the failed calls the cloth is not resting at %.4f: %.6f..%.6f (did the plane move?)", r, lo_all,
          hi_all);
    CHECK(finite, "non-finite positions after the failed calls");
    CHECK(ws.step_count == 120, "step count %lld", (long long)ws.step_count);
    /* the valid batch alone does move the plane: the cloth then falls (the check above can fail) */
    CHECK_OK(w, dfm_world_set_shape_states(w, ids, 0, st, 0, 1));
    for (int s = 0; s < 30; ++s) CHECK_OK(w, dfm_world_step(w, CS_DT));
    dfm_test_z_range(w, cloth, g.vertex_count, &lo, &hi);
    printf("control: after applying the valid entry alone the cloth is at z %.4f..%.4f (plane at -0.5)\n", lo, hi);
    CHECK(hi < -0.1f, "control: the valid entry did not move the plane (cloth at %.4f..%.4f)", lo, hi);
    dfm_world_destroy(other);
    dfm_world_destroy(w);
    dfm_test_free_grid(&g);
    return dfm_test_finish("test_shape_bad_input");
}
