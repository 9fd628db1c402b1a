/// @file vbd_simd.c
/// Run-time choice of the CPU solve's lane width (vbd_simd.h) and the per-color dispatch.
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-and-done — a color's lane groups are independent; they fork over
///   the workers when the caller passes nt > 1 (vbd_cpu.c decides by DFM_CPU_SOLVE_WORK_MIN;
///   contiguous ranges, so no bit depends on the split), the colors run in sequence.
/// - P2 parallel independent columns: applies-and-done — the lanes (vbd_simd_lanes.h).
/// - P3 loop-invariant hoisting: applies-and-done — the width is read once per step (plugin/step.c);
///   the layout is filled once per step.
/// - P4 offline memory layout: see vbd_simd_lanes.h.
#include "vbd_simd.h"

#include <stdlib.h>
#include <string.h>

#include "cpu_threads.h"

int dfm_cpu_simd_width(void) {
#if defined(DFM_HAVE_CPU_SIMD)
    const char* e = getenv("DFM_CPU_SIMD");
    int cap = 8;
    if (e && (!strcmp(e, "scalar") || !strcmp(e, "off") || !strcmp(e, "0"))) return 0;
    if (e && (!strcmp(e, "sse2") || !strcmp(e, "4"))) cap = 4;
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (e && !strcmp(e, "avx2-fma") && avx2) return DFM_CPU_SIMD_AVX2_FMA;
    if (cap == 8 && avx2) return 8;
    return 4;
#else
    return 0;
#endif
}

size_t dfm_cpu_simd_fill(int width, const dfm_vbd_view* view, int32_t color_count, const int32_t* color_offsets,
                         const int32_t* color_particles, void* buf, size_t cap) {
#if defined(DFM_HAVE_CPU_SIMD)
    if (width == DFM_CPU_SIMD_AVX2_FMA)
        return dfm_cpu_simd8f_fill(view, color_count, color_offsets, color_particles, buf, cap);
    if (width == 8) return dfm_cpu_simd8_fill(view, color_count, color_offsets, color_particles, buf, cap);
    if (width == 4) return dfm_cpu_simd4_fill(view, color_count, color_offsets, color_particles, buf, cap);
#else
    (void)width;
    (void)view;
    (void)color_count;
    (void)color_offsets;
    (void)color_particles;
    (void)buf;
    (void)cap;
#endif
    return 0;
}

#if defined(DFM_HAVE_CPU_SIMD)
/// A color's lane groups for simd_range.
typedef struct simd_ctx {
    const dfm_cpu_simd* simd;
    const dfm_vbd_view* view;
    const struct dfm_cpu_contacts* cc;
    int32_t g0;
    const struct dfm_cpu_dc* dc; ///< NULL, or deformable contact: only sub-colour `sub`'s lanes.
    int sub;
} simd_ctx;

/// Solves the color's lane groups g0 + [begin, end).
static void simd_range(void* p, int32_t begin, int32_t end) {
    const simd_ctx* s = (const simd_ctx*)p;
    if (s->dc) {
        if (s->simd->width == DFM_CPU_SIMD_AVX2_FMA)
            dfm_cpu_simd8f_solve_dc(s->simd->layout, s->view, s->cc, s->dc, s->sub, s->g0 + begin, s->g0 + end);
        else if (s->simd->width == 8)
            dfm_cpu_simd8_solve_dc(s->simd->layout, s->view, s->cc, s->dc, s->sub, s->g0 + begin, s->g0 + end);
        else
            dfm_cpu_simd4_solve_dc(s->simd->layout, s->view, s->cc, s->dc, s->sub, s->g0 + begin, s->g0 + end);
    } else if (s->simd->width == DFM_CPU_SIMD_AVX2_FMA)
        dfm_cpu_simd8f_solve(s->simd->layout, s->view, s->cc, s->g0 + begin, s->g0 + end);
    else if (s->simd->width == 8)
        dfm_cpu_simd8_solve(s->simd->layout, s->view, s->cc, s->g0 + begin, s->g0 + end);
    else
        dfm_cpu_simd4_solve(s->simd->layout, s->view, s->cc, s->g0 + begin, s->g0 + end);
}
#endif

void dfm_cpu_simd_solve_color(const dfm_cpu_simd* simd, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                              int32_t c, int nt) {
#if defined(DFM_HAVE_CPU_SIMD)
    int32_t g0, g1;
    const int32_t n = simd->width == 4 ? dfm_cpu_simd4_groups(simd->layout, c, &g0, &g1)
                                       : dfm_cpu_simd8_groups(simd->layout, c, &g0, &g1); /* same layout for 8f */
    (void)n;
    simd_ctx s = {simd, view, cc, g0, NULL, 0};
    dfm_cpu_run(nt > 1, nt, g1 - g0, simd_range, &s); /* the caller decided by work (vbd_cpu.c) */
#else
    (void)simd;
    (void)view;
    (void)cc;
    (void)c;
    (void)nt;
#endif
}

