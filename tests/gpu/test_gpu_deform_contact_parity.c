/// Deformable-deformable contact on the CUDA backend (issue 16) against the CPU backend, by
/// physical outcomes (the two backends' float arithmetic differs, so trajectories are not
/// compared bitwise), at the world's default 4 substeps x 10 iterations, 60 Hz, radius 5 mm
/// (the scenes of tests/physics/test_physics_deform_contact.c):
///
/// - stack: a 0.3 m cloth (11 x 11) dropped from 4 cm onto a 0.4 m cloth (13 x 13) on a box, 1 s.
///   On both backends the smallest signed distance of an upper vertex to the lower sheet over
///   every step is >= 0 (no pass-through), the CUDA run found pairs (stats), and the upper
///   sheet's final mean height is within one contact radius (5 mm) of the CPU's. Negative
///   control: on CUDA with radius 0 the sheets meet (min < half the radius).
/// - fold: one cloth folded onto itself (upper half 2 cm over the lower, self_collision 1) on a
///   box, 1 s: min signed distance of the upper half to the lower >= 0 on CUDA; with
///   self_collision 0 on CUDA it goes below 0 (control).
/// - cubes: a soft 6 cm cube (5^3 vertices) on another on a frictionless floor; after 1 s, the
///   floor's reaction averaged over 1/3 s carries both weights within 1% of the top cube's weight
///   on CUDA (as the CPU test asks), and the cubes do not interpenetrate.
/// - cubes3: three such cubes stacked: the floor carries the weights within 1% of the two upper
///   cubes' weight on CUDA (the middle cube has pairs on two sides: the body-graph balance of the
///   final forces, kernels/cpu/deform_balance.c, which both backends run), no interpenetration.
/// - determinism: stack for 1/3 s twice on CUDA in deterministic mode: bitwise equal positions.
///
/// Every failure message names the backend, the quantity, both values and the bound. Skips (77)
/// without a usable CUDA device. Run one part with its name as the argument (no argument: all;
/// `--small`: a few steps of the CUDA scenes, for compute-sanitizer).
#include "dfm_test.h"
#include "dfm_test_layers.h"
#include "dfm_test_shapes.h"

static const float k_radius = 0.005f;

static const char* backend_name(int32_t backend) { return backend == DFM_BACKEND_CUDA ? "cuda" : "cpu"; }

/// A world on `backend` (CUDA: deterministic when asked) with deformable contact of `radius`.
static dfm_world* make_world(int32_t backend, int deterministic, float radius) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = backend;
    def.deterministic = deterministic;
    def.deformable_contact_radius = radius;
    return dfm_test_create(&def); /* exits 77 when the CUDA device is not usable */
}

/// Outcome of one stack run.
typedef struct stack_result {
    double min_sd;    ///< Smallest signed distance of an upper vertex to the lower sheet, m.
    int32_t min_step; ///< Step it was seen at.
    float zu, zl;     ///< Final mean heights of the upper and lower sheets, m.
    int32_t pairs;    ///< Deformable pairs of the last advance.
    int64_t dropped;  ///< Candidates dropped over the run.
    int32_t n;        ///< Particles in x.
    float* x;         ///< Final positions of the world (malloc'ed; the caller frees).
} stack_result;

static stack_result run_stack(int32_t backend, int deterministic, float radius, int steps) {
    stack_result r;
    memset(&r, 0, sizeof(r));
    dfm_world* w = make_world(backend, deterministic, radius);
    const dfm_test_layer_run run = dfm_test_run_stack(w, steps);
    r.min_sd = run.min_sd;
    r.min_step = run.min_step;
    r.zl = run.zl;
    r.zu = run.zu;
    r.pairs = run.stats.deformable_pairs;
    r.dropped = run.stats.deformable_pairs_dropped_total;
    r.n = run.stats.particle_count;
    r.x = (float*)malloc(sizeof(float) * 3 * (size_t)r.n);
    CHECK_OK(w, dfm_world_get_positions(w, 0, r.n, r.x, 0));
    printf("stack %s%s radius %g m, %d steps: min signed distance %.5f m (step %d); final mean z lower %.4f, upper "
           "%.4f m; %d pairs last advance, %lld dropped\n",
           backend_name(backend), deterministic ? " (deterministic)" : "", (double)radius, steps, r.min_sd, r.min_step,
           (double)r.zl, (double)r.zu, r.pairs, (long long)r.dropped);
    dfm_world_destroy(w);
    return r;
}

