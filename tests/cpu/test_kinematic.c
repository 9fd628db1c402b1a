/// Kinematic targets: two corners of a cloth are moved by the host every tick along a path; they
/// land exactly on their targets, their velocity is displacement / dt, and the cloth follows
/// (its centroid moves with them). Switching them back to dynamic lets them fall.
#include "dfm_test.h"

int main(void) {
    const int32_t n = 8;
    const float dt = 1.0f / 60.0f;
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    dfm_test_grid g = dfm_test_make_grid(n, n, 0.2f, 0.2f, 0, 0, 1);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    int32_t handles[2] = {n * (n - 1), n * n - 1};
    float target[6];
    memcpy(target, g.positions + 3 * handles[0], 3 * sizeof(float));
    memcpy(target + 3, g.positions + 3 * handles[1], 3 * sizeof(float));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    const float speed = 0.25f; /* m/s upward */
    for (int s = 0; s < 120; ++s) {
        target[2] += speed * dt;
        target[5] += speed * dt;
        CHECK_OK(w, dfm_body_set_kinematic_targets(w, id, handles, 2, target, 0));
        CHECK_OK(w, dfm_world_step(w, dt));
        float p[6], v[6];
        CHECK_OK(w, dfm_body_get_positions(w, id, handles[0], 1, p, 0));
        CHECK_OK(w, dfm_body_get_positions(w, id, handles[1], 1, p + 3, 0));
        CHECK_OK(w, dfm_body_get_velocities(w, id, handles[0], 1, v, 0));
        CHECK(fabsf(p[0] - target[0]) < 1e-6f && fabsf(p[2] - target[2]) < 1e-6f && fabsf(p[5] - target[5]) < 1e-6f,
              "step %d: handle at %.6f, target %.6f", s, p[2], target[2]);
        CHECK(fabsf(v[2] - speed) < 1e-3f, "step %d: handle velocity %.5f, want %.5f", s, v[2], speed);
    }
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
    double cz = 0;
    for (int32_t i = 0; i < g.vertex_count; ++i) cz += x[3 * i + 2];
    cz /= g.vertex_count;
    printf("kinematic lift: handles at z = %.3f, cloth centroid z = %.3f\n", target[2], cz);
    CHECK(cz > 1.0 + 0.3 * (target[2] - 1.0) - 0.2, "cloth did not follow the handles: centroid z %.3f", cz);
    CHECK(x[3 * 0 + 2] > 1.0f + 0.5f - 0.25f, "far corner did not rise: z %.3f", x[2]);
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, handles, 2, DFM_VERTEX_DYNAMIC));
    for (int s = 0; s < 30; ++s) CHECK_OK(w, dfm_world_step(w, dt));
    float p[3];
    CHECK_OK(w, dfm_body_get_positions(w, id, handles[0], 1, p, 0));
    CHECK(p[2] < target[2] - 0.5f, "released handle did not fall: z %.3f vs %.3f", p[2], target[2]);
    free(x);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_kinematic");
}
