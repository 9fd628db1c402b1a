/// Deformable-deformable contact on the CPU backend (issue 16; with DFM_TEST_BACKEND=cuda on the
/// CUDA backend in deterministic mode, CTest's test_gpu_physics_deform_contact_*), physical outcomes at the world's
/// default 4 substeps x 10 iterations, 60 Hz, contact radius 5 mm. Run with one argument:
///
/// - `stack`: a 0.3 m cloth (11 x 11) dropped from 4 cm onto a 0.4 m cloth (13 x 13) lying on a
///   box. Over 1 s (it lands at 0.1 s and settles) the signed distance of every upper vertex to the lower sheet (to its closest
///   point, signed by that triangle's upward normal) stays >= 0: no vertex passes through the
///   other layer. The same scene with deformable contact off must end with the upper sheet in
///   the lower one (min signed distance below half the radius; with contact the sheets rest a
///   radius apart): the check can fail.
/// - `fold`: one 0.3 m x 0.4 m cloth folded onto itself (the upper half 2 cm over the lower one,
///   joined by a fold; self-collision on) dropped on a box: over 1 s the signed distance of every
///   upper-half vertex to the lower half stays >= 0; with self_collision 0 it goes below 0.
/// - `cubes`: a soft 6 cm cube (5^3 vertices) resting on another on a frictionless box. After
///   1 s to settle, the box's reaction averaged over the next 1/3 s carries both weights:
///   |R - (m_top + m_bottom) g| <= 1% of m_top g, i.e. the top cube's weight is carried by the
///   bottom one within 1%. Why 1% holds at rest: the reaction is the bottom cube's momentum
///   balance less the deformable-contact force it receives (contacts_cpu.h deform_force), so over a
///   window W its average differs from the weights by the system's momentum change over W, which
///   the test bounds from the measured velocities (printed), plus the pair forces' imbalance
///   between the two cubes (pair forces are equal and opposite at one iterate; the two cubes' are
///   read at the same final iterate). Also: no top-cube vertex below the bottom cube's top face
///   (minus the contact radius tolerance of 0) -- the cubes do not interpenetrate.
/// - `determinism`: `stack` for 1/3 s (through the landing) with cpu_threads 1 (twice), 2 and 0
///   (all): bitwise equal positions.
/// - `options`: bad options refused with their codes (radius < 0, NaN, above 1 m, below 1e-4 m;
///   ke <= 0; mu < 0; capacity < 0; self_collision 2; the body-level solve; swapping to xpbd),
///   the CUDA backend accepted (or absent: DFM_ERROR_DEVICE_UNAVAILABLE, never UNSUPPORTED), and
///   a pair capacity of 16 is exceeded, counted in the stats and logged.
#include "deform_contact.h"
#include "dfm_test.h"
#include "dfm_test_shapes.h"

static const float k_radius = 0.005f;

static dfm_world* make_world(float radius, int threads) {
    dfm_world_def def = dfm_world_def_default();
    dfm_test_pick_backend(&def); /* the CPU unless DFM_TEST_BACKEND=cuda */
    def.deformable_contact_radius = radius;
    def.cpu_threads = threads;
    return dfm_test_create(&def);
}

static void step_world(dfm_world* w) { CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f)); }

/// Signed distance of p to the sheet given by triangles tris (n_tris, global indices into x):
/// to its closest point, positive on the side of that triangle's normal (the sheets are built
/// with upward normals).
static float signed_distance(dfm_v3 p, const float* x, const int32_t* tris, int32_t n_tris) {
    float best = 3e38f, sign = 1.0f;
    for (int32_t t = 0; t < n_tris; ++t) {
        dfm_v3 a = dfm_v3_load(x + 3 * tris[3 * t]), b = dfm_v3_load(x + 3 * tris[3 * t + 1]),
               c = dfm_v3_load(x + 3 * tris[3 * t + 2]);
        float w[3];
        dfm_dc_point_triangle(p, a, b, c, w);
        dfm_v3 q = dfm_v3_add(dfm_v3_scale(a, w[0]), dfm_v3_add(dfm_v3_scale(b, w[1]), dfm_v3_scale(c, w[2])));
        float d = dfm_v3_len(dfm_v3_sub(p, q));
        if (d < best) {
            best = d;
            dfm_v3 n = dfm_v3_cross(dfm_v3_sub(b, a), dfm_v3_sub(c, a));
            sign = dfm_v3_dot(n, dfm_v3_sub(p, q)) >= 0.0f ? 1.0f : -1.0f;
        }
    }
    return sign * best;
}

