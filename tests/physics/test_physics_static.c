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
#include "dfm_test_statics.h"

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

/// Settled elongation of the hanging strip (m) after 4 s (dfm_test_statics.h).
static double strip_elongation(double* analytic) {
    dfm_world* w = make_world();
    dfm_test_grid g;
    dfm_cloth_def cd;
    const dfm_body_id id = dfm_test_strip_add(w, &g, &cd);
    for (int s = 0; s < 240; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    g_strip_residual = relative_residual(w);
    const double drop = dfm_test_strip_measure(w, id, &g, &cd, analytic);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return drop;
}

/// Settled shortening of the soft cube (m) after 3 s on a frictionless box (dfm_test_statics.h).
static double cube_shortening(double* analytic) {
    dfm_world* w = make_world();
    dfm_test_tets box;
    dfm_volume_def vd;
    const dfm_body_id id = dfm_test_cube_add(w, &box, &vd);
    for (int s = 0; s < 180; ++s) CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    g_cube_residual = relative_residual(w);
    const double shortening = dfm_test_cube_measure(w, id, &box, &vd, analytic);
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
