/// Hanging cloth: a horizontal cloth pinned at two corners swings down and settles.
/// Asserts: no NaN; kinetic energy at the end is below 2% of its peak; max edge stretch stays
/// below 10%; the pinned corners did not move; the free corners ended below the pins.
#include "dfm_test.h"

int main(void) {
    const int32_t n = 12;
    const float size = 0.4f, dt = 1.0f / 60.0f;
    dfm_world* w = dfm_test_world(-9.81f, 10, 10);
    dfm_test_grid g = dfm_test_make_grid(n, n, size, size, 0, 0, 1);
    float* masses = (float*)malloc(sizeof(float) * (size_t)g.vertex_count);
    for (int32_t i = 0; i < g.vertex_count; ++i) masses[i] = 0.2f * size * size / (float)g.vertex_count;
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.vertex_masses = masses;
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    int32_t pins[2] = {n * (n - 1), n * n - 1}; /* the two corners at v = max */
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, pins, 2, DFM_VERTEX_PINNED));

    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    double peak = 0.0, ke = 0.0, max_stretch = 0.0;
    const int steps = 600; /* 10 s */
    for (int s = 0; s < steps; ++s) {
        CHECK_OK(w, dfm_world_step(w, dt));
        ke = dfm_test_kinetic_energy(w, id, g.vertex_count, masses);
        if (ke > peak) peak = ke;
        CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
        for (int32_t t = 0; t < g.triangle_count; ++t)
            for (int k = 0; k < 3; ++k) {
                int32_t a = g.triangles[3 * t + k], b = g.triangles[3 * t + (k + 1) % 3];
                double L = 0, L0 = 0;
                for (int d = 0; d < 3; ++d) {
                    double e = x[3 * a + d] - x[3 * b + d], e0 = g.positions[3 * a + d] - g.positions[3 * b + d];
                    L += e * e;
                    L0 += e0 * e0;
                }
                double stretch = sqrt(L / L0) - 1.0;
                if (!(stretch <= max_stretch)) max_stretch = stretch; /* NaN propagates */
            }
    }
    printf("hanging cloth: peak KE %.4g J, final KE %.3g J (ratio %.3g), max edge stretch %.4f\n", peak, ke, ke / peak,
           max_stretch);
    CHECK(isfinite(ke) && isfinite(max_stretch), "NaN in the simulation");
    CHECK(peak > 1e-3, "cloth never swung (peak KE %.3g J)", peak);
    CHECK(ke < 0.02 * peak, "kinetic energy did not decay: %.3g of peak", ke / peak);
    CHECK(max_stretch < 0.10, "edges stretched by %.1f%%", 100.0 * max_stretch);
    for (int p = 0; p < 2; ++p)
        CHECK(memcmp(x + 3 * pins[p], g.positions + 3 * pins[p], 3 * sizeof(float)) == 0, "pin %d moved", pins[p]);
    CHECK(x[2] < 1.0f - 0.5f * size && x[3 * (n - 1) + 2] < 1.0f - 0.5f * size, "free corners at z %.3f %.3f", x[2],
          x[3 * (n - 1) + 2]);
    free(x);
    free(masses);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_hanging_cloth");
}
