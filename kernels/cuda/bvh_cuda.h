/// @file bvh_cuda.h
/// The deformable broad phase on CUDA (issue 16; kernels/cuda/bvh_cuda.cu, or bvh_cuda_none.c
/// in builds without CUDA): the same linear BVH and pair list as the CPU twin
/// (kernels/cpu/bvh_cpu.h), built with CUB's radix sort. C-callable; every buffer is allocated
/// by dfm_cuda_bvh_create, so build, refit and query only launch work on the module's stream.
/// Not wired into the solver yet (the narrow phase is the next slice of issue 16).
#ifndef DFM_BVH_CUDA_H
#define DFM_BVH_CUDA_H

#include <stddef.h>

#include "bvh_query.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Device buffers of one broad phase (opaque).
typedef struct dfm_cuda_bvh dfm_cuda_bvh;

/// Capacities of a broad phase, fixed at creation.
typedef struct dfm_cuda_bvh_caps {
    int32_t leaves;   ///< Tree primitives, >= 1.
    int32_t queries;  ///< Query primitives, >= 1.
    int32_t vertices; ///< Vertices, >= 1.
    int32_t bodies;   ///< Body filters, >= 1.
    int64_t pairs;    ///< Pair list slots, >= 1; more pairs are counted, not stored.
} dfm_cuda_bvh_caps;

/// Creates a broad phase on the current device and its own stream. Returns DFM_OK,
/// DFM_ERROR_INVALID_COUNT, DFM_ERROR_DEVICE_UNAVAILABLE or DFM_ERROR_OUT_OF_DEVICE_MEMORY.
int dfm_cuda_bvh_create(const dfm_cuda_bvh_caps* caps, dfm_cuda_bvh** out, char* err, size_t err_size);
/// Frees every device buffer (NULL is fine).
void dfm_cuda_bvh_destroy(dfm_cuda_bvh* b);

/// Validates `in` (dfm_bvh_validate) and uploads its primitives, filters and positions, then builds
/// the tree: scene bounds (CUB reduce), Morton codes, CUB radix sort, Karras hierarchy, refit.
/// DFM_ERROR_CAPACITY when a count exceeds the capacities.
int dfm_cuda_bvh_build(dfm_cuda_bvh* b, const dfm_bvh_input* in, char* err, size_t err_size);
/// Uploads new positions in->x (same primitives as the build) and refits every box.
int dfm_cuda_bvh_refit(dfm_cuda_bvh* b, const dfm_bvh_input* in, char* err, size_t err_size);
/// Runs the query of the primitives uploaded by the last build (`in` must be that build's input;
/// radius and self_set are read here) with a count pass, a CUB exclusive scan and an emit pass,
/// and copies the pair list back:
/// the first min(count, capacity) pairs into `pairs` (room for `capacity` of them, at most the
/// created capacity), *out_count the true count. DFM_ERROR_CAPACITY when pairs were left out.
int dfm_cuda_bvh_query(dfm_cuda_bvh* b, const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity,
                       int64_t* out_count, char* err, size_t err_size);
/// Copies the node boxes (2n-1, bvh_build.h numbering) and sorted leaf primitives (n) of the
/// last build or refit to the host, for the parity tests.
int dfm_cuda_bvh_download_tree(dfm_cuda_bvh* b, dfm_bvh_box* boxes, int32_t* leaf_prim, char* err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
