/// Physical outcomes of the built-in "xpbd" solver (CPU), each with its own tolerance:
/// 1. free fall: a cloth in free fall follows z0 - g t^2 / 2 within g t h (the first-order
///    error of symplectic Euler over small steps h) and keeps its shape;
/// 2. hanging cloth (with air drag): pinned at two corners, it swings down and settles: kinetic
///    energy ends below 5% of its peak, kinetic + gravitational energy never rises more than 2%
///    of the peak kinetic energy above its running minimum, edges stretch less than 10%, the pins
///    do not move;
/// 3. resting contact: a cloth dropped on a plane and one dropped on a box rest at
///    radius + margin above the surface within 0.5 mm, nearly still;
/// 4. a tet box dropped on a plane rests on it with its volume within 3% of the rest volume;
/// 5. environment isolation: a plane in environment 0 holds the cloth of environment 0 while
///    the identical cloth of environment 1 falls through, bitwise as it falls alone.
#include "dfm_test.h"

#define G 9.81f
#define DT (1.0f / 60.0f)

static dfm_world* xpbd_world(int substeps, int iterations, int envs) {
    dfm_world_def def = dfm_world_def_default();
    def.gravity[2] = -G;
    def.substeps = substeps;
    def.iterations = iterations;
    def.environment_count = envs;
    def.backend = DFM_BACKEND_CPU;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) {
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        exit(2);
    }
    if (dfm_world_set_solver(w, "xpbd", DFM_BACKEND_CPU) != DFM_OK) {
        fprintf(stderr, "set_solver: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    return w;
}

static double max_edge_stretch(const dfm_test_grid* g, const float* x) {
    double worst = 0.0;
    for (int32_t t = 0; t < g->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            int32_t a = g->triangles[3 * t + k], b = g->triangles[3 * t + (k + 1) % 3];
            double L = 0, L0 = 0;
            for (int d = 0; d < 3; ++d) {
                double e = x[3 * a + d] - x[3 * b + d], e0 = g->positions[3 * a + d] - g->positions[3 * b + d];
                L += e * e;
                L0 += e0 * e0;
            }
            double s = fabs(sqrt(L / L0) - 1.0);
            if (!(s <= worst)) worst = s;
        }
    return worst;
}

static void test_free_fall(void) {
    const int substeps = 4, iterations = 10, steps = 60;
    dfm_world* w = xpbd_world(substeps, iterations, 1);
    dfm_test_grid g = dfm_test_make_grid(8, 8, 0.3f, 0.3f, 0, 0, 2.0f);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    for (int s = 0; s < steps; ++s) CHECK_OK(w, dfm_world_step(w, DT));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
    double t = steps * DT, h = DT / (substeps * iterations);
    double expect = 2.0 - 0.5 * G * t * t, worst = 0;
    for (int32_t i = 0; i < g.vertex_count; ++i) worst = fmax(worst, fabs(x[3 * i + 2] - expect));
    double tol = G * t * h + 1e-4, stretch = max_edge_stretch(&g, x);
    printf("free fall: after %.2f s worst |z - analytic| %.3e m (tol %.3e), edge stretch %.2e\n", t, worst, tol,
           stretch);
    CHECK(worst < tol, "free fall off by %.3e m", worst);
    CHECK(stretch < 1e-4, "cloth deformed in free fall (%.2e)", stretch);
    free(x);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
}

static void test_hanging_cloth(void) {
    const int32_t n = 12;
    const float size = 0.4f;
    dfm_world* w = xpbd_world(10, 10, 1);
    dfm_test_grid g = dfm_test_make_grid(n, n, size, size, 0, 0, 1);
    float* masses = (float*)malloc(sizeof(float) * (size_t)g.vertex_count);
    for (int32_t i = 0; i < g.vertex_count; ++i) masses[i] = 0.2f * size * size / (float)g.vertex_count;
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.vertex_masses = masses;
    /* XPBD with small steps barely damps numerically (unlike VBD's implicit Euler), so the
     * settling here is physical: air drag. */
    cd.air_drag = 0.5f;
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    int32_t pins[2] = {n * (n - 1), n * n - 1};
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, pins, 2, DFM_VERTEX_PINNED));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    double peak = 0, ke = 0, stretch = 0, e_min = 1e30, rise = 0;
    const int steps = 600;
    for (int s = 0; s < steps; ++s) {
        CHECK_OK(w, dfm_world_step(w, DT));
        ke = dfm_test_kinetic_energy(w, id, g.vertex_count, masses);
        if (ke > peak) peak = ke;
        CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
        stretch = fmax(stretch, max_edge_stretch(&g, x));
        /* Mechanical energy (kinetic + gravitational; the elastic part is small at < 1% stretch)
         * must not rise above its running minimum: drag and damping only remove energy. */
        double e = ke;
        for (int32_t i = 0; i < g.vertex_count; ++i) e += masses[i] * G * x[3 * i + 2];
        if (e < e_min) e_min = e;
        rise = fmax(rise, e - e_min);
    }
    printf("hanging cloth (xpbd, air drag %.1f): peak KE %.4g J, final %.3g J (ratio %.3g), max stretch %.4f, largest "
           "rise of KE + PE above its running minimum %.3g J (%.2f%% of peak KE)\n",
           (double)cd.air_drag, peak, ke, ke / peak, stretch, rise, 100.0 * rise / peak);
    CHECK(rise < 0.02 * peak, "mechanical energy grew by %.3g J", rise);
    CHECK(isfinite(ke) && isfinite(stretch), "NaN");
    CHECK(peak > 1e-3, "never swung (peak %.3g J)", peak);
    CHECK(ke < 0.05 * peak, "kinetic energy did not decay: %.3g of peak", ke / peak);
    CHECK(stretch < 0.10, "edges stretched by %.1f%%", 100.0 * stretch);
    for (int p = 0; p < 2; ++p)
        CHECK(memcmp(x + 3 * pins[p], g.positions + 3 * pins[p], 3 * sizeof(float)) == 0, "pin %d moved", pins[p]);
    CHECK(x[2] < 1.0f - 0.5f * size, "free corner at z %.3f", x[2]);
    free(x);
    free(masses);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
}

