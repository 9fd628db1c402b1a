/// dfm_world_prepare builds what the next step would build lazily:
/// - before it, a world with a cloth and two shapes reports no contact buffers (capacity 0);
///   after it, the capacity equals the candidate pairs (automatic capacity), before any step;
/// - it changes nothing physical: 30 steps after prepare equal 30 steps without it, bitwise;
/// - after adding a shape, prepare sizes the buffers again (capacity grows);
/// - on CUDA (DFM_TEST_BACKEND=cuda, CTest's test_gpu_world_prepare): the first step after
///   prepare allocates no device memory (dfm_world_stats.device_memory_bytes unchanged);
/// - a NULL world is refused.
#include "contact_scenes.h"

static dfm_world* build(int extra_shape) {
    dfm_world_def def = dfm_world_def_default();
    dfm_test_pick_backend(&def);
    dfm_world* w = dfm_test_create(&def);
    dfm_shape_def p = dfm_shape_def_default();
    p.type = DFM_SHAPE_PLANE;
    dfm_test_add_shape(w, p, 0, 0, 0, NULL);
    dfm_shape_def sp = dfm_shape_def_default();
    sp.radius = 0.05f;
    dfm_test_add_shape(w, sp, 0, 0, 0.05f, NULL);
    if (extra_shape) {
        dfm_shape_def b = dfm_shape_def_default();
        b.type = DFM_SHAPE_BOX;
        b.half_extents[0] = b.half_extents[1] = b.half_extents[2] = 0.03f;
        dfm_test_add_shape(w, b, 0.1f, 0, 0.03f, NULL);
    }
    dfm_test_grid g = dfm_test_make_grid(12, 12, 0.3f, 0.3f, -0.15f, -0.15f, 0.12f);
    dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_test_free_grid(&g);
    return w;
}

static float* run(dfm_world* w, int32_t* n) {
    for (int s = 0; s < 30; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    *n = st.particle_count;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, x, 0));
    return x;
}

int main(void) {
    CHECK(dfm_world_prepare(NULL) == DFM_ERROR_NULL_POINTER, "NULL world accepted");
    dfm_world* a = build(0);
    dfm_contact_stats before = cs_stats(a);
    CHECK_OK(a, dfm_world_prepare(a));
    dfm_contact_stats after = cs_stats(a);
    dfm_world_stats sa = dfm_world_stats_init();
    CHECK_OK(a, dfm_world_get_stats(a, &sa));
    printf("before prepare: capacity %d, candidate pairs %lld; after: capacity %d, candidate pairs %lld; device memory "
           "%lld bytes\n",
           before.capacity, (long long)before.candidate_pairs, after.capacity, (long long)after.candidate_pairs,
           (long long)sa.device_memory_bytes);
    CHECK(before.capacity == 0, "contact buffers existed before prepare (capacity %d)", before.capacity);
    CHECK(after.capacity > 0 && after.capacity == (int32_t)after.candidate_pairs,
          "prepare did not size the contact buffers: capacity %d, candidate pairs %lld", after.capacity,
          (long long)after.candidate_pairs);
    CHECK_OK(a, dfm_world_step(a, 1.0f / 60.0f));
    dfm_world_stats s1 = dfm_world_stats_init();
    CHECK_OK(a, dfm_world_get_stats(a, &s1));
    CHECK(s1.device_memory_bytes == sa.device_memory_bytes, "the first step after prepare allocated %lld device bytes",
          (long long)(s1.device_memory_bytes - sa.device_memory_bytes));
    int32_t na = 0, nb = 0;
    float* xa = run(a, &na);
    dfm_world* b = build(0);
    CHECK_OK(b, dfm_world_step(b, 1.0f / 60.0f));
    float* xb = run(b, &nb);
    CHECK(na == nb && memcmp(xa, xb, sizeof(float) * 3 * (size_t)na) == 0, "prepare changed the trajectory");
    printf("31 steps with and without prepare: bitwise %s\n",
           na == nb && memcmp(xa, xb, sizeof(float) * 3 * (size_t)na) == 0 ? "equal" : "DIFFERENT");
    free(xa);
    free(xb);
    dfm_shape_def box = dfm_shape_def_default();
    box.type = DFM_SHAPE_BOX;
    box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.03f;
    dfm_test_add_shape(a, box, 0.1f, 0, 0.03f, NULL);
    CHECK_OK(a, dfm_world_prepare(a));
    dfm_contact_stats grown = cs_stats(a);
    printf("after adding a box and preparing: capacity %d (was %d)\n", grown.capacity, after.capacity);
    CHECK(grown.capacity > after.capacity, "prepare did not resize after a shape was added");
    dfm_world_destroy(a);
    dfm_world_destroy(b);
    return dfm_test_finish("test_world_prepare");
}