static void stack(void) {
    stack_result cpu = run_stack(DFM_BACKEND_CPU, 0, k_radius, 60);
    stack_result gpu = run_stack(DFM_BACKEND_CUDA, 0, k_radius, 60);
    CHECK(cpu.min_sd >= 0.0, "stack cpu: the upper cloth passed through (min signed distance %g m, bound >= 0)",
          cpu.min_sd);
    CHECK(gpu.min_sd >= 0.0,
          "stack cuda: the upper cloth passed through (min signed distance %g m at step %d, bound >= 0; cpu %g m)",
          gpu.min_sd, gpu.min_step, cpu.min_sd);
    CHECK(gpu.pairs > 0, "stack cuda: no deformable pairs in the last advance (cpu: %d)", cpu.pairs);
    CHECK(gpu.dropped == 0 && cpu.dropped == 0, "stack: candidates dropped (cpu %lld, cuda %lld; bound 0)",
          (long long)cpu.dropped, (long long)gpu.dropped);
    CHECK(fabsf(gpu.zu - cpu.zu) <= k_radius,
          "stack: final mean height of the upper sheet cuda %.5f m vs cpu %.5f m (|diff| %.5f m, bound %.4f m)",
          (double)gpu.zu, (double)cpu.zu, (double)fabsf(gpu.zu - cpu.zu), (double)k_radius);
    stack_result off = run_stack(DFM_BACKEND_CUDA, 0, 0.0f, 60);
    CHECK(off.min_sd < 0.5 * k_radius,
          "stack cuda, radius 0 (control): the sheets should meet (min %g m, bound < %g m): the check cannot fail",
          off.min_sd, 0.5 * (double)k_radius);
    free(cpu.x);
    free(gpu.x);
    free(off.x);
}

/// The fold scene of test_physics_deform_contact.c (dfm_test_run_fold) on `backend`; returns the
/// smallest signed distance of the upper half (away from the fold row) to the lower half over
/// `steps` steps.
static double run_fold(int32_t backend, int self_collision, int steps) {
    dfm_world* w = make_world(backend, 0, k_radius);
    const double worst = dfm_test_run_fold(w, backend_name(backend), self_collision, steps).min_sd;
    dfm_world_destroy(w);
    return worst;
}

static void fold(void) {
    double cpu = run_fold(DFM_BACKEND_CPU, 1, 60), gpu = run_fold(DFM_BACKEND_CUDA, 1, 60);
    CHECK(gpu >= 0.0,
          "fold cuda: the folded cloth passed through itself (min signed distance %g m, bound >= 0; "
          "cpu %g m)",
          gpu, cpu);
    double off = run_fold(DFM_BACKEND_CUDA, 0, 60);
    CHECK(off < 0.0, "fold cuda, self_collision 0 (control): the halves should interpenetrate (min %g m, bound < 0)",
          off);
}

/// The cubes scene on `backend` with `count` (2 or 3) 6 cm cubes stacked r apart: the floor
/// reaction error as a fraction of the weight the deformable contacts carry (every cube's but the
/// bottom one's), and the smallest gap between a cube's bottom and the top of the cube below (m).
static void run_cubes(int32_t backend, int count, int settle, int window, double* err_frac, double* min_gap_out) {
    dfm_world* w = make_world(backend, 0, k_radius);
    dfm_shape_id floor_id = dfm_test_add_frictionless_floor(w);
    const float H = 0.06f;
    dfm_test_tets cube[3];
    dfm_body_id id[3];
    double weight[3], total = 0.0;
    dfm_volume_def vd = dfm_volume_def_default();
    for (int k = 0; k < count; ++k) {
        const float z0 = (float)k * (H + k_radius);
        float lo[3] = {-0.03f, -0.03f, z0}, hi[3] = {0.03f, 0.03f, z0 + H};
        cube[k] = dfm_test_make_tet_box(5, lo, hi);
        id[k] = dfm_test_add_volume(w, &cube[k], vd);
        dfm_body_info info = dfm_body_info_init();
        CHECK_OK(w, dfm_body_get_info(w, id[k], &info));
        weight[k] = info.total_mass * 9.81;
        total += weight[k];
    }
    double Rz = 0.0, min_gap = 1e30;
    const int32_t n = cube[0].vertex_count;
    float* xl = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    float* xu = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    for (int s = 0; s < settle + window; ++s) {
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        for (int k = 0; k + 1 < count; ++k) {
            CHECK_OK(w, dfm_body_get_positions(w, id[k], 0, n, xl, 0));
            CHECK_OK(w, dfm_body_get_positions(w, id[k + 1], 0, n, xu, 0));
            const double gap = dfm_scene_z_gap(xl, n, xu, n);
            if (gap < min_gap) min_gap = gap;
        }
        if (s >= settle) {
            float f[3];
            CHECK_OK(w, dfm_world_get_shape_reactions(w, &floor_id, 1, f, NULL, 0));
            Rz -= f[2] / window;
        }
    }
    *err_frac = fabs(Rz - total) / (total - weight[0]);
    *min_gap_out = min_gap;
    printf("cubes%d %s: floor reaction %.5f N for the weights %.5f N (error %.3f%% of the weight above the bottom "
           "cube); smallest gap between stacked cubes %.5f m\n",
           count, backend_name(backend), Rz, total, 100.0 * *err_frac, min_gap);
    free(xl);
    free(xu);
    for (int k = 0; k < count; ++k) dfm_test_free_tets(&cube[k]);
    dfm_world_destroy(w);
}

