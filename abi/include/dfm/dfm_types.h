/// @file dfm_types.h
/// Definition structs (defs) passed to create calls; their defaults are in dfm_defaults.h.
///
/// Every def starts with `struct_size`, which the caller sets to `sizeof` of the def as it was
/// compiled (the dfm_*_def_default() functions of dfm_defaults.h do this). The library reads
/// only the first `struct_size` bytes and uses its own defaults for fields the caller's header
/// did not have. New fields are only ever appended. Initialize every def from its default:
///
///     dfm_cloth_def def = dfm_cloth_def_default();
///     def.positions = xyz; def.vertex_count = n; ...
#ifndef DFM_TYPES_H
#define DFM_TYPES_H

#include "dfm_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Which compute backend a world runs on.
typedef enum dfm_backend {
    DFM_BACKEND_AUTO = 0, ///< CUDA when a usable device exists and the build has CUDA, else CPU.
    DFM_BACKEND_CPU = 1,  ///< The CPU reference backend (deterministic).
    DFM_BACKEND_CUDA = 2, ///< The CUDA backend; creation fails if no device is usable.
    DFM_BACKEND_MAX_ENUM = 0x7FFFFFFF
} dfm_backend;

/// World creation parameters.
typedef struct dfm_world_def {
    uint32_t struct_size;        ///< sizeof(dfm_world_def) as compiled by the caller.
    float gravity[3];            ///< Gravity acceleration in m/s^2, world frame. Default (0, 0, -9.81).
    int32_t substeps;            ///< Advances per dfm_world_step (each of dt/substeps). Default 4.
    int32_t iterations;          ///< VBD iterations per advance. Default 10.
    int32_t environment_count;   ///< Replicated environments; body environments are -1..count-1. Default 1.
    int32_t backend;             ///< A dfm_backend value. Default DFM_BACKEND_AUTO.
    int32_t device_index;        ///< CUDA device ordinal for the CUDA backend. Default 0.
    int32_t cpu_threads;         ///< CPU backend worker threads; 0 = all available. Default 0.
    dfm_log_fn log_fn;           ///< Receives warnings/errors/info; NULL = silent. Default NULL.
    void* log_user;              ///< Passed to log_fn unchanged. Default NULL.
    int32_t log_level;           ///< Highest dfm_log_level forwarded to log_fn. Default DFM_LOG_WARNING.
    int32_t contact_capacity;    ///< Contact records per advance; 0 = one per candidate pair (cannot
                                 ///< overflow). Records beyond it are dropped and counted. Default 0.
    uint32_t disable_flags;      ///< DFM_DISABLE_* bits: switch optimizations/features off. Default 0.
    float contact_penalty_beta;  ///< AVBD penalty ramp per iteration, N/m per m of penetration;
                                 ///< 0 = penalty fixed at the shape's ke. Default 0.
    float contact_penalty_start; ///< Initial penalty (N/m) when the ramp is on. Default 1000.
    int32_t deterministic;       ///< CUDA: 1 = bitwise reproducible runs on the same GPU (contact records in
                                 ///< candidate order, lists by a counting sort, ordered reductions; needs
                                 ///< the shape sort and the contact lists, else creation fails with
                                 ///< DFM_ERROR_UNSUPPORTED). The CPU backend is always deterministic. Default 0.
    void* cuda_stream;           ///< CUDA: a cudaStream_t of the host's on device_index that dfm enqueues its
                                 ///< work on (dfm synchronizes it at the end of each step); NULL = a stream
                                 ///< of dfm's own. Default NULL.
    /* ABI 1.5 */
    uint32_t feature_flags; ///< DFM_FEATURE_* bits: opt-in solver features. Default 0.
    /* ABI 1.7: deformable-deformable contact (issue 16; CPU backend only, docs/abi.md) */
    float deformable_contact_radius;  ///< Contact distance (offset, m) between deformable primitives: a vertex and a
                                      ///< triangle, or two edges, repel below it (a cloth's thickness). 0 = no
                                      ///< deformable-deformable contact; else 1e-4..1 m. Default 0.
    float deformable_contact_ke;      ///< Stiffness of that contact, N/m per pair (> 0). Default 1e3.
    float deformable_contact_mu;      ///< Friction coefficient between deformables (>= 0). Default 0.5.
    int32_t deformable_pair_capacity; ///< Candidate pairs per advance; 0 = 32 per surface vertex and edge. Pairs
                                      ///< beyond it are dropped, counted and logged. Default 0.
} dfm_world_def;

