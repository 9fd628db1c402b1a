/// @file deform_contact_cpu.h
/// Deformable-deformable contact on the CPU backend (issue 16): per advance, the broad phase
/// (kernels/cpu/bvh_cpu.c) finds vertex-triangle and edge-edge candidates within the query radius
/// at the advance's start positions, the narrow phase (kernels/shared/deform_contact.h) keeps the
/// pairs closer than it and builds each particle's pair list; the VBD sweeps then gather each
/// particle's contact force and Hessian from its list and bound its step (vbd_cpu.c).
#ifndef DFM_DEFORM_CONTACT_CPU_H
#define DFM_DEFORM_CONTACT_CPU_H

#include <stddef.h>

#include "bvh_cpu.h"
#include "contact_response.h"
#include "deform_balance.h"
#include "deform_contact.h"
#include "vbd_particle.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dfm_cpu_simd;

/// Sub-colours per colour with a free choice; particles whose pair partners of their colour hold
/// all of them go to sub-colour DFM_DC_SUBCOLORS, which is solved serially.
#define DFM_DC_SUBCOLORS 64
/// Ranges per colour in dfm_cpu_dc.sub_offsets.
#define DFM_DC_SUBCOLOR_SLOTS (DFM_DC_SUBCOLORS + 1)

/// One pair's terms at the final iterate (dfm_cpu_dc_final_forces): what dfm_dc_pair_force adds
/// to a corner's force, kept once per pair so that its 4 corners, twice each, reuse them (the
/// same operands, so the same bits as calling it per corner).
typedef struct dfm_cpu_dc_terms {
    dfm_v3 n;     ///< Normal.
    dfm_v3 u;     ///< Tangential relative displacement (friction).
    float w[4];   ///< Stencil weights.
    float m_dE;   ///< -E'(d).
    float c;      ///< Friction factor mu (-E') f1(|u|)/|u|.
    int32_t on;   ///< 1: d < radius (a force); 2: and friction.
    int32_t pad_; ///< Padding.
} dfm_cpu_dc_terms;

/// Deformable contact work of one world (buffers owned by plugin/deform_contacts.c, sized at
/// prepare time) and the figures of the last advance.
typedef struct dfm_cpu_dc {
    const dfm_bvh_prim* points; ///< Surface vertices (point primitives).
    int32_t point_count;
    const dfm_bvh_prim* edges; ///< Unique surface edges.
    int32_t edge_count;
    const dfm_bvh_prim* tris; ///< Surface triangles.
    int32_t tri_count;
    const dfm_bvh_filter* filter; ///< Per placed body.
    int32_t body_count;
    const uint8_t* surface;        ///< Per particle: 1 when it is a corner of some primitive (bounded).
    const int32_t* particle_color; ///< Per particle: its colour (the model's).
    dfm_cpu_bvh* tri_tree;         ///< Capacity tri_count.
    dfm_cpu_bvh* edge_tree;        ///< Capacity edge_count.
    dfm_bvh_pair* cand;            ///< Scratch: candidate_capacity broad-phase pairs.
    int64_t candidate_capacity;
    dfm_dc_pair* pairs;         ///< Scratch: candidate_capacity narrow-phase pairs.
    int32_t* offsets;           ///< Scratch: particle_count + 1 (CSR of each particle's items).
    int32_t* items;             ///< Scratch: 4 * candidate_capacity.
    uint8_t* sub_of;            ///< Scratch, 1 per particle: its sub-colour within its colour (0..DFM_DC_SUBCOLORS).
    int32_t* sub_particles;     ///< Scratch, 1 per particle: each colour's particles grouped by sub-colour.
    int32_t* sub_offsets;       ///< Scratch, color_count * DFM_DC_SUBCOLOR_SLOTS + 1: ranges of sub_particles.
    float* final_force;         ///< Scratch, 3 per particle: each one's deformable-contact force at the final iterate.
    dfm_cpu_dc_body* body_work; ///< Scratch, 1 per body (dfm_cpu_dc_final_forces).
    dfm_cpu_dc_edge* edge_work; ///< Scratch, min(candidate_capacity, bodies choose 2) + 1 body pairs.
    double* solve_work;         ///< Scratch, 16 per body: the potentials' conjugate-gradient vectors.
    float* pair_dist;           ///< Scratch, candidate_capacity: each pair's distance at x_prev (narrow phase), m.
    uint32_t* feature;          ///< Scratch, candidate_capacity: each vertex-triangle pair's dfm_dc_vt_feature.
    float* vertex_bound;        ///< Scratch, 1 per particle: dfm_dc_view.vertex_bound when pairs_filtered (m).
    dfm_cpu_dc_terms* terms;    ///< Scratch, candidate_capacity: each pair's terms at the final iterate.
    float* need;                ///< Scratch, 3 per particle: dfm_vbd_particle_need (from the lanes), or NULL.
    int32_t pairable;           ///< 0: the filters let no two primitives pair (detection skips the trees).
    const struct dfm_cpu_simd* simd; ///< The advance's lanes (vbd_simd.h; NULL: scalar) for the pair batches.
    /// Workers for the detection's parallel passes (dfm_cpu_dc_build's narrow phase and sub-colours,
    /// the guess bound), set by the caller before each advance (vbd_cpu.c, plugin/step_cuda.c; <= 1:
    /// serial). The results are bitwise the same for any count.
    int32_t threads;
    int64_t fork_min; ///< Candidates from which the build forks (<= 0: DFM_CPU_DETECT_PARALLEL_MIN; tests lower it).
    float radius, ke, mu; ///< Contact radius (m), stiffness (N/m), friction coefficient.
    /* set by the step before each advance (plugin/step.c; the CUDA backend leaves both 0: every
       advance detects) */
    int32_t span;           ///< Advances a detection at this advance covers, this one included (>= 1; 0 reads 1).
    int32_t reuse;          ///< 1: keep the last detection's pairs if it still covers this advance (dfm_cpu_dc_detect).
    int32_t feasible;       ///< 1: one contact per feature (redundant pairs dropped at detection; feasible_pairs).
    int32_t pairs_filtered; ///< Output: 1 when the last detection dropped redundant pairs (view.vertex_bound set).
    int32_t dropped_redundant; ///< Output: pairs the last detection dropped as redundant (0 when not filtered).
    /* state of the reuse */
    int32_t covered;   ///< Further advances the last detection's pairs cover (0: the next advance detects).
    float span_budget; ///< The last detection's query radius over its span (m per advance).
    /* outputs of the last advance */
    int64_t candidates;  ///< Broad-phase candidates found (may exceed the capacity).
    int64_t dropped;     ///< Candidates beyond the capacity (not tested, not protected).
    int32_t pair_count;  ///< Pairs kept (distance below the query radius).
    int32_t detected;    ///< 1: this advance ran the broad and narrow phases; 0: it kept the last pairs.
    float query_radius;  ///< m.
    int64_t build_forks; ///< Builds (dfm_cpu_dc_build) that ran their passes on more than one worker, in all.
    dfm_dc_view view;    ///< The gather's view of the pairs.
} dfm_cpu_dc;

