/// Hostile inputs found by fuzzing the ABI (issue 14), each refused with its own code and a message,
/// leaving the world usable; each check failed on the code before its fix (out-of-bounds read, int64
/// overflow, NaN world, stale message, unvalidated def fields):
/// - shape and body ids with a negative index or INT_MIN carrying the world's own tag;
/// - dfm_tet_box_counts / dfm_tet_box_generate with a vertex count whose product overflows int64;
/// - dfm_world_last_error(NULL) after a failed and then a successful create;
/// - negative or huge (above DFM_MAX_CONTACT_CAPACITY) contact_capacity, negative or NaN penalty
///   ramp settings, unknown disable_flags bits;
/// - a vertex range starting at INT32_MAX (signed overflow in the error message);
/// - dt too large (1e30 s) or a substep too small (1e-45 s) to simulate; 2^31 - 1 iterations (a hang);
/// - a mesh shape with a finite but huge sdf_cell_size (3e38 m: the bake hung) or a huge mesh
///   (half size 3e38 m: float-to-int overflow in the bake);
/// - positions beyond DFM_MAX_COORD (a kinematic target of 3e38 m gave an infinite velocity; a
///   vertex, a shape state, a whole cloth), and a cloth collapsed by float spacing (5e5 m), whose
///   message said only "zero area";
/// - the mesh generators' refusals, which came without a message.
/// A step that goes non-finite is tested in test_nonfinite_step.c.
#include <limits.h>

#include "../contact/contact_scenes.h"

/// Checks code and message, then that the world still steps with finite positions.
static void expect(dfm_world* w, dfm_body_id body, dfm_result got, dfm_result want, const char* needle,
                   const char* what) {
    const char* msg = dfm_world_last_error(w);
    CHECK(got == want, "%s: got %s, want %s (%s)", what, dfm_result_string(got), dfm_result_string(want), msg);
    CHECK(needle == NULL || strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
    if (!w) return;
    CHECK(dfm_world_step(w, 1.0f / 60.0f) == DFM_OK, "%s: world no longer steps: %s", what, dfm_world_last_error(w));
    float p[3];
    CHECK(dfm_body_get_positions(w, body, 3, 1, p, 0) == DFM_OK && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]),
          "%s: positions not finite", what);
}

