/// Equal meshes share one baked SDF grid per world (plugin/sdf_cache.c); the log's "mesh SDF
/// baked" lines count the bakes:
/// - 64 mesh shapes of one box mesh, one per environment: 1 bake (was 64, about 27 ms each);
/// - the same mesh with another sdf_cell_size, and another mesh: one bake each;
/// - removing every shape of a mesh frees its grid: adding it again bakes again (no stale grid);
///   removing some of them keeps it (the others still use it);
/// - physics is unchanged by sharing: in two environments a cloth dropped onto the shared-grid
///   box rests on its top face (lowest vertex within 2 mm of top + contact radius, both equal).
/// Runs on the CPU (or CUDA with DFM_TEST_BACKEND=cuda); ASan checks the reference counting.
#include "contact_scenes.h"

#define ENVS 64

static int g_bakes;

static void on_log(void* user, dfm_log_level level, const char* message) {
    (void)user;
    if (level == DFM_LOG_INFO && strstr(message, "mesh SDF baked")) g_bakes++;
}

static dfm_shape_id add_mesh(dfm_world* w, const float* v, const int32_t* tri, int env, float cell, float x) {
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_MESH;
    sd.mesh_vertices = v;
    sd.mesh_vertex_count = 8;
    sd.mesh_triangles = tri;
    sd.mesh_triangle_count = 12;
    sd.sdf_cell_size = cell;
    sd.environment = env;
    return dfm_test_add_shape(w, sd, x, 0, 0.05f, NULL);
}

int main(void) {
    dfm_world_def def = dfm_world_def_default();
    def.environment_count = ENVS;
    def.log_fn = on_log;
    def.log_level = DFM_LOG_INFO;
    dfm_test_pick_backend(&def);
    dfm_world* w = dfm_test_create(&def);
    float box[24], tall[24];
    int32_t tri[36], tri2[36];
    cs_box_mesh(0.1f, 0.1f, 0.05f, box, tri);
    cs_box_mesh(0.1f, 0.1f, 0.08f, tall, tri2);
    dfm_shape_id ids[ENVS];
    for (int e = 0; e < ENVS; ++e) ids[e] = add_mesh(w, box, tri, e, 0.0f, 0.6f * (float)e);
    const int after_equal = g_bakes;
    dfm_shape_id fine = add_mesh(w, box, tri, 0, 0.004f, 50.0f);
    const int after_cell = g_bakes;
    dfm_shape_id other = add_mesh(w, tall, tri2, 1, 0.0f, 60.0f);
    const int after_other = g_bakes;
    printf("bakes: %d for %d equal meshes, +%d for another cell size, +%d for another mesh\n", after_equal, ENVS,
           after_cell - after_equal, after_other - after_cell);
    CHECK(after_equal == 1, "%d bakes for %d shapes of one mesh", after_equal, ENVS);
    CHECK(after_cell - after_equal == 1 && after_other - after_cell == 1, "bakes %d %d %d", after_equal, after_cell,
          after_other);
    dfm_shape_info a = dfm_shape_info_init(), b = dfm_shape_info_init();
    CHECK_OK(w, dfm_shape_get_info(w, ids[0], &a));
    CHECK_OK(w, dfm_shape_get_info(w, ids[ENVS - 1], &b));
    CHECK(a.sdf_dims[0] > 0 && memcmp(a.sdf_dims, b.sdf_dims, sizeof(a.sdf_dims)) == 0 &&
              a.sdf_max_error == b.sdf_max_error,
          "shared grid reports differ");

    /* Physics with the shared grid: cloths on the boxes of environments 0 and 1. */
    for (int e = 0; e < 2; ++e) {
        dfm_test_grid g = dfm_test_make_grid(8, 8, 0.12f, 0.12f, 0.6f * (float)e - 0.06f, -0.06f, 0.13f);
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.environment = e;
        dfm_test_add_cloth(w, &g, cd);
        dfm_test_free_grid(&g);
    }
    for (int s = 0; s < 90; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    const float top = 0.1f + dfm_cloth_def_default().contact_radius;
    float lo[2] = {1e30f, 1e30f};
    for (int32_t i = 0; i < st.particle_count; ++i) {
        int e = x[3 * i] > 0.3f;
        lo[e] = fminf(lo[e], x[3 * i + 2]);
    }
    free(x);
    printf("cloth lowest z: env 0 %.5f m, env 1 %.5f m (box top + radius %.5f m)\n", lo[0], lo[1], top);
    CHECK(fabsf(lo[0] - top) < 2e-3f && fabsf(lo[1] - top) < 2e-3f, "cloths not resting on the shared-grid boxes");

    /* Removing some shapes of the mesh keeps its grid; removing all frees it. */
    for (int e = 2; e < ENVS; ++e) CHECK_OK(w, dfm_world_remove_shape(w, ids[e]));
    int before = g_bakes;
    add_mesh(w, box, tri, 5, 0.0f, 3.0f);
    CHECK(g_bakes == before, "a grid still in use by two shapes was baked again");
    CHECK_OK(w, dfm_world_remove_shape(w, other));
    before = g_bakes;
    add_mesh(w, tall, tri2, 6, 0.0f, 4.0f);
    printf("re-adding a mesh whose shapes were all removed: %d bake(s)\n", g_bakes - before);
    CHECK(g_bakes == before + 1, "a freed grid was not baked again (%d bakes)", g_bakes - before);
    CHECK_OK(w, dfm_world_remove_shape(w, fine));
    for (int s = 0; s < 5; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    dfm_world_destroy(w);
    return dfm_test_finish("test_shape_mesh_sharing");
}