/// Adds the support box (top face at z = 0, 0.6 m wide).
static void add_table(dfm_world* w) {
    dfm_shape_def bx = dfm_scene_box_def(0.3f, 0.3f, 0.05f);
    dfm_test_add_shape(w, bx, 0, 0, -0.05f, NULL);
}

/// The `stack` scene; returns the smallest signed distance over `steps` steps (and the final
/// positions of both sheets into out_x when not NULL, 3 floats per world particle).
static float run_stack(float radius, int threads, int steps, float* out_x, int32_t* out_n) {
    dfm_world* w = make_world(radius, threads);
    add_table(w);
    dfm_test_grid lo = dfm_test_make_grid(13, 13, 0.4f, 0.4f, -0.2f, -0.2f, 0.006f);
    dfm_test_grid up = dfm_test_make_grid(11, 11, 0.3f, 0.3f, -0.15f, -0.15f, 0.046f);
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_body_id lid = dfm_test_add_cloth(w, &lo, cd);
    dfm_body_id uid = dfm_test_add_cloth(w, &up, cd);
    const int32_t nl = lo.vertex_count, nu = up.vertex_count;
    float* xl = (float*)malloc(sizeof(float) * 3 * (size_t)nl);
    float* xu = (float*)malloc(sizeof(float) * 3 * (size_t)nu);
    float worst = 3e38f;
    int worst_step = -1;
    for (int s = 0; s < steps; ++s) {
        step_world(w);
        dfm_body_get_positions(w, lid, 0, nl, xl, 0);
        dfm_body_get_positions(w, uid, 0, nu, xu, 0);
        for (int32_t i = 0; i < nu; ++i) {
            float sd = signed_distance(dfm_v3_load(xu + 3 * i), xl, lo.triangles, lo.triangle_count);
            if (sd < worst) {
                worst = sd;
                worst_step = s;
            }
        }
    }
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    float zl = 0, zu = 0;
    for (int32_t i = 0; i < nl; ++i) zl += xl[3 * i + 2] / nl;
    for (int32_t i = 0; i < nu; ++i) zu += xu[3 * i + 2] / nu;
    printf("stack (radius %g m, %d threads): min signed distance %.5f m (step %d); final mean z lower %.4f, upper "
           "%.4f m; %d pairs, %d candidates last advance, %lld dropped\n",
           (double)radius, threads, (double)worst, worst_step, (double)zl, (double)zu, st.deformable_pairs,
           st.deformable_candidates, (long long)st.deformable_pairs_dropped_total);
    if (out_x) {
        dfm_world_get_positions(w, 0, nl + nu, out_x, 0);
        *out_n = nl + nu;
    }
    free(xl);
    free(xu);
    dfm_test_free_grid(&lo);
    dfm_test_free_grid(&up);
    dfm_world_destroy(w);
    return worst;
}

static void stack(void) {
    float on = run_stack(k_radius, 0, 60, NULL, NULL);
    CHECK(on >= 0.0f, "the upper cloth passed through the lower one (signed distance %g m)", (double)on);
    /* off, the upper sheet falls into the lower one (both end on the box): well inside the radius */
    float off = run_stack(0.0f, 0, 60, NULL, NULL);
    CHECK(off < 0.5f * k_radius, "without deformable contact the sheets should meet (min %g m)", (double)off);
}