/// The detection of one advance, after predict. Also splits every colour into sub-colours with no
/// pair between two particles of one sub-colour (greedy, in colour order): contact pairs are not in
/// the coloring, and two particles of one pair solved together both take the whole correction
/// (measured: a cube resting on a cube oscillated about the contact distance with 250x its weight
/// in pair forces). Solved sub-colour after sub-colour, the gather reads live positions and the
/// sweep stays Gauss-Seidel; the split depends only on the pairs, not on the thread count.
/// After predict (x_prev holds the start positions, y the inertia
/// targets): the query radius r + max(r, 3 S max |y|) over the surface particles, S = `span` the
/// advances the detection covers (so that the bound on each advance's motion, DFM_DC_BOUND_FRACTION
/// of the radius over S, exceeds every inertial motion and the S advances together move no vertex
/// farther than DFM_DC_BOUND_FRACTION of the radius from where the pairs were found), trees built
/// over x_prev, candidates, pairs, lists; then the initial guess of every dynamic surface particle
/// is bounded like a step from x_prev (d and x rewritten). With `reuse` 1 and advances left in the
/// last detection's span whose per-advance bound still exceeds 3 max |y|, the pairs, lists,
/// sub-colours and bound are kept and only the pairs' distances at x_prev are computed again (for
/// the guess bound); else it detects afresh. S is cut to the advances whose widened radius stays
/// 2r (3 S max |y| <= r), so a detection never asks for more candidates than one per advance
/// would. S = 1 is the detection of every advance (bitwise the same as before the reuse). In a fixed order: the same pairs for any thread count (dfm_cpu_dc_build).
/// With `pairable` 0 the trees are neither built nor queried (they would find nothing); the rest
/// runs as with no candidates.
void dfm_cpu_dc_detect(dfm_cpu_dc* s, const dfm_vbd_view* v, int32_t color_count, const int32_t* color_offsets,
                       const int32_t* color_particles, const int32_t* particle_color);

/// dfm_cpu_dc_detect's first stage, also used by the CUDA backend: the query radius
/// r + max(r, 3 max |y|) over the surface particles (y: 3 floats per particle, n of them), stored
/// in s->query_radius and returned (m).
float dfm_cpu_dc_query_radius(dfm_cpu_dc* s, const float* y, int32_t n);

