/// @file host_bodies_cuda.cu
/// See host_bodies_cuda.h. The same kernels/shared/host_body_solve.h math as the CPU pass.
///
/// Parallelism review (seed 001), per kernel:
/// - host_begin_bodies_kernel / host_end_kernel: P1 n/a; P2 applies-and-done (one thread per
///   body, independent); P3 applies-and-done (the inertial target is computed once per advance);
///   P4 n/a (a few bodies).
/// - host_place_kernel: P1 n/a; P2 applies-and-done (one thread per shape, each writes only its
///   own record); P3/P4 n/a.
/// - host_keys_kernel + a stable radix sort + a scan: P1 n/a; P2 applies-and-done (one thread per
///   record slot; the per-body counts are atomics, whose order does not change the counts); P3
///   applies-and-done (grouped once per advance, read by every sweep's solve); P4 applies-and-done
///   (each body's records become one contiguous range).
/// - host_solve_kernel: P1 n/a; P2 applies-and-done (a block per body, its threads over the
///   body's records; every Phi is a fixed-tree block sum, so the result is deterministic); P3
///   applies-and-done (records frozen once per solve, as on the CPU); P4 applies-and-done for the
///   frozen records (contiguous per body), TODO for the gathers of x and d (AoS).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <string.h>

#include "cuda_check.h"
#include "host_bodies_cuda.h"

/// Values one Phi evaluation sums over a block: e, G (6), H (36).
#define DFM_HOST_SUMS 43

static unsigned grid_of(int64_t n, int block) { return (unsigned)((n + block - 1) / block); }

__global__ void host_begin_bodies_kernel(dfm_host_body_rt* bodies, int32_t nb, const int32_t* first_shape,
                                         const dfm_shape_rt* shapes, float h) {
    const int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nb) return;
    const int32_t k = first_shape[b]; /* the staged (host) pose: every shape of the body has it */
    dfm_host_body_begin_advance(&bodies[b], k >= 0 ? shapes[k].body_end : bodies[b].free_end, h);
}

/// Each shape of a body at the body's current correction (dfm_host_shape_place).
__global__ void host_place_kernel(const dfm_host_body_rt* bodies, const int32_t* shape_host, dfm_shape_rt* shapes,
                                  int32_t ns, int begin) {
    const int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= ns || shape_host[k] < 0) return;
    dfm_host_shape_place(&bodies[shape_host[k]], &shapes[k], begin);
}

__global__ void host_end_kernel(dfm_host_body_rt* bodies, int32_t nb, float h) {
    const int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nb) dfm_host_body_end_advance(&bodies[b], h);
}

/// Each record slot's body (nb: none or past the active records) and its index; counts per body.
__global__ void host_keys_kernel(dfm_contact_view c, const int32_t* shape_host, int32_t nb, uint32_t* keys,
                                 int32_t* order, int32_t* counts) {
    const int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= c.capacity) return;
    const int32_t na = *c.count < c.capacity ? *c.count : c.capacity;
    const int32_t b = k < na ? shape_host[c.rec.shape[k]] : -1;
    keys[k] = b >= 0 ? (uint32_t)b : (uint32_t)nb;
    order[k] = k;
    if (b >= 0) atomicAdd(&counts[b + 1], 1);
}

/// Phi of the block's body at q (lambda at lag), summed over its records by the block: the result
/// in thread 0's e, G, H (row-major 6x6); every thread must call it.
__device__ void host_block_phi(const dfm_host_record* rec, int32_t count, const dfm_host_body_rt* b, float h,
                               int rotational, const float* q, const float* lag, double (*s)[DFM_HOST_BLOCK], double* e,
                               double* G, double* H) {
    const int tid = threadIdx.x;
    double te = 0.0, tG[6], tH[36];
    if (tid == 0) {
        dfm_host_phi_inertia(b, h, rotational, q, &te, tG, tH);
    } else {
        for (int i = 0; i < 6; ++i) tG[i] = 0.0;
        for (int i = 0; i < 36; ++i) tH[i] = 0.0;
    }
    for (int32_t j = tid; j < count; j += DFM_HOST_BLOCK)
        dfm_host_phi_add_record(rec + j, h, rotational, q, lag, &te, tG, tH);
    s[0][tid] = te;
    for (int i = 0; i < 6; ++i) s[1 + i][tid] = tG[i];
    for (int i = 0; i < 36; ++i) s[7 + i][tid] = tH[i];
    __syncthreads();
    for (int half = DFM_HOST_BLOCK / 2; half > 0; half >>= 1) { /* fixed tree: deterministic */
        if (tid < half)
            for (int v = 0; v < DFM_HOST_SUMS; ++v) s[v][tid] += s[v][tid + half];
        __syncthreads();
    }
    if (tid == 0) {
        *e = s[0][0];
        for (int i = 0; i < 6; ++i) G[i] = s[1 + i][0];
        for (int i = 0; i < 36; ++i) H[i] = s[7 + i][0];
    }
    __syncthreads(); /* s is reused by the next call */
}