int main(void) {
    dfm_world* w = dfm_test_world(-9.81f, 2, 4);
    dfm_test_grid g = dfm_test_make_grid(4, 4, 0.2f, 0.2f, 0, 0, 0.1f);
    dfm_body_id body = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_PLANE;
    dfm_shape_id plane = dfm_test_add_shape(w, sd, 0, 0, 0, NULL);
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));

    /* ids with a negative index and the world's own tag */
    const int32_t bad_index[2] = {-5, INT_MIN};
    for (int k = 0; k < 2; ++k) {
        dfm_shape_id s = plane;
        s.index1 = bad_index[k];
        dfm_shape_info info = dfm_shape_info_init();
        expect(w, body, dfm_shape_get_info(w, s, &info), DFM_ERROR_STALE_ID, "stale", "negative shape index");
        dfm_shape_state st = dfm_test_state(0, 0, 0, NULL);
        expect(w, body, dfm_world_set_shape_states(w, &s, 0, &st, 0, 1), DFM_ERROR_STALE_ID, "state 0", "state batch");
        dfm_body_id b = body;
        b.index1 = bad_index[k];
        dfm_body_info bi = dfm_body_info_init();
        expect(w, body, dfm_body_get_info(w, b, &bi), DFM_ERROR_STALE_ID, "stale", "negative body index");
    }

    /* tet box counts whose product overflows int64 (2^21 x 2^21 x 2^22 = 2^64 wrapped to 0) */
    int32_t nv = -1, nt = -1;
    CHECK(dfm_tet_box_counts(1 << 21, 1 << 21, 1 << 22, &nv, &nt) == DFM_ERROR_INVALID_COUNT,
          "overflowing tet box accepted: %d vertices, %d tets", nv, nt);
    CHECK(dfm_tet_box_counts(1 << 15, 1 << 15, 3, &nv, &nt) == DFM_ERROR_INVALID_COUNT, "3 x 2^30 vertices accepted");
    float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, pos[3];
    int32_t tets[4];
    CHECK(dfm_tet_box_generate(1 << 21, 1 << 21, 1 << 22, lo, hi, pos, tets) == DFM_ERROR_INVALID_COUNT,
          "overflowing tet box generated");
    CHECK(dfm_tet_box_counts(6, 6, 6, &nv, &nt) == DFM_OK && nv == 216 && nt == 625, "6^3 box: %d, %d", nv, nt);

    /* world defs with unvalidated fields */
    struct {
        const char* what;
        const char* needle;
        dfm_world_def def;
    } defs[5];
    for (int k = 0; k < 5; ++k) defs[k].def = dfm_world_def_default();
    // clang-format off
    defs[0].what = "negative contact capacity", defs[0].needle = "contact_capacity", defs[0].def.contact_capacity = -1;
    defs[1].what = "negative penalty ramp", defs[1].needle = "contact_penalty_beta", defs[1].def.contact_penalty_beta = -1;
    defs[2].what = "NaN penalty start", defs[2].needle = "contact_penalty_start", defs[2].def.contact_penalty_start = NAN;
    defs[3].what = "unknown flag bit", defs[3].needle = "unknown bits", defs[3].def.disable_flags = 1u << 20;
    defs[4].what = "huge contact capacity (the fuzzer's 8 GB allocation)", defs[4].needle = "DFM_MAX_CONTACT_CAPACITY", defs[4].def.contact_capacity = DFM_MAX_CONTACT_CAPACITY + 1;
    // clang-format on
    for (int k = 0; k < 5; ++k) {
        defs[k].def.backend = DFM_BACKEND_CPU;
        dfm_world* bad = NULL;
        dfm_result r = dfm_world_create(DFM_ABI_VERSION, &defs[k].def, &bad);
        expect(NULL, body, r, DFM_ERROR_INVALID_VALUE, defs[k].needle, defs[k].what);
        CHECK(bad == NULL, "%s: a world was returned", defs[k].what);
        if (bad) dfm_world_destroy(bad);
    }
    /* ... and the create error does not outlive a successful create */
    dfm_world_def ok_def = dfm_world_def_default();
    ok_def.backend = DFM_BACKEND_CPU;
    dfm_world* fresh = NULL;
    CHECK(dfm_world_create(DFM_ABI_VERSION, &ok_def, &fresh) == DFM_OK, "create: %s", dfm_world_last_error(NULL));
    CHECK(dfm_world_last_error(NULL)[0] == '\0', "stale create error after a success: '%s'",
          dfm_world_last_error(NULL));
    dfm_world_destroy(fresh);

    /* dt that cannot be simulated */
    expect(w, body, dfm_world_step(w, 1e30f), DFM_ERROR_INVALID_VALUE, "dt must be", "dt 1e30 s");
    expect(w, body, dfm_world_step(w, 1e-45f), DFM_ERROR_INVALID_VALUE, "substeps", "dt 1e-45 s");
    expect(w, body, dfm_world_step(w, 11.0f), DFM_ERROR_INVALID_VALUE, "10 s", "dt 11 s");
    float buf[15];
    expect(w, body, dfm_body_get_positions(w, body, INT32_MAX, 5, buf, 0), DFM_ERROR_INDEX_OUT_OF_RANGE, "outside",
           "range at INT32_MAX (the message's first + count overflowed)");
    expect(w, body, dfm_world_set_solver_counts(w, DFM_MAX_SUBSTEPS + 1, 4), DFM_ERROR_INVALID_VALUE, "1..1000",
           "substeps 1001");
    expect(w, body, dfm_world_set_solver_counts(w, 2, INT32_MAX), DFM_ERROR_INVALID_VALUE, "1..1000",
           "iterations 2^31-1");

    /* mesh shapes whose grid cannot be represented */
    float mv[24];
    int32_t mt[36];
    cs_box_mesh(0.1f, 0.1f, 0.1f, mv, mt);
    dfm_shape_def md = dfm_shape_def_default();
    md.type = DFM_SHAPE_MESH;
    md.mesh_vertices = mv;
    md.mesh_vertex_count = 8;
    md.mesh_triangles = mt;
    md.mesh_triangle_count = 12;
    dfm_shape_id ms = DFM_NULL_SHAPE_ID;
    md.sdf_cell_size = 3e38f;
    expect(w, body, dfm_world_add_shape(w, &md, &ms), DFM_ERROR_INVALID_VALUE, "reaches", "cell 3e38 m");
    md.sdf_cell_size = 0.0f;
    float huge[24];
    cs_box_mesh(3e38f, 3e38f, 3e38f, huge, mt);
    md.mesh_vertices = huge;
    dfm_result hr = dfm_world_add_shape(w, &md, &ms);
    CHECK(hr != DFM_OK, "a mesh of half size 3e38 m was baked");
    expect(w, body, DFM_OK, DFM_OK, NULL, "after the huge mesh");
    md.mesh_vertices = mv; /* a sane mesh still bakes */
    CHECK_OK(w, dfm_world_add_shape(w, &md, &ms));

    dfm_test_free_grid(&g);
    /* Positions that cannot be simulated (beyond DFM_MAX_COORD): a kinematic target of 3e38 m gave
     * an infinite velocity; a vertex or shape placed there is refused too. */
    {
        int32_t corner = 0;
        const float beyond[3] = {3e38f, 0.0f, 0.1f};
        CHECK_OK(w, dfm_body_set_vertex_mode(w, body, &corner, 1, DFM_VERTEX_KINEMATIC));
        expect(w, body, dfm_body_set_kinematic_targets(w, body, &corner, 1, beyond, 0), DFM_ERROR_INVALID_VALUE,
               "DFM_MAX_COORD", "kinematic target 3e38 m");
        CHECK_OK(w, dfm_body_set_vertex_mode(w, body, &corner, 1, DFM_VERTEX_DYNAMIC));
        const float far[3] = {2e6f, 0.0f, 0.1f};
        expect(w, body, dfm_body_set_positions(w, body, 3, 1, far, 0), DFM_ERROR_INVALID_VALUE, "DFM_MAX_COORD",
               "vertex position 2e6 m");
        dfm_shape_state st = dfm_test_state(0, 0, -5e6f, NULL);
        expect(w, body, dfm_world_set_shape_states(w, &plane, 0, &st, 0, 1), DFM_ERROR_INVALID_VALUE, "DFM_MAX_COORD",
               "shape position -5e6 m");
        dfm_shape_state fast = dfm_test_state(0, 0, 0, NULL);
        fast.linear_velocity[1] = -2.0f * DFM_MAX_SPEED;
        expect(w, body, dfm_world_set_shape_states(w, &plane, 0, &fast, 0, 1), DFM_ERROR_INVALID_VALUE, "DFM_MAX_SPEED",
               "shape speed 2e4 m/s");
        fast.linear_velocity[1] = 0.0f;
        fast.angular_velocity[2] = 3.0f * DFM_MAX_ANGULAR_SPEED;
        expect(w, body, dfm_world_set_shape_states(w, &plane, 0, &fast, 0, 1), DFM_ERROR_INVALID_VALUE,
               "DFM_MAX_ANGULAR_SPEED", "shape spin 3e4 rad/s");
        const float quick[3] = {0.0f, 1.5f * DFM_MAX_SPEED, 0.0f};
        expect(w, body, dfm_body_set_velocities(w, body, 2, 1, quick, 0), DFM_ERROR_INVALID_VALUE, "DFM_MAX_SPEED",
               "vertex speed 1.5e4 m/s");
        dfm_test_grid far_grid = dfm_test_make_grid(4, 4, 0.2f, 0.2f, 2e6f, 0, 0);
        dfm_cloth_def cd = dfm_test_grid_cloth_def(&far_grid);
        dfm_body_id none;
        expect(w, body, dfm_world_add_cloth(w, &cd, &none), DFM_ERROR_INVALID_VALUE, "DFM_MAX_COORD", "cloth at 2e6 m");
        dfm_test_free_grid(&far_grid);
    }
    /* A cloth whose float positions collapsed (at 5e5 m float spacing is 3 cm, a 2 cm grid folds
     * onto itself): the message names float spacing, not just "zero area". */
    {
        dfm_test_grid g2 = dfm_test_make_grid(4, 4, 0.02f, 0.02f, 5e5f, 0, 0);
        dfm_cloth_def cd = dfm_test_grid_cloth_def(&g2);
        dfm_body_id none;
        expect(w, body, dfm_world_add_cloth(w, &cd, &none), DFM_ERROR_DEGENERATE_ELEMENT, "float spacing",
               "cloth at 5e5 m");
        dfm_test_free_grid(&g2);
    }
    /* The generators say why they refuse (dfm_world_last_error(NULL)). */
    {
        int32_t gv = 0, gt = 0;
        expect(NULL, body, dfm_cloth_grid_counts(1, 4, &gv, &gt), DFM_ERROR_INVALID_COUNT, ">= 2", "grid 1 x 4");
        expect(NULL, body, dfm_tet_box_counts(3, 3, 1, &gv, &gt), DFM_ERROR_INVALID_COUNT, ">= 2", "tet box 3 x 3 x 1");
        const float lo2[3] = {0, 0, 0}, hi2[3] = {1, 0, 1};
        float pos2[3 * 8];
        int32_t tets2[4 * 5];
        expect(NULL, body, dfm_tet_box_generate(2, 2, 2, lo2, hi2, pos2, tets2), DFM_ERROR_INVALID_VALUE, "not above",
               "tet box with hi = lo");
        expect(NULL, body, dfm_cloth_grid_generate(2, 2, NULL, lo2, hi2, pos2, tets2), DFM_ERROR_NULL_POINTER, "NULL",
               "grid without origin");
    }
    dfm_world_destroy(w);
    return dfm_test_finish("test_hardening");
}
