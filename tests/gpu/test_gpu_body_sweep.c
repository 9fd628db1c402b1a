/// The per-body sweeps reproduce the per-color solve bitwise: the same per-particle code in the
/// same color order, only where it reads its data from changes.
/// - DFM_CUDA_BODY_SWEEP=1 (issue 15, first slice: a block per body walks every color of an
///   iteration on global memory, kernels/cuda/vbd_cuda.cu solve_body_sweep_kernel) against the
///   per-color tiled solve (every color forced tiled: DFM_CUDA_TILED_MAX).
/// - DFM_CUDA_BODY_SWEEP=2 (second slice: the body's x, x_prev, d, y staged in shared memory,
///   the substep's iterations in one launch, kernels/cuda/vbd_cuda_sweep_shared.cuh) and =3 (third
///   slice: the element data and adjacency staged too where the body fits, the body resident in
///   shared memory, kernels/cuda/vbd_cuda_sweep_resident.cuh) against the per-color path with
///   every color tiled and with every color serial (DFM_CUDA_TILED_MAX=0; the sweeps take each
///   color's layout from the per-color path); with the AVBD penalty ramp on (one launch per
///   iteration, staged per iteration); with DFM_CUDA_SWEEP_SHARED capping the staged bytes so that
///   one of two cloths (or both) drops a tier (resident -> particles staged -> global memory);
///   with a 24 x 24 cloth (cloth-lift's body: 211 KB resident, above the 48 KB default, so the
///   raised limit is exercised); and with tiled thresholds that split the colors (mixed layouts).
/// Which tier ran is not left to inference: the backend counts the blocks of each tier
/// (dfm_cuda_backend_sweep_info, read through the world's internals), and every run checks that
/// exactly the expected tiers ran. A tier that should have run and did not, or one that ran and
/// should not have, fails the test.
/// Scenes: a pinched cloth with contacts, a soft cube (the tet-only kernel), four environments
/// (four bodies, four blocks), two cloths of different sizes, one 24 x 24 cloth. Deterministic
/// mode throughout. The knobs are read at world creation; bad values are refused. `--small`: 25
/// steps a run instead of 60 (for compute-sanitizer; the pinch's pads touch the cloth from about
/// step 10). `--resident-only`: only the runs of mode 3 and their per-color references (the
/// sanitizer phase's racecheck of the new kernel). `--sanitize`: the shortest run that still reaches
/// every resident-sweep kernel (mode 3 only, 12 steps: the pinch with contacts, the soft cube's tet-only
/// kernel, the 24 x 24 cloth above 48 KB), for racecheck and synccheck, whose cost grows with every shared
/// access (the full `--resident-only` run did not finish in 7 minutes under racecheck on the H200).
/// `--race`: mode 3 runs alone, no per-color reference (racecheck instruments every kernel; the
/// `--sanitize` run's references did not finish in 150 s under it): the pinch for 12 steps (its pads
/// touch from about step 10) and 2 steps of the 24 x 24 cloth, each checked only for the resident tier.
/// Skips (77) without a usable CUDA device.
#define _POSIX_C_SOURCE 200112L /* setenv, unsetenv */
#include <stdlib.h>

#include "gpu_contact_scenes.h"
#include "world_internal.h" /* w->cuda: the sweep's tier counts */

/// Steps of each run (--small: 25).
static int32_t g_steps = 60;
/// --resident-only: only the runs that involve mode 3 (and their references), for the slower
/// compute-sanitizer tools.
static int g_resident_only = 0;
/// --sanitize: mode 3 only, the fewest scenes and steps that reach its kernels.
static int g_sanitize = 0;

/// Every color tiled (DFM_CUDA_TILED_MAX above any color).
#define ALL_TILED "2147483647"
/// Every color serial.
#define ALL_SERIAL "0"

/// What the shared sweeps planned and ran in one run, for bodies 0 and 1 (read before the world goes).
typedef struct sweep_seen {
    int ok; ///< The backend answered.
    dfm_cuda_sweep_info info[2];
} sweep_seen;