/// One cloth folded onto itself: rows 0..nv-1 of the lower half at z0 going +y, then the upper
/// half back over it at z0 + gap (the fold is the vertical strip between rows nv-1 and nv).
static float run_fold(int self_collision, int steps) {
    dfm_world* w = make_world(k_radius, 0);
    add_table(w);
    const int32_t nu = 11, half = 8, nv = 2 * half;
    const float width = 0.3f, len = 0.2f, z0 = 0.006f, gap = 0.02f;
    int32_t n = nu * nv, nt = 2 * (nu - 1) * (nv - 1);
    float* pos = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    int32_t* tri = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)nt);
    for (int32_t j = 0; j < nv; ++j)
        for (int32_t i = 0; i < nu; ++i) {
            float* p = pos + 3 * (j * nu + i);
            p[0] = -0.5f * width + width * (float)i / (float)(nu - 1);
            int32_t r = j < half ? j : nv - 1 - j; /* the upper half runs back */
            p[1] = -0.5f * len + len * (float)r / (float)(half - 1);
            p[2] = j < half ? z0 : z0 + gap;
        }
    int32_t k = 0;
    for (int32_t j = 0; j + 1 < nv; ++j)
        for (int32_t i = 0; i + 1 < nu; ++i) {
            int32_t a = j * nu + i, b = a + 1, c = a + nu, d = c + 1;
            /* lower half: normals up; the upper half is the same winding run backwards, whose
               normals point down: the signed distance below uses the lower half only */
            tri[3 * k] = a, tri[3 * k + 1] = b, tri[3 * k + 2] = d, ++k;
            tri[3 * k] = a, tri[3 * k + 1] = d, tri[3 * k + 2] = c, ++k;
        }
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.positions = pos;
    cd.vertex_count = n;
    cd.triangles = tri;
    cd.triangle_count = nt;
    cd.self_collision = self_collision;
    dfm_body_id id;
    CHECK_OK(w, dfm_world_add_cloth(w, &cd, &id));
    const int32_t lower_tris = 2 * (nu - 1) * (half - 1); /* rows 0..half-1 */
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    float worst = 3e38f;
    int worst_step = -1;
    for (int s = 0; s < steps; ++s) {
        step_world(w);
        dfm_body_get_positions(w, id, 0, n, x, 0);
        /* upper-half vertices away from the fold row (whose neighbours are the fold strip) */
        for (int32_t j = half + 1; j < nv; ++j)
            for (int32_t i = 0; i < nu; ++i) {
                float sd = signed_distance(dfm_v3_load(x + 3 * (j * nu + i)), x, tri, lower_tris);
                if (sd < worst) {
                    worst = sd;
                    worst_step = s;
                }
            }
    }
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    printf("fold (self_collision %d): min signed distance of the upper half over the lower %.5f m (step %d); %d "
           "pairs last advance\n",
           self_collision, (double)worst, worst_step, st.deformable_pairs);
    free(pos);
    free(tri);
    free(x);
    dfm_world_destroy(w);
    return worst;
}

static void fold(void) {
    float on = run_fold(1, 60);
    CHECK(on >= 0.0f, "the folded cloth passed through itself (signed distance %g m)", (double)on);
    float off = run_fold(0, 60);
    CHECK(off < 0.0f, "with self_collision 0 the halves should interpenetrate (min %g m)", (double)off);
}

