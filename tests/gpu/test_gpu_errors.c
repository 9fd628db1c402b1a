/// CUDA backend error paths: an out-of-range device index is refused with
/// DFM_ERROR_DEVICE_UNAVAILABLE and a message; deterministic mode without the shape sort is
/// refused with DFM_ERROR_UNSUPPORTED; adding and removing a shape between steps (contact
/// buffers re-uploaded, graph re-captured) keeps the world stepping. Skips (77) without a usable
/// CUDA device.
#include "gpu_scenes.h"

#include <dfm_scene_shape.h>

int main(void) {
    dfm_result r;
    dfm_world* w = gpu_scene_world(DFM_BACKEND_CUDA, 2, 5, &r);
    if (!w) {
        printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
        return r == DFM_ERROR_DEVICE_UNAVAILABLE ? 77 : 1;
    }
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    def.device_index = 4096;
    dfm_world* bad = NULL;
    r = dfm_world_create(DFM_ABI_VERSION, &def, &bad);
    CHECK(r == DFM_ERROR_DEVICE_UNAVAILABLE && bad == NULL, "device 4096 gave %s", dfm_result_string(r));
    CHECK(strstr(dfm_world_last_error(NULL), "4096") != NULL, "message: %s", dfm_world_last_error(NULL));

    def.device_index = 0;
    def.deterministic = 1;
    def.disable_flags = DFM_DISABLE_SHAPE_SORT;
    r = dfm_world_create(DFM_ABI_VERSION, &def, &bad);
    CHECK(r == DFM_ERROR_UNSUPPORTED && bad == NULL, "deterministic without shape sort gave %s", dfm_result_string(r));
    CHECK(strstr(dfm_world_last_error(NULL), "shape sort") != NULL, "message: %s", dfm_world_last_error(NULL));
    def.disable_flags = DFM_DISABLE_CONTACT_LISTS;
    r = dfm_world_create(DFM_ABI_VERSION, &def, &bad);
    CHECK(r == DFM_ERROR_UNSUPPORTED && bad == NULL, "deterministic with the scatter gave %s", dfm_result_string(r));
    CHECK(strstr(dfm_world_last_error(NULL), "contact lists") != NULL, "message: %s", dfm_world_last_error(NULL));
    def.disable_flags = 0u;

    gpu_scene_hanging_cloths(w, 1, 8);
    dfm_shape_def sd = dfm_scene_plane_def();
    dfm_shape_id plane;
    CHECK_OK(w, dfm_world_add_shape(w, &sd, &plane));
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    CHECK_OK(w, dfm_world_remove_shape(w, plane));
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float p[3];
    CHECK_OK(w, dfm_world_get_positions(w, 0, 1, p, 0));
    CHECK(isfinite(p[0]) && p[2] < 1.0f, "cloth did not move on the GPU: z %.4f", p[2]);
    dfm_world_destroy(w);
    return dfm_test_finish("test_gpu_errors");
}
