/// Run-time solver swaps (dfm_world_set_solver) and the provider listing.
///
/// Scene: a 12 x 12 cloth held at two corners by kinematic vertices that the host moves 2 mm
/// per step, swinging down onto a box top 15 cm below and sliding on it. (Not over a box edge:
/// there vbd at 4 x 10 stretched the snagged cloth by 55%, and xpbd, much stiffer at the same
/// cost, restored it within one step: a 9 cm jump that is a difference between the solvers'
/// converged states, not a swap defect.) It runs vbd/cpu -> xpbd/cpu -> vbd/cpu (and -> vbd/cuda
/// where a GPU exists), 45 steps each. At every swap it checks:
/// - the swap itself changes no position or velocity (bitwise);
/// - continuity: the largest particle motion in the first step after the swap is at most 2x the
///   largest motion of the step before it (+ 0.1 mm): no jump beyond one step's motion;
/// - no energy spike: the kinetic energy over the 10 steps after the swap stays below 5x its
///   maximum over the 10 steps before it (+ 1e-5 J). The cloth slides stick-slip under the
///   moving corners, so its kinetic energy varies 1.5-3x between such windows without a swap;
///   the snag described above gave 62x;
/// - the kinematic vertices sit exactly at their targets after every step, on every solver;
/// - the info log names both solvers and what carried over.
/// Errors: NULL name, unknown name, bad backend value, a backend the provider lacks, CUDA where
/// none is usable: each a specific code, the world stays on its solver and keeps stepping.
#include "dfm_test.h"

#define DT (1.0f / 60.0f)

static char g_log[4096];
static void on_log(void* user, dfm_log_level level, const char* msg) {
    (void)user;
    if (level == DFM_LOG_INFO && strstr(msg, "solver ")) snprintf(g_log, sizeof(g_log), "%s", msg);
}

typedef struct scene {
    dfm_world* w;
    dfm_test_grid g;
    dfm_body_id id;
    float* masses;
    int32_t kin[2];
    float kin_pos[6];
    float *x, *x_prev;
} scene;

static double max_motion(const scene* s) {
    double m = 0;
    for (int32_t i = 0; i < s->g.vertex_count; ++i) {
        double d = 0;
        for (int a = 0; a < 3; ++a) d += pow((double)s->x[3 * i + a] - s->x_prev[3 * i + a], 2);
        if (!(sqrt(d) <= m)) m = sqrt(d);
    }
    return m;
}

/// One host step: move the kinematic corners 2 mm along +x, step, read positions back.
static void step(scene* s) {
    for (int k = 0; k < 2; ++k) s->kin_pos[3 * k] += 0.002f;
    CHECK_OK(s->w, dfm_body_set_kinematic_targets(s->w, s->id, s->kin, 2, s->kin_pos, 0));
    memcpy(s->x_prev, s->x, sizeof(float) * 3 * (size_t)s->g.vertex_count);
    CHECK_OK(s->w, dfm_world_step(s->w, DT));
    CHECK_OK(s->w, dfm_body_get_positions(s->w, s->id, 0, s->g.vertex_count, s->x, 0));
    for (int k = 0; k < 2; ++k)
        for (int a = 0; a < 3; ++a)
            CHECK(fabsf(s->x[3 * s->kin[k] + a] - s->kin_pos[3 * k + a]) < 1e-6f, "kinematic vertex %d off its target",
                  s->kin[k]);
}

static const char* current(dfm_world* w, int32_t* backend) {
    const char* name = NULL;
    CHECK_OK(w, dfm_world_get_solver(w, &name, backend));
    return name ? name : "(null)";
}