/// The broad-phase input of one query of dfm_cpu_dc_detect over positions x_prev (n particles)
/// at s->query_radius: vertex-triangle (edge_edge 0: the surface vertices against the triangle
/// tree) or edge-edge (1: the edges against themselves, each unordered pair once).
void dfm_cpu_dc_bvh_input(const dfm_cpu_dc* s, const float* x_prev, int32_t n, int edge_edge, dfm_bvh_input* in);

/// dfm_cpu_dc_detect after its queries, also used by the CUDA backend: s->cand holds the first
/// min(vt, capacity) vertex-triangle candidates, then the edge-edge ones up to the capacity (vt and
/// ee: the counts found, which may exceed it); sets candidates and dropped, keeps the pairs closer
/// than s->query_radius at x_prev (narrow phase), builds each particle's list and the sub-colours
/// and fills s->view. In candidate order (the guess bound is left to the caller); from
/// DFM_CPU_DETECT_PARALLEL_MIN candidates on s->threads workers, the narrow phase and the
/// one-contact-per-feature marks run over contiguous candidate ranges that start at a new query
/// vertex (a vertex's pairs never straddle two), kept pairs compacted in range order, and the
/// colours are sub-coloured in parallel (each colour's greedy reads only its own particles): the
/// same pairs, lists and sub-colours, bitwise, as on one thread.
void dfm_cpu_dc_build(dfm_cpu_dc* s, const float* x_prev, int32_t n, int64_t vt, int64_t ee, int32_t color_count,
                      const int32_t* color_offsets, const int32_t* color_particles, const int32_t* particle_color);

/// After the sweeps, for the reactions (contacts_cpu.h deform_force): each dynamic surface
/// particle's deformable-contact force at the final iterate into final_force (zero for the
/// others), made momentum-consistent over the graph of bodies. Unconverged pair forces at the
/// default counts are many times the weight they carry (measured at 4 x 10, k 1e3: 5x for a 6 cm
/// cube on a cube, 15x and 10x at the two interfaces of three stacked cubes, 14x for a cloth on a
/// cloth), and differently so at each interface. The reactions make each body's contact forces
/// sum to its momentum need (contact_reaction.h), so the pair forces must too, or the unbalanced
/// part lands on the shapes. The forces of each touching body pair e (lo, hi) change by delta_e
/// on hi (-delta_e on lo) and each body's shape contacts by S_b lambda_b, the least change
/// sum |delta_e|^2 / c_e + sum_b S_b |lambda_b|^2 that balances every body of a component with a
/// pinned body or a shape contact: delta_e = c_e (lambda_hi - lambda_lo) and L lambda = need -
/// raw - R, L the c-weighted Laplacian of the body graph plus S on its diagonal, pinned bodies
/// held at lambda = 0 (c_e: the pair's mean corner-force magnitude sum; R, S: the body's shape
/// contact force and magnitude sum, as dfm_contact_body_extra, whose extra then equals lambda).
/// Conjugate gradients in double (deform_balance.c, shared with the CUDA backend). On a stack (a tree) this is the only balance: each interface
/// carries every weight above it; summed, the shapes carry the needs of all bodies. Each side's
/// change is spread over its corners in proportion to their force magnitudes. A body whose share
/// S_b lambda_b would turn one of its shape contacts into a pull (the reactions cut those, and the
/// shapes' sum would exceed the needs: a cloth across two cubes with its ends on the floor read
/// 13% of its weight too much) drops its shapes from L while its component keeps another support,
/// and the system is solved again (at most 4 rounds). Pairs inside one
/// body, between pinned bodies, and in components without a pin or a loaded shape keep their raw
/// forces. Serial, in a fixed order. c: the shape contact view (NULL: none); node_friction: the
/// Coulomb projection's node forces (NULL: none). `need_in` (NULL: computed here) is every
/// particle's dfm_vbd_particle_need at the final iterate, 3 floats per particle (the lanes':
/// bitwise). Each pair's terms are evaluated once (s->terms) and reused for its 4 corners in both
/// passes; without pairs the forces are zero and nothing else runs. The earlier version scaled every pair of an
/// "unsupported" body (no pin, no shape record) by one factor along its sum: exact for one body
/// on a support, but the middle of three cubes scaled its lower interface by its own net (the
/// ground read 83% of the weights, issue 16 sample 11), and a cloth on a cloth with shape records
/// in the margin but no force kept 14x its weight unbalanced (the box read 5.5x the weights).
void dfm_cpu_dc_final_forces(dfm_cpu_dc* s, const dfm_vbd_view* v, const dfm_contact_view* c,
                             const float* node_friction, const int32_t* particle_body, const int32_t* body_offsets,
                             int32_t body_count, const float* need_in);

#ifdef __cplusplus
}
#endif

#endif
