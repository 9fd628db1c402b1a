/// Kinetic friction: a cloth patch sliding at 1 m/s on a flat box (mu 0.5) stops after
/// v^2 / (2 mu g) = 0.102 m, within 10%; with mu 0 it keeps going (> 1 m in 1.5 s).
#include "dfm_test_shapes.h"

static double stop_distance(float mu) {
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    dfm_shape_def sd = dfm_scene_box_def(2.0f, 0.3f, 0.05f);
    sd.mu = mu;
    sd.kd = 0.0f;
    dfm_test_add_shape(w, sd, 0, 0, 0, NULL);
    dfm_test_grid g = dfm_test_make_grid(8, 8, 0.1f, 0.1f, -1.9f, -0.05f, 0.052f);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    for (int s = 0; s < 10; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float v[192], x[192];
    for (int i = 0; i < 64; ++i) {
        v[3 * i] = 1.0f;
        v[3 * i + 1] = v[3 * i + 2] = 0.0f;
    }
    CHECK_OK(w, dfm_body_set_velocities(w, id, 0, 64, v, 0));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, 64, x, 0));
    double x0 = 0, x1 = 0;
    for (int i = 0; i < 64; ++i) x0 += x[3 * i];
    for (int s = 0; s < 90; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, 64, x, 0));
    for (int i = 0; i < 64; ++i) x1 += x[3 * i];
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return (x1 - x0) / 64.0;
}

int main(void) {
    double d = stop_distance(0.5f), free_d = stop_distance(0.0f), coulomb = 1.0 / (2.0 * 0.5 * 9.81);
    printf("1 m/s slide on a flat box: mu 0.5 stops after %.4f m (Coulomb %.4f m); mu 0 goes %.3f m in 1.5 s\n", d,
           coulomb, free_d);
    CHECK(fabs(d - coulomb) < 0.1 * coulomb, "stop distance %.4f m, Coulomb %.4f m", d, coulomb);
    CHECK(free_d > 1.0, "frictionless patch went only %.3f m", free_d);
    return dfm_test_finish("test_friction_stop");
}