/// Runs 45 steps, swaps to name/backend, runs 45 more, checking continuity around the swap.
static void swap_and_check(scene* s, const char* name, int32_t backend) {
    double ke_before = 0, motion_before = 0;
    for (int k = 0; k < 45; ++k) {
        step(s);
        if (k >= 35) ke_before = fmax(ke_before, dfm_test_kinetic_energy(s->w, s->id, s->g.vertex_count, s->masses));
        motion_before = max_motion(s);
    }
    size_t n3 = 3 * (size_t)s->g.vertex_count;
    float* v0 = (float*)malloc(sizeof(float) * n3);
    float* v1 = (float*)malloc(sizeof(float) * n3);
    float* x1 = (float*)malloc(sizeof(float) * n3);
    CHECK_OK(s->w, dfm_body_get_velocities(s->w, s->id, 0, s->g.vertex_count, v0, 0));
    int32_t old_backend;
    char old_name[64];
    snprintf(old_name, sizeof(old_name), "%s", current(s->w, &old_backend));
    g_log[0] = '\0';
    CHECK_OK(s->w, dfm_world_set_solver(s->w, name, backend));
    int32_t new_backend;
    CHECK(!strcmp(current(s->w, &new_backend), name) && new_backend == backend, "solver not switched to %s", name);
    CHECK_OK(s->w, dfm_body_get_positions(s->w, s->id, 0, s->g.vertex_count, x1, 0));
    CHECK_OK(s->w, dfm_body_get_velocities(s->w, s->id, 0, s->g.vertex_count, v1, 0));
    CHECK(memcmp(x1, s->x, sizeof(float) * n3) == 0, "positions changed by the swap to %s", name);
    CHECK(memcmp(v1, v0, sizeof(float) * n3) == 0, "velocities changed by the swap to %s", name);
    CHECK(strstr(g_log, old_name) && strstr(g_log, name) && strstr(g_log, "carried over"),
          "swap log does not say what carried over: \"%s\"", g_log);
    printf("log: %s\n", g_log);
    step(s);
    double motion_after = max_motion(s), ke_after = 0;
    ke_after = dfm_test_kinetic_energy(s->w, s->id, s->g.vertex_count, s->masses);
    for (int k = 1; k < 10; ++k) {
        step(s);
        ke_after = fmax(ke_after, dfm_test_kinetic_energy(s->w, s->id, s->g.vertex_count, s->masses));
    }
    printf(
        "swap %s -> %s: largest step motion before %.3e m, after %.3e m (ratio %.2f, limit 2); KE max before %.3e J, "
        "after %.3e J (ratio %.2f, limit 5)\n",
        old_name, name, motion_before, motion_after, motion_after / motion_before, ke_before, ke_after,
        ke_after / ke_before);
    CHECK(motion_after <= 2.0 * motion_before + 1e-4, "position jump after the swap to %s", name);
    CHECK(ke_after <= 5.0 * ke_before + 1e-5, "kinetic energy spike after the swap to %s", name);
    for (int k = 0; k < 35; ++k) step(s);
    free(v0);
    free(v1);
    free(x1);
}

static void check_errors(scene* s) {
    int32_t b0;
    char before[64];
    snprintf(before, sizeof(before), "%s", current(s->w, &b0));
    CHECK(dfm_world_set_solver(NULL, "xpbd", DFM_BACKEND_CPU) == DFM_ERROR_NULL_POINTER, "NULL world");
    CHECK(dfm_world_set_solver(s->w, NULL, DFM_BACKEND_CPU) == DFM_ERROR_NULL_POINTER, "NULL name");
    CHECK(dfm_world_set_solver(s->w, "no-such-solver", DFM_BACKEND_CPU) == DFM_ERROR_UNKNOWN_SOLVER, "unknown name");
    CHECK(strstr(dfm_world_last_error(s->w), "no-such-solver") != NULL, "message: %s", dfm_world_last_error(s->w));
    CHECK(dfm_world_set_solver(s->w, "xpbd", 7) == DFM_ERROR_INVALID_ENUM, "bad backend value");
    CHECK(dfm_world_set_solver(s->w, "xpbd", DFM_BACKEND_CUDA) == DFM_ERROR_UNSUPPORTED, "xpbd on cuda");
    printf("xpbd on cuda: %s\n", dfm_world_last_error(s->w));
    if (dfm_device_count() == 0) {
        dfm_result r = dfm_world_set_solver(s->w, "vbd", DFM_BACKEND_CUDA);
        printf("vbd on cuda without a device: %s\n", dfm_world_last_error(s->w));
        CHECK(r == DFM_ERROR_DEVICE_UNAVAILABLE, "vbd/cuda without a device gave %s", dfm_result_string(r));
    }
    int32_t b1;
    CHECK(!strcmp(current(s->w, &b1), before) && b1 == b0, "a failed swap changed the solver");
    for (int k = 0; k < 5; ++k) step(s); /* still usable */
}