/// Drops a 0.2 m cloth from 5 cm onto `shape` (top surface at z = top) and checks it rests.
static void rest_on(const char* what, dfm_shape_def sd, float top) {
    dfm_world* w = xpbd_world(4, 10, 1);
    dfm_shape_id sid;
    CHECK_OK(w, dfm_world_add_shape(w, &sd, &sid));
    dfm_test_grid g = dfm_test_make_grid(10, 10, 0.2f, 0.2f, -0.1f, -0.1f, top + 0.05f);
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    for (int s = 0; s < 120; ++s) CHECK_OK(w, dfm_world_step(w, DT));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    float* v = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
    CHECK_OK(w, dfm_body_get_velocities(w, id, 0, g.vertex_count, v, 0));
    double want = top + cd.contact_radius + sd.margin, worst = 0, speed = 0;
    for (int32_t i = 0; i < g.vertex_count; ++i) {
        worst = fmax(worst, fabs(x[3 * i + 2] - want));
        speed = fmax(speed, sqrt((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] +
                                 (double)v[3 * i + 2] * v[3 * i + 2]));
    }
    float force[3], torque[3];
    CHECK_OK(w, dfm_world_get_shape_reactions(w, &sid, 1, force, torque, 0));
    double weight = 0.2 * 0.2 * cd.density * G;
    printf("resting on %s (xpbd): worst |z - (top + radius + margin)| %.3e m, max speed %.3e m/s, reaction %.4f N "
           "(weight %.4f N)\n",
           what, worst, speed, -force[2], weight);
    CHECK(worst < 5e-4, "%s: not resting at radius + margin (off by %.3e m)", what, worst);
    CHECK(speed < 0.01, "%s: still moving at %.3e m/s", what, speed);
    CHECK(fabs(-force[2] - weight) < 0.05 * weight, "%s: reaction %.4f N vs weight %.4f N", what, -force[2], weight);
    free(x);
    free(v);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
}

static void test_resting(void) {
    dfm_shape_def plane = dfm_shape_def_default();
    plane.type = DFM_SHAPE_PLANE;
    plane.margin = 0.001f;
    rest_on("a plane", plane, 0.0f);
    dfm_shape_def box = dfm_shape_def_default();
    box.type = DFM_SHAPE_BOX;
    box.half_extents[0] = box.half_extents[1] = 0.3f;
    box.half_extents[2] = 0.05f;
    rest_on("a box", box, 0.05f);
}