static void inspect(dfm_world* w, void* user) {
    sweep_seen* s = (sweep_seen*)user;
    char err[256] = "";
    s->ok = w->cuda != NULL;
    for (int k = 0; k < 2 && s->ok; ++k)
        s->ok = dfm_cuda_backend_sweep_info(w->cuda, k, &s->info[k], err, sizeof(err)) == 0;
    CHECK(s->ok, "dfm_cuda_backend_sweep_info: %s", err);
}

/// One run with the sweep knob, the tiled threshold and the shared cap (NULL: unset, the device
/// limit); what the sweeps ran into *seen.
static gcs_run_result run_seen(const char* sweep, const char* tiled_max, const char* shared, gcs_run_desc d, float beta,
                               sweep_seen* seen) {
    setenv("DFM_CUDA_BODY_SWEEP", sweep, 1);
    setenv("DFM_CUDA_TILED_MAX", tiled_max, 1);
    if (shared) setenv("DFM_CUDA_SWEEP_SHARED", shared, 1);
    memset(seen, 0, sizeof(*seen));
    gcs_run_result r = gcs_run_inspect(d, beta, inspect, seen);
    unsetenv("DFM_CUDA_BODY_SWEEP");
    unsetenv("DFM_CUDA_TILED_MAX");
    unsetenv("DFM_CUDA_SWEEP_SHARED");
    return r;
}

/// run_seen without looking.
static gcs_run_result run_with(const char* sweep, const char* tiled_max, const char* shared, gcs_run_desc d,
                               float beta) {
    sweep_seen seen;
    return run_seen(sweep, tiled_max, shared, d, beta, &seen);
}

/// Checks that exactly the tiers marked 1 ran blocks (resident, particles staged, global memory).
static void tiers(const char* what, const char* how, const sweep_seen* s, int resident, int staged, int global) {
    const int want[3] = {resident, staged, global};
    const char* names[3] = {"resident", "particles staged", "global"};
    const int64_t* n = s->info[0].blocks;
    printf("%s, %s: blocks resident %lld, particles staged %lld, global %lld (resident launch %d B, staged launch %d "
           "B)\n",
           what, how, (long long)n[0], (long long)n[1], (long long)n[2], s->info[0].resident_launch_bytes,
           s->info[0].staged_launch_bytes);
    for (int k = 0; k < 3; ++k)
        CHECK((n[k] > 0) == want[k], "%s, %s: %s tier ran %lld blocks, expected %s", what, how, names[k],
              (long long)n[k], want[k] ? "some" : "none");
}

/// Checks run `b` bitwise equal to the reference `a` (positions and the shapes' reactions).
static void same(const char* what, const char* how, const gcs_run_result* a, const gcs_run_result* b) {
    const int equal = a->count == b->count && memcmp(a->x, b->x, sizeof(float) * 3 * (size_t)a->count) == 0;
    printf("%s, %s: max diff %.3g m (bitwise %s)\n", what, how, gcs_max_diff(a, b), equal ? "equal" : "DIFFERENT");
    CHECK(equal, "%s, %s: differs from the per-color solve", what, how);
    CHECK(b->reaction_z == a->reaction_z, "%s, %s: reactions differ (%.9g vs %.9g N)", what, how, b->reaction_z,
          a->reaction_z);
}