/// Opt-in features of dfm_world_def.feature_flags (ABI 1.5).
typedef enum dfm_feature_flags {
    /// A body-level translation solve after every sweep, with each body's Coulomb friction decided
    /// for the body as a whole, and smoothed friction inside the sweeps (docs/physics.md, issue 13):
    /// a draped cloth's shapes read at most 3.3x its weight (bound 23x), a stiff body on a slope
    /// slides with the friction Coulomb gives (mu_eff within 0.1%) and sticks below it, a pinch
    /// holds at 1.2 and slips at 0.8 of Coulomb's friction, and a resting soft cube compresses
    /// 2.4x (not 13x) its analytic figure (CPU, 4 x 10; test_physics_*_body). Known limits: a
    /// static strip or cube is still over-stretched (a pinned body has no free translation; the
    /// cube's compression is a deformation mode) and scenes tuned to the default solver's
    /// numerical stickiness behave differently (a cloth half over a table edge slides off, as
    /// Coulomb says). Cloth contact normals follow the sheet (kernels/shared/contact_sheet.h).
    /// CPU and CUDA; costs in docs/perf.md.
    DFM_FEATURE_BODY_TRANSLATION = 1u << 0,
    /// A two-level VBD solve (issue 13 item 7, docs/physics.md session 12): after every sweep but the
    /// last, each body takes a Newton step on a coarse grid of cells 2 mean edge lengths wide (a
    /// Galerkin correction with each triangle's exact membrane Hessian projected to PSD), which
    /// removes the default solver's steady sag: a hanging strip and a resting soft cube within 1%
    /// and 6% of their analytic elongation and shortening (446x and 13x without it), a draped cloth's shapes
    /// below 6x its weight (45x), a swinging cloth within the default's accuracy (CPU, 4 x 10;
    /// test_physics_*_coarse). Known limits: friction is not part of the coarse step (a stiff cube
    /// slides down a slope Coulomb says it sticks on; a pinched strip is lifted), and it costs
    /// several times the default step (docs/physics.md). CPU and CUDA (on CUDA host-assisted: the
    /// CPU's coarse step runs on the host between the sweeps, and the step runs without a CUDA
    /// graph); not combined with deformable_contact_radius > 0 (DFM_ERROR_UNSUPPORTED); the
    /// built-in vbd solver only (xpbd ignores it). (ABI 1.7)
    DFM_FEATURE_COARSE_CORRECTION = 1u << 1,
    DFM_FEATURE_KNOWN_FLAGS = (1u << 2) - 1u ///< Every bit above is known; others are refused at creation.
} dfm_feature_flags;

