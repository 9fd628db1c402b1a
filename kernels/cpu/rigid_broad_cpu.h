/// @file rigid_broad_cpu.h
/// Per-advance broad phase of the rigid-contact candidates on the CPU (issue 16, slice 3). The
/// candidate lists (plugin/contacts_build.c) are every world-compatible (feature, shape) pair,
/// sorted by shape; detection tests each one (contact_detect.h). Above a threshold of candidates
/// per environment this module instead builds, every advance, one linear BVH (bvh_cpu.h) per
/// environment over the AABBs of that environment's shapes (its own and the shared ones, planes
/// left out), queries it with every feature's box, and returns the global candidate indices whose
/// boxes may overlap, in ascending order. The query is conservative (boxes grown by a relative
/// slack of 1e-5 beyond the early-out's own growth), so the selection holds every candidate that
/// passes the feature-AABB vs shape-AABB early-out of contact_detect.h; detection of the selection,
/// in its order, then writes exactly the records of the all-pairs loop (same records, same order,
/// same count and drops: bitwise the same step).

/// Parallelism review (seed 001): at the top of rigid_broad_cpu.c.
#ifndef DFM_RIGID_BROAD_CPU_H
#define DFM_RIGID_BROAD_CPU_H

#include <stdint.h>

#include "bvh_cpu.h"
#include "contact_detect.h"

/// Default of the switch: the BVH selection runs when the candidates on non-plane shapes (those
/// it can cull; plane candidates are always detected) number at least this many per feature, i.e.
/// when a feature meets on average this many non-plane shapes of its environment (the candidates
/// per environment over its features). Measured on the CPU (docs/perf.md, issue 16 slice 3: a
/// cloth on a plane and N boxes and spheres, thread CPU time of detection): all pairs / BVH is
/// 0.80 / 0.95-0.98 / 1.05-1.08 at 1 / 2 / 3 such shapes, the same for 5,891 and 24,067 features,
/// so the crossover is a number of shapes per feature, not of candidates.
#define DFM_CPU_RIGID_BVH_SHAPES 3

/// ... and at least this many of those candidates in the world: a guard (not measured) against
/// rebuilding trees every advance for a handful of features.
#define DFM_CPU_RIGID_BVH_MIN_PAIRS 4096

/// Name of the environment variable that overrides the switch: `auto` (the default,
/// DFM_CPU_RIGID_BVH_SHAPES), `bvh` (always), `brute` (never: the all-pairs loop), or a
/// non-negative integer: the BVH from that many non-plane shapes per feature (0 = always).
/// Anything else is refused by the step of a world with contacts (DFM_ERROR_INVALID_VALUE). Read
/// at every step.
#define DFM_CPU_RIGID_BROAD_ENV "DFM_CPU_RIGID_BROAD"

/// The broad-phase state of one world (owned by dfm_contacts; zeroed = empty).
typedef struct dfm_cpu_rigid_broad {
    int64_t generation;      ///< Candidate generation the per-list tables below were built for (0: none).
    int32_t shape_count;     ///< Live shapes of that generation.
    int32_t env_count;       ///< Environments (trees).
    int32_t* block[3];       ///< Per kind, shape_count + 1: first pair of each shape's block of the sorted list.
    int32_t features[3];     ///< Per kind: largest feature index in the list + 1 (the features queried).
    int32_t* env_off;        ///< env_count + 1: offsets into env_shape.
    int32_t* env_shape;      ///< Per environment, its non-plane shapes and the shared ones, ascending.
    dfm_cpu_bvh* trees;      ///< env_count trees (leaf_count 0 when the environment has no such shape).
    int32_t* tree_ok;        ///< Per environment: 1 when this advance's tree was built (else all its shapes hit).
    float* corners;          ///< 6 per env_shape entry: its AABB grown by margin + gap as two vertices, m.
    dfm_bvh_prim* prims;     ///< Per entry i of an environment: the edge (2i, 2i+1): the box of the corners.
    int32_t max_env_shapes;  ///< Largest environment's entry count (prims holds that many).
    int32_t* hit_feature;    ///< Scratch: (feature, shape) hits of one kind, feature-major.
    int32_t* hit_shape;      ///< Scratch, parallel to hit_feature.
    int32_t* sorted_feature; ///< Scratch: hit features by shape (stable), then ascending.
    int32_t* bucket;         ///< Scratch, shape_count + 1: per-shape offsets into sorted_feature.
    int64_t hit_cap;         ///< Room of the three hit arrays.
    int32_t* selected;       ///< Out: global candidate indices to detect, ascending.
    int64_t selected_count;  ///< Out: entries of `selected` after the last select.
    int64_t selected_cap;    ///< Room of `selected` (grown on demand by doubling).
    int32_t threads;         ///< In: OpenMP workers for the per-feature queries (set before every select; 0 or
                             ///< 1: serial). They fork from DFM_CPU_BROAD_PARALLEL_MIN features of a kind.
    int32_t part_count;      ///< Entries of `parts`.
    struct dfm_cpu_broad_part* parts; ///< Scratch of the forked queries: one per worker (rigid_broad_cpu.c).
} dfm_cpu_rigid_broad;

/// The per-feature queries of one candidate kind fork over `threads` workers from this many
/// features (cloth-lift at 16 environments: 9k-26k per kind, ~440 instructions each, callgrind; a
/// single cloth-lift environment's 0.6k-1.6k stay serial). Each worker queries a contiguous range
/// into its own buffer; the buffers are concatenated in range order, the serial order, so the
/// selection is the same for any thread count.
#define DFM_CPU_BROAD_PARALLEL_MIN 8192

/// Frees every array of `b` and zeroes it.
void dfm_cpu_rigid_broad_free(dfm_cpu_rigid_broad* b);

/// Selects the candidates of view `c` whose feature box (positions and velocities of `in`, grown
/// by the radius and the speculative |v| h) may overlap their shape's AABB (grown by margin and
/// gap): b->selected[0 .. b->selected_count) in ascending global index. Plane candidates are
/// always selected. `particle_env` is the environment of each particle (a feature's is that of its
/// first particle); `env_count` the world's environments; `generation` the candidate lists'
/// (dfm_contacts.generation): the per-list tables are rebuilt when it changes. The lists must be
/// sorted by shape (not DFM_DISABLE_SHAPE_SORT) and the early-out on (not DFM_DISABLE_AABB_CULL).
/// Returns 0, or -1 when host memory ran out (then detect every candidate).
int dfm_cpu_rigid_broad_select(dfm_cpu_rigid_broad* b, const dfm_contact_view* c, const dfm_detect_input* in,
                               const int32_t* particle_env, int32_t env_count, int64_t generation);

/// Parses the value of DFM_CPU_RIGID_BROAD_ENV (NULL = unset): writes the threshold in non-plane
/// shapes per feature (0: always the BVH, with no DFM_CPU_RIGID_BVH_MIN_PAIRS guard either;
/// INT64_MAX: never) and returns 0, or -1 for a value that is none of `auto`, `bvh`, `brute` or a
/// non-negative decimal integer.
int dfm_cpu_rigid_broad_threshold(const char* value, int64_t* threshold);

#endif