static void cubes(void) {
    dfm_world* w = make_world(k_radius, 0);
    dfm_shape_id floor_id = dfm_test_add_frictionless_floor(w);
    const float H = 0.06f;
    float lo0[3] = {-0.03f, -0.03f, 0.0f}, hi0[3] = {0.03f, 0.03f, H};
    float lo1[3] = {-0.03f, -0.03f, H + k_radius}, hi1[3] = {0.03f, 0.03f, 2 * H + k_radius};
    dfm_test_tets b0 = dfm_test_make_tet_box(5, lo0, hi0), b1 = dfm_test_make_tet_box(5, lo1, hi1);
    dfm_volume_def vd = dfm_volume_def_default();
    dfm_body_id bot = dfm_test_add_volume(w, &b0, vd), top = dfm_test_add_volume(w, &b1, vd);
    dfm_body_info ib = dfm_body_info_init(), it = dfm_body_info_init();
    CHECK_OK(w, dfm_body_get_info(w, bot, &ib));
    CHECK_OK(w, dfm_body_get_info(w, top, &it));
    const double g = 9.81, Wt = it.total_mass * g, Wb = ib.total_mass * g;
    const int settle = 60, window = 20;
    double Rz = 0.0, min_gap = 1e30;
    const int32_t n = b0.vertex_count;
    float* xb = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    float* xt = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    float* vb = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    float* vt = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    double p_start = 0.0, p_end = 0.0;
    for (int s = 0; s < settle + window; ++s) {
        step_world(w);
        dfm_body_get_positions(w, bot, 0, n, xb, 0);
        dfm_body_get_positions(w, top, 0, n, xt, 0);
        /* the bottom cube's top face: its highest vertices; the top cube's lowest */
        float bz = -1e30f, tz = 1e30f;
        for (int32_t i = 0; i < n; ++i) {
            if (xb[3 * i + 2] > bz) bz = xb[3 * i + 2];
            if (xt[3 * i + 2] < tz) tz = xt[3 * i + 2];
        }
        if (tz - bz < min_gap) min_gap = tz - bz;
        if (s >= settle) {
            float f[3];
            CHECK_OK(w, dfm_world_get_shape_reactions(w, &floor_id, 1, f, NULL, 0));
            Rz -= f[2] / window; /* the reaction is the deformables' force on the shape; the floor carries -f */
        }
        if (s == settle - 1 || s == settle + window - 1) {
            dfm_body_get_velocities(w, bot, 0, n, vb, 0);
            dfm_body_get_velocities(w, top, 0, n, vt, 0);
            double p = 0.0;
            for (int32_t i = 0; i < n; ++i)
                p += (ib.total_mass / n) * vb[3 * i + 2] + (it.total_mass / n) * vt[3 * i + 2];
            if (s == settle - 1)
                p_start = p;
            else
                p_end = p;
        }
    }
    const double dp_bound = fabs(p_end - p_start) / (window / 60.0);
    const double err = fabs(Rz - (Wt + Wb));
    printf("cubes: floor reaction %.5f N; weights top %.5f + bottom %.5f = %.5f N; the bottom carries %.5f N of the "
           "top's %.5f N (error %.3f%% of the top's weight; momentum change over the window %.2e N); smallest gap "
           "top-bottom %.5f m\n",
           Rz, Wt, Wb, Wt + Wb, Rz - Wb, Wt, 100.0 * err / Wt, dp_bound, min_gap);
    CHECK(err <= 0.01 * Wt, "the floor reads %.5f N for %.5f N of weight", Rz, Wt + Wb);
    CHECK(min_gap > 0.0, "the cubes interpenetrate (gap %g m)", min_gap);
    free(xb);
    free(xt);
    free(vb);
    free(vt);
    dfm_test_free_tets(&b0);
    dfm_test_free_tets(&b1);
    dfm_world_destroy(w);
}

static void determinism(void) {
    int32_t n = 0;
    float* ref = (float*)malloc(sizeof(float) * 3 * 400);
    float* got = (float*)malloc(sizeof(float) * 3 * 400);
    run_stack(k_radius, 1, 20, ref, &n);
    int threads[] = {1, 2, 0};
    for (int t = 0; t < 3; ++t) {
        int32_t m = 0;
        run_stack(k_radius, threads[t], 20, got, &m);
        int same = m == n && memcmp(ref, got, sizeof(float) * 3 * (size_t)n) == 0;
        CHECK(same, "positions after 1/3 s differ with cpu_threads %d", threads[t]);
    }
    free(ref);
    free(got);
}

static int g_warnings;
static void count_warnings(void* user, dfm_log_level level, const char* message) {
    (void)user;
    if (level == DFM_LOG_WARNING && strstr(message, "deformable pair capacity")) ++g_warnings;
}

