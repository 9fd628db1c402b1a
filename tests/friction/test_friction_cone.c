/// Friction cone: a cloth patch lying on a box tilted by angle a holds still when tan(a) < mu and
/// slides when tan(a) > mu (mu = 0.5; both sides of the threshold at tan(a) = 0.4 and 0.6).
/// Also: with the Coulomb projection switched off (IPC-style smoothed friction only) the patch
/// creeps at tan(a) = 0.4, which is why the projection exists (docs/friction.md).
#include "dfm_test_shapes.h"

/// Returns the distance (m) the patch centroid moved along the slope in `seconds`.
static double run(float tan_a, uint32_t flags, double seconds) {
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = DFM_BACKEND_CPU;
    wd.disable_flags = flags;
    dfm_world* w = NULL;
    dfm_world_create(DFM_ABI_VERSION, &wd, &w);
    const float a = atanf(tan_a);
    /* Box top face tilted about +y by a: its normal is (-sin a, 0, cos a)... rotate by -a so the
     * slope descends toward +x. */
    const float q[4] = {0.0f, sinf(0.5f * a), 0.0f, cosf(0.5f * a)};
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_BOX;
    sd.half_extents[0] = 0.3f;
    sd.half_extents[1] = 0.3f;
    sd.half_extents[2] = 0.05f;
    sd.mu = 0.5f;
    dfm_test_add_shape(w, sd, 0, 0, 0, q);
    /* Patch on the top face: build flat, then rotate the same way and lift onto the surface. */
    dfm_test_grid g = dfm_test_make_grid(8, 8, 0.1f, 0.1f, -0.05f, -0.05f, 0.0f);
    dfm_cloth_def cd = dfm_cloth_def_default();
    const float lift = 0.05f + cd.contact_radius;
    for (int32_t i = 0; i < g.vertex_count; ++i) {
        float x = g.positions[3 * i], z = lift;
        g.positions[3 * i] = cosf(a) * x + sinf(a) * z;
        g.positions[3 * i + 2] = -sinf(a) * x + cosf(a) * z;
    }
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    double c0 = 0, c1 = 0;
    for (int32_t i = 0; i < g.vertex_count; ++i) c0 += g.positions[3 * i];
    /* settle 0.25 s, then measure */
    int settle = 15, steps = (int)(seconds * 60.0);
    for (int s = 0; s < settle; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
    c0 = 0;
    for (int32_t i = 0; i < g.vertex_count; ++i) c0 += x[3 * i] * cosf(a) - x[3 * i + 2] * sinf(a);
    for (int s = 0; s < steps; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
    for (int32_t i = 0; i < g.vertex_count; ++i) c1 += x[3 * i] * cosf(a) - x[3 * i + 2] * sinf(a);
    free(x);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return (c1 - c0) / g.vertex_count;
}

int main(void) {
    double hold = run(0.4f, 0, 2.0), slide = run(0.6f, 0, 0.5), creep = run(0.4f, DFM_DISABLE_STATIC_FRICTION, 2.0);
    /* Sliding block on a slope from rest at time 0: s(t) = g (sin a - mu cos a) t^2 / 2; the
     * measurement runs from the end of the 0.25 s settle phase to 0.75 s. */
    const double a6 = atan(0.6), mu = 0.5, t0 = 0.25, t1 = 0.75;
    double expect = 9.81 * (sin(a6) - mu * cos(a6)) * (t1 * t1 - t0 * t0) / 2.0;
    printf(
        "friction cone (mu 0.5): tan 0.4 moved %.3g m in 2 s; tan 0.6 slid %.4f m from 0.25 to 0.75 s (Coulomb: %.4f m); "
        "smoothed-only at tan 0.4 moved %.3g m in 2 s\n",
        hold, slide, expect, creep);
    CHECK(fabs(hold) < 1e-3, "patch slid %.4f m below the Coulomb limit", hold);
    CHECK(slide > 0.7 * expect && slide < 1.3 * expect, "slide %.4f m is not within 30%% of Coulomb's %.4f m", slide,
          expect);
    CHECK(fabs(creep) > 10.0 * fabs(hold), "smoothed friction did not creep (%.4g m) more than the projection (%.4g m)",
          creep, hold);
    return dfm_test_finish("test_friction_cone");
}
