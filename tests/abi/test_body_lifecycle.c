/// Body lifecycle: removing a body keeps the other bodies' state exactly (positions, velocities,
/// pins) and a later body reuses the slot with a new generation.
#include "dfm_test.h"

int main(void) {
    dfm_world* w = dfm_test_world(-9.81f, 2, 5);
    dfm_test_grid g = dfm_test_make_grid(5, 5, 0.2f, 0.2f, 0, 0, 1);
    dfm_body_id a = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_body_id b = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    int32_t pins[2] = {0, 4};
    CHECK_OK(w, dfm_body_set_vertex_mode(w, b, pins, 2, DFM_VERTEX_PINNED));
    for (int s = 0; s < 10; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float before_x[75], before_v[75], after_x[75], after_v[75];
    CHECK_OK(w, dfm_body_get_positions(w, b, 0, 25, before_x, 0));
    CHECK_OK(w, dfm_body_get_velocities(w, b, 0, 25, before_v, 0));
    dfm_body_info info = dfm_body_info_init();
    CHECK_OK(w, dfm_body_get_info(w, b, &info));
    CHECK(info.first_particle == 25, "b starts at %d", info.first_particle);
    CHECK_OK(w, dfm_world_remove_body(w, a));
    CHECK_OK(w, dfm_body_get_info(w, b, &info));
    CHECK(info.first_particle == 0, "b did not move down: %d", info.first_particle);
    CHECK_OK(w, dfm_body_get_positions(w, b, 0, 25, after_x, 0));
    CHECK_OK(w, dfm_body_get_velocities(w, b, 0, 25, after_v, 0));
    CHECK(memcmp(before_x, after_x, sizeof(before_x)) == 0, "positions changed by removing another body");
    CHECK(memcmp(before_v, after_v, sizeof(before_v)) == 0, "velocities changed by removing another body");
    for (int s = 0; s < 10; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    float p[3];
    CHECK_OK(w, dfm_body_get_positions(w, b, 4, 1, p, 0));
    CHECK(p[0] == g.positions[12] && p[1] == g.positions[13] && p[2] == g.positions[14], "pin lost across removal");
    dfm_body_id c = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    CHECK(c.index1 == a.index1 && c.generation != a.generation, "slot not reused with a new generation");
    dfm_world_stats s = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &s));
    CHECK(s.body_count == 2 && s.particle_count == 50, "stats %d bodies %d particles", s.body_count, s.particle_count);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_body_lifecycle");
}