static void test_tet_rest(void) {
    dfm_world* w = xpbd_world(4, 10, 1);
    dfm_shape_def plane = dfm_shape_def_default();
    plane.type = DFM_SHAPE_PLANE;
    dfm_shape_id sid;
    CHECK_OK(w, dfm_world_add_shape(w, &plane, &sid));
    int32_t nv, nt;
    dfm_tet_box_counts(3, 3, 3, &nv, &nt);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    int32_t* tets = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)nt);
    const float lo[3] = {-0.05f, -0.05f, 0.02f}, hi[3] = {0.05f, 0.05f, 0.12f};
    dfm_tet_box_generate(3, 3, 3, lo, hi, x, tets);
    dfm_volume_def vd = dfm_volume_def_default();
    vd.positions = x;
    vd.vertex_count = nv;
    vd.tets = tets;
    vd.tet_count = nt;
    dfm_body_id id;
    CHECK_OK(w, dfm_world_add_volume(w, &vd, &id));
    for (int s = 0; s < 90; ++s) CHECK_OK(w, dfm_world_step(w, DT));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, nv, x, 0));
    double vol = 0, zmin = 1e9;
    for (int32_t t = 0; t < nt; ++t) {
        const float *a = x + 3 * tets[4 * t], *b = x + 3 * tets[4 * t + 1], *c = x + 3 * tets[4 * t + 2],
                    *d = x + 3 * tets[4 * t + 3];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, p[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]},
               q[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        vol += (u[0] * (p[1] * q[2] - p[2] * q[1]) - u[1] * (p[0] * q[2] - p[2] * q[0]) +
                u[2] * (p[0] * q[1] - p[1] * q[0])) /
               6.0;
    }
    for (int32_t i = 0; i < nv; ++i) zmin = fmin(zmin, x[3 * i + 2]);
    double rest_vol = 0.1 * 0.1 * 0.1;
    printf("tet box on a plane (xpbd): volume %.4e m^3 (rest %.4e, %.2f%%), lowest vertex z %.4e m (want %.4e)\n", vol,
           rest_vol, 100.0 * (vol / rest_vol - 1.0), zmin, (double)vd.contact_radius);
    CHECK(fabs(vol / rest_vol - 1.0) < 0.03, "volume changed by %.2f%%", 100.0 * (vol / rest_vol - 1.0));
    CHECK(fabs(zmin - vd.contact_radius) < 1e-3, "tet box not resting on the plane (lowest z %.4e)", zmin);
    free(x);
    free(tets);
    dfm_world_destroy(w);
}

static void test_isolation(void) {
    float* ends[2];
    dfm_test_grid g = dfm_test_make_grid(8, 8, 0.2f, 0.2f, -0.1f, -0.1f, 0.05f);
    for (int run = 0; run < 2; ++run) {
        dfm_world* w = xpbd_world(4, 10, 2);
        dfm_shape_def plane = dfm_shape_def_default();
        plane.type = DFM_SHAPE_PLANE;
        plane.environment = 0;
        dfm_shape_id sid;
        CHECK_OK(w, dfm_world_add_shape(w, &plane, &sid));
        dfm_cloth_def cd = dfm_cloth_def_default();
        dfm_body_id c0 = DFM_NULL_BODY_ID, c1;
        if (run == 0) {
            cd.environment = 0;
            c0 = dfm_test_add_cloth(w, &g, cd);
        }
        cd.environment = 1;
        c1 = dfm_test_add_cloth(w, &g, cd);
        for (int s = 0; s < 60; ++s) CHECK_OK(w, dfm_world_step(w, DT));
        ends[run] = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
        CHECK_OK(w, dfm_body_get_positions(w, c1, 0, g.vertex_count, ends[run], 0));
        if (run == 0) {
            float* x0 = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
            CHECK_OK(w, dfm_body_get_positions(w, c0, 0, g.vertex_count, x0, 0));
            double zmin0 = 1e9;
            for (int32_t i = 0; i < g.vertex_count; ++i) zmin0 = fmin(zmin0, x0[3 * i + 2]);
            printf("isolation (xpbd): env 0 cloth lowest z %.4e (rests on its plane), env 1 cloth z %.4f (falls)\n",
                   zmin0, ends[0][2]);
            CHECK(zmin0 > 0.0, "env 0 cloth went through its plane (z %.4e)", zmin0);
            CHECK(ends[0][2] < -0.5f, "env 1 cloth was held (z %.4f)", ends[0][2]);
            free(x0);
        }
        dfm_world_destroy(w);
    }
    CHECK(memcmp(ends[0], ends[1], sizeof(float) * 3 * (size_t)g.vertex_count) == 0,
          "env 1 cloth moved differently with an env 0 cloth and plane present");
    free(ends[0]);
    free(ends[1]);
    dfm_test_free_grid(&g);
}

int main(void) {
    test_free_fall();
    test_hanging_cloth();
    test_resting();
    test_tet_rest();
    test_isolation();
    return dfm_test_finish("test_xpbd_physics");
}
