/// The rigid broad phase of the CPU backend (issue 16, kernels/cpu/rigid_broad_cpu.c: a BVH over
/// each environment's shape AABBs selects the candidates detection tests) gives bitwise the steps
/// of the all-pairs loop: every scene runs twice, DFM_CPU_RIGID_BROAD=brute then =bvh, and the
/// cloth's positions and velocities, every contact record of the last advance
/// (dfm_world_get_contacts), the contact counters and every shape's reaction must be bitwise equal:
/// - the four scenes of tests/contact/contact_scenes.h (rest on a plane, rest on a box, drape on a
///   sphere, a strip pinched between pads and lifted);
/// - a 24 x 24 cloth dropped on a pile of 150 boxes and spheres on a plane (scenes/dfm_scene_pile.h);
/// - the same with contact_capacity 200 (records dropped every advance: the kept ones must be the
///   first 200 of the all-pairs order) and with 2 threads;
/// - an 80 x 80 cloth on a plane and 20 shapes, 2 threads (the parallel detection of the selection);
/// - two environments, each a cloth over its own pile of 60, with 8 shared shapes, a shared plane
///   and a small cloth shared by both (environment -1: its features meet every shape): the
///   per-environment trees and the shared shapes' blocks.
/// The log must name the path each run took, so that a run that silently fell back to all pairs
/// fails; by default (no variable) the pile of 150 takes the BVH, a plane and 2 shapes all pairs. A bad DFM_CPU_RIGID_BROAD value must be refused by the step.
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "contact_scenes.h"

#include <dfm_scene_pile.h>

#define MAX_V (80 * 80)
#define MAX_SHAPES 256
#define MAX_POINTS 20000

typedef struct run_out {
    float x[3 * MAX_V], v[3 * MAX_V];
    float force[3 * MAX_SHAPES], torque[3 * MAX_SHAPES];
    dfm_contact_point points[MAX_POINTS];
    int32_t point_count;
    dfm_contact_stats stats;
    int saw_bvh, saw_brute;
} run_out;

static void on_log(void* user, dfm_log_level level, const char* message) {
    run_out* o = (run_out*)user;
    (void)level;
    if (strstr(message, "rigid broad phase: BVH")) o->saw_bvh = 1;
    if (strstr(message, "rigid broad phase: all pairs")) o->saw_brute = 1;
}

/// Reads everything the comparison looks at from world w (bodies ids[0..nb), shapes sh[0..ns)).
static void collect(dfm_world* w, const dfm_body_id* ids, const int32_t* nv, int32_t nb, const dfm_shape_id* sh,
                    int32_t ns, run_out* o) {
    int32_t at = 0;
    for (int32_t b = 0; b < nb; ++b) {
        CHECK_OK(w, dfm_body_get_positions(w, ids[b], 0, nv[b], o->x + 3 * at, 0));
        CHECK_OK(w, dfm_body_get_velocities(w, ids[b], 0, nv[b], o->v + 3 * at, 0));
        at += nv[b];
    }
    CHECK_OK(w, dfm_world_get_shape_reactions(w, sh, ns, o->force, o->torque, 0));
    CHECK_OK(w, dfm_world_get_contacts(w, o->points, MAX_POINTS, (int32_t)sizeof(dfm_contact_point), &o->point_count));
    CHECK(o->point_count <= MAX_POINTS, "%d contacts, room for %d", o->point_count, MAX_POINTS);
    for (int32_t k = 0; k < o->point_count && k < MAX_POINTS; ++k) { /* ids carry their world's tag */
        o->points[k].shape.world_tag = 0;
        o->points[k].body.world_tag = 0;
    }
    o->stats = cs_stats(w);
}

