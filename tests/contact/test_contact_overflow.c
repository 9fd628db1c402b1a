/// Contact capacity overflow: a 12 x 12 cloth dropped onto a plane in a world whose
/// world_def.contact_capacity is 10 (the resting cloth needs > 144 particle records alone).
/// - every step after first contact: dfm_contact_stats.dropped_last_step > 0, active == capacity
///   == 10, and dropped_total grows by exactly dropped_last_step;
/// - the log callback receives a DFM_LOG_WARNING whose message names the capacity ("10") and the
///   word "capacity", once per overflowing step;
/// - 60 steps run without NaN (positions and velocities finite, every step returns DFM_OK);
/// - a second world with automatic capacity (0) running the same scene drops nothing, reports
///   capacity == candidate_pairs, and its cloth rests on the plane (all vertices within 0.2 mm of
///   z = r) while the starved cloth is not held up as a whole: the 10 records that fit (the first
///   candidates: vertices of the first row) hold one edge and the rest of the cloth hangs through
///   the plane, more than 5 cm below it (the documented consequence of a too-small capacity).
///
/// - a second starved run repeats the first bitwise (the kept records are the first `capacity` in
///   candidate order; CTest's test_gpu_contact_overflow runs this on CUDA in deterministic mode).
///
/// Deliberate breaks (made in a scratch copy of the library) seen to fail:
/// - step.c: the capacity warning not logged: 0 warnings for 56 overflowing steps;
/// - step.c: dropped_total = dropped (not accumulated): total equals the last step's count.
#include "contact_scenes.h"

#define CAP 10

typedef struct log_capture {
    int warnings, errors, warnings_naming_capacity;
    char last[512];
} log_capture;

static void on_log(void* user, dfm_log_level level, const char* message) {
    log_capture* c = (log_capture*)user;
    if (level == DFM_LOG_WARNING) {
        c->warnings++;
        /* "capacity" and the number 10 as a whole token */
        const char* p = strstr(message, "10");
        int token = 0;
        while (p) {
            int before = p == message || !(p[-1] >= '0' && p[-1] <= '9');
            int after = !(p[2] >= '0' && p[2] <= '9');
            if (before && after) token = 1;
            p = strstr(p + 1, "10");
        }
        if (token && strstr(message, "capacity")) c->warnings_naming_capacity++;
    } else if (level == DFM_LOG_ERROR) {
        c->errors++;
    }
    snprintf(c->last, sizeof(c->last), "%s", message);
}