/// Both backends on `count` stacked cubes: CUDA's floor reaction within 1% of the weight above
/// the bottom cube, no interpenetration.
static void cubes_n(int count, int settle) {
    double ec = 0, gc = 0, eg = 0, gg = 0;
    run_cubes(DFM_BACKEND_CPU, count, settle, 20, &ec, &gc);
    run_cubes(DFM_BACKEND_CUDA, count, settle, 20, &eg, &gg);
    CHECK(eg <= 0.01,
          "cubes%d cuda: the floor's reaction is off the weights by %.3f%% of the weight above the bottom cube "
          "(bound 1%%; cpu %.3f%%)",
          count, 100.0 * eg, 100.0 * ec);
    /* the gap here is between z extents (a cube's lowest vertex over the highest of the one below),
       a signed distance only while the cubes stay level: two cubes do (0.0048 m on both backends,
       H200 session 12), three tilt by under a degree, and the extents then overlap on both
       backends (cpu -0.0008, cuda -0.0003 m) while the faces' signed distance stays above r / 2
       (test_physics_deform_contact cubes3 and its CUDA run check that). So: > 0 for two, within
       r / 2 of the CPU's for three. */
    if (count == 2)
        CHECK(gg > 0.0, "cubes2 cuda: the cubes interpenetrate (smallest gap %g m, bound > 0; cpu %g m)", gg, gc);
    else
        CHECK(fabs(gg - gc) <= 0.5 * k_radius,
              "cubes%d cuda: the smallest z-extent gap %g m is off the cpu's %g m by more than r / 2", count, gg, gc);
}

static void cubes(void) { cubes_n(2, 60); }

/// Three cubes: the middle one has pairs above and below, so only the balance over the body graph
/// reads the weights (the earlier per-body scale read 83% of them, docs/DESIGN.md).
static void cubes3(void) { cubes_n(3, 60); }

/// Two deterministic CUDA runs of `steps` steps of the stack scene: bitwise equal positions.
static void determinism_steps(int steps) {
    stack_result a = run_stack(DFM_BACKEND_CUDA, 1, k_radius, steps);
    stack_result b = run_stack(DFM_BACKEND_CUDA, 1, k_radius, steps);
    int32_t first = -1;
    float worst = 0.0f;
    for (int32_t k = 0; a.n == b.n && k < 3 * a.n; ++k) {
        if (memcmp(a.x + k, b.x + k, sizeof(float)) != 0 && first < 0) first = k;
        worst = fmaxf(worst, fabsf(a.x[k] - b.x[k]));
    }
    CHECK(a.n == b.n && first < 0,
          "determinism cuda: two deterministic runs of %d steps differ (particles %d vs %d; first differing coordinate "
          "%d of particle %d: %.9g vs %.9g; max |diff| %.3g m)",
          steps, a.n, b.n, first, first / 3, first >= 0 ? (double)a.x[first] : 0.0,
          first >= 0 ? (double)b.x[first] : 0.0, (double)worst);
    printf("determinism cuda: two deterministic runs %s (max |diff| %.3g m)\n", first < 0 ? "bitwise equal" : "DIFFER",
           (double)worst);
    free(a.x);
    free(b.x);
}

static void determinism(void) { determinism_steps(20); }

/// For compute-sanitizer (tests/gpu/run-on-gpu.sh): every new kernel on a few steps (the stack
/// twice in deterministic mode, compared bitwise; three cubes on a floor for the final forces,
/// their balance over the body graph and the reaction correction).
static void small(void) {
    determinism_steps(3);
    double e = 0, g = 0;
    run_cubes(DFM_BACKEND_CUDA, 3, 2, 1, &e, &g);
}

int main(int argc, char** argv) {
    if (dfm_device_count() < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const char* what = argc > 1 ? argv[1] : "";
    const int all = what[0] == '\0';
    if (all || !strcmp(what, "stack")) stack();
    if (all || !strcmp(what, "fold")) fold();
    if (all || !strcmp(what, "cubes")) cubes();
    if (all || !strcmp(what, "cubes3")) cubes3();
    if (all || !strcmp(what, "determinism")) determinism();
    if (!strcmp(what, "--small")) small();
    return dfm_test_finish("test_gpu_deform_contact_parity");
}
