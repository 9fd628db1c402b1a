/// Coulomb friction in a pinch (issue 13, finding 5): a 0.2 m strip (12 x 12, default cloth,
/// weight W = 0.0785 N) hangs from its pinned top row between two box pads; the pads close on it
/// (each inner face 1 mm past the strip's contact surface) and the top row is let go. Coulomb: the
/// pads hold it when 2 mu N >= W, N being one pad's squeeze, and it slides out when 2 mu N < W.
/// The squeeze N is measured first with a high mu (the pads' records' normal forces from
/// dfm_world_get_contacts, mean over the second after the release), then the scene runs again at
/// mu = 1.2 mu_c and 0.8 mu_c with mu_c = W / (2 N): the strip must stay (centroid drop below
/// 1 cm over 1 s) at 1.2 mu_c and fall out (drop beyond 5 cm) at 0.8 mu_c. Not the 5%:
/// the squeeze itself moves with mu by up to 12% (11.3 N at mu 0.8, 12.7 N at 0.95 mu_c), so a
/// 5% margin would not decide what Coulomb says; each run's squeeze is printed.
/// Softer pads than the defaults (ke 400 N/m per record) keep mu_c in the range real pads have.
/// With the per-particle friction decision alone it held at 0.8 mu_c too (finding 5: friction about
/// 1.3x Coulomb's); with the patch decision (contact_patch_friction.h) it slips out at 0.8 mu_c
/// (docs/physics.md, session 14). Arguments `substeps iterations [hold slip]` measure other
/// counts and ratios (`build/tests/physics/test_physics_pinch 4 10 1.5 0.7` passes).
#include "dfm_test_shapes.h"

static int g_substeps, g_iterations;

/// Runs the pinch with pad friction mu; returns the centroid drop (m) over the second after the
/// release and writes the mean squeeze of one pad over that second (N) and its mean over the steps
/// while the strip had dropped less than 1 cm (N, `peak`: the squeeze while it is in the pinch).
static double pinch(float mu, double* squeeze, double* weight, double* peak) {
    dfm_world_def def = dfm_world_def_default();
    if (g_substeps > 0) def.substeps = g_substeps, def.iterations = g_iterations;
    dfm_test_pick_backend(&def);
    dfm_world* w = dfm_test_create(&def);
    const int32_t n = 12;
    dfm_test_grid g = dfm_test_make_grid(n, n, 0.2f, 0.2f, -0.1f, 0, 0);
    for (int32_t i = 0; i < g.vertex_count; ++i) { /* the x-z plane, top row at z = 0.2 */
        g.positions[3 * i + 2] = g.positions[3 * i + 1];
        g.positions[3 * i + 1] = 0.0f;
    }
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_body_id body = dfm_test_add_cloth(w, &g, cd);
    *weight = cd.density * 0.04 * 9.81;
    CHECK_OK(w, dfm_scene_set_row_mode(w, body, n, n - 1, DFM_VERTEX_PINNED)); /* the top row */
    dfm_shape_def pad = dfm_scene_box_def(0.06f, 0.01f, 0.03f);
    pad.mu = mu;
    pad.ke = 400.0f;
    dfm_shape_id pads[2]; /* on host bodies 1 and 2, facing each other across the strip along y */
    const float centre[3] = {0, 0, 0.15f};
    dfm_test_add_pad_pair(w, pad, 1, centre, 1, 0.03f, pads);
    const float closed = dfm_scene_pinch_half_gap(0.01f, cd.contact_radius, 0.001f);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    static dfm_contact_point cp[4096];
    double z0 = 0.0, z1 = 0.0, sq = 0.0, lift = 0.0, top = 0.0;
    int held_steps = 0;
    const int release = 30, end = 90;
    for (int s = 0; s < end; ++s) {
        float t = s < 20 ? (float)(s + 1) / 20.0f : 1.0f, y = 0.03f + (closed - 0.03f) * t;
        dfm_test_move_pad_pair(w, pads, centre, 1, y);
        if (s == release) CHECK_OK(w, dfm_scene_set_row_mode(w, body, n, n - 1, DFM_VERTEX_DYNAMIC));
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        if (s >= release) {
            int32_t nc = 0;
            CHECK_OK(w, dfm_world_get_contacts(w, cp, 4096, (int32_t)sizeof(dfm_contact_point), &nc));
            double now = 0.0, zc = 0.0;
            for (int32_t i = 0; i < nc && i < 4096; ++i) now += cp[i].normal_force / 2.0;
            CHECK_OK(w, dfm_body_get_positions(w, body, 0, g.vertex_count, x, 0));
            for (int32_t i = 0; i < g.vertex_count; ++i) zc += x[3 * i + 2] / g.vertex_count;
            if (z0 - zc < 0.01) top += now, ++held_steps; /* while the strip is still in the pinch */
            for (int32_t i = 0; i < nc && i < 4096; ++i) {
                sq += cp[i].normal_force / (2.0 * (end - release));
                /* the vertical push the records give (the rims' squeeze-out shows here) */
                lift += cp[i].normal_force * cp[i].normal[2] / (end - release);
            }
        }
        if (s == release - 1 || s == end - 1) {
            CHECK_OK(w, dfm_body_get_positions(w, body, 0, g.vertex_count, x, 0));
            double z = 0.0;
            for (int32_t i = 0; i < g.vertex_count; ++i) z += x[3 * i + 2] / g.vertex_count;
            if (s == release - 1)
                z0 = z;
            else
                z1 = z;
        }
    }
    *squeeze = sq;
    *peak = held_steps > 0 ? top / held_steps : 0.0;
    printf("  mu %.4f: mean vertical normal force of the pads' records after the release %+.4f N (weight %.4f N)\n", mu,
           lift, cd.density * 0.04 * 9.81);
    free(x);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return z0 - z1;
}

