/// Reaction bound where two shapes meet (issue 13, finding 2): a 0.3 m cloth (20 x 20, default
/// material, weight W = 0.177 N) dropped from 0.15 m onto a 0.1 m box standing on a table box.
/// What the physics requires of each shape's reaction (dfm_world_get_shape_reactions, the force
/// on the shape, averaged over a host step):
/// - at most the weight plus the momentum the whole cloth brings in one host step,
///   W + m v / dt with v = sqrt(2 g 0.15) (everything it could stop in a step, 10.4 W here); the
///   bound is twice that (penalty contacts spread an impact over a few substeps unevenly);
/// - at rest (mean over the last 0.5 s of 4 s) no shape is pulled toward the cloth (z
///   component of the force on the shape <= 1% of W: the cloth only pushes down), and the two
///   together carry the weight within 5%;
/// - the cloth stays on the box: the box carries at least 10% of W at rest (the part of the cloth
///   over its top is 1/9 of the cloth; added in session 16, when the two-level solve at 3 x 3 was
///   found to pass every other check with the cloth slid off the box onto the table, box 0 N).
/// Today the box and table exchange a pair of hundreds of W (docs/physics.md), so CTest runs this
/// as test_physics_drape_force_known_failure. Arguments `substeps iterations` measure other counts.
#include "dfm_test_shapes.h"

int main(int argc, char** argv) {
    dfm_world_def def = dfm_world_def_default();
    if (argc > 2) {
        def.substeps = atoi(argv[1]);
        def.iterations = atoi(argv[2]);
    }
    dfm_test_pick_backend(&def);
    dfm_world* w = dfm_test_create(&def);
    dfm_shape_def table = dfm_shape_def_default();
    table.type = DFM_SHAPE_BOX;
    table.half_extents[0] = table.half_extents[1] = 0.4f;
    table.half_extents[2] = 0.02f;
    table.host_body = 1;
    table.mu = 0.5f;
    dfm_shape_def box = table;
    box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = 0.05f;
    box.host_body = 2;
    dfm_shape_id shapes[2];
    shapes[0] = dfm_test_add_shape(w, table, 0, 0, -0.02f, NULL);
    shapes[1] = dfm_test_add_shape(w, box, 0, 0, 0.05f, NULL);
    const int32_t n = 20;
    const float size = 0.3f, drop = 0.15f, dt = 1.0f / 60.0f;
    dfm_test_grid g = dfm_test_make_grid(n, n, size, size, -0.5f * size, -0.5f * size, drop);
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_test_add_cloth(w, &g, cd);
    const double mass = cd.density * size * size, W = mass * 9.81;
    const double bound = 2.0 * (W + mass * sqrt(2.0 * 9.81 * drop) / dt);
    double peak[2] = {0, 0}, rest[2] = {0, 0};
    const int steps = 240, rest_steps = 30;
    for (int s = 0; s < steps; ++s) {
        CHECK_OK(w, dfm_world_step(w, dt));
        float f[6];
        CHECK_OK(w, dfm_world_get_shape_reactions(w, shapes, 2, f, NULL, 0));
        for (int k = 0; k < 2; ++k) {
            double m = sqrt((double)f[3 * k] * f[3 * k] + (double)f[3 * k + 1] * f[3 * k + 1] +
                            (double)f[3 * k + 2] * f[3 * k + 2]);
            if (!(m <= peak[k])) peak[k] = m;
            if (s >= steps - rest_steps) rest[k] += f[3 * k + 2] / rest_steps;
        }
    }
    {
        /* The raw penalty forces behind the reactions, and how far the step is from converged. */
        static dfm_contact_point cp[4096];
        int32_t nc = 0;
        CHECK_OK(w, dfm_world_get_contacts(w, cp, 4096, (int32_t)sizeof(dfm_contact_point), &nc));
        double raw[2] = {0, 0};
        for (int32_t i = 0; i < nc && i < 4096; ++i)
            for (int k = 0; k < 2; ++k)
                if (cp[i].shape.index1 == shapes[k].index1) raw[k] += cp[i].normal_force;
        dfm_contact_stats cs = dfm_contact_stats_init();
        CHECK_OK(w, dfm_world_get_contact_stats(w, &cs));
        printf("last advance: %d records, normal forces table %.3f N, box %.3f N; largest local residual %.3f N\n", nc,
               raw[0], raw[1], cs.residual_force_max);
    }
    const char* names[2] = {"table", "box"};
    for (int k = 0; k < 2; ++k) {
        printf("%s: peak |F| %.3f N (%.1f W; bound %.1f W), resting F_z %.4f N (%.2f W)\n", names[k], peak[k],
               peak[k] / W, bound / W, rest[k], rest[k] / W);
        CHECK(peak[k] <= bound, "%s peak reaction %.1f W above the bound %.1f W", names[k], peak[k] / W, bound / W);
        CHECK(rest[k] <= 0.01 * W, "%s pulled toward the cloth at rest: F_z %+.4f N", names[k], rest[k]);
    }
    CHECK(fabs(rest[0] + rest[1] + W) <= 0.05 * W, "resting reactions sum to %.4f N, weight %.4f N", rest[0] + rest[1],
          -W);
    CHECK(-rest[1] >= 0.1 * W, "the box carries %.4f N at rest (%.2f W): the cloth slid off it", -rest[1],
          -rest[1] / W);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_physics_drape_force");
}
