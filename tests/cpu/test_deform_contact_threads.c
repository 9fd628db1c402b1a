/// The deformable-contact build (kernels/cpu/deform_contact_cpu.c dfm_cpu_dc_build) on 1 and 2
/// threads: 4 environments of the folded cloth of tests/physics/test_physics_deform_contact.c
/// `fold` (24 x 24 vertices, self-collision on, each on its own table; ~80k candidates at rest,
/// above DFM_CPU_DETECT_PARALLEL_MIN, so on 2 threads the narrow phase, the one-contact-per-feature
/// marks and the sub-colours run over candidate ranges and colours in parallel). After every step
/// the pairs, lists, sub-colours and per-particle bounds of the last detection, and at the end the
/// positions, must be bitwise equal; the 2-thread run must have forked (the state's build_forks)
/// and the 1-thread run not, and the filter must have dropped redundant pairs (the marks ran).
#include <dfm_scene_fold.h>
#include <dfm_scene_shape.h>

#include "dfm_test.h"
#include "world_internal.h" /* w->deform.cpu: the last detection's pairs and lists */

#include <stdlib.h>

#define ENVS 4
#define STEPS 12

/// FNV-1a over n bytes, continued from h.
static uint64_t fnv(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = (const unsigned char*)p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/// The last detection's outputs as one hash.
static uint64_t state_hash(const dfm_world* w) {
    const dfm_cpu_dc* s = &w->deform.cpu;
    const int32_t n = w->model.particle_count, nc = w->model.color_count;
    uint64_t h = 1469598103934665603ull;
    h = fnv(h, &s->pair_count, sizeof(s->pair_count));
    h = fnv(h, s->pairs, sizeof(dfm_dc_pair) * (size_t)s->pair_count);
    h = fnv(h, s->pair_dist, sizeof(float) * (size_t)s->pair_count);
    h = fnv(h, s->offsets, sizeof(int32_t) * ((size_t)n + 1u));
    h = fnv(h, s->items, sizeof(int32_t) * 4u * (size_t)s->pair_count);
    h = fnv(h, s->sub_particles, sizeof(int32_t) * (size_t)n);
    h = fnv(h, s->sub_offsets, sizeof(int32_t) * ((size_t)nc * DFM_DC_SUBCOLOR_SLOTS + 1u));
    if (s->view.vertex_bound) h = fnv(h, s->vertex_bound, sizeof(float) * (size_t)n);
    return h;
}

typedef struct run_out {
    uint64_t hash[STEPS];
    float* x;
    int32_t n;
    int64_t forks, dropped_redundant, candidates;
} run_out;

static run_out run(int threads) {
    run_out o;
    memset(&o, 0, sizeof(o));
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.cpu_threads = threads;
    def.environment_count = ENVS;
    def.deformable_contact_radius = 0.005f;
    dfm_world* w = NULL;
    CHECK(dfm_world_create(DFM_ABI_VERSION, &def, &w) == DFM_OK, "world");
    dfm_shape_id tables[ENVS];
    dfm_shape_state states[ENVS];
    for (int e = 0; e < ENVS; ++e) {
        const float ox = 1.0f * (float)e;
        dfm_scene_grid fold;
        dfm_test_scene(w, dfm_scene_fold_make(24, 12, ox, &fold), "the folded cloth");
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.self_collision = 1;
        cd.environment = e;
        dfm_body_id body;
        dfm_test_scene(w, dfm_scene_add_cloth(w, &fold, cd, &body), "the folded cloth");
        dfm_scene_grid_free(&fold);
        dfm_shape_def table = dfm_scene_table_def();
        table.environment = e;
        CHECK_OK(w, dfm_world_add_shape(w, &table, &tables[e]));
        states[e] = dfm_scene_state(ox, 0, DFM_SCENE_TABLE_Z, NULL);
    }
    CHECK_OK(w, dfm_world_set_shape_states(w, tables, 0, states, 0, ENVS));
    for (int s = 0; s < STEPS; ++s) {
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        o.hash[s] = state_hash(w);
        o.dropped_redundant += w->deform.cpu.dropped_redundant;
        if (w->deform.cpu.candidates > o.candidates) o.candidates = w->deform.cpu.candidates;
    }
    o.forks = w->deform.cpu.build_forks;
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    o.n = st.particle_count;
    o.x = (float*)malloc(sizeof(float) * 3 * (size_t)o.n);
    CHECK_OK(w, dfm_world_get_positions(w, 0, o.n, o.x, 0));
    dfm_world_destroy(w);
    return o;
}

int main(void) {
    run_out a = run(1), b = run(2);
    printf("candidates (most) %lld, redundant pairs dropped %lld; builds forked: 1 thread %lld, 2 threads %lld\n",
           (long long)a.candidates, (long long)a.dropped_redundant, (long long)a.forks, (long long)b.forks);
    CHECK(a.forks == 0, "the 1-thread build forked (%lld)", (long long)a.forks);
    CHECK(b.forks > 0, "the 2-thread build never forked: the test does not reach the parallel passes");
    CHECK(a.dropped_redundant > 0, "no redundant pair dropped: the marks were not exercised");
    for (int s = 0; s < STEPS; ++s)
        CHECK(a.hash[s] == b.hash[s], "step %d: pairs/lists/sub-colours differ between 1 and 2 threads", s);
    CHECK(a.n == b.n && memcmp(a.x, b.x, sizeof(float) * 3 * (size_t)a.n) == 0,
          "positions differ between 1 and 2 threads");
    free(a.x);
    free(b.x);
    return dfm_test_finish("test_deform_contact_threads");
}