/// One block per body: freezes its records at d, runs dfm_host_body_solve's damped Newton (thread
/// 0 takes the 6x6 steps and the line-search decisions) and applies the correction.
__global__ void __launch_bounds__(DFM_HOST_BLOCK)
    host_solve_kernel(dfm_contact_view c, const float* d, float h, dfm_host_body_rt* bodies, const int32_t* offsets,
                      const int32_t* order, dfm_host_record* records) {
    __shared__ double s_sum[DFM_HOST_SUMS][DFM_HOST_BLOCK];
    __shared__ dfm_host_body_rt s_body;
    __shared__ float s_step[6];
    __shared__ double s_e, s_slope;
    __shared__ int s_go;
    const int32_t b = blockIdx.x, tid = threadIdx.x;
    const int32_t first = offsets[b], count = offsets[b + 1] - first;
    if (tid == 0) s_body = bodies[b];
    __syncthreads();
    if (!(s_body.mass > 0.0f)) return; /* uniform */
    const dfm_xform pose = dfm_host_body_pose(&s_body);
    dfm_host_record* rec = records + first;
    for (int32_t j = tid; j < count; j += DFM_HOST_BLOCK) rec[j] = dfm_host_make_record(&c, d, order[first + j], pose);
    __syncthreads();
    const int rotational = dfm_host_body_rotational(&s_body);
    float q[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, lag[6], trial[6];
    double e = 0.0, G[6], H[36];
    for (int outer = 0; outer < DFM_BODY_OUTER; ++outer) {
        for (int i = 0; i < 6; ++i) lag[i] = q[i];
        for (int it = 0; it < DFM_BODY_NEWTON_MAX; ++it) {
            host_block_phi(rec, count, &s_body, h, rotational, q, lag, s_sum, &e, G, H);
            if (tid == 0) {
                double ng[6], step[6];
                for (int i = 0; i < 6; ++i) ng[i] = -G[i];
                s_go = 0;
                if (dfm_spd6_solve(H, ng, step)) {
                    double slope = 0.0, len2 = 0.0;
                    for (int i = 0; i < 6; ++i) slope += G[i] * step[i], len2 += step[i] * step[i];
                    s_go = slope < 0.0 && sqrt(len2) > (double)DFM_BODY_STEP_TOL;
                    for (int i = 0; i < 6; ++i) s_step[i] = (float)step[i];
                    s_e = e;
                    s_slope = slope;
                }
            }
            __syncthreads();
            if (!s_go) break; /* uniform */
            float a = 1.0f;
            for (int ls = 0; ls < 12; ++ls) {
                double et = 0.0, Gt[6], Ht[36];
                for (int i = 0; i < 6; ++i) trial[i] = q[i] + a * s_step[i];
                host_block_phi(rec, count, &s_body, h, rotational, trial, lag, s_sum, &et, Gt, Ht);
                if (tid == 0) s_go = et <= s_e + 1e-4 * (double)a * s_slope;
                __syncthreads();
                const int accept = s_go;
                __syncthreads();
                if (accept) break; /* uniform */
                a *= 0.5f;
            }
            for (int i = 0; i < 6; ++i) q[i] += a * s_step[i];
            __syncthreads(); /* s_step is rewritten by the next iteration's thread 0 */
        }
    }
    if (tid != 0) return;
    for (int i = 0; i < 6; ++i)
        if (!isfinite(q[i])) return; /* nothing finite came out: no correction (as the CPU's zero q) */
    dfm_host_body_apply(&s_body, q);
    bodies[b] = s_body;
}

void dfm_cuda_host_bodies_free(dfm_cuda_host_bodies* h) {
    void* p[] = {h->rt,       h->shape_host, h->first_shape, h->record_count, h->record_offset, h->keys,
                 h->keys_out, h->order_in,   h->order,       h->records,      h->temp};
    for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); ++i)
        if (p[i]) cudaFree(p[i]);
    memset(h, 0, sizeof(*h));
}

