/// Many mesh shapes on the CUDA backend: 256 environments, each with its own copy of a mesh box
/// (a per-environment gripper mesh, say) and a small cloth dropped onto it.
/// - the world steps (the contact pipeline tracked at most 96 device arrays, one per mesh grid:
///   creation failed with "too many contact device arrays" beyond ~40 mesh shapes);
/// - equal grids are uploaded once: the device memory of the 256-mesh world exceeds that of the
///   same world with boxes by less than two grids (dfm_shape_get_info's dims), not by 256;
/// - every cloth rests on its box (no vertex below the box top minus 1 cm after 60 steps).
/// Skips (77) without a usable CUDA device.
#include "gpu_contact_scenes.h"

#define ENVS 256

static dfm_world* build(int meshes, int64_t* device_bytes, int64_t* grid_bytes) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    def.environment_count = ENVS;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    if (r == DFM_ERROR_DEVICE_UNAVAILABLE) {
        printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
        exit(77);
    }
    CHECK(r == DFM_OK, "world: %s", dfm_world_last_error(NULL));
    if (r != DFM_OK) exit(1);
    float v[3 * DFM_SCENE_BOX_MESH_VERTICES];
    int32_t tri[3 * DFM_SCENE_BOX_MESH_TRIANGLES];
    dfm_scene_box_mesh(0.1f, 0.1f, 0.05f, v, tri);
    for (int e = 0; e < ENVS; ++e) {
        dfm_shape_def sd = meshes
                               ? dfm_scene_mesh_def(v, DFM_SCENE_BOX_MESH_VERTICES, tri, DFM_SCENE_BOX_MESH_TRIANGLES)
                               : dfm_scene_box_def(0.1f, 0.1f, 0.05f);
        sd.environment = e;
        dfm_shape_id id = dfm_test_add_shape(w, sd, 0.5f * (float)(e % 16), 0.5f * (float)(e / 16), 0.05f, NULL);
        if (meshes && e == 0) {
            dfm_shape_info info = dfm_shape_info_init();
            CHECK_OK(w, dfm_shape_get_info(w, id, &info));
            *grid_bytes = (int64_t)info.sdf_dims[0] * info.sdf_dims[1] * info.sdf_dims[2] * (int64_t)sizeof(float);
        }
        dfm_test_grid g = dfm_test_make_grid(8, 8, 0.12f, 0.12f, 0.5f * (float)(e % 16) - 0.06f,
                                             0.5f * (float)(e / 16) - 0.06f, 0.13f);
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.environment = e;
        dfm_test_add_cloth(w, &g, cd);
        dfm_test_free_grid(&g);
    }
    for (int s = 0; s < 60; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    *device_bytes = st.device_memory_bytes;
    return w;
}

int main(void) {
    int64_t mesh_bytes = 0, box_bytes = 0, grid_bytes = 0, unused = 0;
    dfm_world* w = build(1, &mesh_bytes, &grid_bytes);
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    float lo = 1e30f;
    for (int32_t i = 0; i < st.particle_count; ++i) lo = fminf(lo, x[3 * i + 2]);
    free(x);
    dfm_world_destroy(w);
    dfm_world* wb = build(0, &box_bytes, &unused);
    dfm_world_destroy(wb);
    const int64_t diff = mesh_bytes - box_bytes;
    printf("%d mesh shapes: device memory %.1f MiB, with boxes instead %.1f MiB (difference %.3f MiB; one grid "
           "%.3f MiB); lowest cloth vertex z %.4f m\n",
           ENVS, mesh_bytes / 1048576.0, box_bytes / 1048576.0, diff / 1048576.0, grid_bytes / 1048576.0, lo);
    CHECK(lo > 0.09f, "a cloth fell off or through its mesh box (lowest z %.4f m)", lo);
    CHECK(grid_bytes > 0, "no SDF grid reported for the mesh shape");
    CHECK(diff < 2 * grid_bytes, "mesh grids not shared: %.3f MiB more than with boxes (one grid %.3f MiB)",
          diff / 1048576.0, grid_bytes / 1048576.0);
    return dfm_test_finish("test_gpu_many_meshes");
}
