/// Static fidelity at the world's default substeps and iterations (issue 13, finding 7): the
/// settled shape of two bodies under their own weight against analytic linear elasticity.
///
/// 1. A hanging strip (default cloth material, 0.05 m x 0.4 m, 5 x 33 vertices) pinned along
///    its top row. Uniaxial membrane stress T(s) = rho g s per unit width at distance s above the
///    bottom gives the elongation dL = rho g L^2 / (2 E) with the plane-stress StVK modulus
///    E = 4 mu (mu + lambda) / (2 mu + lambda) (the lumped discrete sum gives the same figure).
///    The pinned row stops lateral contraction near the top, where the membrane is stiffer by
///    (2 mu + lambda) / E = 1.125; over the top width (1/8 of the length, where the strain is
///    largest) that shortens dL by at most 2 x 1/8 x 0.11 = 3%, inside the 10% bound.
///    Measured as each column's arc length minus its rest length (a swing does not change it).
///    Converged (4 x 1000 on a 5-row strip) the model gives 0.98 of this figure.
/// 2. A soft cube (default volume material, 6 cm, 6^3 vertices) resting on a frictionless box:
///    its top face sinks relative to its bottom face by rho g H^2 / (2 E), E the Young's modulus
///    (a free column under its weight, uniaxial stress rho g (H - z); Saint-Venant). Converged
///    (40 x 40) the model gives 0.998 of it.
///
/// Bound (issue 13): both within 10% of analytic at the world's default counts. Today it fails
/// (docs/physics.md: 446x and 13x at 4 x 10; Gauss-Seidel leaves a steady sag, see there), so
/// CTest runs it as test_physics_static_known_failure. Run with `substeps iterations` arguments
/// to measure other counts.
#include "dfm_test.h"
#include "dfm_test_shapes.h"

static int g_substeps, g_iterations;
static float g_strip_residual, g_cube_residual; /* world_stats.force_residual_relative at the end */

/// The convergence figure of the last step (ABI 1.5).
static float relative_residual(dfm_world* w) {
    dfm_world_stats st;
    memset(&st, 0, sizeof(st));
    st.struct_size = sizeof(st);
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    return st.force_residual_relative;
}

static dfm_world* make_world(void) {
    dfm_world_def def = dfm_world_def_default();
    if (g_substeps > 0) def.substeps = g_substeps;
    if (g_iterations > 0) def.iterations = g_iterations;
    g_substeps = def.substeps;
    g_iterations = def.iterations;
    dfm_test_pick_backend(&def);
    return dfm_test_create(&def);
}

/// Settled elongation of the hanging strip (m): the bottom row's mean drop after 4 s.
static double strip_elongation(double* analytic) {
    const int32_t nu = 5, nv = 33;
    const float width = 0.05f, length = 0.4f;
    dfm_world* w = make_world();
    dfm_test_grid g = dfm_test_make_grid(nu, nv, width, length, 0, 0, 0);
    for (int32_t i = 0; i < g.vertex_count; ++i) { /* hang it in the x-z plane, top row (v = max) at z = 1 */
        g.positions[3 * i + 2] = 1.0f - (length - g.positions[3 * i + 1]);
        g.positions[3 * i + 1] = 0.0f;
    }
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    int32_t pins[5];
    for (int32_t k = 0; k < nu; ++k) pins[k] = (nv - 1) * nu + k;
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, pins, nu, DFM_VERTEX_PINNED));
    for (int s = 0; s < 240; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    g_strip_residual = relative_residual(w);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g.vertex_count, x, 0));
    /* Arc length of each column minus the rest length, averaged over the columns (a swing does
     * not change it). */
    double drop = 0.0;
    for (int32_t k = 0; k < nu; ++k)
        for (int32_t j = 0; j + 1 < nv; ++j) {
            const float *a = x + 3 * (j * nu + k), *b = x + 3 * ((j + 1) * nu + k);
            drop += sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
                         (double)(a[2] - b[2]) * (a[2] - b[2]));
        }
    drop = drop / nu - length;
    free(x);
    double E = 4.0 * cd.stretch_mu * (cd.stretch_mu + cd.stretch_lambda) / (2.0 * cd.stretch_mu + cd.stretch_lambda);
    *analytic = cd.density * 9.81 * length * length / (2.0 * E);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return drop;
}

/// Settled shortening of the soft cube (m): top face mean z minus bottom face mean z, against
/// the rest height, after 3 s on a frictionless box.
static double cube_shortening(double* analytic) {
    dfm_world* w = make_world();
    dfm_test_add_frictionless_floor(w);
    const int32_t n = 6;
    const float H = 0.06f;
    const float lo[3] = {-0.03f, -0.03f, 0.0f}, hi[3] = {0.03f, 0.03f, H};
    dfm_test_tets box = dfm_test_make_tet_box(n, lo, hi);
    const int32_t nv = box.vertex_count;
    const float* p = box.positions;
    dfm_volume_def vd = dfm_volume_def_default();
    dfm_body_id id = dfm_test_add_volume(w, &box, vd);
    for (int s = 0; s < 180; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    g_cube_residual = relative_residual(w);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, nv, x, 0));
    double top = 0.0, bottom = 0.0;
    int nt_ = 0, nb = 0;
    for (int32_t i = 0; i < nv; ++i) {
        if (p[3 * i + 2] > H - 1e-6f)
            top += x[3 * i + 2], ++nt_;
        else if (p[3 * i + 2] < 1e-6f)
            bottom += x[3 * i + 2], ++nb;
    }
    double shortening = H - (top / nt_ - bottom / nb);
    double E = vd.mu * (3.0 * vd.lambda + 2.0 * vd.mu) / (vd.lambda + vd.mu);
    *analytic = vd.density * 9.81 * H * H / (2.0 * E);
    free(x);
    dfm_test_free_tets(&box);
    dfm_world_destroy(w);
    return shortening;
}

int main(int argc, char** argv) {
    g_substeps = argc > 1 ? atoi(argv[1]) : 0;
    g_iterations = argc > 2 ? atoi(argv[2]) : 0;
    double strip_ref, cube_analytic;
    double strip = strip_elongation(&strip_ref);
    double cube = cube_shortening(&cube_analytic);
    CHECK(strip > 0.9 * strip_ref && strip < 1.1 * strip_ref, "strip elongation %.3g m is %.3gx analytic", strip,
          strip / strip_ref);
    CHECK(cube > 0.9 * cube_analytic && cube < 1.1 * cube_analytic, "cube shortening %.3g m is %.3gx analytic", cube,
          cube / cube_analytic);
    printf("%d x %d: strip elongation %.4g m (analytic %.4g, ratio %.3f); cube shortening %.4g m (analytic %.4g, "
           "ratio %.3f); force_residual_relative strip %.3g, cube %.3g\n",
           g_substeps, g_iterations, strip, strip_ref, strip / strip_ref, cube, cube_analytic, cube / cube_analytic,
           (double)g_strip_residual, (double)g_cube_residual);
    return dfm_test_finish("test_physics_static");
}