void dfm_cpu_simd_solve_color_dc(const dfm_cpu_simd* simd, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                                 const struct dfm_cpu_dc* dc, int32_t c, int sub, int32_t count, int nt) {
#if defined(DFM_HAVE_CPU_SIMD)
    int32_t g0, g1;
    if (simd->width == 4)
        dfm_cpu_simd4_groups(simd->layout, c, &g0, &g1);
    else
        dfm_cpu_simd8_groups(simd->layout, c, &g0, &g1); /* same layout for 8f */
    (void)count;
    simd_ctx s = {simd, view, cc, g0, dc, sub};
    dfm_cpu_run(nt > 1, nt, g1 - g0, simd_range, &s); /* the caller decided by work (vbd_cpu.c) */
#else
    (void)simd;
    (void)view;
    (void)cc;
    (void)dc;
    (void)c;
    (void)sub;
    (void)count;
    (void)nt;
#endif
}

#if defined(DFM_HAVE_CPU_SIMD)
/// All lane groups for need_range.
typedef struct need_ctx {
    const dfm_cpu_simd* simd;
    const dfm_vbd_view* view;
    float* out;
} need_ctx;

/// dfm_cpu_simd_need for lane groups [begin, end).
static void need_range(void* p, int32_t begin, int32_t end) {
    const need_ctx* s = (const need_ctx*)p;
    if (s->simd->width == DFM_CPU_SIMD_AVX2_FMA)
        dfm_cpu_simd8f_need(s->simd->layout, s->view, begin, end, s->out);
    else if (s->simd->width == 8)
        dfm_cpu_simd8_need(s->simd->layout, s->view, begin, end, s->out);
    else
        dfm_cpu_simd4_need(s->simd->layout, s->view, begin, end, s->out);
}
#endif

void dfm_cpu_simd_need(const dfm_cpu_simd* simd, const dfm_vbd_view* view, float* out, int nt) {
#if defined(DFM_HAVE_CPU_SIMD)
    const int32_t groups = ((const int32_t*)simd->layout)[1]; /* the layout header's group count */
    need_ctx s = {simd, view, out};
    dfm_cpu_run(dfm_cpu_forks(nt, view->particle_count, DFM_CPU_SOLVE_PARALLEL_MIN), nt, groups, need_range, &s);
#else
    (void)simd;
    (void)view;
    (void)out;
    (void)nt;
#endif
}

#if defined(DFM_HAVE_CPU_SIMD)
/// The hinges for angle_range.
typedef struct angle_ctx {
    int width;
    const dfm_vbd_view* view;
} angle_ctx;

/// dfm_cpu_simd_start_angles for hinges [begin, end).
static void angle_range(void* p, int32_t begin, int32_t end) {
    const angle_ctx* s = (const angle_ctx*)p;
    if (s->width == DFM_CPU_SIMD_AVX2_FMA)
        dfm_cpu_simd8f_start_angles(s->view, begin, end);
    else if (s->width == 8)
        dfm_cpu_simd8_start_angles(s->view, begin, end);
    else
        dfm_cpu_simd4_start_angles(s->view, begin, end);
}
#endif

void dfm_cpu_simd_start_angles(const dfm_cpu_simd* simd, const dfm_vbd_view* view, int nt) {
#if defined(DFM_HAVE_CPU_SIMD)
    angle_ctx s = {simd->width, view};
    dfm_cpu_run(dfm_cpu_forks(nt, view->edge_count, DFM_CPU_PARALLEL_MIN), nt, view->edge_count, angle_range, &s);
#else
    (void)simd;
    (void)view;
    (void)nt;
#endif
}

void dfm_cpu_simd_pair_eval(const dfm_cpu_simd* simd, const struct dfm_dc_pair* pairs, int32_t count, const float* x,
                            const float* dx, float radius, float k, float mu, float h, float* dist,
                            struct dfm_cpu_dc_terms* terms) {
#if defined(DFM_HAVE_CPU_SIMD)
    if (simd->width == DFM_CPU_SIMD_AVX2_FMA)
        dfm_cpu_simd8f_pair_eval(pairs, count, x, dx, radius, k, mu, h, dist, terms);
    else if (simd->width == 8)
        dfm_cpu_simd8_pair_eval(pairs, count, x, dx, radius, k, mu, h, dist, terms);
    else
        dfm_cpu_simd4_pair_eval(pairs, count, x, dx, radius, k, mu, h, dist, terms);
#else
    (void)simd;
    (void)pairs;
    (void)count;
    (void)x;
    (void)dx;
    (void)radius;
    (void)k;
    (void)mu;
    (void)h;
    (void)dist;
    (void)terms;
#endif
}
