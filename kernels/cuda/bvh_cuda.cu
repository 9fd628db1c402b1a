/// @file bvh_cuda.cu
/// The deformable broad phase on CUDA (issue 16) over the shared math of kernels/shared/bvh_*.h:
/// a linear BVH (Karras 2012, "Maximizing parallelism in the construction of BVHs, octrees, and
/// k-d trees") built every call from CUB-sorted Morton codes, refit bottom-up, and queried for
/// candidate pairs. The CPU twin (kernels/cpu/bvh_cpu.c) is the reference: the same codes (this
/// file is compiled with --fmad=false), the same tree, the same boxes, the same pair list.
///
/// Parallelism review (seed 001), per kernel:
/// - centroid_kernel, morton_kernel: P2 applies-and-done (one thread per tree primitive); P1/P3
///   n/a (no levels; nothing loop-invariant: the scene box is read once per thread); P4
///   applies-and-done (primitives are 16-byte records read once, coalesced).
/// - scene bounds (cub::DeviceReduce), sort (cub::DeviceRadixSort, 30 key bits, stable), pair
///   offsets (cub::DeviceScan): CUB's device-wide parallel primitives.
/// - hierarchy_kernel: P1 does-not-apply: Karras's construction has no levels, every internal node
///   is built independently (one thread each); P2 applies-and-done; P4 the codes are read in sorted
///   order around the thread's own index (coalesced at the start of each search).
/// - refit_kernel: P1 applies-and-done in its bottom-up form: one thread per leaf walks to the root
///   and the second arrival at a node (atomic flag) merges it, so each level's nodes are merged
///   concurrently without a launch per level; P4 boxes are read through L2 (ld.cg) since other
///   threads wrote them.
/// - count_kernel, emit_kernel: P2 applies-and-done (one thread per query primitive, a 64-entry
///   stack in registers/local memory); P3 applies-and-done (the query box is inflated once per
///   query); P4 applies-TODO: queries run in input order, not Morton order (sorting the queries
///   would make neighbouring threads traverse the same nodes; measure on the H200 first).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_cpu.h"
#include "bvh_cuda.h"
#include "bvh_morton.h"
#include "cuda_check.h"

#define BLOCK 256

static unsigned blocks_for(int64_t n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

struct dfm_cuda_bvh {
    dfm_cuda_bvh_caps caps;
    cudaStream_t stream;
    int32_t tree_count, query_count, vertex_count, body_count;
    const dfm_bvh_prim* host_tree;     ///< Identity of the built input's tree primitives (refit and query check it).
    const dfm_bvh_filter* host_filter; ///< Identity of the built input's filters.
    float* x;
    dfm_bvh_prim *tree, *query;
    dfm_bvh_filter* filter;
    dfm_bvh_box *cent, *scene, *boxes;
    uint32_t *codes_in, *codes;
    int32_t *idx_in, *leaf_prim, *left, *right, *parent, *flag, *overflow;
    int64_t *counts, *offsets; ///< queries + 1 each: per-query pair counts (last 0) and their exclusive scan.
    dfm_bvh_pair* pairs;
    void* temp;
    size_t temp_bytes;
};

/// Merges two boxes (the scene-bounds reduction; exact, so CUB's order does not matter).
struct box_merge_op {
    __host__ __device__ dfm_bvh_box operator()(const dfm_bvh_box& a, const dfm_bvh_box& b) const {
        return dfm_bvh_box_merge(a, b);
    }
};

__global__ void centroid_kernel(const dfm_bvh_prim* prims, int32_t n, const float* x, dfm_bvh_box* cent) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cent[i] = dfm_bvh_box_centroid(dfm_bvh_prim_box(prims + i, x, 0.0f));
}

__global__ void morton_kernel(const dfm_bvh_prim* prims, int32_t n, const float* x, const dfm_bvh_box* scene,
                              uint32_t* codes, int32_t* idx) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    codes[i] = dfm_bvh_morton(dfm_bvh_prim_box(prims + i, x, 0.0f), scene);
    idx[i] = i;
}

__global__ void hierarchy_kernel(const uint32_t* codes, int32_t n, int32_t* left, int32_t* right, int32_t* parent) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) dfm_bvh_build_node(codes, n, i, left, right, parent);
}

__global__ void refit_kernel(int32_t n, const int32_t* leaf_prim, const dfm_bvh_prim* prims, const float* x,
                             const int32_t* left, const int32_t* right, const int32_t* parent, int32_t* flag,
                             dfm_bvh_box* boxes) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        dfm_bvh_refit_leaf(n, k, dfm_bvh_prim_box(prims + leaf_prim[k], x, 0.0f), left, right, parent, flag, boxes);
}

