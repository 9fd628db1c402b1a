/// Worlds are independent: two worlds stepped concurrently from two threads (each with contacts
/// against its own shapes) produce bitwise the trajectories of the same worlds stepped alone, one
/// after the other. (The library's only process-wide state is an atomic tag counter and a
/// thread-local creation-error buffer.)
#include <pthread.h>

#include "dfm_test_shapes.h"

typedef struct job {
    int which;
    float* out;
    int32_t count;
} job;

static void* run(void* arg) {
    job* j = (job*)arg;
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = DFM_BACKEND_CPU;
    wd.cpu_threads = 1;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &w) != DFM_OK) return NULL;
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = j->which ? DFM_SHAPE_SPHERE : DFM_SHAPE_BOX;
    sd.radius = 0.08f;
    sd.half_extents[0] = sd.half_extents[1] = 0.2f;
    sd.half_extents[2] = 0.05f;
    dfm_shape_id shape;
    dfm_world_add_shape(w, &sd, &shape);
    dfm_shape_state st;
    memset(&st, 0, sizeof(st));
    st.rotation[3] = 1.0f;
    st.aabb_min[0] = 1.0f;
    st.aabb_max[0] = -1.0f;
    dfm_world_set_shape_states(w, &shape, 0, &st, 0, 1);
    dfm_test_grid g = dfm_test_make_grid(14, 14, 0.3f, 0.3f, -0.15f, -0.15f, 0.15f);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    for (int s = 0; s < 40; ++s) dfm_world_step(w, 1.0f / 60.0f);
    j->count = g.vertex_count;
    j->out = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    dfm_body_get_positions(w, id, 0, g.vertex_count, j->out, 0);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return NULL;
}

int main(void) {
    job alone[2] = {{0, NULL, 0}, {1, NULL, 0}}, together[2] = {{0, NULL, 0}, {1, NULL, 0}};
    run(&alone[0]);
    run(&alone[1]);
    pthread_t t[2];
    for (int k = 0; k < 2; ++k) CHECK(pthread_create(&t[k], NULL, run, &together[k]) == 0, "pthread_create");
    for (int k = 0; k < 2; ++k) pthread_join(t[k], NULL);
    for (int k = 0; k < 2; ++k) {
        CHECK(alone[k].out && together[k].out && alone[k].count == together[k].count, "world %d did not run", k);
        if (alone[k].out && together[k].out)
            CHECK(memcmp(alone[k].out, together[k].out, sizeof(float) * 3 * (size_t)alone[k].count) == 0,
                  "world %d: concurrent run differs from the run alone", k);
        free(alone[k].out);
        free(together[k].out);
    }
    printf("two worlds (cloth on a box, cloth on a sphere), 40 steps: concurrent == alone, bitwise\n");
    return dfm_test_finish("test_threads");
}