int main(int argc, char** argv) {
    g_substeps = argc > 2 ? atoi(argv[1]) : 0;
    g_iterations = argc > 2 ? atoi(argv[2]) : 0;
    double N, W, N2, N3, P1, P2, P3;
    double drop_high = pinch(0.8f, &N, &W, &P1);
    const double mu_c = W / (2.0 * N);
    const double hi = argc > 4 ? atof(argv[3]) : 1.2, lo = argc > 4 ? atof(argv[4]) : 0.8;
    double hold = pinch((float)(hi * mu_c), &N2, &W, &P2), slip = pinch((float)(lo * mu_c), &N3, &W, &P3);
    printf("pinch: squeeze %.4f N per pad at mu 0.8 (drop %.4f m), Coulomb's mu_c = W / 2N = %.4f; at %.2f mu_c the "
           "strip dropped %.4f m (squeeze %.4f N), at %.2f mu_c %.4f m (squeeze %.4f N, in the pinch %.4f N: 2 mu N = "
           "%.3f W)\n",
           N, drop_high, mu_c, hi, hold, N2, lo, slip, N3, P3, 2.0 * lo * mu_c * P3 / W);
    CHECK(drop_high < 0.01, "at mu 0.8 the strip dropped %.4f m", drop_high);
    CHECK(hold < 0.01, "at %.2f mu_c the strip dropped %.4f m: Coulomb holds it", hi, hold);
    /* the squeeze moves as the strip slides (more records at the pads' rims): the slip run is a
       Coulomb slip only if its mean squeeze while in the pinch (dropped < 1 cm) cannot hold the strip,
       within the 5% (a one-step peak may: a strip already sliding is only braked by it; CUDA's
       default run peaked at 1.10 W and slid) */
    CHECK(2.0 * lo * mu_c * P3 < 1.05 * W,
          "at %.2f mu_c the squeeze in the pinch was %.4f N (2 mu N = %.3f W): Coulomb may hold it there, so the "
          "slip run does not decide (choose a lower ratio)",
          lo, P3, 2.0 * lo * mu_c * P3 / W);
    CHECK(slip > 0.05, "at %.2f mu_c the strip dropped only %.4f m: Coulomb says it slides out", lo, slip);
    return dfm_test_finish("test_physics_pinch");
}