static void options(void) {
    struct {
        const char* what;
        float radius, ke, mu;
        int32_t cap, backend;
        uint32_t features;
        dfm_result want;
    } cases[] = {
        {"radius -1 mm", -0.001f, 1e4f, 0.5f, 0, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"radius NaN", NAN, 1e4f, 0.5f, 0, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"radius 2 m", 2.0f, 1e4f, 0.5f, 0, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"radius 1e-5 m", 1e-5f, 1e4f, 0.5f, 0, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"ke 0", 0.005f, 0.0f, 0.5f, 0, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"mu -0.1", 0.005f, 1e4f, -0.1f, 0, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"capacity -1", 0.005f, 1e4f, 0.5f, -1, DFM_BACKEND_CPU, 0, DFM_ERROR_INVALID_VALUE},
        {"body-level solve", 0.005f, 1e4f, 0.5f, 0, DFM_BACKEND_CPU, DFM_FEATURE_BODY_TRANSLATION,
         DFM_ERROR_UNSUPPORTED},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
        dfm_world_def def = dfm_world_def_default();
        def.deformable_contact_radius = cases[c].radius;
        def.deformable_contact_ke = cases[c].ke;
        def.deformable_contact_mu = cases[c].mu;
        def.deformable_pair_capacity = cases[c].cap;
        def.backend = cases[c].backend;
        def.feature_flags = cases[c].features;
        dfm_world* w = NULL;
        dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
        printf("options: %s -> %s: %s\n", cases[c].what, dfm_result_string(r), dfm_world_last_error(NULL));
        CHECK(r == cases[c].want && w == NULL, "%s: got %s", cases[c].what, dfm_result_string(r));
        CHECK(strstr(dfm_world_last_error(NULL), "deformable") != NULL, "%s: the message does not name the option",
              cases[c].what);
        dfm_world_destroy(w);
    }
    /* the CUDA backend takes deformable contact now (issue 16's CUDA twin); without a device or in a
       build without CUDA its creation fails for that reason only */
    {
        dfm_world_def def = dfm_world_def_default();
        def.deformable_contact_radius = k_radius;
        def.backend = DFM_BACKEND_CUDA;
        dfm_world* wc = NULL;
        dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &wc);
        printf("options: CUDA backend -> %s: %s\n", dfm_result_string(r), r ? dfm_world_last_error(NULL) : "");
        CHECK(r == DFM_OK || r == DFM_ERROR_DEVICE_UNAVAILABLE, "CUDA backend with deformable contact: got %s",
              dfm_result_string(r));
        dfm_world_destroy(wc);
    }
    /* a body def with self_collision 2; a swap to xpbd */
    dfm_world* w = make_world(k_radius, 0);
    dfm_test_grid g = dfm_test_make_grid(5, 5, 0.1f, 0.1f, 0, 0, 0.1f);
    dfm_cloth_def cd = dfm_scene_grid_cloth_def(&g, dfm_cloth_def_default());
    cd.self_collision = 2;
    dfm_body_id id;
    dfm_result r = dfm_world_add_cloth(w, &cd, &id);
    printf("options: self_collision 2 -> %s: %s\n", dfm_result_string(r), dfm_world_last_error(w));
    CHECK(r == DFM_ERROR_INVALID_VALUE && strstr(dfm_world_last_error(w), "self_collision"), "self_collision 2");
    r = dfm_world_set_solver(w, "xpbd", DFM_BACKEND_CPU);
    printf("options: swap to xpbd -> %s: %s\n", dfm_result_string(r), dfm_world_last_error(w));
    CHECK(r == DFM_ERROR_UNSUPPORTED, "swap to xpbd with deformable contact");
    dfm_world_destroy(w);
    dfm_test_free_grid(&g);
    /* overflow: 16 candidate slots for two stacked sheets */
    dfm_world_def def = dfm_world_def_default();
    dfm_test_pick_backend(&def);
    def.deformable_contact_radius = k_radius;
    def.deformable_pair_capacity = 16;
    def.log_fn = count_warnings;
    w = dfm_test_create(&def);
    dfm_test_grid a = dfm_test_make_grid(6, 6, 0.1f, 0.1f, 0, 0, 0.1f),
                  b = dfm_test_make_grid(6, 6, 0.1f, 0.1f, 0, 0, 0.103f);
    dfm_test_add_cloth(w, &a, dfm_cloth_def_default());
    dfm_test_add_cloth(w, &b, dfm_cloth_def_default());
    step_world(w);
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    printf("options: capacity 16: %d candidates, %lld dropped this step, %d warnings\n", st.deformable_candidates,
           (long long)st.deformable_pairs_dropped, g_warnings);
    CHECK(st.deformable_pairs_dropped > 0 && st.deformable_pairs_dropped_total == st.deformable_pairs_dropped &&
              g_warnings == 1,
          "overflow not counted or not logged");
    dfm_test_free_grid(&a);
    dfm_test_free_grid(&b);
    dfm_world_destroy(w);
}

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "stack"))
        stack();
    else if (!strcmp(what, "fold"))
        fold();
    else if (!strcmp(what, "cubes"))
        cubes();
    else if (!strcmp(what, "determinism"))
        determinism();
    else if (!strcmp(what, "options"))
        options();
    else {
        fprintf(stderr, "usage: %s stack|fold|cubes|determinism|options\n", argv[0]);
        return 2;
    }
    return dfm_test_finish("test_physics_deform_contact");
}