/// Scenes beyond contact_scenes.h: 0 = one cloth over a pile of 150, 1 = the same with capacity
/// 200, 2 = the same on 2 threads, 3 = two environments, 4 = an 80 x 80 cloth over a plane and 20
/// shapes on 2 threads (the plane's 37,763 candidates alone are selected: above the 32,768 of
/// DFM_CPU_DETECT_PARALLEL_MIN, so the selection's detection runs in parallel chunks), 5 = one
/// cloth over a plane and 2 shapes (the default keeps all pairs there).
static void run_pile(int kind, run_out* o) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.gravity[2] = -CS_G;
    def.cpu_threads = kind == 2 || kind == 4 ? 2 : 1;
    if (kind == 4) {
        def.substeps = 2;
        def.iterations = 4;
    }
    def.contact_capacity = kind == 1 ? 200 : 0;
    def.environment_count = kind == 3 ? 2 : 1;
    def.log_fn = on_log;
    def.log_user = o;
    def.log_level = DFM_LOG_INFO;
    dfm_world* w = dfm_test_create(&def);
    const int32_t envs = def.environment_count;
    dfm_shape_id sh[MAX_SHAPES];
    int32_t ns = 0;
    dfm_shape_def plane = dfm_scene_plane_def();
    plane.environment = -1;
    CHECK_OK(w, dfm_scene_add_shape(w, &plane, 0, 0, 0, NULL, &sh[ns++]));
    dfm_body_id ids[3];
    int32_t nv[3];
    for (int32_t e = 0; e < envs; ++e) {
        const int32_t pile = envs > 1 ? 60 : (kind == 4 ? 20 : (kind == 5 ? 2 : 150));
        CHECK_OK(w, dfm_scene_pile_add(w, pile, envs > 1 ? e : 0, 0.35f, 12345u + 77u * (uint32_t)e, sh + ns));
        ns += pile;
        const int32_t res = kind == 4 ? 80 : 24;
        dfm_test_grid g = dfm_test_make_grid(res, res, 0.8f, 0.8f, -0.4f, -0.4f, 0.22f);
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.environment = e;
        ids[e] = dfm_test_add_cloth(w, &g, cd);
        nv[e] = g.vertex_count;
        dfm_test_free_grid(&g);
    }
    int32_t bodies = envs;
    if (envs > 1) { /* shared shapes among the piles, and a small cloth shared by both environments */
        CHECK_OK(w, dfm_scene_pile_add(w, 8, -1, 0.35f, 999u, sh + ns));
        ns += 8;
        dfm_test_grid g = dfm_test_make_grid(8, 8, 0.3f, 0.3f, -0.15f, -0.15f, 0.3f);
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.environment = -1;
        ids[bodies] = dfm_test_add_cloth(w, &g, cd);
        nv[bodies++] = g.vertex_count;
        dfm_test_free_grid(&g);
    }
    for (int s = 0; s < (kind == 4 ? 12 : 25); ++s) CHECK_OK(w, dfm_world_step(w, CS_DT));
    collect(w, ids, nv, bodies, sh, ns, o);
    dfm_world_destroy(w);
}

static void run_cs(int kind, run_out* o) {
    cs_world_opts opts = cs_opts();
    opts.log_fn = on_log;
    opts.log_user = o;
    cs_scene s = cs_scene_make(kind, opts);
    for (int k = 0; k < 30; ++k) cs_scene_step(&s, kind, k);
    int32_t nv = s.g.vertex_count;
    collect(s.w, &s.cloth, &nv, 1, s.shapes, s.shape_count, o);
    cs_scene_free(&s);
}

static int same_stats(const dfm_contact_stats* a, const dfm_contact_stats* b) {
    return a->capacity == b->capacity && a->active == b->active && a->particle_contacts == b->particle_contacts &&
           a->edge_contacts == b->edge_contacts && a->face_contacts == b->face_contacts &&
           a->dropped_last_step == b->dropped_last_step && a->dropped_total == b->dropped_total &&
           a->candidate_pairs == b->candidate_pairs &&
           memcmp(&a->max_penetration, &b->max_penetration, sizeof(float)) == 0 &&
           memcmp(a->particle_force, b->particle_force, sizeof(a->particle_force)) == 0 &&
           memcmp(&a->residual_force_max, &b->residual_force_max, sizeof(float)) == 0;
}

