/// The CPU backend's parallel contact detection (chunks of the candidate list detected by OpenMP
/// workers, concatenated in candidate order) gives bitwise the same trajectories, record counts
/// and dropped counts as the serial detection, for 1, 2 and 3 worker threads:
/// - a 20 x 20 cloth dropped onto a sphere, a box and a plane (7k candidate pairs: below the
///   32768-candidate threshold of the parallel detection, DFM_CPU_DETECT_PARALLEL_MIN, so only the
///   thread count changes; chaotic, so any reordering would show);
/// - an 80 x 80 cloth (6400 particles, colors of ~1070, ~10^5 candidates: above the thresholds of
///   the parallel detection, guess, friction, residual and reaction passes) dropped just above the
///   same shapes, 2 x 4 solver counts, 15 steps; here the shapes' reaction forces must be bitwise
///   equal too;
/// - the same with contact_capacity 1500 (records dropped every advance: the kept ones must be
///   the first 1500 in candidate order, as in the serial path).
/// Fails if a thread count changes any position bit, reaction bit or counter.
#include "contact_scenes.h"

typedef struct run_out {
    float x[3 * 6400];
    float reactions[9];
    dfm_contact_stats stats;
} run_out;

static void run_scene(int32_t threads, int32_t capacity, int large, run_out* out) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU; /* this test is about the CPU backend's threads */
    def.cpu_threads = threads;
    def.contact_capacity = capacity;
    if (large) {
        def.substeps = 2;
        def.iterations = 4;
    }
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) {
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        exit(2);
    }
    dfm_shape_def sp = dfm_shape_def_default();
    sp.radius = 0.12f;
    dfm_shape_id ids[3];
    ids[0] = dfm_test_add_shape(w, sp, -0.12f, 0, 0.12f, NULL);
    dfm_shape_def bx = dfm_shape_def_default();
    bx.type = DFM_SHAPE_BOX;
    bx.half_extents[0] = bx.half_extents[1] = bx.half_extents[2] = 0.1f;
    ids[1] = dfm_test_add_shape(w, bx, 0.15f, 0, 0.1f, NULL);
    dfm_shape_def pl = dfm_shape_def_default();
    pl.type = DFM_SHAPE_PLANE;
    ids[2] = dfm_test_add_shape(w, pl, 0, 0, 0, NULL);
    const int32_t n = large ? 80 : 20, nv = n * n;
    dfm_test_grid g = dfm_test_make_grid(n, n, 0.6f, 0.6f, -0.3f, -0.3f, large ? 0.245f : 0.3f);
    dfm_body_id id = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_test_free_grid(&g);
    for (int s = 0; s < (large ? 15 : 60); ++s) CHECK_OK(w, dfm_world_step(w, CS_DT));
    memset(out->x, 0, sizeof(out->x));
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, nv, out->x, 0));
    float torques[9];
    CHECK_OK(w, dfm_world_get_shape_reactions(w, ids, 3, out->reactions, torques, 0));
    out->stats = dfm_contact_stats_init();
    CHECK_OK(w, dfm_world_get_contact_stats(w, &out->stats));
    dfm_world_destroy(w);
}

int main(void) {
    static run_out serial, par;
    const int32_t capacities[3] = {0, 0, 1500};
    for (int c = 0; c < 3; ++c) {
        const int large = c >= 1;
        run_scene(1, capacities[c], large, &serial);
        if (large) /* DFM_CPU_DETECT_PARALLEL_MIN (kernels/cpu/cpu_threads.h) */
            CHECK(serial.stats.candidate_pairs >= 32768, "only %lld candidates: the parallel path would not run",
                  (long long)serial.stats.candidate_pairs);
        CHECK(serial.stats.active > 0, "no contacts");
        if (capacities[c]) CHECK(serial.stats.dropped_total > 0, "capacity %d dropped nothing", capacities[c]);
        for (int32_t t = 2; t <= 3; ++t) {
            run_scene(t, capacities[c], large, &par);
            int same = memcmp(serial.x, par.x, sizeof(serial.x)) == 0 &&
                       memcmp(serial.reactions, par.reactions, sizeof(serial.reactions)) == 0;
            printf("%s, capacity %d, %d threads: positions and reactions %s (reaction z %.4f N); records %d vs %d; "
                   "dropped %lld vs %lld\n",
                   large ? "80 x 80 cloth" : "20 x 20 cloth", capacities[c], t, same ? "bitwise equal" : "DIFFER",
                   (double)(par.reactions[2] + par.reactions[5] + par.reactions[8]), par.stats.active,
                   serial.stats.active, (long long)par.stats.dropped_total, (long long)serial.stats.dropped_total);
            CHECK(same, "capacity %d: %d threads changed the trajectory", capacities[c], t);
            CHECK(par.stats.active == serial.stats.active && par.stats.dropped_total == serial.stats.dropped_total &&
                      par.stats.edge_contacts == serial.stats.edge_contacts &&
                      par.stats.face_contacts == serial.stats.face_contacts,
                  "capacity %d: %d threads changed the counters", capacities[c], t);
        }
    }
    return dfm_test_finish("test_contact_threads");
}
