/// Coulomb friction of a stiff soft body at the default counts (issue 13, finding 4): a 6 cm cube
/// (default volume material, 6^3 vertices) placed at rest on a box tilted by theta, mu 0.5.
/// Coulomb: it holds when tan(theta) < mu, and above it slides with a = g (sin theta - mu cos
/// theta), s = a t^2 / 2 from rest. Checks at tan(theta) = 0.8 mu (moves < 1 mm in 1 s) and at
/// 1.2 mu and 2 mu (distance in the first second within 5% of Coulomb's; the cube starts 2 mm
/// above the slope, falls onto it in about 20 ms, so the reference counts the second from the
/// moment of landing, 0.02 s: its error is below 0.1% of s).
/// Today the cube sticks at 1.2 mu and slides almost freely at 2 mu (docs/physics.md), so CTest
/// runs this as test_physics_incline_known_failure. Arguments `substeps iterations` measure other
/// counts.
#include "dfm_test_shapes.h"

static int g_substeps, g_iterations;

/// Distance (m) the centroid travels down the slope in the first second.
static double slide(float ratio) {
    const float mu = 0.5f, th = atanf(ratio * mu);
    dfm_world_def def = dfm_world_def_default();
    if (g_substeps > 0) def.substeps = g_substeps, def.iterations = g_iterations;
    dfm_test_pick_backend(&def);
    dfm_world* w = dfm_test_create(&def);
    dfm_shape_def bx = dfm_shape_def_default();
    bx.type = DFM_SHAPE_BOX;
    bx.half_extents[0] = bx.half_extents[1] = 2.0f;
    bx.half_extents[2] = 0.05f;
    bx.mu = mu;
    const float q[4] = {sinf(0.5f * th), 0, 0, cosf(0.5f * th)}; /* tilt about +x: the slope descends toward -y */
    dfm_test_add_shape(w, bx, 0, 0, -0.05f / cosf(th), q);
    const float lo[3] = {-0.03f, -0.03f, 0.002f}, hi[3] = {0.03f, 0.03f, 0.062f};
    dfm_test_tets box = dfm_test_make_tet_box(6, lo, hi);
    const int32_t nv = box.vertex_count;
    float* p = box.positions;
    for (int32_t i = 0; i < nv; ++i) { /* onto the slope */
        float y = p[3 * i + 1], z = p[3 * i + 2];
        p[3 * i + 1] = cosf(th) * y - sinf(th) * z;
        p[3 * i + 2] = sinf(th) * y + cosf(th) * z;
    }
    dfm_body_id b = dfm_test_add_volume(w, &box, dfm_volume_def_default());
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    double s0 = 0.0, s1 = 0.0;
    for (int i = 0; i < nv; ++i) s0 -= cosf(th) * p[3 * i + 1] + sinf(th) * p[3 * i + 2];
    for (int st = 0; st < 60; ++st) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    CHECK_OK(w, dfm_body_get_positions(w, b, 0, nv, x, 0));
    for (int i = 0; i < nv; ++i) s1 -= cosf(th) * x[3 * i + 1] + sinf(th) * x[3 * i + 2];
    free(x);
    dfm_test_free_tets(&box);
    dfm_world_destroy(w);
    return (s1 - s0) / nv;
}

int main(int argc, char** argv) {
    g_substeps = argc > 2 ? atoi(argv[1]) : 0;
    g_iterations = argc > 2 ? atoi(argv[2]) : 0;
    const float mu = 0.5f, ratios[3] = {0.8f, 1.2f, 2.0f};
    for (int k = 0; k < 3; ++k) {
        double th = atan(ratios[k] * mu), a = 9.81 * (sin(th) - mu * cos(th)), t = 1.0 - 0.02;
        double want = a > 0 ? 0.5 * a * t * t : 0.0, got = slide(ratios[k]);
        printf("tan(theta) = %.1f mu: slid %.4f m in 1 s, Coulomb %.4f m\n", ratios[k], got, want);
        if (a > 0) CHECK(fabs(got - want) <= 0.05 * want, "tan %.1f mu: slid %.4f m, Coulomb %.4f m", ratios[k], got, want);
        else CHECK(fabs(got) < 1e-3, "tan %.1f mu: moved %.4f m, Coulomb holds it", ratios[k], got);
    }
    return dfm_test_finish("test_physics_incline");
}
