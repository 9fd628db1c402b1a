/// @file bvh_cpu.h
/// CPU twin of the deformable broad phase (issue 16): linear BVH build, refit and pair query over
/// the shared math of kernels/shared/bvh_*.h, and the brute-force all-pairs reference. The CUDA
/// module (kernels/cuda/bvh_cuda.h) produces the same trees and the same pair lists.
/// Not wired into the solver yet (the narrow phase is the next slice of issue 16).
#ifndef DFM_BVH_CPU_H
#define DFM_BVH_CPU_H

#include <stddef.h>

#include "bvh_query.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A linear BVH on the host. Buffers are sized for `capacity` leaves at init; build borrows the
/// input's primitives and filters until the next build (they must stay alive for refit and query).
typedef struct dfm_cpu_bvh {
    int32_t capacity;             ///< Leaves the buffers hold.
    int32_t leaf_count;           ///< Leaves n of the last build (0 before any).
    uint64_t* keys;               ///< Scratch, n: (code << 32 | primitive) sort keys.
    uint32_t* codes;              ///< n: Morton codes in sorted order.
    int32_t* leaf_prim;           ///< n: tree primitive of each sorted leaf.
    int32_t *left, *right;        ///< n-1 each: children of internal nodes (node numbers, bvh_build.h).
    int32_t* parent;              ///< 2n-1: parent node (-1 at the root).
    int32_t* flag;                ///< n-1: refit arrival flags.
    dfm_bvh_box* boxes;           ///< 2n-1: node boxes, world frame, m.
    dfm_bvh_box scene;            ///< Bounds of the primitive centroids at the last build, m.
    const dfm_bvh_prim* prims;    ///< Borrowed: tree primitives of the last build.
    const dfm_bvh_filter* filter; ///< Borrowed: body filters of the last build.
} dfm_cpu_bvh;

/// Checks an input: counts, null pointers, vertex and body indices, finite positions, radius.
/// Returns DFM_OK or the most specific dfm_result with a message naming the item in err.
int dfm_bvh_validate(const dfm_bvh_input* in, char* err, size_t err_size);

/// Allocates buffers for `capacity` (>= 1) leaves. Returns DFM_OK, DFM_ERROR_INVALID_COUNT or
/// DFM_ERROR_OUT_OF_HOST_MEMORY (b is then empty and safe to free).
int dfm_cpu_bvh_init(dfm_cpu_bvh* b, int32_t capacity, char* err, size_t err_size);
/// Releases the buffers (b zeroed; NULL or zeroed b is fine).
void dfm_cpu_bvh_free(dfm_cpu_bvh* b);

/// Builds the tree over in->tree_prims at positions in->x: scene bounds, Morton codes, sort by
/// (code, index), Karras hierarchy, refit. DFM_ERROR_CAPACITY when tree_count > capacity.
int dfm_cpu_bvh_build(dfm_cpu_bvh* b, const dfm_bvh_input* in, char* err, size_t err_size);
/// Recomputes every box for new positions in->x with the hierarchy of the last build (same
/// primitives). Serial, in the order leaves arrive (bvh_build.h): the same boxes as the CUDA refit.
int dfm_cpu_bvh_refit(dfm_cpu_bvh* b, const dfm_bvh_input* in, char* err, size_t err_size);

/// Queries every in->query_prims box (inflated by in->radius) against the built tree (`in` is the
/// input of the last build, validated there; positions as of the last build or refit). Writes the
/// first min(count, capacity) pairs in the order of bvh_query.h and sets *out_count to the true
/// number of pairs. Returns DFM_OK, or DFM_ERROR_CAPACITY when the pairs exceed `capacity`
/// (the list then holds the first `capacity` of them and err says how many were found).
int dfm_cpu_bvh_query(const dfm_cpu_bvh* b, const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity,
                      int64_t* out_count, char* err, size_t err_size);

/// The reference: every (query, tree) pair tested directly with the same overlap and filters,
/// in (query, tree index) order. Same capacity rule and result as dfm_cpu_bvh_query.
int dfm_cpu_bvh_brute(const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity, int64_t* out_count, char* err,
                      size_t err_size);

/// The DFM_ERROR_CAPACITY message of a pair list that found `count` pairs for `capacity` slots.
int dfm_bvh_overflow(int64_t count, int64_t capacity, char* err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
