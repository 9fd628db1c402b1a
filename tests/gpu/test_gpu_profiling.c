/// Phase profiling: on a CPU world dfm_world_set_profiling is refused with DFM_ERROR_UNSUPPORTED
/// and the phase times read invalid; on a CUDA world (skips with 77 without one) a profiled step of
/// the pinch scene reports every phase >= 0, detection, lists, solve, friction and reactions > 0
/// and a total equal to their sum; a profiled step moves the cloth exactly like an eager step
/// (profiling only adds events), and after profiling is turned off the phase times read invalid.
#include "gpu_contact_scenes.h"

static dfm_world* make(int backend, int deterministic, gcs_scene* sc) {
    dfm_world_def def = dfm_world_def_default();
    def.backend = backend;
    def.deterministic = deterministic;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) return NULL;
    memset(sc, 0, sizeof(*sc));
    gcs_pinch(w, sc);
    return w;
}

int main(void) {
    gcs_scene sc;
    dfm_world* cpu = make(DFM_BACKEND_CPU, 0, &sc);
    CHECK(cpu != NULL, "CPU world");
    dfm_result r = dfm_world_set_profiling(cpu, 1);
    CHECK(r == DFM_ERROR_UNSUPPORTED, "CPU profiling gave %s", dfm_result_string(r));
    dfm_phase_times pt = dfm_phase_times_init();
    CHECK_OK(cpu, dfm_world_get_phase_times(cpu, &pt));
    CHECK(pt.valid == 0, "CPU phase times valid");
    pt.struct_size = 3;
    CHECK(dfm_world_get_phase_times(cpu, &pt) == DFM_ERROR_STRUCT_SIZE, "bad struct size accepted");
    dfm_world_destroy(cpu);

    gcs_scene sa, sb;
    dfm_world* a = make(DFM_BACKEND_CUDA, 1, &sa);
    if (!a) {
        printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
        return 77;
    }
    dfm_world* b = make(DFM_BACKEND_CUDA, 1, &sb);
    CHECK(b != NULL, "second CUDA world");
    for (int s = 0; s < 30; ++s) {
        gcs_pinch_drive(a, &sa, s);
        gcs_pinch_drive(b, &sb, s);
        if (s == 25) CHECK_OK(a, dfm_world_set_profiling(a, 1));
        CHECK_OK(a, dfm_world_step(a, 1.0f / 60.0f));
        CHECK_OK(b, dfm_world_step(b, 1.0f / 60.0f));
    }
    pt = dfm_phase_times_init();
    CHECK_OK(a, dfm_world_get_phase_times(a, &pt));
    printf("profiled step: detection %.4f lists %.4f duals %.4f solve %.4f friction %.4f reactions %.4f other %.4f "
           "total %.4f ms\n",
           pt.detection_ms, pt.lists_ms, pt.duals_ms, pt.solve_ms, pt.friction_ms, pt.reactions_ms, pt.other_ms,
           pt.total_ms);
    CHECK(pt.valid == 1, "phase times not valid after a profiled step");
    CHECK(pt.detection_ms > 0 && pt.lists_ms > 0 && pt.solve_ms > 0 && pt.friction_ms > 0 && pt.reactions_ms > 0 &&
              pt.duals_ms >= 0 && pt.other_ms > 0,
          "a phase reads zero");
    double sum = pt.detection_ms + pt.lists_ms + pt.duals_ms + pt.solve_ms + pt.friction_ms + pt.reactions_ms +
                 pt.other_ms;
    CHECK(fabs(sum - pt.total_ms) <= 1e-3 * pt.total_ms, "total %.4f != sum %.4f", pt.total_ms, sum);
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(a, dfm_world_get_stats(a, &st));
    CHECK(st.device_memory_bytes > 0, "device memory reads %lld", (long long)st.device_memory_bytes);
    float xa[3 * 144], xb[3 * 144];
    CHECK_OK(a, dfm_world_get_positions(a, 0, 144, xa, 0));
    CHECK_OK(b, dfm_world_get_positions(b, 0, 144, xb, 0));
    CHECK(memcmp(xa, xb, sizeof(xa)) == 0, "profiled steps moved the cloth differently from captured steps");
    CHECK_OK(a, dfm_world_set_profiling(a, 0));
    CHECK_OK(a, dfm_world_step(a, 1.0f / 60.0f));
    CHECK_OK(a, dfm_world_get_phase_times(a, &pt));
    CHECK(pt.valid == 0, "phase times still valid after profiling was turned off");
    dfm_world_destroy(a);
    dfm_world_destroy(b);
    return dfm_test_finish("test_gpu_profiling");
}