static void compare(const char* name, const run_out* a, const run_out* b, int expect_log) {
    int x = memcmp(a->x, b->x, sizeof(a->x)) == 0 && memcmp(a->v, b->v, sizeof(a->v)) == 0;
    int f = memcmp(a->force, b->force, sizeof(a->force)) == 0 && memcmp(a->torque, b->torque, sizeof(a->torque)) == 0;
    int p = a->point_count == b->point_count &&
            memcmp(a->points, b->points, sizeof(dfm_contact_point) * (size_t)a->point_count) == 0;
    int st = same_stats(&a->stats, &b->stats);
    printf("%-32s %lld candidates, %d records (%d particle, %d edge, %d face), dropped %lld: positions %s, records "
           "%s, reactions %s, counters %s\n",
           name, (long long)b->stats.candidate_pairs, b->stats.active, b->stats.particle_contacts,
           b->stats.edge_contacts, b->stats.face_contacts, (long long)b->stats.dropped_total, x ? "equal" : "DIFFER",
           p ? "equal" : "DIFFER", f ? "equal" : "DIFFER", st ? "equal" : "DIFFER");
    CHECK(x && p && f && st, "%s: the BVH path differs from the all-pairs path", name);
    CHECK(b->stats.active > 0, "%s: no contacts (the comparison would be empty)", name);
    if (expect_log) {
        CHECK(a->saw_brute && !a->saw_bvh, "%s: the brute-forced run did not log the all-pairs path", name);
        CHECK(b->saw_bvh && !b->saw_brute, "%s: the BVH run did not log the BVH path", name);
    }
}

int main(void) {
    /* the CPU's rigid broad phase and its DFM_CPU_RIGID_BROAD knob: nothing to compare on CUDA
     * (all pairs there), so the GPU machine's cpu-tests-on-CUDA phase skips it */
    if (dfm_test_on_cuda()) {
        printf("test_contact_rigid_broad: CPU-only (DFM_TEST_BACKEND=%s), skipped\n", getenv("DFM_TEST_BACKEND"));
        return 77;
    }
    static run_out brute, bvh;
    for (int kind = 0; kind < CS_SCENE_COUNT; ++kind) {
        memset(&brute, 0, sizeof(brute));
        memset(&bvh, 0, sizeof(bvh));
        setenv("DFM_CPU_RIGID_BROAD", "brute", 1);
        run_cs(kind, &brute);
        setenv("DFM_CPU_RIGID_BROAD", "bvh", 1);
        run_cs(kind, &bvh);
        compare(cs_scene_name(kind), &brute, &bvh, 0);
    }
    static const char* const names[5] = {"pile of 150", "pile of 150, capacity 200", "pile of 150, 2 threads",
                                         "2 environments, piles of 60 + shared", "80 x 80 on 20, 2 threads"};
    for (int kind = 0; kind < 5; ++kind) {
        memset(&brute, 0, sizeof(brute));
        memset(&bvh, 0, sizeof(bvh));
        setenv("DFM_CPU_RIGID_BROAD", "brute", 1);
        run_pile(kind, &brute);
        setenv("DFM_CPU_RIGID_BROAD", "bvh", 1);
        run_pile(kind, &bvh);
        compare(names[kind], &brute, &bvh, 1);
        if (kind == 1) CHECK(bvh.stats.dropped_total > 0, "capacity 200 dropped nothing");
        if (kind == 0) CHECK(bvh.stats.edge_contacts + bvh.stats.face_contacts > 0, "no edge or face records");
    }
    /* the default (DFM_CPU_RIGID_BVH_SHAPES = 3 non-plane shapes per feature): the BVH for the pile
     * of 150, all pairs for a plane and 2 shapes (kind 5) */
    unsetenv("DFM_CPU_RIGID_BROAD");
    memset(&bvh, 0, sizeof(bvh));
    run_pile(0, &bvh);
    CHECK(bvh.saw_bvh && !bvh.saw_brute, "default: the pile of 150 did not take the BVH");
    memset(&brute, 0, sizeof(brute));
    run_pile(5, &brute);
    CHECK(brute.saw_brute && !brute.saw_bvh, "default: a plane and 2 shapes did not keep all pairs");
    /* a bad value is refused by the step, not ignored */
    setenv("DFM_CPU_RIGID_BROAD", "fast", 1);
    {
        cs_scene s = cs_scene_make(CS_SCENE_BOX, cs_opts());
        dfm_result r = dfm_world_step(s.w, CS_DT);
        CHECK(r == DFM_ERROR_INVALID_VALUE, "DFM_CPU_RIGID_BROAD=fast: the step returned %s", dfm_result_string(r));
        cs_scene_free(&s);
    }
    unsetenv("DFM_CPU_RIGID_BROAD");
    return dfm_test_finish("test_contact_rigid_broad");
}