static void check_listing(void) {
    int32_t n = dfm_solver_count();
    CHECK(n >= 2, "%d providers listed", n);
    int found_vbd = 0, found_xpbd = 0;
    for (int32_t i = 0; i < n; ++i) {
        dfm_solver_info info = dfm_solver_info_init();
        CHECK(dfm_solver_get_info(i, &info) == DFM_OK, "info %d: %s", i, dfm_world_last_error(NULL));
        printf("provider %d: %s backends 0x%x caps 0x%x builtin %d: %s\n", i, info.name, info.backends,
               info.capabilities, info.builtin, info.description);
        if (!strcmp(info.name, "vbd"))
            found_vbd = info.builtin && (info.backends & DFM_SOLVER_BACKEND_CPU) &&
                        (info.backends & DFM_SOLVER_BACKEND_CUDA);
        if (!strcmp(info.name, "xpbd"))
            found_xpbd = info.builtin && (info.capabilities & DFM_SOLVER_CAP_CONTACTS) &&
                         (info.backends & DFM_SOLVER_BACKEND_CPU);
    }
    CHECK(found_vbd && found_xpbd, "built-in vbd (cpu+cuda) / xpbd (cpu, contacts) not listed");
    dfm_solver_info info = dfm_solver_info_init();
    CHECK(dfm_solver_get_info(n, &info) == DFM_ERROR_INDEX_OUT_OF_RANGE, "index past the end");
    CHECK(dfm_solver_get_info(-1, &info) == DFM_ERROR_INDEX_OUT_OF_RANGE, "negative index");
    CHECK(dfm_solver_get_info(0, NULL) == DFM_ERROR_NULL_POINTER, "NULL info");
    info.struct_size = 3;
    CHECK(dfm_solver_get_info(0, &info) == DFM_ERROR_STRUCT_SIZE, "bad struct size");
    CHECK(strstr(dfm_world_last_error(NULL), "struct_size") != NULL, "message: %s", dfm_world_last_error(NULL));
}

int main(void) {
    check_listing();
    scene s;
    dfm_world_def def = dfm_world_def_default();
    def.gravity[2] = -9.81f;
    def.substeps = 10; /* vbd well enough converged that both solvers agree on the resting state */
    def.iterations = 10;
    def.backend = DFM_BACKEND_CPU;
    def.log_fn = on_log;
    def.log_level = DFM_LOG_INFO;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &s.w) != DFM_OK) return 2;
    dfm_shape_def box = dfm_shape_def_default();
    box.type = DFM_SHAPE_BOX;
    box.half_extents[0] = 0.4f;
    box.half_extents[1] = 0.4f;
    box.half_extents[2] = 0.1f;
    dfm_shape_id sid;
    CHECK_OK(s.w, dfm_world_add_shape(s.w, &box, &sid));
    const int32_t n = 12;
    s.g = dfm_test_make_grid(n, n, 0.3f, 0.3f, -0.15f, -0.15f, 0.25f);
    s.masses = (float*)malloc(sizeof(float) * (size_t)s.g.vertex_count);
    for (int32_t i = 0; i < s.g.vertex_count; ++i) s.masses[i] = 0.2f * 0.09f / (float)s.g.vertex_count;
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.vertex_masses = s.masses;
    s.id = dfm_test_add_cloth(s.w, &s.g, cd);
    s.kin[0] = 0;
    s.kin[1] = n - 1; /* the two corners at v = 0: the cloth swings down onto the box */
    CHECK_OK(s.w, dfm_body_set_vertex_mode(s.w, s.id, s.kin, 2, DFM_VERTEX_KINEMATIC));
    for (int k = 0; k < 2; ++k) memcpy(s.kin_pos + 3 * k, s.g.positions + 3 * s.kin[k], 3 * sizeof(float));
    s.x = (float*)malloc(sizeof(float) * 3 * (size_t)s.g.vertex_count);
    s.x_prev = (float*)malloc(sizeof(float) * 3 * (size_t)s.g.vertex_count);
    memcpy(s.x, s.g.positions, sizeof(float) * 3 * (size_t)s.g.vertex_count);
    CHECK_OK(s.w, dfm_world_set_solver(s.w, "vbd", DFM_BACKEND_CPU)); /* no-op: already vbd/cpu */
    swap_and_check(&s, "xpbd", DFM_BACKEND_CPU);
    check_errors(&s);
    swap_and_check(&s, "vbd", DFM_BACKEND_CPU);
    if (dfm_device_count() > 0) swap_and_check(&s, "vbd", DFM_BACKEND_CUDA);
    swap_and_check(&s, "xpbd", DFM_BACKEND_CPU);
    double zmin = 1e9;
    for (int32_t i = 0; i < s.g.vertex_count; ++i) zmin = fmin(zmin, s.x[3 * i + 2]);
    CHECK(isfinite(zmin), "NaN");
    dfm_world_destroy(s.w);
    free(s.x);
    free(s.x_prev);
    free(s.masses);
    dfm_test_free_grid(&s.g);
    return dfm_test_finish("test_solver_swap");
}
