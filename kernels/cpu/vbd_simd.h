/// @file vbd_simd.h
/// The CPU per-color solve, W particles at a time (issue 18): a color-ordered, structure-of-arrays
/// layout of what the solve reads (vbd_simd_lanes.h), filled once per step, and the lane kernels
/// that walk it: SSE2 (W = 4, the x86-64 baseline) and AVX2 (W = 8, chosen at run time when the
/// CPU has AVX2 and FMA). Every lane does exactly the scalar path's operations in the same order
/// (no FMA contraction: the lane TUs compile with -ffp-contract=off; the hinge angle is
/// dfm_atan2f's body over lanes, kernels/shared/dfm_atan2_body.h), so positions are bitwise those of the scalar path
/// (tests/cpu/test_cpu_simd_bitwise.c). DFM_CPU_SIMD=scalar (or off, 0) in the environment forces
/// the scalar path; DFM_CPU_SIMD=sse2 (or 4) caps it at SSE2; DFM_CPU_SIMD=avx2-fma runs the AVX2
/// lanes with FMA contraction (a different arithmetic order, not bitwise; for measurement only).
#ifndef DFM_VBD_SIMD_H
#define DFM_VBD_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "vbd_view.h"

struct dfm_cpu_contacts;
struct dfm_cpu_dc;
struct dfm_dc_pair;
struct dfm_cpu_dc_terms;

/// dfm_cpu_simd.width of the AVX2 lanes with FMA contraction (8 lanes; vbd_simd_avx2fma.c).
#define DFM_CPU_SIMD_AVX2_FMA 9

/// One step's lane layout, handed to dfm_cpu_vbd_advance (NULL there = the scalar path).
typedef struct dfm_cpu_simd {
    int width;          ///< 4 (SSE2), 8 (AVX2) or DFM_CPU_SIMD_AVX2_FMA; the layout was filled for it.
    const void* layout; ///< From dfm_cpu_simd_fill.
} dfm_cpu_simd;

/// The lane width this process uses: 8 when the CPU has AVX2 and FMA, else 4 on x86-64 (SSE2),
/// 0 (scalar) on other targets, after DFM_CPU_SIMD in the environment (read at every call).
int dfm_cpu_simd_width(void);

/// Fills the layout of width `width` for the view's model (color order, lane groups of `width`
/// particles, incident elements padded per group; per-element constants of this step, so
/// view->tri_coef / edge_coef / tet_coef must be filled) into buf when it holds `cap` bytes.
/// Returns the bytes the layout needs (nothing written when more than cap), 0 when the view
/// cannot use the lane path (no coefficient arrays, no step-start angles).
size_t dfm_cpu_simd_fill(int width, const dfm_vbd_view* view, int32_t color_count, const int32_t* color_offsets,
                         const int32_t* color_particles, void* buf, size_t cap);

/// Solves color c's particles from the layout, forking over its lane groups onto `nt` workers
/// when nt > 1 (the caller decides by work: DFM_CPU_SOLVE_WORK_MIN, cpu_threads.h; contiguous
/// ranges, so the split changes no bit). The particles' contact force/Hessian
/// come from dfm_cpu_particle_start (vbd_cpu.h).
void dfm_cpu_simd_solve_color(const dfm_cpu_simd* simd, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                              int32_t c, int nt);

/// Solves sub-colour `sub` (< DFM_DC_SUBCOLORS, deform_contact_cpu.h) of color c from the layout:
/// the lane groups of the color with the sub-colour's particles as active lanes (a group with
/// fewer than 2 of them runs them on the scalar path), the pairs gathered in each lane's scalar
/// start (dfm_cpu_particle_start_dc) and the step bounded after its Newton step, so bitwise the
/// scalar solve_one. `count` is the sub-colour's particle count; it forks when nt > 1, as
/// dfm_cpu_simd_solve_color.
void dfm_cpu_simd_solve_color_dc(const dfm_cpu_simd* simd, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                                 const struct dfm_cpu_dc* dc, int32_t c, int sub, int32_t count, int nt);

/// A batch of deformable pairs, W at a time, bitwise the scalar functions: each pair's distance at
/// x (dfm_dc_pair_stencil's length) into dist[k] when dist is not NULL, and its terms
/// (deform_contact_cpu.h dfm_cpu_dc_terms: dfm_dc_pair_force's up to the corner weight, friction on
/// dx) into terms[k] when terms is not NULL.
void dfm_cpu_simd_pair_eval(const dfm_cpu_simd* simd, const struct dfm_dc_pair* pairs, int32_t count, const float* x,
                            const float* dx, float radius, float k, float mu, float h, float* dist,
                            struct dfm_cpu_dc_terms* terms);

