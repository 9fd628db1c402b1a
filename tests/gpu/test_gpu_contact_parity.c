/// Contact parity: the contact scenes of the CPU backend's tests and samples (cloth resting on a
/// plane, sample 02's sphere + box drape, a soft cube dropped on a box, a cloth on a mesh box
/// (device SDF grid), a cloth pinched by two pads and lifted by friction, four environments with
/// their own planes) stepped for 100+ steps on both backends. Positions agree within a tolerance
/// relative to the scene size (printed per scene; the drape over sphere and box is chaotic and
/// gets a looser bound), the summed reaction forces agree within 10% of the weight, and the
/// pinched cloth rises with the pads on the GPU too. Skips (77) without a usable CUDA device.
/// `--small` runs the pinch scene for 12 steps (for compute-sanitizer).
#include "gpu_contact_scenes.h"

typedef struct parity_case {
    const char* name;
    gcs_setup_fn setup;
    gcs_drive_fn drive;
    int32_t envs, steps;
    double tolerance;        ///< Allowed max |x_gpu - x_cpu| over the scene size.
} parity_case;

static int compare(const parity_case* pc, int deterministic) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, deterministic, pc->envs, pc->steps, pc->setup, pc->drive};
    gcs_run_result gpu = gcs_run(d);
    if (gpu.skipped) return 1;
    d.backend = DFM_BACKEND_CPU;
    gcs_run_result cpu = gcs_run(d);
    double diff = gcs_max_diff(&gpu, &cpu), rel = diff / gpu.scene.size;
    double dr = fabs((double)gpu.reaction_z - cpu.reaction_z);
    printf("%s%s: %d particles, %d steps: max |x_gpu - x_cpu| = %.3g m (%.3g of the scene size, bound %.0e); "
           "reaction z gpu %.4f N cpu %.4f N (weight %.4f N); records gpu %d cpu %d\n",
           pc->name, deterministic ? " (deterministic)" : "", gpu.count, pc->steps, diff, rel, pc->tolerance,
           gpu.reaction_z, cpu.reaction_z, gpu.scene.weight, gpu.stats.active, cpu.stats.active);
    CHECK(rel < pc->tolerance, "%s: backends differ by %.3g of the scene size", pc->name, rel);
    CHECK(dr < 0.1 * gpu.scene.weight + 1e-4, "%s: reactions differ by %.4g N", pc->name, dr);
    if (pc->drive == gcs_pinch_drive) {
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
        {"cloth on plane", gcs_plane, NULL, 1, 100, 1e-3},
        {"cloth on sphere + box (chaotic drape)", gcs_sphere_box, NULL, 1, 100, 5e-2},
        {"soft cube on box", gcs_soft_cube, NULL, 1, 100, 1e-2},
        {"cloth on mesh box", gcs_mesh_box, NULL, 1, 100, 5e-3},
        {"pinch and lift", gcs_pinch, gcs_pinch_drive, 1, 110, 2e-2},
        {"four environments", gcs_environments, NULL, 4, 100, 1e-3},
    };
    if (small) {
        parity_case pc = cases[4];
        pc.steps = 12;
        pc.tolerance = 1.0;
        if (compare(&pc, 0)) return 77;
        return dfm_test_finish("test_gpu_contact_parity --small");
    }
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k)
        if (compare(&cases[k], 0)) return 77;
    (void)compare(&cases[4], 1);
    return dfm_test_finish("test_gpu_contact_parity");
}
