/// @file host_bodies_cuda.h
/// Internal (C++/CUDA only): the CUDA backend's pass over the dynamic host bodies (implicit
/// two-way coupling, kernels/shared/host_body_solve.h and abi/include/dfm/dfm_coupling.h), the
/// twin of kernels/cpu/host_bodies_cpu.c and of the per-advance bookkeeping of
/// plugin/host_bodies.c. Buffers are sized by dfm_cuda_host_bodies_reserve outside a capture; the
/// enqueue functions only launch work, so a step that uses them can be captured into a graph.
#ifndef DFM_HOST_BODIES_CUDA_H
#define DFM_HOST_BODIES_CUDA_H

#include <cuda_runtime.h>

#include "contact_view.h"
#include "host_body_solve.h"

/// Threads per block of the per-body solve (one block per body).
#define DFM_HOST_BLOCK 64

/// Device buffers of the dynamic host bodies of one backend.
struct dfm_cuda_host_bodies {
    int32_t count;             ///< Bodies the buffers hold (0: none allocated).
    int32_t shape_count;       ///< Shapes shape_host holds.
    int32_t capacity;          ///< Contact records per advance the record buffers hold.
    int32_t sort_bits;         ///< Key bits of the bucketing sort (body index, count = none).
    dfm_host_body_rt* rt;      ///< count: the bodies' corrections (uploaded and read back every step).
    int32_t* shape_host;       ///< shape_count: each shape's body, or -1.
    int32_t* first_shape;      ///< count: each body's first shape, or -1 (its staged poses are the body's).
    int32_t* record_count;     ///< count + 1: records per body at [b + 1] ([0] = 0).
    int32_t* record_offset;    ///< count + 1: their inclusive scan (body b's records at [offset[b], offset[b + 1])).
    uint32_t *keys, *keys_out; ///< capacity: each record's body (count: none), and sorted.
    int32_t *order_in, *order; ///< capacity: record indices, and sorted by body (stable: in record order).
    dfm_host_record* records;  ///< capacity: the records frozen for each solve, grouped by body.
    void* temp;                ///< cub scratch (sort and scan).
    size_t temp_bytes;
};

/// Frees every buffer (a zeroed struct is a no-op).
void dfm_cuda_host_bodies_free(dfm_cuda_host_bodies* h);

/// Sizes the buffers for `count` bodies, `shape_count` shapes and `capacity` records per advance;
/// *changed = 1 when it reallocated (kernel parameters of a captured graph are stale then).
int dfm_cuda_host_bodies_reserve(dfm_cuda_host_bodies* h, int32_t count, int32_t shape_count, int32_t capacity,
                                 int* changed, char* err, size_t err_size);

/// Copies the step's bodies (count), each shape's body (shape_count) and a shape of each body
/// (count) from the host (enqueued on `stream`).
int dfm_cuda_host_bodies_upload(dfm_cuda_host_bodies* h, const dfm_host_body_rt* rt, const int32_t* shape_host,
                                const int32_t* first_shape, cudaStream_t stream, char* err, size_t err_size);

/// Copies the bodies back (their corrections after the step) into the host array rt (count).
int dfm_cuda_host_bodies_download(const dfm_cuda_host_bodies* h, dfm_host_body_rt* rt, cudaStream_t stream, char* err,
                                  size_t err_size);

/// Start of an advance of length dt_advance, before detection (plugin/host_bodies.c's
/// dfm_host_bodies_begin_advance): each body's correction starts from its inertia, its shapes
/// (`shapes`, the advance's device records) are marked coupled and placed at the corrected start
/// and end poses.
int dfm_cuda_host_bodies_begin_advance(dfm_cuda_host_bodies* h, dfm_shape_rt* shapes, float dt_advance,
                                       cudaStream_t stream, char* err, size_t err_size);

/// After detection: groups the advance's records by body, in record order.
int dfm_cuda_host_bodies_bucket(dfm_cuda_host_bodies* h, const dfm_contact_view& c, cudaStream_t stream, char* err,
                                size_t err_size);

/// After a sweep (kernels/cpu/host_bodies_cpu.c's dfm_cpu_solve_host_bodies): each body's
/// correction minimising its Phi at the displacements d (device), and its shapes moved there.
int dfm_cuda_host_bodies_solve(dfm_cuda_host_bodies* h, const dfm_contact_view& c, const float* d, float dt_advance,
                               cudaStream_t stream, char* err, size_t err_size);

/// After an advance: the correction's rate over it.
int dfm_cuda_host_bodies_end_advance(dfm_cuda_host_bodies* h, float dt_advance, cudaStream_t stream, char* err,
                                     size_t err_size);

#endif