/// Both sweeps against the per-color path on one scene; returns 1 when there is no device.
static int pair(const char* what, gcs_setup_fn setup, gcs_drive_fn drive, int32_t envs, float beta) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, envs, g_steps, setup, drive, 0};
    gcs_run_result tiled = run_with("0", ALL_TILED, NULL, d, beta);
    if (tiled.skipped) return 1;
    gcs_run_result serial = run_with("0", ALL_SERIAL, NULL, d, beta);
    printf("%s: serial kernel vs tiled %.3g m (other rounding, not asserted)\n", what, gcs_max_diff(&tiled, &serial));
    /* Each sweep run: mode, layout (1 = every color serial), what it is, the tiers that must run
     * (resident, particles staged, global; mode 1 has no tiers). */
    typedef struct sweep_case {
        const char* mode;
        int serial;
        const char* how;
        int tier[3];
    } sweep_case;
    const sweep_case cases[5] = {
        {"1", 0, "sweep (global) vs per-color tiled", {0, 0, 0}},
        {"2", 0, "shared sweep vs per-color tiled", {0, 1, 0}},
        {"2", 1, "shared sweep vs per-color serial", {0, 1, 0}},
        {"3", 0, "resident sweep vs per-color tiled", {1, 0, 0}},
        {"3", 1, "resident sweep vs per-color serial", {1, 0, 0}},
    };
    for (int k = g_resident_only ? 3 : 0; k < 5; ++k) {
        const sweep_case* q = &cases[k];
        sweep_seen seen;
        gcs_run_result r = run_seen(q->mode, q->serial ? ALL_SERIAL : ALL_TILED, NULL, d, beta, &seen);
        same(what, q->how, q->serial ? &serial : &tiled, &r);
        tiers(what, q->how, &seen, q->tier[0], q->tier[1], q->tier[2]);
        free(r.x);
    }
    free(tiled.x);
    free(serial.x);
    return 0;
}

/// Two cloths on a plane: 6 x 6 (36 particles: 1728 bytes staged) and 14 x 14 (196: 9408 bytes).
static void two_sizes(dfm_world* w, gcs_scene* s) {
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_plane_def(), 0, 0, 0, NULL);
    gcs_cloth(w, s, 6, 0.1f, -0.3f, 0, 0.05f);
    gcs_cloth(w, s, 14, 0.3f, 0.3f, 0, 0.05f);
    s->size = 0.8f;
}

/// One run of the two cloths at `sweep` and cap `shared` in layout `tiled_max`, bitwise against
/// `ref` and with exactly the expected tiers.
static void two_sizes_case(const char* sweep, const char* tiled_max, int32_t cap, const gcs_run_result* ref,
                           gcs_run_desc d, const char* why, int resident, int staged, int global) {
    char how[200], cap_s[32];
    snprintf(cap_s, sizeof(cap_s), "%d", (int)cap);
    snprintf(how, sizeof(how), "mode %s, %s layout, DFM_CUDA_SWEEP_SHARED=%d (%s)", sweep,
             tiled_max[0] == '0' ? "serial" : "tiled", (int)cap, why);
    sweep_seen seen;
    gcs_run_result r = run_seen(sweep, tiled_max, cap_s, d, 0.0f, &seen);
    same("two cloths", how, ref, &r);
    tiers("two cloths", how, &seen, resident, staged, global);
    free(r.x);
}