/// Switches for dfm_world_def.disable_flags. All optimizations are on by default.
enum {
    DFM_DISABLE_SHAPE_SORT = 1u << 0,              ///< Candidate lists in feature order, not sorted by shape.
    DFM_DISABLE_AABB_CULL = 1u << 1,               ///< No feature-AABB vs shape-AABB early-out.
    DFM_DISABLE_CONTACT_LISTS = 1u << 2,           ///< Legacy per-color scatter instead of per-particle lists.
    DFM_DISABLE_EDGE_CONTACTS = 1u << 3,           ///< No edge-vs-shape contacts (particles and faces only).
    DFM_DISABLE_FACE_CONTACTS = 1u << 4,           ///< No face-vs-shape contacts.
    DFM_DISABLE_SPLIT_SDF = 1u << 5,               ///< Always evaluate value + gradient together.
    DFM_DISABLE_STATIC_FRICTION = 1u << 6,         ///< IPC-style smoothed friction in the solve instead of the
                                                   ///< Coulomb projection; creeps at rest (docs/friction.md).
    DFM_DISABLE_GRAPH_CAPTURE = 1u << 7,           ///< CUDA: launch every kernel of a step eagerly instead of
                                                   ///< replaying one captured CUDA graph per step.
    DFM_DISABLE_ACTIVE_PREFIX = 1u << 8,           ///< CUDA: contact passes (penalties, lists, reactions) launch
                                                   ///< over the whole capacity instead of the active prefix.
    DFM_DISABLE_TWO_PARTICLE_WARPS = 1u << 9,      ///< CUDA: one particle per 32-lane warp (16 lanes idle) in the
                                                   ///< tiled elasticity solve instead of two (bitwise equal results).
    DFM_DISABLE_TET_KERNEL = 1u << 10,             ///< CUDA: the generic elasticity kernel also for tet-only models
                                                   ///< (bitwise equal results).
    DFM_DISABLE_DEFORMABLE_PAIR_REUSE = 1u << 11,  ///< CPU deformable contact: find the pairs at every substep
                                                   ///< (bitwise the behaviour before) instead of once per step
                                                   ///< for all substeps (docs/DESIGN.md).
    DFM_DISABLE_DEFORMABLE_PAIR_FILTER = 1u << 12, ///< Deformable contact: keep every pair the narrow phase finds
                                                   ///< (bitwise the behaviour before) instead of one contact per
                                                   ///< feature (docs/DESIGN.md, issue 16).
    DFM_DISABLE_KNOWN_FLAGS = (1u << 13) - 1u      ///< Every bit above is known; others are refused at creation.
};

/// Most substeps and iterations per step a world takes (world def, dfm_world_set_solver_counts): a
/// billion sweeps per step is a hang, not a setting.
#define DFM_MAX_SUBSTEPS 1000
/// Most contact records per advance (world_def.contact_capacity; ABI 1.6): about 160 bytes each on
/// the host, so 2^25 records are 5 GB. A world with more candidate pairs and capacity 0 gets this
/// capacity; records beyond it are dropped, counted and logged.
#define DFM_MAX_CONTACT_CAPACITY (1 << 25)
#define DFM_MAX_ITERATIONS 1000

/// Largest dt dfm_world_step takes, s: no host tick is longer (a 1e30 s step turned every particle NaN).
#define DFM_MAX_DT 10.0f
/// Smallest substep dt / substeps, s: below it h^2 underflows in float (a denormal dt gave NaN).
#define DFM_MIN_SUBSTEP 1e-7f
/// Largest |coordinate| (m) of a vertex position, kinematic target or shape position the world
/// takes: float spacing there is 6 cm already, and a kinematic target of 3e38 m gave an infinite
/// velocity. Positions beyond it are refused with DFM_ERROR_INVALID_VALUE.
#define DFM_MAX_COORD 1.0e6f
/// Largest |component| of a vertex or shape velocity the world takes (m/s; 10 km/s, a substep
/// of a 60 Hz tick moves 42 m at it). Larger values are refused with DFM_ERROR_INVALID_VALUE; a
/// step that carries a particle beyond DFM_MAX_COORD anyway is refused with
/// DFM_ERROR_OUT_OF_BOUNDS and rolled back.
#define DFM_MAX_SPEED 1.0e4f
/// Largest |component| of a shape's angular velocity the world takes, rad/s.
#define DFM_MAX_ANGULAR_SPEED 1.0e4f