__global__ void count_kernel(dfm_bvh_view v, const dfm_bvh_prim* queries, int32_t qn, const float* x, float radius,
                             int self_set, int64_t* counts, int32_t* overflow) {
    int32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= qn) return;
    dfm_bvh_box qb = dfm_bvh_prim_box(queries + q, x, radius);
    int32_t of = 0;
    counts[q] = dfm_bvh_query_one(&v, q, queries + q, &qb, self_set, NULL, 0, &of);
    if (of) atomicOr(overflow, 1);
}

__global__ void emit_kernel(dfm_bvh_view v, const dfm_bvh_prim* queries, int32_t qn, const float* x, float radius,
                            int self_set, const int64_t* offsets, dfm_bvh_pair* pairs, int64_t capacity,
                            int32_t* overflow) {
    int32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= qn) return;
    int64_t begin = offsets[q];
    if (begin >= capacity || offsets[q + 1] == begin) return;
    dfm_bvh_box qb = dfm_bvh_prim_box(queries + q, x, radius);
    int32_t of = 0;
    dfm_bvh_query_one(&v, q, queries + q, &qb, self_set, pairs + begin, capacity - begin, &of);
    if (of) atomicOr(overflow, 1);
}

/// cudaMalloc of `bytes` (at least 1) into *p.
template <typename T>
static int alloc(T** p, size_t bytes, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaMalloc((void**)p, bytes > 0 ? bytes : 1));
    return DFM_OK;
}

static int create_buffers(dfm_cuda_bvh* b, char* err, size_t err_size) {
    const dfm_cuda_bvh_caps& c = b->caps;
    size_t L = (size_t)c.leaves, Q = (size_t)c.queries;
    int r = DFM_OK;
#define A(ptr, bytes) \
    if (r == DFM_OK) r = alloc(&b->ptr, (bytes), err, err_size)
    A(x, sizeof(float) * 3 * (size_t)c.vertices);
    A(tree, sizeof(dfm_bvh_prim) * L);
    A(query, sizeof(dfm_bvh_prim) * Q);
    A(filter, sizeof(dfm_bvh_filter) * (size_t)c.bodies);
    A(cent, sizeof(dfm_bvh_box) * L);
    A(scene, sizeof(dfm_bvh_box));
    A(boxes, sizeof(dfm_bvh_box) * (2 * L));
    A(codes_in, sizeof(uint32_t) * L);
    A(codes, sizeof(uint32_t) * L);
    A(idx_in, sizeof(int32_t) * L);
    A(leaf_prim, sizeof(int32_t) * L);
    A(left, sizeof(int32_t) * L);
    A(right, sizeof(int32_t) * L);
    A(parent, sizeof(int32_t) * 2 * L);
    A(flag, sizeof(int32_t) * L);
    A(overflow, sizeof(int32_t));
    A(counts, sizeof(int64_t) * (Q + 1));
    A(offsets, sizeof(int64_t) * (Q + 1));
    A(pairs, sizeof(dfm_bvh_pair) * (size_t)c.pairs);
#undef A
    if (r != DFM_OK) return r;
    /* one temporary for the three CUB calls, sized for the capacities */
    size_t sort_bytes = 0, reduce_bytes = 0, scan_bytes = 0;
    DFM_CUDA_TRY(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, b->codes_in, b->codes, b->idx_in, b->leaf_prim,
                                                 c.leaves, 0, 30, b->stream));
    DFM_CUDA_TRY(cub::DeviceReduce::Reduce(NULL, reduce_bytes, b->cent, b->scene, c.leaves, box_merge_op(),
                                           dfm_bvh_box_empty(), b->stream));
    DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, b->counts, b->offsets, c.queries + 1, b->stream));
    b->temp_bytes = sort_bytes > reduce_bytes ? sort_bytes : reduce_bytes;
    if (scan_bytes > b->temp_bytes) b->temp_bytes = scan_bytes;
    return alloc(&b->temp, b->temp_bytes, err, err_size);
}

