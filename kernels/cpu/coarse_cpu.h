/// @file coarse_cpu.h
/// The two-level VBD solve on the CPU (DFM_FEATURE_COARSE_CORRECTION, issue 13 item 7;
/// docs/physics.md sessions 9, 10, 12 and 13): after every sweep but the last, each body takes one
/// Newton step on a coarse space, trilinear hat functions on a grid of cells DFM_COARSE_CELL mean
/// edge lengths wide over the body's box, pinned and kinematic particles left out. The coarse
/// matrix is the Galerkin product P^T H P of inertia, drag, the contacts' per-particle Hessians,
/// each triangle's exact membrane Hessian projected to PSD per element (membrane_psd.h) and each
/// tet's Hessian (tet_hessian.h: exact, its stress term scaled down where that keeps it PSD; the
/// Gauss-Newton form until session 15) and, since session 16, each hinge's Gauss-Newton bending
/// Hessian (DFM_COARSE_BENDING).
///
/// Session 13 (the default, DFM_COARSE_PCG 1): the matrix is assembled and factored (banded
/// Cholesky) at the first correction of every DFM_COARSE_REFACTOR_ADVANCES-th advance and solved
/// directly there; every other correction keeps that factor as a preconditioner and takes
/// DFM_COARSE_PCG conjugate-gradient iterations on the current coarse system, applied matrix-free
/// on the particles: the current inertia, drag and contact Hessians, and element Hessians kept per
/// element and re-evaluated for the elements whose F moved by more than DFM_COARSE_ELEMENT_TOL
/// when the body's coarse residual |P^T f| grew since its last correction. Nothing is
/// re-factored on a contact change (session 12 re-factored game-cloth at nearly every correction).
///
/// DFM_COARSE_PCG 0 is session 12's rule: factor at every advance's first correction, solve
/// directly, re-assemble when a particle's contact Hessian changed (trace by more than
/// DFM_COARSE_CONTACT_REFRESH relative, plus 1e-3 mass / h^2; only the particles' blocks) or the
/// coarse residual grew (all of it). With the first correction's matrix only, or without the
/// element refresh on growth, the drape diverges (sessions 12, 13). Friction is not part of the
/// coarse problem (the records' normal penalty and damping are, through their Hessians and
/// forces); see docs/physics.md for what that costs on a slope and in a pinch.
#ifndef DFM_COARSE_CPU_H
#define DFM_COARSE_CPU_H

#include <stdint.h>

#include "contacts_cpu.h"
#include "vbd_view.h"