/// A cloth (triangle-mesh) body. Cloth is simulated as a stable Neo-Hookean membrane on its
/// triangles plus dihedral-angle bending on its interior edges.
typedef struct dfm_cloth_def {
    uint32_t struct_size;       ///< sizeof(dfm_cloth_def) as compiled by the caller.
    int32_t environment;        ///< Environment index, or -1 to be shared by all. Default 0.
    const float* positions;     ///< Borrowed during the call: vertex positions (m, world frame).
    int32_t position_stride;    ///< Bytes between vertices in `positions`; 0 = 3 packed floats.
    int32_t vertex_count;       ///< Number of vertices (>= 3).
    const int32_t* triangles;   ///< Borrowed during the call: 3 vertex indices per triangle.
    int32_t triangle_count;     ///< Number of triangles (>= 1).
    const float* vertex_masses; ///< Optional per-vertex masses (kg, > 0); NULL = use density.
    float density;              ///< Area density in kg/m^2 used when vertex_masses is NULL. Default 0.2.
    float stretch_mu;           ///< Membrane Lame mu in N/m (shear/stretch). Default 2000.
    float stretch_lambda;       ///< Membrane Lame lambda in N/m (area). Default 2000.
    float stretch_damping;      ///< Absolute strain-rate damping in N*s/m. Default 0.01.
    float bend_stiffness;       ///< Bending stiffness in N*m/rad per m of edge (k = value * rest edge length).
                                ///< Default 1e-3.
    float bend_damping;         ///< Bending damping in N*m*s/rad per m of edge. Default 1e-5.
    float contact_radius;       ///< Particle contact radius in m (used by contacts). Default 0.002.
    float air_drag;             ///< Linear drag against still air in N*s/m^3: each vertex feels
                                ///< -air_drag * (its lumped area) * v. Damps swinging. Default 0.
    /* ABI 1.7: deformable-deformable contact (world_def.deformable_contact_radius > 0) */
    int32_t self_collision;   ///< 1: the cloth collides with itself (vertices against its non-incident triangles,
                              ///< edges against non-adjacent edges); 0: never. Default 1.
    uint32_t collision_group; ///< Group bits of the body. Two bodies collide when each one's group meets the
                              ///< other's mask. Default 1.
    uint32_t collision_mask;  ///< Groups the body collides with. Default 0xFFFFFFFF (all).
} dfm_cloth_def;

/// A volumetric soft body on a tetrahedral mesh (stable Neo-Hookean).
typedef struct dfm_volume_def {
    uint32_t struct_size;       ///< sizeof(dfm_volume_def) as compiled by the caller.
    int32_t environment;        ///< Environment index, or -1 to be shared by all. Default 0.
    const float* positions;     ///< Borrowed during the call: vertex positions (m, world frame).
    int32_t position_stride;    ///< Bytes between vertices in `positions`; 0 = 3 packed floats.
    int32_t vertex_count;       ///< Number of vertices (>= 4).
    const int32_t* tets;        ///< Borrowed during the call: 4 vertex indices per tet, positive volume order.
    int32_t tet_count;          ///< Number of tetrahedra (>= 1).
    const float* vertex_masses; ///< Optional per-vertex masses (kg, > 0); NULL = use density.
    float density;              ///< Volume density in kg/m^3 used when vertex_masses is NULL. Default 1000.
    float mu;                   ///< Lame mu in Pa. Default 1e5.
    float lambda;               ///< Lame lambda in Pa. Default 1e6.
    float damping;              ///< Absolute strain-rate damping in Pa*s. Default 10.
    float contact_radius;       ///< Particle contact radius in m (used by contacts). Default 0.002.
    /* ABI 1.7: deformable-deformable contact (world_def.deformable_contact_radius > 0) */
    int32_t self_collision;   ///< 1: the body's surface collides with itself; 0: never. Default 0.
    uint32_t collision_group; ///< Group bits of the body (see dfm_cloth_def). Default 1.
    uint32_t collision_mask;  ///< Groups the body collides with. Default 0xFFFFFFFF (all).
} dfm_volume_def;

/// How a vertex moves.
typedef enum dfm_vertex_mode {
    DFM_VERTEX_DYNAMIC = 0,   ///< Simulated.
    DFM_VERTEX_PINNED = 1,    ///< Zero inverse mass: holds its position, velocity zero.
    DFM_VERTEX_KINEMATIC = 2, ///< Follows host-set targets (dfm_body_set_kinematic_targets).
    DFM_VERTEX_MODE_MAX_ENUM = 0x7FFFFFFF
} dfm_vertex_mode;

/// Facts about one body (filled by dfm_body_get_info).
typedef struct dfm_body_info {
    uint32_t struct_size;       ///< sizeof(dfm_body_info) as compiled by the caller.
    int32_t kind;               ///< 1 = cloth, 2 = volume.
    int32_t environment;        ///< Environment index or -1.
    int32_t vertex_count;       ///< Vertices (particles) of the body.
    int32_t triangle_count;     ///< Triangles (cloth).
    int32_t bending_edge_count; ///< Interior edges carrying bending (cloth).
    int32_t tet_count;          ///< Tetrahedra (volume).
    int32_t first_particle;     ///< Offset of the body's first particle in world-wide arrays (changes when bodies are
                                ///< removed).
    float total_mass;           ///< kg, including pinned/kinematic vertices.
} dfm_body_info;