int dfm_cuda_bvh_create(const dfm_cuda_bvh_caps* caps, dfm_cuda_bvh** out, char* err, size_t err_size) {
    *out = NULL;
    if (!caps || caps->leaves < 1 || caps->queries < 1 || caps->vertices < 1 || caps->bodies < 1 || caps->pairs < 1) {
        snprintf(err, err_size, "bvh capacities must all be >= 1 (leaves, queries, vertices, bodies, pairs)");
        return DFM_ERROR_INVALID_COUNT;
    }
    int devices = 0;
    DFM_CUDA_TRY(cudaGetDeviceCount(&devices));
    if (devices < 1) {
        snprintf(err, err_size, "bvh: no CUDA device");
        return DFM_ERROR_DEVICE_UNAVAILABLE;
    }
    dfm_cuda_bvh* b = (dfm_cuda_bvh*)calloc(1, sizeof(dfm_cuda_bvh));
    if (!b) {
        snprintf(err, err_size, "bvh: out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    b->caps = *caps;
    cudaError_t e = cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        snprintf(err, err_size, "%s:%d: cudaStreamCreateWithFlags: %s", __FILE__, __LINE__, cudaGetErrorString(e));
        free(b);
        return dfm_cuda_result(e);
    }
    int r = create_buffers(b, err, err_size);
    if (r != DFM_OK) {
        dfm_cuda_bvh_destroy(b);
        return r;
    }
    *out = b;
    return DFM_OK;
}

void dfm_cuda_bvh_destroy(dfm_cuda_bvh* b) {
    if (!b) return;
    void* bufs[] = {b->x,        b->tree,     b->query,  b->filter,    b->cent,  b->scene, b->boxes,
                    b->codes_in, b->codes,    b->idx_in, b->leaf_prim, b->left,  b->right, b->parent,
                    b->flag,     b->overflow, b->counts, b->offsets,   b->pairs, b->temp};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); ++i)
        if (bufs[i]) cudaFree(bufs[i]); /* teardown: nothing to report to */
    if (b->stream) cudaStreamDestroy(b->stream);
    free(b);
}

/// Uploads positions and launches the refit of the current tree.
static int upload_and_refit(dfm_cuda_bvh* b, const float* x, char* err, size_t err_size) {
    int32_t n = b->tree_count;
    DFM_CUDA_TRY(
        cudaMemcpyAsync(b->x, x, sizeof(float) * 3 * (size_t)b->vertex_count, cudaMemcpyHostToDevice, b->stream));
    if (n > 1) DFM_CUDA_TRY(cudaMemsetAsync(b->flag, 0, sizeof(int32_t) * (size_t)(n - 1), b->stream));
    refit_kernel<<<blocks_for(n), BLOCK, 0, b->stream>>>(n, b->leaf_prim, b->tree, b->x, b->left, b->right, b->parent,
                                                         b->flag, b->boxes);
    DFM_CUDA_TRY(cudaGetLastError());
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return DFM_OK;
}

