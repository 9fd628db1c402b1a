/// @file workload.h
/// The benchmark workloads, built through the public ABI like a host would build them:
/// cloth-lift (a 24 x 24-vertex, 0.3 m cloth hanging from a hook, its top row pinned, between
/// two open pads: they close on it, the hook lets go and the pads lift it by friction) and
/// soft-lift (a 6 cm soft cube of 6 x 6 x 6 vertices, 5 tets per cell, on a table: the pads
/// descend, squeeze and lift it). Each has a table box, two box pads and a palm box on a
/// scripted path. game-cloth (game_cloth.c): one cloth of res x res vertices draping over a
/// sphere on a table box, nothing scripted. cloth-fold (cloth_fold.c): one res x res cloth folded
/// onto itself on a table box, deformable contact on (CPU only). Environments are 2 m apart along x.
#ifndef DFM_BENCH_WORKLOAD_H
#define DFM_BENCH_WORKLOAD_H

#include <dfm/dfm.h>
#include <dfm_scene_grid.h>

/// Workload kinds.
typedef enum bench_kind {
    BENCH_CLOTH_LIFT = 0,
    BENCH_SOFT_LIFT = 1,
    BENCH_GAME_CLOTH = 2,
    BENCH_CLOTH_FOLD = 3
} bench_kind;

/// Options of one run.
/// Not a disable flag: turns dfm_world_def.deterministic on (its cost shows in the attribution).
#define BENCH_DETERMINISTIC (1u << 31)

typedef struct bench_options {
    bench_kind kind;
    int32_t envs;           ///< Environments.
    int32_t res;            ///< Cloth vertices per side (cloth-lift) or cube vertices per side (soft-lift).
    int32_t substeps;       ///< Per env step.
    int32_t iterations;     ///< Per substep.
    int32_t backend;        ///< dfm_backend.
    int32_t device;         ///< CUDA device index (CUDA backend).
    uint32_t flags;         ///< dfm_world_def.disable_flags, plus BENCH_DETERMINISTIC.
    uint32_t features;      ///< dfm_world_def.feature_flags (--body-translation).
    int32_t threads;        ///< dfm_world_def.cpu_threads (0 = all).
    int32_t self_collision; ///< cloth-fold: the cloth's self_collision (1; 0 with --no-self-collision; -1:
                            ///< also world deformable contact off, --no-deformable-contact).
} bench_options;

/// A built workload: the world, its shapes (4 per environment: table, two pads, palm; game-cloth:
/// 2, table and sphere) and bodies.
typedef struct bench_workload {
    dfm_world* world;
    int32_t envs;
    int32_t shapes_per_env;   ///< 4 (gripper workloads) or 2 (game-cloth).
    dfm_shape_id* shapes;     ///< shapes_per_env * envs.
    dfm_shape_state* states;  ///< shapes_per_env * envs, updated by bench_workload_drive.
    dfm_body_id* bodies;      ///< The cloth or cube of each environment.
    double* start_centroid_z; ///< Each body's centroid z before the lift (bench_workload_mark_start), m.
    bench_kind kind;
    int32_t res, vertex_count; ///< Vertices per side and per body.
    float contact_radius;      ///< The body's contact radius, m (where the pads' squeeze is measured from).
    int released;              ///< cloth-lift: the hook (pinned top row) has let go.
    int32_t particles, elements, colors;
    dfm_scene_grid fold; ///< cloth-fold: environment 0's folded cloth as built (scenes/dfm_scene_fold.h; owned).
} bench_workload;

/// Builds the workload. Returns DFM_OK, or the failing call's result (message in
/// dfm_world_last_error of the world, or of NULL when the world could not be created).
dfm_result bench_workload_build(const bench_options* o, bench_workload* out);

/// Moves the gripper of every environment to its pose at time t (s) and hands dfm the states.
dfm_result bench_workload_drive(bench_workload* w, double t);

/// The gripper's rise at time t (s) above its pinch height, m.
double bench_workload_lift(const bench_workload* w, double t);

/// Records each body's centroid height before the lift (bench_workload_drive calls it at the
/// first time the lift is under way).
dfm_result bench_workload_mark_start(bench_workload* w);

/// Counts the environments whose body rose with the gripper by time t: centroid up by at least
/// 0.9 of the lift since bench_workload_mark_start (a dropped or slipping body does not).
dfm_result bench_workload_held(bench_workload* w, double t, int32_t* held);

/// game-cloth: adds environment e's cloth (into bodies[e]) and its two shapes at offset ox (m)
/// along x, their states into states[2e], states[2e + 1] (game_cloth.c).
dfm_result bench_game_cloth_add_env(bench_workload* w, int32_t e, float ox);

/// cloth-fold: adds environment e's folded cloth (into bodies[e]) and its table at offset ox (m)
/// along x, the table's state into states[e] (cloth_fold.c).
dfm_result bench_cloth_fold_add_env(bench_workload* w, int32_t e, float ox, int32_t self_collision);

/// cloth-fold, environment 0: the smallest signed distance (m) of an upper-half vertex (the fold
/// row excluded) to the lower half (its closest triangle, signed by the lower half's upward
/// normal); < 0: a vertex of the upper layer is below the lower one (passed through it).
dfm_result bench_cloth_fold_min_signed_distance(bench_workload* w, double* out);

/// Environment 0's body: its lowest vertex height and its centroid height, m (game-cloth: where
/// the cloth lies after the run; the table top is z = 0).
dfm_result bench_workload_body_z(bench_workload* w, double* min_z, double* centroid_z);

/// Frees everything.
void bench_workload_free(bench_workload* w);

/// Rough host-memory estimate (bytes) of a workload, for a clear error before building one the
/// machine cannot hold.
double bench_workload_estimate_bytes(const bench_options* o);

#endif
