/// Contact parity: the contact scenes of the CPU backend's tests and samples (cloth resting on a
/// plane, sample 02's sphere + box drape, a soft cube dropped on a box, a cloth on a mesh box
/// (device SDF grid), a cloth pinched by two pads and lifted by friction, four environments with
/// their own planes) stepped for 100+ steps on both backends.
/// - Smooth scenes (plane, soft cube, environments): every coordinate agrees within 1e-3 of the
///   scene size (measured ~1e-7) and the summed reaction forces within 10% of the weight.
/// - Chaotic scenes (the drape over sphere and box, the drape over the mesh box's edges, the
///   pinched cloth's free flap): float summation order alone moves folds by centimetres (the
///   GPU's own default vs deterministic modes differ as much as GPU vs CPU; printed as the
///   reference), so each backend is checked on physical outcomes instead: no particle deeper than
///   one contact radius inside a shape at the end (max_penetration <= 2 r), the cloth's centroid
///   where the other backend put it within 5% of the scene size (a dropped or snagged cloth is off
///   by far more; measured up to 1.8%), and the pinched cloth lifted with the pads. The bounding
///   boxes (fold positions) are printed, not asserted: a bound on them failed one GPU run in
///   several (0.114 of the scene size against 0.08, issue 13).
/// Skips (77) without a usable CUDA device. `--small` runs the pinch scene for 12 steps in default
/// and in deterministic mode (for compute-sanitizer).
#include "gpu_contact_scenes.h"

typedef struct parity_case {
    const char* name;
    gcs_setup_fn setup;
    gcs_drive_fn drive;
    int32_t envs, steps;
    double tolerance; ///< Smooth scenes: allowed max |x_gpu - x_cpu| over the scene size.
    int chaotic;      ///< 1: compare centroid and bounding box instead (see the file comment).
} parity_case;

static int compare(const parity_case* pc, int deterministic) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, deterministic, pc->envs, pc->steps, pc->setup, pc->drive, 0};
    gcs_run_result gpu = gcs_run(d);
    if (gpu.skipped) return 1;
    d.backend = DFM_BACKEND_CPU;
    gcs_run_result cpu = gcs_run(d);
    double diff = gcs_max_diff(&gpu, &cpu), rel = diff / gpu.scene.size;
    double dr = fabs((double)gpu.reaction_z - cpu.reaction_z);
    if (!pc->chaotic) {
        printf("%s%s: %d particles, %d steps: max |x_gpu - x_cpu| = %.3g m (%.3g of the scene size, bound %.0e); "
               "reaction z gpu %.4f N cpu %.4f N (weight %.4f N); records gpu %d cpu %d\n",
               pc->name, deterministic ? " (deterministic)" : "", gpu.count, pc->steps, diff, rel, pc->tolerance,
               gpu.reaction_z, cpu.reaction_z, gpu.scene.weight, gpu.stats.active, cpu.stats.active);
        CHECK(rel < pc->tolerance, "%s: backends differ by %.3g of the scene size", pc->name, rel);
        CHECK(dr < 0.1 * gpu.scene.weight + 1e-4, "%s: reactions differ by %.4g N", pc->name, dr);
    } else {
        gcs_run_desc other = d;
        other.backend = DFM_BACKEND_CUDA;
        other.deterministic = !deterministic;
        gcs_run_result gpu2 = gcs_run(other);
        double ref = gcs_max_diff(&gpu, &gpu2) / gpu.scene.size;
        double ag[9], ac[9], worst_c = 0.0, worst_b = 0.0;
        gcs_aggregates(&gpu, ag);
        gcs_aggregates(&cpu, ac);
        for (int a = 0; a < 3; ++a) worst_c = fmax(worst_c, fabs(ag[a] - ac[a]) / gpu.scene.size);
        for (int a = 3; a < 9; ++a) worst_b = fmax(worst_b, fabs(ag[a] - ac[a]) / gpu.scene.size);
        printf("%s%s: %d particles, %d steps (chaotic): max |x_gpu - x_cpu| %.3g of the scene size (GPU default vs "
               "deterministic: %.3g); centroid differs by %.3g (bound 0.05), bounding box by %.3g (not asserted); "
               "max penetration gpu %.3g m cpu %.3g m; records gpu %d cpu %d\n",
               pc->name, deterministic ? " (deterministic)" : "", gpu.count, pc->steps, rel, ref, worst_c, worst_b,
               gpu.stats.max_penetration, cpu.stats.max_penetration, gpu.stats.active, cpu.stats.active);
        const float r2 = 2.0f * dfm_cloth_def_default().contact_radius;
        CHECK(worst_c < 0.05, "%s: centroids differ by %.3g of the scene size", pc->name, worst_c);
        CHECK(gpu.stats.max_penetration <= r2 && cpu.stats.max_penetration <= r2,
              "%s: a particle sank into a shape: max penetration gpu %.4g m cpu %.4g m (bound %.4g m)", pc->name,
              gpu.stats.max_penetration, cpu.stats.max_penetration, r2);
        free(gpu2.x);
    }
    if (pc->drive == gcs_pinch_drive && pc->steps >= 100) {
        /* physical outcome on the GPU: the cloth's lowest point rose with the pads */
        float zmin = 1e30f;
        for (int32_t i = 0; i < gpu.count; ++i) zmin = fminf(zmin, gpu.x[3 * i + 2]);
        CHECK(zmin > 0.08f, "%s: pinched cloth was not lifted on the GPU (lowest z %.3f m)", pc->name, zmin);
    }
    free(gpu.x);
    free(cpu.x);
    return 0;
}

int main(int argc, char** argv) {
    int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    const parity_case cases[] = {
        {"cloth on plane", gcs_plane, NULL, 1, 100, 1e-3, 0},
        {"cloth on sphere + box", gcs_sphere_box, NULL, 1, 100, 0.0, 1},
        {"soft cube on box", gcs_soft_cube, NULL, 1, 100, 1e-3, 0},
        {"cloth on mesh box", gcs_mesh_box, NULL, 1, 100, 0.0, 1},
        {"pinch and lift", gcs_pinch, gcs_pinch_drive, 1, 110, 0.0, 1},
        {"four environments", gcs_environments, NULL, 4, 100, 1e-3, 0},
    };
    if (small) {
        parity_case pc = cases[4];
        pc.steps = 12;
        pc.tolerance = 1.0;
        if (compare(&pc, 0) || compare(&pc, 1)) return 77; /* default and deterministic kernels */
        return dfm_test_finish("test_gpu_contact_parity --small");
    }
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k)
        if (compare(&cases[k], 0)) return 77;
    (void)compare(&cases[4], 1);
    return dfm_test_finish("test_gpu_contact_parity");
}