int dfm_cuda_bvh_build(dfm_cuda_bvh* b, const dfm_bvh_input* in, char* err, size_t err_size) {
    int r = dfm_bvh_validate(in, err, err_size);
    if (r != DFM_OK) return r;
    const dfm_cuda_bvh_caps& c = b->caps;
    if (in->tree_count > c.leaves || in->query_count > c.queries || in->vertex_count > c.vertices ||
        in->body_count > c.bodies) {
        snprintf(err, err_size,
                 "bvh input (tree %d, query %d, vertex %d, body %d) exceeds the capacities (%d, %d, %d, %d)",
                 (int)in->tree_count, (int)in->query_count, (int)in->vertex_count, (int)in->body_count, (int)c.leaves,
                 (int)c.queries, (int)c.vertices, (int)c.bodies);
        return DFM_ERROR_CAPACITY;
    }
    b->host_tree = NULL;
    b->tree_count = in->tree_count;
    b->query_count = in->query_count;
    b->vertex_count = in->vertex_count;
    b->body_count = in->body_count;
    int32_t n = in->tree_count;
    cudaStream_t st = b->stream;
    DFM_CUDA_TRY(
        cudaMemcpyAsync(b->tree, in->tree_prims, sizeof(dfm_bvh_prim) * (size_t)n, cudaMemcpyHostToDevice, st));
    if (in->query_count > 0)
        DFM_CUDA_TRY(cudaMemcpyAsync(b->query, in->query_prims, sizeof(dfm_bvh_prim) * (size_t)in->query_count,
                                     cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(b->filter, in->filter, sizeof(dfm_bvh_filter) * (size_t)in->body_count,
                                 cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(b->x, in->x, sizeof(float) * 3 * (size_t)in->vertex_count, cudaMemcpyHostToDevice, st));
    centroid_kernel<<<blocks_for(n), BLOCK, 0, st>>>(b->tree, n, b->x, b->cent);
    DFM_CUDA_TRY(cudaGetLastError());
    size_t bytes = b->temp_bytes;
    DFM_CUDA_TRY(
        cub::DeviceReduce::Reduce(b->temp, bytes, b->cent, b->scene, n, box_merge_op(), dfm_bvh_box_empty(), st));
    morton_kernel<<<blocks_for(n), BLOCK, 0, st>>>(b->tree, n, b->x, b->scene, b->codes_in, b->idx_in);
    DFM_CUDA_TRY(cudaGetLastError());
    bytes = b->temp_bytes;
    DFM_CUDA_TRY(
        cub::DeviceRadixSort::SortPairs(b->temp, bytes, b->codes_in, b->codes, b->idx_in, b->leaf_prim, n, 0, 30, st));
    if (n > 1) {
        hierarchy_kernel<<<blocks_for(n - 1), BLOCK, 0, st>>>(b->codes, n, b->left, b->right, b->parent);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    r = upload_and_refit(b, in->x, err, err_size);
    if (r != DFM_OK) return r;
    b->host_tree = in->tree_prims;
    b->host_filter = in->filter;
    return DFM_OK;
}

int dfm_cuda_bvh_refit(dfm_cuda_bvh* b, const dfm_bvh_input* in, char* err, size_t err_size) {
    if (!b->host_tree || in->tree_prims != b->host_tree || in->tree_count != b->tree_count ||
        in->vertex_count != b->vertex_count) {
        snprintf(err, err_size, "bvh refit: the input is not the one of the last build (%d leaves, %d vertices)",
                 (int)b->tree_count, (int)b->vertex_count);
        return DFM_ERROR_INVALID_STATE;
    }
    for (int64_t i = 0; i < 3 * (int64_t)in->vertex_count; ++i)
        if (!isfinite(in->x[i])) {
            snprintf(err, err_size, "bvh input x of vertex %lld is not finite", (long long)(i / 3));
            return DFM_ERROR_NON_FINITE;
        }
    return upload_and_refit(b, in->x, err, err_size);
}

int dfm_cuda_bvh_query(dfm_cuda_bvh* b, const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity,
                       int64_t* out_count, char* err, size_t err_size) {
    *out_count = 0;
    if (!b->host_tree || in->tree_prims != b->host_tree || in->filter != b->host_filter ||
        in->query_count != b->query_count) {
        snprintf(err, err_size, "bvh query: the tree was not built over this input");
        return DFM_ERROR_INVALID_STATE;
    }
    if (capacity < 0 || capacity > b->caps.pairs || (capacity > 0 && !pairs)) {
        snprintf(err, err_size, "bvh query: pair capacity %lld; must be 0..%lld with room in pairs",
                 (long long)capacity, (long long)b->caps.pairs);
        return DFM_ERROR_INVALID_VALUE;
    }
    if (!(in->radius >= 0.0f) || !isfinite(in->radius)) {
        snprintf(err, err_size, "bvh input radius is %g; must be finite and >= 0 m", (double)in->radius);
        return DFM_ERROR_INVALID_VALUE;
    }
    int32_t qn = in->query_count;
    if (qn == 0) return DFM_OK;
    cudaStream_t st = b->stream;
    dfm_bvh_view v = {b->tree_count, b->left, b->right, b->boxes, b->leaf_prim, b->tree, b->filter};
    DFM_CUDA_TRY(cudaMemsetAsync(b->overflow, 0, sizeof(int32_t), st));
    DFM_CUDA_TRY(cudaMemsetAsync(b->counts + qn, 0, sizeof(int64_t), st));
    count_kernel<<<blocks_for(qn), BLOCK, 0, st>>>(v, b->query, qn, b->x, in->radius, in->self_set, b->counts,
                                                   b->overflow);
    DFM_CUDA_TRY(cudaGetLastError());
    size_t bytes = b->temp_bytes;
    DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(b->temp, bytes, b->counts, b->offsets, qn + 1, st));
    emit_kernel<<<blocks_for(qn), BLOCK, 0, st>>>(v, b->query, qn, b->x, in->radius, in->self_set, b->offsets, b->pairs,
                                                  capacity, b->overflow);
    DFM_CUDA_TRY(cudaGetLastError());
    int64_t total = 0;
    int32_t overflow = 0;
    DFM_CUDA_TRY(cudaMemcpyAsync(&total, b->offsets + qn, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(&overflow, b->overflow, sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    int64_t kept = total < capacity ? total : capacity;
    if (kept > 0)
        DFM_CUDA_TRY(cudaMemcpyAsync(pairs, b->pairs, sizeof(dfm_bvh_pair) * (size_t)kept, cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    *out_count = total;
    if (overflow) {
        snprintf(err, err_size, "bvh query: the traversal stack (%d) overflowed", DFM_BVH_STACK);
        return DFM_ERROR_CAPACITY;
    }
    return total > capacity ? dfm_bvh_overflow(total, capacity, err, err_size) : DFM_OK;
}

int dfm_cuda_bvh_download_tree(dfm_cuda_bvh* b, dfm_bvh_box* boxes, int32_t* leaf_prim, char* err, size_t err_size) {
    if (!b->host_tree) {
        snprintf(err, err_size, "bvh: no tree built yet");
        return DFM_ERROR_INVALID_STATE;
    }
    size_t n = (size_t)b->tree_count;
    DFM_CUDA_TRY(
        cudaMemcpyAsync(boxes, b->boxes, sizeof(dfm_bvh_box) * (2 * n - 1), cudaMemcpyDeviceToHost, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync(leaf_prim, b->leaf_prim, sizeof(int32_t) * n, cudaMemcpyDeviceToHost, b->stream));
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return DFM_OK;
}