#ifdef __cplusplus
extern "C" { /* called from the CUDA backend's host-assisted correction (kernels/cuda/coarse_cuda.cu) */
#endif

struct dfm_cpu_simd;

/// Coarse cell width in mean edge lengths of the body (the mean over its elements' edges at the
/// positions the level is built from). Session 10: 2 meets the swing bound with the PSD-projected
/// exact membrane Hessian (centroid RMS 0.0034 m), 4 damps the swing (0.034 m).
#ifndef DFM_COARSE_CELL
#define DFM_COARSE_CELL 2.0f
#endif

/// A body's coarse matrix is re-assembled within an advance when a particle's contact Hessian trace
/// moved by more than this fraction of its assembled value plus 1e-3 mass / h^2 (N/m; see the file comment).
#ifndef DFM_COARSE_CONTACT_REFRESH
#define DFM_COARSE_CONTACT_REFRESH 0.01f
#endif

/// 1: every body's band spans its whole matrix (a dense Cholesky, as the session-10 experiment;
/// for measurement); 0: the band its grid numbering gives (the default).
#ifndef DFM_COARSE_FULL_BAND
#define DFM_COARSE_FULL_BAND 0
#endif

/// 1: a body's coarse matrix is also re-assembled when its coarse residual |P^T f| grew since its
/// last correction (a lagged matrix overshooting); 0: not (for measurement).
#ifndef DFM_COARSE_REFRESH_ON_GROWTH
#define DFM_COARSE_REFRESH_ON_GROWTH 1
#endif

/// 0: the coarse matrix is assembled and factored at an advance's first correction and reused by
/// its later ones, except as the file comment says (the default); 1: at every correction (session
/// 10's experiment; for measurement).
#ifndef DFM_COARSE_REASSEMBLE
#define DFM_COARSE_REASSEMBLE 0
#endif

/// 0: the session-12 rule (a later correction re-assembles and re-factors on the refresh rules
/// above, then solves directly); k >= 1: a later correction never re-factors: it solves the coarse
/// system of the current iterate, P^T H(x) P, by k preconditioned conjugate-gradient iterations
/// with the advance's first factor as the preconditioner (H: the current inertia, drag, contact
/// Hessians and projected element Hessians, applied matrix-free on the particles; session 13,
/// docs/physics.md). k = 1 is the first factor's step scaled to the current system's exact line
/// minimum along it (a lagged factor can no longer overshoot).
#ifndef DFM_COARSE_PCG
#define DFM_COARSE_PCG 1
#endif

/// With DFM_COARSE_PCG: 1, the element Hessians of coarse_apply are re-evaluated at every later
/// correction; 0, they are the advance's first correction's, re-evaluated only when the body's
/// coarse residual grew (DFM_COARSE_REFRESH_ON_GROWTH; no re-factorisation either way).
#ifndef DFM_COARSE_PCG_ELEMENTS
#define DFM_COARSE_PCG_ELEMENTS 0
#endif

/// With DFM_COARSE_PCG: the factor (the preconditioner) is assembled at the first correction of
/// every this-many-th advance (substep) and kept over the ones between (1: every advance).
#ifndef DFM_COARSE_REFACTOR_ADVANCES
#define DFM_COARSE_REFACTOR_ADVANCES 2
#endif

/// A correction is applied at every this-many-th call within an advance (the first included):
/// 1 after every sweep but the last, 2 after every other one.
#ifndef DFM_COARSE_EVERY
#define DFM_COARSE_EVERY 1
#endif

/// With DFM_COARSE_PCG: a refresh of the kept element Hessians re-evaluates only the elements whose
/// deformation gradient moved by more than this fraction of its norm (Frobenius) since their
/// blocks were evaluated (0: every element).
#ifndef DFM_COARSE_ELEMENT_TOL
#define DFM_COARSE_ELEMENT_TOL 0.03f
#endif

/// 1: the coarse matrix has the hinges' bending Hessians (the sweeps' Gauss-Newton form, whole
/// 12 x 12 per hinge; session 16); 0: bending left out (sessions 9-15: a folded strip then did not
/// refold with the feature, docs/physics.md; for measurement).
#ifndef DFM_COARSE_BENDING
#define DFM_COARSE_BENDING 1
#endif

/// A body's coarse matrix whose Cholesky factorisation fails is assembled again with this fraction of
/// its largest diagonal entry added to the diagonal, and factored once more. The trilinear basis
/// restricted to a flat body that is not axis-aligned (a cloth folded at 60 degrees, a tilted sheet)
/// is linearly dependent: P^T M P is singular however stiff the elements, and every factorisation of
/// such a body failed, so it never took a correction (session 16, test_bending_rest). A right side
/// P^T f has no part along P's null space, so the shift changes only that part of the step, which
/// P maps to zero on the particles. Matrices that are indefinite still fail.
#ifndef DFM_COARSE_NULL_SHIFT
#define DFM_COARSE_NULL_SHIFT 1e-9
#endif

/// The coarse level of a world: prolongation P per particle (CSR of coarse node and weight) and
/// each body's banded coarse matrix. Built from the positions of the first step after each model
/// rebuild; owned by the world (dfm_cpu_coarse_free).
typedef struct dfm_cpu_coarse {
    int64_t generation;          ///< Model generation the level was built for (-1: none).
    int32_t particle_count;      ///< Particles of that model.
    int32_t body_count;          ///< Bodies of that model.
    int32_t dynamic_count;       ///< Dynamic particles when built (a vertex mode change rebuilds the level).
    const int32_t* body_offsets; ///< body_count + 1 particle ranges (the model's; refreshed every step).
    int32_t* node_first;         ///< body_count + 1: each body's first coarse node.
    int32_t* band_width;         ///< Per body: the half-bandwidth of its coarse matrix, in dofs.
    int64_t* band_first;         ///< body_count + 1: each body's first entry in `band`.
    int32_t* slot_first;         ///< particle_count + 1: each particle's first (node, weight) slot.
    int32_t* slot_node;          ///< Per slot: the coarse node (global index).
    float* slot_weight;          ///< Per slot: the hat function's weight (a particle's weights sum to 1).
    double* band;                ///< Lower band of every body's matrix, then its Cholesky factor (row-major rows).
    double* band_elements;       ///< The elements' part of `band` (this advance's assembly), same layout.
    int32_t* pair_first;         ///< particle_count + 1: each particle i's first fine pair (i, j), j >= i.
    int32_t* pair_other;         ///< Per fine pair: j (the particles sharing an element with i, and i itself).
    double* pair_h;              ///< Per fine pair: 9, the elements' summed (i, j) Hessian block (row i, column j;
                                 ///< N/m), projected to the band once per pair (session 15).
    double* rhs;                 ///< 3 per coarse node: P^T f, then the coarse step (m).
    float* force;                ///< 3 per particle: the local force at the iterate (N).
    float* contact_trace;        ///< Per particle: trace of its contact Hessian when the matrix was assembled (N/m).
    uint8_t* factored;           ///< Per body: 1 when its factor of this advance is valid.
    int32_t node_total;          ///< Coarse nodes over all bodies.
    int64_t corrections;         ///< Corrections applied since the level was built (all bodies).
    int64_t factorizations;      ///< Coarse matrices assembled and factored.
    int64_t failed;              ///< Factorizations refused (not SPD): those bodies skipped that advance.
    int64_t shifted;             ///< Factorizations retried with DFM_COARSE_NULL_SHIFT (a singular basis).
    int64_t contact_refresh;     ///< Of the factorizations, those redone within an advance because a contact changed.
    int64_t
        residual_refresh; ///< ... and those redone because the coarse residual |P^T f| grew since the last correction.
    double* rhs_norm;     ///< Per body: |P^T f|^2 at its last correction (N^2).
    int32_t tri_total;    ///< Triangles indexed by the model (1 + the largest index in the adjacency).
    int32_t tet_total;    ///< Tets indexed likewise.
    float* hp;            ///< DFM_COARSE_PCG: 9 per particle, inertia + drag + contact Hessian (N/m).
    float* ktri;          ///< DFM_COARSE_PCG: 81 per triangle, its projected Hessian blocks K[a][b] (N/m).
    float* ktet;          ///< DFM_COARSE_PCG: 144 per tet, its Hessian blocks (tet_hessian.h; N/m).
    float* kedge;         ///< DFM_COARSE_PCG: 144 per bending edge, its hinge's Hessian blocks (N/m).
    double* pcg;          ///< DFM_COARSE_PCG: 4 coarse vectors (3 per node each) and 6 per particle of work.
    int64_t pcg_iterations;   ///< Matrix-free PCG iterations run (all bodies).
    int64_t advances;         ///< Advances (first corrections) since the level was built.
    int32_t advance_call;     ///< Calls of dfm_cpu_coarse_correct in this advance so far.
    float* ftri;              ///< DFM_COARSE_PCG: 6 per triangle, its F when ktri was evaluated.
    float* ftet;              ///< DFM_COARSE_PCG: 9 per tet, its F when ktet was evaluated.
    int64_t element_refresh;  ///< Element Hessians re-evaluated by later corrections (DFM_COARSE_ELEMENT_TOL).
    double* friction;         ///< Work of the coarse friction solve (coarse_friction.h), for the largest body.
    int64_t friction_patches; ///< Patches with friction solved in coarse steps (all bodies, all corrections).
    int64_t friction_slides;  ///< ... of which at their Coulomb limit (sliding).
    int64_t friction_skipped; ///< Coarse steps left frictionless: the body touched more than DFM_PATCH_MAX shapes.
    int32_t* patch_count;     ///< Per body: patches of its last coarse friction solve (0: none).
    int64_t* patch_advance;   ///< Per body: the advance (`advances`) of that solve.
    int32_t* patch_shape;     ///< DFM_PATCH_MAX per body: each patch's shape.
    float* patch_force;       ///< 3 DFM_PATCH_MAX per body: each patch's friction force on the body (N, world).
    uint8_t* patch_slides;    ///< DFM_PATCH_MAX per body: 1 = the patch slid at its Coulomb limit.
} dfm_cpu_coarse;

/// Builds (or rebuilds, when `generation` differs from the level's) the level for the view's
/// particles and the bodies' ranges `body_offsets` (body_count + 1), from the current positions.
/// Returns 0 on success, -1 when host memory is short (the level is then empty and corrects
/// nothing). Keeps body_offsets for the step.
int dfm_cpu_coarse_prepare(dfm_cpu_coarse* level, const dfm_vbd_view* view, int64_t generation, int32_t body_count,
                           const int32_t* body_offsets);

/// One coarse correction of every body's iterate (view->d and view->x updated). `first`: the
/// advance's first correction, which assembles and factors the coarse matrices (every correction
/// does with DFM_COARSE_REASSEMBLE). `contacts` may be NULL; with the legacy scatter
/// (contacts->gather 0) the contacts stay out of the coarse problem. `simd` (NULL = scalar) forms
/// the particles' elastic forces in the lanes (dfm_cpu_simd_need, bitwise the scalar path), on up
/// to `threads` workers.
void dfm_cpu_coarse_correct(dfm_cpu_coarse* level, const dfm_vbd_view* view, const dfm_cpu_contacts* contacts,
                            const struct dfm_cpu_simd* simd, int threads, int first);

/// Assembles and factors body b's coarse matrix at the view's iterate (as a factoring correction
/// does; the element and particle blocks are kept for dfm_cpu_coarse_apply). Returns 1 when SPD,
/// 0 when not or when the body has no coarse nodes.
int dfm_cpu_coarse_assemble(dfm_cpu_coarse* level, const dfm_vbd_view* view, const dfm_cpu_contacts* contacts,
                            int32_t body);

/// q = P^T H P p for body `body`'s coarse vector p (3 per node, N/m times m), with the kept
/// particle and element blocks (the PCG's matrix-free product). Returns 0 without DFM_COARSE_PCG.
int dfm_cpu_coarse_apply(const dfm_cpu_coarse* level, const dfm_vbd_view* view, int32_t body, const double* p,
                         double* q);

/// Releases the level's arrays (the level is then empty: generation -1).
void dfm_cpu_coarse_free(dfm_cpu_coarse* level);

/// Banded Cholesky in place of an m x m SPD matrix stored as its lower band of half-bandwidth bw:
/// entry (i, j), i - bw <= j <= i, at band[i * (bw + 1) + j - i + bw]. Returns 1, or 0 when a
/// pivot is not positive (the matrix is then partly overwritten).
int dfm_cpu_band_cholesky(double* band, int32_t m, int32_t bw);

/// Solves L L^T x = b with the factor of dfm_cpu_band_cholesky, b overwritten by x.
void dfm_cpu_band_solve(const double* band, int32_t m, int32_t bw, double* b);

/// The same for `nrhs` right sides stored one after another (m doubles each) in b, each band row
/// read once for all of them.
void dfm_cpu_band_solve_many(const double* band, int32_t m, int32_t bw, double* b, int32_t nrhs);

#ifdef __cplusplus
}
#endif

#endif