/// The fallbacks, proven by the tier counts: mode 2 with a 4096-byte cap stages the small cloth
/// (1728 bytes) and runs the large one (9408) on global memory, with 0 both on global memory; mode
/// 3 at the device limit keeps both resident, with the cap at the larger of the small cloth's
/// resident layout and the large one's particle state the small one stays resident and the large
/// one drops to particles staged, with the cap at the small cloth's particle state the small one
/// is staged and the large one global, with 0 both global. Each in both layouts, bitwise the
/// per-color path. The resident sizes come from the backend's plan (a first run), not from a
/// formula repeated here.
static void fallback(void) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, 1, g_steps, two_sizes, NULL, 0};
    const char* layouts[2] = {ALL_TILED, ALL_SERIAL};
    for (int l = 0; l < 2; ++l) {
        gcs_run_result ref = run_with("0", layouts[l], NULL, d, 0.0f);
        if (!g_resident_only) {
            two_sizes_case("2", layouts[l], 4096, &ref, d, "the small cloth staged, the large one global", 0, 1, 1);
            two_sizes_case("2", layouts[l], 0, &ref, d, "both global", 0, 0, 1);
        }
        sweep_seen plan;
        gcs_run_result r = run_seen("3", layouts[l], NULL, d, 0.0f, &plan);
        same("two cloths", "mode 3 at the device limit (both resident)", &ref, &r);
        tiers("two cloths", "mode 3 at the device limit (both resident)", &plan, 1, 0, 0);
        free(r.x);
        const dfm_cuda_sweep_info* a = &plan.info[0];
        const dfm_cuda_sweep_info* b = &plan.info[1];
        if (a->body_resident_bytes > b->body_resident_bytes) {
            const dfm_cuda_sweep_info* t = a;
            a = b;
            b = t;
        }
        printf("two cloths: small cloth %d B resident / %d B staged, large %d B / %d B\n", a->body_resident_bytes,
               a->body_staged_bytes, b->body_resident_bytes, b->body_staged_bytes);
        CHECK(plan.info[0].resident_bodies == 2, "mode 3 at the device limit: %d resident bodies, expected 2",
              plan.info[0].resident_bodies);
        const int32_t cap_a = a->body_resident_bytes > b->body_staged_bytes ? a->body_resident_bytes
                                                                            : b->body_staged_bytes;
        CHECK(a->body_staged_bytes > 0 && cap_a < b->body_resident_bytes && a->body_staged_bytes < b->body_staged_bytes,
              "two cloths: sizes do not separate the tiers (%d, %d, %d, %d)", a->body_resident_bytes,
              a->body_staged_bytes, b->body_resident_bytes, b->body_staged_bytes);
        two_sizes_case("3", layouts[l], cap_a, &ref, d, "the small cloth resident, the large one staged", 1, 1, 0);
        two_sizes_case("3", layouts[l], a->body_staged_bytes, &ref, d, "the small cloth staged, the large one global",
                       0, 1, 1);
        two_sizes_case("3", layouts[l], 0, &ref, d, "both global", 0, 0, 1);
        free(ref.x);
    }
}

/// One 24 x 24 cloth on a plane (cloth-lift's body size).
static void cloth_24(dfm_world* w, gcs_scene* s) {
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_plane_def(), 0, 0, 0, NULL);
    gcs_cloth(w, s, 24, 0.4f, 0, 0, 0.05f);
    s->size = 0.4f;
}

/// The benchmark's body size resident: 211 KB of dynamic shared memory (the kernel's limit raised
/// above 48 KB at upload), bitwise the per-color path in both layouts.
static void large_body(void) {
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, 1, g_steps, cloth_24, NULL, 0};
    const char* layouts[2] = {ALL_TILED, ALL_SERIAL};
    for (int l = 0; l < 2; ++l) {
        gcs_run_result ref = run_with("0", layouts[l], NULL, d, 0.0f);
        sweep_seen seen;
        gcs_run_result r = run_seen("3", layouts[l], NULL, d, 0.0f, &seen);
        const char* how = l ? "resident sweep vs per-color serial" : "resident sweep vs per-color tiled";
        same("24 x 24 cloth", how, &ref, &r);
        tiers("24 x 24 cloth", how, &seen, 1, 0, 0);
        CHECK(seen.info[0].resident_launch_bytes > 48 * 1024,
              "24 x 24 cloth: resident launch of %d bytes, expected "
              "above 48 KB",
              seen.info[0].resident_launch_bytes);
        free(r.x);
        free(ref.x);
    }
}

/// Mixed layouts (some colors serial, some tiled: the sweep's third kernel): the per-color path and
/// the shared sweep at tiled thresholds between the colors' sizes (which thresholds split them
/// depends on the coloring, so several are tried; each pair must agree whatever it splits).
static void mixed(void) {
    const float beta = 0.0f;
    const char* thresholds[4] = {"16", "40", "64", "100"};
    gcs_run_desc d = {DFM_BACKEND_CUDA, 0u, 1, 4, g_steps, gcs_environments, NULL, 0};
    for (int k = 0; k < 4; ++k) {
        char how[96];
        snprintf(how, sizeof(how), "shared sweep vs per-color, DFM_CUDA_TILED_MAX=%s", thresholds[k]);
        gcs_run_result ref = run_with("0", thresholds[k], NULL, d, beta);
        gcs_run_result r;
        if (!g_resident_only) {
            r = run_with("2", thresholds[k], NULL, d, beta);
            same("four environments", how, &ref, &r);
            free(r.x);
        }
        snprintf(how, sizeof(how), "resident sweep vs per-color, DFM_CUDA_TILED_MAX=%s", thresholds[k]);
        sweep_seen seen;
        r = run_seen("3", thresholds[k], NULL, d, beta, &seen);
        same("four environments", how, &ref, &r);
        tiers("four environments", how, &seen, 1, 0, 0);
        free(ref.x);
        free(r.x);
    }
}

