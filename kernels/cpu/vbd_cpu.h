/// @file vbd_cpu.h
/// The CPU backend's VBD advance (reference and deterministic).
#ifndef DFM_VBD_CPU_H
#define DFM_VBD_CPU_H

#include "body_translation.h"
#include "contacts_cpu.h"
#include "cpu_threads.h"
#include "deform_contact_cpu.h"
#include "vbd_view.h"

struct dfm_cpu_simd;
struct dfm_cpu_coarse;

/// The convergence figure of one advance (world_stats.force_residual_*): each dynamic particle's
/// local force residual at the end of the advance, the norm of the force its balance still needs
/// less the contact forces it received (N; 0 when converged, and for pinned and kinematic ones).
typedef struct dfm_cpu_convergence {
    float* norms; ///< In: scratch, 1 per particle; out: each particle's residual norm, N.
    float max;    ///< Out: the largest norm, N.
    double sum;   ///< Out: the norms summed in particle order (thread-count independent), N.
} dfm_cpu_convergence;

/// The body-level translation solve after every sweep (DFM_FEATURE_BODY_TRANSLATION,
/// kernels/shared/body_translation.h); NULL in dfm_cpu_vbd_advance = off.
typedef struct dfm_cpu_body_solve {
    int32_t body_count;
    const int32_t* body_offsets; ///< body_count + 1: particle ranges.
    int32_t* record_offsets;     ///< Scratch, body_count + 1: each body's first record in `records`.
    dfm_body_record* records;    ///< Scratch: room for every active record of the advance.
    uint8_t* particle_slides;    ///< Per particle: written 1 for the particles of a body found sliding.
} dfm_cpu_body_solve;

/// Runs one VBD advance on the host arrays of `view`: contact detection and per-particle lists
/// (when `contacts` is not NULL), predict, `iterations` sweeps (penalty ramp, then per color:
/// contact gather or scatter and the particle solves), contact finalization, velocity update.
/// Colors are given in CSR form (color_offsets, color_particles).
/// `alpha` is the fraction of the host step reached at the end of this advance (kinematic targets).
/// `threads` > 0 limits OpenMP workers. Bitwise deterministic for any thread count: particles of
/// one color are independent. `convergence` (NULL = not measured) is filled at the end. `bodies`
/// (NULL = off) adds the body-level translation solve after every sweep. `simd` (NULL = the scalar
/// path) solves each color W particles at a time from its layout (vbd_simd.h; bitwise the same).
/// `deform` (NULL = off) adds deformable-deformable contact: pairs detected after predict, their
/// forces in each particle's solve, its step bounded (deform_contact_cpu.h); each colour solved
/// sub-colour after sub-colour, in the lanes when `simd` is given (bitwise the scalar path).
/// `coarse` (NULL = off) adds the two-level solve's coarse correction after every sweep but the
/// last (DFM_FEATURE_COARSE_CORRECTION, coarse_cpu.h; its level prepared for this view).
void dfm_cpu_vbd_advance(const dfm_vbd_view* view, dfm_cpu_contacts* contacts, int32_t color_count,
                         const int32_t* color_offsets, const int32_t* color_particles, int32_t iterations, float alpha,
                         int32_t threads, dfm_cpu_convergence* convergence, const dfm_cpu_body_solve* bodies,
                         const struct dfm_cpu_simd* simd, dfm_cpu_dc* deform, struct dfm_cpu_coarse* coarse);

/// The start of particle i's local system: its contact force/Hessian (gathered from its records,
/// or the scatter accumulators; none without contacts) plus inertia and drag
/// (dfm_vbd_particle_base). Shared by the scalar solve and the lane kernels (vbd_simd_lanes.h).
void dfm_cpu_particle_start(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, int32_t i, dfm_v3* f, dfm_m33* H);

/// The contact part of particle i's start: its gathered records, or the scatter's accumulators;
/// zero without contacts (dfm_cpu_particle_start less inertia and drag).
void dfm_cpu_contact_terms(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, int32_t i, dfm_v3* f, dfm_m33* H);

/// dfm_cpu_particle_start for a surface particle of a world with deformable contact: its contact
/// terms, then its pairs' force/Hessian at the live iterate (dfm_dc_gather), then inertia and
/// drag. Returns the smallest gap over its pairs (the displacement bound's input). The scalar
/// solve's start; the lane kernels do the same with the pairs in lanes (vbd_simd_lanes.h
/// lane_pairs, bitwise this).
float dfm_cpu_particle_start_dc(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, const dfm_cpu_dc* dc, int32_t i,
                                dfm_v3* f, dfm_m33* H);

/// The displacement bound of surface particle i after its Newton step moved it from d_old
/// (dfm_dc_bound_step with the pairs' smallest gap; d and x rewritten when it binds).
void dfm_cpu_dc_bound_particle(const dfm_vbd_view* view, const dfm_cpu_dc* dc, int32_t i, dfm_v3 d_old, float gap);

/// The scalar solve of particle i (dynamic only): start (with its pairs when dc is not NULL and i
/// is a surface particle), elements, Newton step, bound. The reference the lanes match bitwise.
void dfm_cpu_solve_one(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, const dfm_cpu_dc* dc, int32_t i);

/// Fills the view's per-element coefficient arrays (kernels/shared/vbd_coef.h) for the substep
/// view->h: tri_count triangles, view->edge_count hinges, tet_count tets. Once per step (h and the
/// materials are constant over its advances); arrays that are NULL are skipped.
void dfm_cpu_vbd_coefficients(const dfm_vbd_view* view, int32_t tri_count, int32_t tet_count);

#endif