int dfm_cuda_host_bodies_reserve(dfm_cuda_host_bodies* h, int32_t count, int32_t shape_count, int32_t capacity,
                                 int* changed, char* err, size_t err_size) {
    *changed = 0;
    if (count <= 0 && h->count == 0) return 0; /* no bodies before or now: nothing to free, the graph stays */
    if (count == h->count && shape_count == h->shape_count && capacity == h->capacity) return 0;
    dfm_cuda_host_bodies_free(h);
    *changed = 1;
    if (count <= 0) return 0;
    const size_t nb = (size_t)count, ns = (size_t)(shape_count > 0 ? shape_count : 1),
                 cap = (size_t)(capacity > 0 ? capacity : 1);
    DFM_CUDA_TRY(cudaMalloc((void**)&h->rt, nb * sizeof(dfm_host_body_rt)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->shape_host, ns * sizeof(int32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->first_shape, nb * sizeof(int32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->record_count, (nb + 1) * sizeof(int32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->record_offset, (nb + 1) * sizeof(int32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->keys, cap * sizeof(uint32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->keys_out, cap * sizeof(uint32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->order_in, cap * sizeof(int32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->order, cap * sizeof(int32_t)));
    DFM_CUDA_TRY(cudaMalloc((void**)&h->records, cap * sizeof(dfm_host_record)));
    DFM_CUDA_TRY(cudaMemset(h->record_offset, 0, (nb + 1) * sizeof(int32_t))); /* no records until bucketed */
    int bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) <= (uint64_t)count) ++bits; /* keys 0..count */
    size_t sort_bytes = 0, scan_bytes = 0;
    DFM_CUDA_TRY(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, h->keys, h->keys_out, h->order_in, h->order,
                                                 (int)cap, 0, bits));
    DFM_CUDA_TRY(cub::DeviceScan::InclusiveSum(NULL, scan_bytes, h->record_count, h->record_offset, count + 1));
    h->temp_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    DFM_CUDA_TRY(cudaMalloc(&h->temp, h->temp_bytes > 0 ? h->temp_bytes : 1));
    h->count = count;
    h->shape_count = shape_count;
    h->capacity = capacity;
    h->sort_bits = bits;
    return 0;
}

int dfm_cuda_host_bodies_upload(dfm_cuda_host_bodies* h, const dfm_host_body_rt* rt, const int32_t* shape_host,
                                const int32_t* first_shape, cudaStream_t stream, char* err, size_t err_size) {
    if (h->count <= 0) return 0;
    DFM_CUDA_TRY(
        cudaMemcpyAsync(h->rt, rt, (size_t)h->count * sizeof(dfm_host_body_rt), cudaMemcpyHostToDevice, stream));
    DFM_CUDA_TRY(cudaMemcpyAsync(h->first_shape, first_shape, (size_t)h->count * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, stream));
    if (h->shape_count > 0)
        DFM_CUDA_TRY(cudaMemcpyAsync(h->shape_host, shape_host, (size_t)h->shape_count * sizeof(int32_t),
                                     cudaMemcpyHostToDevice, stream));
    return 0;
}

int dfm_cuda_host_bodies_download(const dfm_cuda_host_bodies* h, dfm_host_body_rt* rt, cudaStream_t stream, char* err,
                                  size_t err_size) {
    if (h->count <= 0) return 0;
    DFM_CUDA_TRY(
        cudaMemcpyAsync(rt, h->rt, (size_t)h->count * sizeof(dfm_host_body_rt), cudaMemcpyDeviceToHost, stream));
    return 0;
}

int dfm_cuda_host_bodies_begin_advance(dfm_cuda_host_bodies* h, dfm_shape_rt* shapes, float dt_advance,
                                       cudaStream_t stream, char* err, size_t err_size) {
    if (h->count <= 0) return 0;
    host_begin_bodies_kernel<<<grid_of(h->count, 64), 64, 0, stream>>>(h->rt, h->count, h->first_shape, shapes,
                                                                       dt_advance);
    DFM_CUDA_TRY(cudaGetLastError());
    host_place_kernel<<<grid_of(h->shape_count, 128), 128, 0, stream>>>(h->rt, h->shape_host, shapes, h->shape_count,
                                                                        1);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_host_bodies_bucket(dfm_cuda_host_bodies* h, const dfm_contact_view& c, cudaStream_t stream, char* err,
                                size_t err_size) {
    if (h->count <= 0 || c.capacity <= 0) return 0;
    DFM_CUDA_TRY(cudaMemsetAsync(h->record_count, 0, (size_t)(h->count + 1) * sizeof(int32_t), stream));
    host_keys_kernel<<<grid_of(c.capacity, 256), 256, 0, stream>>>(c, h->shape_host, h->count, h->keys, h->order_in,
                                                                   h->record_count);
    DFM_CUDA_TRY(cudaGetLastError());
    size_t bytes = h->temp_bytes;
    DFM_CUDA_TRY(cub::DeviceRadixSort::SortPairs(h->temp, bytes, h->keys, h->keys_out, h->order_in, h->order,
                                                 c.capacity, 0, h->sort_bits, stream));
    bytes = h->temp_bytes;
    DFM_CUDA_TRY(
        cub::DeviceScan::InclusiveSum(h->temp, bytes, h->record_count, h->record_offset, h->count + 1, stream));
    return 0;
}

int dfm_cuda_host_bodies_solve(dfm_cuda_host_bodies* h, const dfm_contact_view& c, const float* d, float dt_advance,
                               cudaStream_t stream, char* err, size_t err_size) {
    if (h->count <= 0) return 0;
    host_solve_kernel<<<(unsigned)h->count, DFM_HOST_BLOCK, 0, stream>>>(c, d, dt_advance, h->rt, h->record_offset,
                                                                         h->order, h->records);
    DFM_CUDA_TRY(cudaGetLastError());
    host_place_kernel<<<grid_of(h->shape_count, 128), 128, 0, stream>>>(h->rt, h->shape_host, (dfm_shape_rt*)c.shapes,
                                                                        h->shape_count, 0);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_host_bodies_end_advance(dfm_cuda_host_bodies* h, float dt_advance, cudaStream_t stream, char* err,
                                     size_t err_size) {
    if (h->count <= 0) return 0;
    host_end_kernel<<<grid_of(h->count, 64), 64, 0, stream>>>(h->rt, h->count, dt_advance);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}
