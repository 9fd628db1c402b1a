/// @file deform_balance.h
/// The balance of deformable-contact pair forces over the graph of touching bodies (issue 16),
/// host code shared by both backends: the CPU's dfm_cpu_dc_final_forces (deform_contact_cpu.c)
/// and the CUDA twin (kernels/cuda/deform_contact_cuda.cu) gather per-body and per-body-pair sums
/// at the final iterate (theirs), call dfm_dc_balance_solve (this), and spread each body pair's
/// change over its corners (theirs). The graph is small (bodies of the world), so the solve is
/// serial, in double and in a fixed order: the same result for any thread count or device.
/// deform_contact_cpu.h (dfm_cpu_dc_final_forces) states the model.
#ifndef DFM_DEFORM_BALANCE_H
#define DFM_DEFORM_BALANCE_H

#include <stdint.h>

#include "bvh_query.h"
#include "deform_contact.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One body's figures in the balance (world frame). The backends fill need, raw, shape_force,
/// shape_sum and pinned (the rest zero); dfm_dc_balance_solve sets the others.
typedef struct dfm_cpu_dc_body {
    double need[3];        ///< The contact force its motion needs, over its dynamic particles (N).
    double raw[3];         ///< The raw force of its pairs with other bodies at the final iterate (N).
    double shape_force[3]; ///< R: its shape contacts' force at the final iterate (N).
    double shape_sum;      ///< S: their force magnitudes summed, shapes that take a share only (N).
    int32_t root;          ///< Union-find parent over the touching body pairs.
    uint8_t pinned;        ///< 1: a pinned or kinematic vertex (its pins take any gap).
    int32_t grounded;      ///< On a component root: its bodies that are pinned or have shapes in L.
    uint8_t shape_on;      ///< 1: its shapes are in L (S > 0 and no share of them would pull).
    uint8_t solved;        ///< 1: unpinned in a grounded component (balanced to its need).
    uint8_t pull_test;     ///< In a pull check: 1 when the backend must test this body.
    uint8_t pulls;         ///< Out of a pull check: 1 when its share would make a shape contact pull.
} dfm_cpu_dc_body;

/// One pair of bodies with deformable contact pairs between them.
typedef struct dfm_cpu_dc_edge {
    int32_t lo, hi;    ///< The two bodies, lo < hi.
    double s_lo, s_hi; ///< Sums of the raw corner-force magnitudes on each side's dynamic particles (N).
    double c;          ///< Conductance (s_lo + s_hi) / 2 (N per unit potential); 0: not touching.
    double delta[3];   ///< Change of the force on hi (N, world frame; -delta on lo).
} dfm_cpu_dc_edge;

/// The body of each side of pair pr: (body of v[0], body of the other primitive's first vertex).
static inline void dfm_dc_pair_bodies(const dfm_dc_pair* pr, const int32_t* particle_body, int32_t* a, int32_t* b) {
    *a = particle_body[pr->v[0]];
    *b = particle_body[pr->kind == DFM_DC_VERTEX_TRIANGLE ? pr->v[1] : pr->v[2]];
}

/// The body pairs with pairs between them, in pair order of discovery sorted (lo, hi)
/// lexicographically and unique: keys (room for pair_count) and edges (room for min(pair_count,
/// bodies choose 2)) get lo and hi, the edges' other fields zero. Returns their count.
int32_t dfm_dc_balance_edges(const dfm_dc_pair* pairs, int32_t pair_count, const int32_t* particle_body,
                             dfm_bvh_pair* keys, dfm_cpu_dc_edge* edges);

/// Index of the body pair of bodies a != b in the sorted unique keys (count of them; present by
/// construction: dfm_dc_balance_edges over the same pairs).
int32_t dfm_dc_balance_edge_index(const dfm_bvh_pair* keys, int32_t count, int32_t a, int32_t b);

/// The backend's pull check of one round: for every body with B[b].pull_test, whether its shape
/// share lambda + 3b (N per N, world frame) would turn one of its shape contacts into a pull along
/// the contact normal (dfm_contact_reaction_particle cuts those), into B[b].pulls. Returns 0, or
/// a DFM_ERROR_* that dfm_dc_balance_solve returns.
typedef int (*dfm_dc_pull_fn)(void* ctx, dfm_cpu_dc_body* B, int32_t body_count, const double* lambda);

/// The balance (dfm_cpu_dc_final_forces' steps 4 to 6a): conductances c = (s_lo + s_hi) / 2 and
/// the components of the graph of touching body pairs; L lambda = need - raw - R on the unpinned
/// bodies of components with a pinned body or a shape contact (conjugate gradients in double); a
/// body whose share would pull (`pull`, called only when some body is to be tested) drops its
/// shapes while its component keeps another support and the system is solved again (at most 4
/// rounds); then every edge's delta = c (lambda_hi - lambda_lo). `work`: 16 doubles per body.
/// Returns the number of solved bodies (0: every pair keeps its raw force, deltas untouched), or
/// a negative DFM_ERROR_* of `pull`.
int32_t dfm_dc_balance_solve(dfm_cpu_dc_body* B, int32_t body_count, dfm_cpu_dc_edge* E, int32_t edge_count,
                             double* work, dfm_dc_pull_fn pull, void* ctx);

#ifdef __cplusplus
}
#endif

#endif
