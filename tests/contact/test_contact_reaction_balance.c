/// Reactions are momentum-consistent however unconverged VBD is: over steps 100-149 at rest, the
/// mean summed reaction force on the shapes equals the weight of what rests on them within 2%, at the
/// default 4 substeps x 10 iterations (and, for the cube, also at 8 x 20: the answer must not
/// depend on convergence; the cube read 1.0000 at 16 x 40 too, and the cloths 1.016 and 1.003, but those take minutes), for
/// - a 6 cm soft tet cube (stiff Neo-Hookean) on a box,
/// - a 20 x 20 cloth draped over a sphere and a box (and the ground plane),
/// - a 16 x 16 cloth on a 12-triangle mesh box (baked SDF).
/// Before the body balance (pass 2b of contact_reaction.h), only touching particles' residuals
/// were reported: 25x, 19x and 47x the weight at 4 x 10 (measured), which this test rejects.
/// The bound was 1% until reactions stopped pulling: a node's share of its body's momentum gap
/// that would pull the cloth into a shape is now cut (contact_reaction.h, pass 2c), and the cut
/// shows in the sum (the draped cloth read 1.0125 on the H200 in deterministic mode, 1.0017 on the
/// CPU; the cube and the mesh box are exact).
/// Runs on the CPU, or on the CUDA backend with DFM_TEST_BACKEND=cuda (deterministic mode) or
/// cuda-default (CTest's test_gpu_reaction_balance and test_gpu_reaction_balance_default).
#include "../gpu/gpu_contact_scenes.h"

static int g_substeps, g_iterations;
static gcs_setup_fn g_scene;
static double g_reaction_sum; /* summed z reaction of steps AVG_FIRST..STEPS-1, N */

#define STEPS 150
#define AVG_FIRST 100

/// Before step s, reads the reaction of step s - 1 (steps AVG_FIRST..STEPS-1 are averaged: a
/// single step's reaction includes that step's momentum change, which a draped cloth that still
/// creeps makes a few per cent of its weight; the average over 50 steps is its mean).
static void sample(dfm_world* w, gcs_scene* s, int step) {
    if (step <= AVG_FIRST) return;
    float f[3 * 8];
    CHECK_OK(w, dfm_world_get_shape_reactions(w, s->shapes, s->shape_count, f, NULL, 0));
    for (int k = 0; k < s->shape_count; ++k) g_reaction_sum += f[3 * k + 2];
}

static void setup(dfm_world* w, gcs_scene* s) {
    CHECK_OK(w, dfm_world_set_solver_counts(w, g_substeps, g_iterations));
    g_scene(w, s);
}

int main(void) {
    const struct {
        const char* name;
        gcs_setup_fn scene;
    } scenes[3] = {{"soft cube on box", gcs_soft_cube},
                   {"cloth over sphere + box", gcs_sphere_box},
                   {"cloth on mesh box", gcs_mesh_box}};
    const int counts[2][2] = {{4, 10}, {8, 20}};
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < (k == 0 ? 2 : 1); ++c) {
            g_substeps = counts[c][0];
            g_iterations = counts[c][1];
            g_scene = scenes[k].scene;
            dfm_world_def def = dfm_world_def_default();
            dfm_test_pick_backend(&def);
            g_reaction_sum = 0.0;
            gcs_run_desc d = {def.backend, 0u, def.deterministic, 1, STEPS, setup, sample, 0};
            gcs_run_result r = gcs_run(d);
            if (r.skipped) return 77;
            /* the last step's reaction is read after the run */
            double mean = (g_reaction_sum + r.reaction_z) / (double)(STEPS - AVG_FIRST);
            double ratio = -mean / r.scene.weight;
            printf("%s, %d x %d: reaction %.4f N (mean of steps %d-%d; last step %.4f N), weight %.4f N (ratio %.4f)\n",
                   scenes[k].name, g_substeps, g_iterations, -mean, AVG_FIRST, STEPS - 1, -r.reaction_z, r.scene.weight,
                   ratio);
            CHECK(fabs(ratio - 1.0) < 0.02, "%s at %d x %d: reaction is %.3f x the weight", scenes[k].name, g_substeps,
                  g_iterations, ratio);
            free(r.x);
        }
    return dfm_test_finish("test_contact_reaction_balance");
}
