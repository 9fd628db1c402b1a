/// @file coarse_friction.h
/// Coulomb friction per contact patch inside a body's coarse step (DFM_FEATURE_COARSE_CORRECTION,
/// issue 13; docs/physics.md "Session 18").
///
/// The frictionless coarse step develops a body's smooth modes in one substep, and the
/// frictionless minimiser of a cloth resting on a sphere's top is a slide (session 17): the cloth
/// slid off. Friction per particle does not fit a coarse space (a trilinear cell cannot hold one
/// particle while its neighbours move; session 17's holds released everything), so here it acts
/// per patch (the body's records on one shape with mu > 0, as the patch decision of
/// contact_patch_friction.h):
/// - the patch's slip is the load-weighted mean of its records' contact-point motion relative to
///   the shape, each in its record's tangent plane, in the patch's tangent plane (2 components):
///   s_p = u_p + C_p delta, linear in the coarse step delta (C_p: 2 x m, from the prolongation);
/// - its friction force lambda_p (N, 2 components in the patch's tangent basis) enters the coarse
///   right side as C_p^T lambda_p (the force spread over the records by load, then restricted), so
///   delta = delta_0 + Z lambda with Z = A^-1 C^T (the body's factor of this advance);
/// - lambda by projected block Gauss-Seidel on W = C Z: a patch sticks (s_p = 0) within its limit
///   mu_p N_p, else slides with |lambda_p| = mu_p N_p. N_p is the momentum-consistent normal load
///   of the patch decision (dfm_patch_record) for a free body, the records' own normal force for a
///   body with pinned particles. With the PCG (DFM_COARSE_PCG) delta_0 is the PCG's step on the
///   current system while Z uses the lagged factor: the stick constraint C delta = -u still holds
///   exactly, only the optimality is approximate.
/// After the iterations (dfm_cpu_coarse_patch_friction_body, in place of the patch decision for such
/// a body) each record's nodes carry their share of the advance's last lambda (reactions and the
/// contact query report it as friction), and the particles of a patch that slid are flagged so the
/// per-record projection leaves them alone: a slide's kinetic friction is applied once, in the
/// coarse step. (Tried first, not kept: the limit force in the coarse step and the patch decision
/// after it: the incline at tan = 2 mu read mu_eff 0.99 for 0.5, braked twice; and sliding patches
/// frictionless in the coarse step: the cloth slid off the sphere again.)
/// dfm_cpu_contacts.coarse_friction is set by the CPU backend's patch path and by the CUDA backend's
/// host-assisted coarse step, which then runs the friction after the iterations on the host too
/// (dfm_cuda_coarse_patch_friction) in place of the device's patch decision.
#ifndef DFM_COARSE_FRICTION_H
#define DFM_COARSE_FRICTION_H

#include "coarse_cpu.h"
#include "contact_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/// 1: the coarse step carries Coulomb friction per patch (this file); 0: frictionless (sessions
/// 9-17; for measurement).
#ifndef DFM_COARSE_FRICTION
#define DFM_COARSE_FRICTION 1
#endif

/// Projected Gauss-Seidel passes over a body's patches in the coarse friction solve.
#define DFM_COARSE_FRICTION_PASSES 24

/// Doubles of work one body's friction solve needs for a coarse system of m dofs.
size_t dfm_cpu_coarse_friction_work(int32_t m);

/// Adds Coulomb friction per patch to body b's coarse step `step` (3 per coarse node from the
/// body's first node, m; in: the frictionless step, out: with friction), using the body's factor of
/// this advance (level->band; the caller checks level->factored[b]) and the contact records of
/// `contacts` (gather lists). `work`: dfm_cpu_coarse_friction_work(m) doubles. Returns the number
/// of patches that slide, 0 when none (or when the body has no patch with friction), -1 when the
/// body touches more than DFM_PATCH_MAX such shapes (step unchanged).
int dfm_cpu_coarse_friction(dfm_cpu_coarse* level, const dfm_vbd_view* view, const dfm_contact_view* contacts,
                            int32_t b, double* step, double* work);

/// The friction after the iterations for body b when its coarse steps carried friction in this
/// advance (in place of the patch decision, dfm_patch_friction_body): writes each of its records'
/// nodes' share (by momentum-consistent normal load and corner weight) of its patch's friction
/// force from the advance's last coarse solve (3 floats at node_body_friction + 3 * node, N), and
/// flags in particle_slides the particles of the patches that slid there (the per-record
/// projection then leaves them alone: their kinetic friction was applied in the coarse step).
/// Returns 1 when it did, 0 when the body's coarse step carried no friction this advance
/// (particle_slides of the body cleared, nothing else written). The result is consumed (a later
/// advance without a coarse correction falls back to the patch decision).
int dfm_cpu_coarse_patch_friction_body(dfm_cpu_coarse* level, const dfm_vbd_view* view,
                                       const dfm_contact_view* contacts, int32_t b, float* node_body_friction,
                                       uint8_t* particle_slides);

#ifdef __cplusplus
}
#endif

#endif