int main(void) {
    log_capture cap_log;
    memset(&cap_log, 0, sizeof(cap_log));
    cs_world_opts o = cs_opts();
    o.contact_capacity = CAP;
    o.log_fn = on_log;
    o.log_user = &cap_log;
    cs_scene small = cs_scene_make(CS_SCENE_PLANE, o);
    log_capture auto_log;
    memset(&auto_log, 0, sizeof(auto_log));
    o.contact_capacity = 0;
    o.log_user = &auto_log;
    cs_scene full = cs_scene_make(CS_SCENE_PLANE, o);
    const int32_t n = small.g.vertex_count;
    const float r = dfm_cloth_def_default().contact_radius;
    int overflow_steps = 0, first_overflow = -1, finite = 1, bad_active = 0, bad_total = 0;
    int64_t prev_total = 0, auto_dropped = 0;
    dfm_contact_stats last = dfm_contact_stats_init(), full_last = dfm_contact_stats_init();
    for (int s = 0; s < 60; ++s) {
        int warnings_before = cap_log.warnings_naming_capacity;
        CHECK_OK(small.w, dfm_world_step(small.w, CS_DT));
        CHECK_OK(full.w, dfm_world_step(full.w, CS_DT));
        last = cs_stats(small.w);
        full_last = cs_stats(full.w);
        auto_dropped += full_last.dropped_last_step;
        if (last.dropped_last_step > 0) {
            if (first_overflow < 0) first_overflow = s;
            overflow_steps++;
            if (last.active != CAP || last.capacity != CAP) bad_active++;
            CHECK(cap_log.warnings_naming_capacity == warnings_before + 1,
                  "step %d: %d capacity warnings for this step (last message: \"%s\")", s,
                  cap_log.warnings_naming_capacity - warnings_before, cap_log.last);
        }
        if (last.dropped_total != prev_total + last.dropped_last_step) bad_total++;
        prev_total = last.dropped_total;
        finite &= cs_all_finite(small.w) && cs_max_speed(small.w, small.cloth, n) < 1e6f;
    }
    float lo_s, hi_s, lo_f, hi_f;
    dfm_test_z_range(small.w, small.cloth, n, &lo_s, &hi_s);
    dfm_test_z_range(full.w, full.cloth, n, &lo_f, &hi_f);
    printf("capacity %d: overflow from step %d on %d of 60 steps, last step dropped %lld, total %lld, active %d, "
           "candidate pairs %lld, %d capacity warnings (last: \"%s\"), cloth z %.4f..%.4f, finite %d\n",
           CAP, first_overflow, overflow_steps, (long long)last.dropped_last_step, (long long)last.dropped_total,
           last.active, (long long)last.candidate_pairs, cap_log.warnings_naming_capacity, cap_log.last, lo_s, hi_s,
           finite);
    printf("auto capacity: capacity %d (candidate pairs %lld), active %d, dropped %lld over 60 steps, %d warnings, "
           "cloth z %.6f..%.6f\n",
           full_last.capacity, (long long)full_last.candidate_pairs, full_last.active, (long long)auto_dropped,
           auto_log.warnings, lo_f, hi_f);
    CHECK(first_overflow >= 0 && first_overflow < 20, "no overflow seen (first at step %d)", first_overflow);
    CHECK(overflow_steps >= 60 - 20, "overflow on only %d steps", overflow_steps);
    CHECK(last.dropped_last_step > 0 && last.dropped_total > last.dropped_last_step,
          "dropped_last_step %lld, dropped_total %lld", (long long)last.dropped_last_step,
          (long long)last.dropped_total);
    CHECK(bad_active == 0, "%d overflowing steps with active != capacity", bad_active);
    CHECK(bad_total == 0, "%d steps where dropped_total did not grow by dropped_last_step", bad_total);
    CHECK(cap_log.warnings_naming_capacity == overflow_steps, "%d capacity warnings for %d overflowing steps",
          cap_log.warnings_naming_capacity, overflow_steps);
    CHECK(cap_log.errors == 0, "%d errors logged", cap_log.errors);
    CHECK(finite, "non-finite state in the overflowing world");
    CHECK(lo_s < -0.05f, "the starved cloth was held up (z %.4f..%.4f) by only %d records per advance", lo_s, hi_s,
          CAP);
    CHECK(auto_dropped == 0 && full_last.dropped_total == 0, "auto capacity dropped %lld", (long long)auto_dropped);
    CHECK(full_last.capacity == (int32_t)full_last.candidate_pairs, "auto capacity %d vs %lld candidate pairs",
          full_last.capacity, (long long)full_last.candidate_pairs);
    CHECK(auto_log.warnings == 0, "auto capacity world logged %d warnings (\"%s\")", auto_log.warnings, auto_log.last);
    CHECK(fabsf(lo_f - r) < 2e-4f && fabsf(hi_f - r) < 2e-4f, "auto capacity cloth not resting: %.6f..%.6f", lo_f,
          hi_f);
    /* The records kept on overflow are the first `capacity` in candidate order on both backends
       (CUDA's deterministic mode too), so a second starved run repeats the first bitwise. */
    o.contact_capacity = CAP;
    o.log_fn = NULL;
    cs_scene again = cs_scene_make(CS_SCENE_PLANE, o);
    for (int s = 0; s < 60; ++s) CHECK_OK(again.w, dfm_world_step(again.w, CS_DT));
    float* xa = (float*)malloc(sizeof(float) * 6 * (size_t)n);
    CHECK_OK(small.w, dfm_body_get_positions(small.w, small.cloth, 0, n, xa, 0));
    CHECK_OK(again.w, dfm_body_get_positions(again.w, again.cloth, 0, n, xa + 3 * n, 0));
    const int repeat = memcmp(xa, xa + 3 * n, sizeof(float) * 3 * (size_t)n) == 0;
    printf("capacity %d: a second run %s the first bitwise\n", CAP, repeat ? "repeats" : "DOES NOT repeat");
    CHECK(repeat, "the starved run is not repeatable: the records kept on overflow vary");
    free(xa);
    cs_scene_free(&again);
    cs_scene_free(&small);
    cs_scene_free(&full);
    return dfm_test_finish("test_contact_overflow");
}