static void bad_knob(const char* name, const char* value) {
    setenv(name, value, 1);
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CUDA;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    unsetenv(name);
    printf("%s=%s: %s\n", name, value, r == DFM_OK ? "accepted" : dfm_world_last_error(NULL));
    CHECK(r == DFM_ERROR_INVALID_VALUE, "%s=%s: result %d, expected DFM_ERROR_INVALID_VALUE", name, value, (int)r);
    if (w) dfm_world_destroy(w);
}

/// --race: the resident kernels alone (both layouts), each run checked for its tier only.
static int race_only(void) {
    const char* layouts[2] = {ALL_TILED, ALL_SERIAL};
    for (int l = 0; l < 2; ++l) {
        gcs_run_desc pinch = {DFM_BACKEND_CUDA, 0u, 1, 1, 12, gcs_pinch, gcs_pinch_drive, 0};
        gcs_run_desc big = {DFM_BACKEND_CUDA, 0u, 1, 1, 2, cloth_24, NULL, 0};
        sweep_seen seen;
        gcs_run_result r = run_seen("3", layouts[l], NULL, pinch, 0.0f, &seen);
        if (r.skipped) return 77;
        tiers("cloth pinch (race)", l ? "serial" : "tiled", &seen, 1, 0, 0);
        free(r.x);
        r = run_seen("3", layouts[l], NULL, big, 0.0f, &seen);
        tiers("24 x 24 cloth (race)", l ? "serial" : "tiled", &seen, 1, 0, 0);
        free(r.x);
    }
    return dfm_test_finish("test_gpu_body_sweep --race");
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* a sanitizer run cut by a timeout still shows how far it got */
    for (int k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "--small") == 0) g_steps = 25;
        if (strcmp(argv[k], "--resident-only") == 0) g_resident_only = 1;
        if (strcmp(argv[k], "--sanitize") == 0) g_sanitize = g_resident_only = 1, g_steps = 12;
    }
    for (int k = 1; k < argc; ++k)
        if (strcmp(argv[k], "--race") == 0) return race_only();
    if (g_sanitize) {
        if (pair("cloth pinch (contacts)", gcs_pinch, gcs_pinch_drive, 1, 0.0f)) return 77;
        pair("soft cube (tet-only kernel)", gcs_soft_cube, NULL, 1, 0.0f);
        large_body();
        return dfm_test_finish("test_gpu_body_sweep --sanitize");
    }
    if (pair("cloth pinch (contacts)", gcs_pinch, gcs_pinch_drive, 1, 0.0f)) return 77;
    pair("cloth pinch, penalty ramp (a launch per iteration)", gcs_pinch, gcs_pinch_drive, 1, 1e5f);
    pair("soft cube (tet-only kernel)", gcs_soft_cube, NULL, 1, 0.0f);
    pair("four environments (four blocks)", gcs_environments, NULL, 4, 0.0f);
    fallback();
    large_body();
    mixed();
    bad_knob("DFM_CUDA_BODY_SWEEP", "4");
    bad_knob("DFM_CUDA_SWEEP_BLOCK", "100");
    bad_knob("DFM_CUDA_SWEEP_MAX", "0");
    bad_knob("DFM_CUDA_SWEEP_SHARED", "-1");
    bad_knob("DFM_CUDA_SWEEP_SHARED", "64k");
    bad_knob("DFM_CUDA_SWEEP_SHARED", "1000000000"); /* above any device's limit */
    return dfm_test_finish("test_gpu_body_sweep");
}