/// An empty info struct with struct_size set, ready for dfm_body_get_info.
static inline dfm_body_info dfm_body_info_init(void) {
    dfm_body_info s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

/// World-wide counters (filled by dfm_world_get_stats).
typedef struct dfm_world_stats {
    uint32_t struct_size;        ///< sizeof(dfm_world_stats) as compiled by the caller.
    int32_t body_count;          ///< Live bodies.
    int32_t particle_count;      ///< Particles of all bodies.
    int32_t triangle_count;      ///< Membrane triangles.
    int32_t bending_edge_count;  ///< Bending edges (interior edges).
    int32_t tet_count;           ///< Tetrahedra.
    int32_t color_count;         ///< Particle colors of the current coloring.
    int32_t color_min_size;      ///< Particles in the smallest color.
    int32_t color_max_size;      ///< Particles in the largest color.
    int64_t step_count;          ///< dfm_world_step calls that succeeded.
    double sim_time;             ///< Simulated time in s.
    int32_t backend;             ///< The dfm_backend the world runs on (never AUTO).
    int64_t device_memory_bytes; ///< CUDA: device memory dfm holds for this world, bytes (0 on the CPU).
    /* ABI 1.4 */
    int64_t nonfinite_steps; ///< Steps refused with DFM_ERROR_NON_FINITE and rolled back because they left a
                             ///< position or velocity non-finite.
    /* ABI 1.5 */
    float force_residual_max;      ///< Convergence of the last step (N): the largest local force residual of a dynamic
                                   ///< particle at its end, |inertia + elastic + drag + contact + friction forces|
                                   ///< (0 when the step converged). VBD runs a fixed number of iterations, not to
                                   ///< convergence; compare this with a particle's weight m |g|. -1 before the first
                                   ///< step and under solvers that do not measure it (xpbd).
    float force_residual_relative; ///< The same summed over the dynamic particles, divided by their summed weight
                                   ///< (|g| = 9.81 m/s^2 when the world has no gravity): 0 converged; 0.1 means the
                                   ///< forces left unbalanced add up to a tenth of the weights. -1 like above.
                                   ///< docs/abi.md tables it against static error for the default counts.
    /* ABI 1.7 */
    int32_t deformable_pairs;               ///< Deformable contact pairs (within the query radius) of the last advance.
    int32_t deformable_candidates;          ///< Broad-phase candidate pairs of the last advance.
    int64_t deformable_pairs_dropped;       ///< Candidates dropped for capacity over the last step.
    int64_t deformable_pairs_dropped_total; ///< The same over the world's life.
} dfm_world_stats;

/// Summed GPU kernel time of the last profiled step, split by phase (milliseconds, from CUDA
/// events around each launch group of an eager, non-graph step; see dfm_world_set_profiling).
/// The solve phase holds the elasticity solve with the contact gather fused into it.
typedef struct dfm_phase_times {
    uint32_t struct_size; ///< sizeof(dfm_phase_times) as compiled by the caller.
    int32_t valid;        ///< 1 when the last step was profiled.
    float detection_ms;   ///< Contact detection (and deterministic compaction).
    float lists_ms;       ///< Per-particle contact lists and initial-guess normals.
    float duals_ms;       ///< AVBD penalty updates.
    float solve_ms;       ///< Per-color elasticity solve with contact gather (and legacy scatter).
    float friction_ms;    ///< Friction projection.
    float reactions_ms;   ///< Reaction forces and per-shape wrench sums.
    float other_ms;       ///< Predict, hinge angles, velocity update, clears and copies.
    float total_ms;       ///< Sum of the above.
} dfm_phase_times;

/// An empty phase-times struct with struct_size set.
static inline dfm_phase_times dfm_phase_times_init(void) {
    dfm_phase_times s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

/// An empty stats struct with struct_size set, ready for dfm_world_get_stats.
static inline dfm_world_stats dfm_world_stats_init(void) {
    dfm_world_stats s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

#ifdef __cplusplus
}
#endif

#endif