/// The width-specific entry points (vbd_simd_sse2.c, vbd_simd_avx2.c).
size_t dfm_cpu_simd4_fill(const dfm_vbd_view* view, int32_t color_count, const int32_t* color_offsets,
                          const int32_t* color_particles, void* buf, size_t cap);
size_t dfm_cpu_simd8_fill(const dfm_vbd_view* view, int32_t color_count, const int32_t* color_offsets,
                          const int32_t* color_particles, void* buf, size_t cap);
/// Color c's lane groups [*g0, *g1) and its particle count.
int32_t dfm_cpu_simd4_groups(const void* layout, int32_t c, int32_t* g0, int32_t* g1);
int32_t dfm_cpu_simd8_groups(const void* layout, int32_t c, int32_t* g0, int32_t* g1);
/// Solves lane groups [g0, g1).
void dfm_cpu_simd4_solve(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc, int32_t g0,
                         int32_t g1);
size_t dfm_cpu_simd8f_fill(const dfm_vbd_view* view, int32_t color_count, const int32_t* color_offsets,
                           const int32_t* color_particles, void* buf, size_t cap);
int32_t dfm_cpu_simd8f_groups(const void* layout, int32_t c, int32_t* g0, int32_t* g1);
void dfm_cpu_simd8f_solve(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc, int32_t g0,
                          int32_t g1);
void dfm_cpu_simd8f_need(const void* layout, const dfm_vbd_view* view, int32_t g0, int32_t g1, float* out);
void dfm_cpu_simd8_solve(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc, int32_t g0,
                         int32_t g1);
/// Solves sub-colour sub's particles of lane groups [g0, g1) (dfm_cpu_simd_solve_color_dc).
void dfm_cpu_simd4_solve_dc(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                            const struct dfm_cpu_dc* dc, int sub, int32_t g0, int32_t g1);
void dfm_cpu_simd8_solve_dc(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                            const struct dfm_cpu_dc* dc, int sub, int32_t g0, int32_t g1);
void dfm_cpu_simd8f_solve_dc(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                             const struct dfm_cpu_dc* dc, int sub, int32_t g0, int32_t g1);

/// dfm_cpu_simd_pair_eval per width.
void dfm_cpu_simd4_pair_eval(const struct dfm_dc_pair* pairs, int32_t count, const float* x, const float* dx,
                             float radius, float k, float mu, float h, float* dist, struct dfm_cpu_dc_terms* terms);
void dfm_cpu_simd8_pair_eval(const struct dfm_dc_pair* pairs, int32_t count, const float* x, const float* dx,
                             float radius, float k, float mu, float h, float* dist, struct dfm_cpu_dc_terms* terms);
void dfm_cpu_simd8f_pair_eval(const struct dfm_dc_pair* pairs, int32_t count, const float* x, const float* dx,
                              float radius, float k, float mu, float h, float* dist, struct dfm_cpu_dc_terms* terms);

/// Every hinge's step-start angle (dfm_vbd_edge_start_angle, bitwise) into view->edge_start_angle,
/// W hinges at a time from view->x_prev; forks from DFM_CPU_PARALLEL_MIN hinges (cpu_threads.h).
void dfm_cpu_simd_start_angles(const dfm_cpu_simd* simd, const dfm_vbd_view* view, int nt);
/// dfm_cpu_simd_start_angles per width, for hinges [e0, e1).
void dfm_cpu_simd4_start_angles(const dfm_vbd_view* view, int32_t e0, int32_t e1);
void dfm_cpu_simd8_start_angles(const dfm_vbd_view* view, int32_t e0, int32_t e1);
void dfm_cpu_simd8f_start_angles(const dfm_vbd_view* view, int32_t e0, int32_t e1);

/// Every particle's dfm_vbd_particle_need (bitwise), W at a time: 3 floats at out + 3 i; forks over
/// the lane groups from DFM_CPU_SOLVE_PARALLEL_MIN particles.
void dfm_cpu_simd_need(const dfm_cpu_simd* simd, const dfm_vbd_view* view, float* out, int nt);
void dfm_cpu_simd4_need(const void* layout, const dfm_vbd_view* view, int32_t g0, int32_t g1, float* out);
void dfm_cpu_simd8_need(const void* layout, const dfm_vbd_view* view, int32_t g0, int32_t g1, float* out);

#endif
