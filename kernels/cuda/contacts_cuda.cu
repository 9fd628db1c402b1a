/// @file contacts_cuda.cu
/// The contact pipeline on CUDA over the same kernels/shared functions as the CPU loops
/// (kernels/cpu/contacts_cpu.c): detection, deterministic compaction, per-particle lists,
/// initial-guess normals, AVBD penalties, legacy scatter, friction projection and reactions.
///
/// Parallelism review (seed 001), per kernel:
/// - detect_kernel: P1 n/a (no levels); P2 applies-and-done (one thread per (feature, shape)
///   candidate; records compacted by an atomic counter, or by a flag scan in deterministic mode);
///   P3 applies-and-done (candidate lists, features and shape records built per topology change /
///   per step on the host, the AABB early-out before any frame math); P4 applies-and-done
///   (candidates sorted by shape on the host, so neighbouring threads read the same shape record).
/// - lists_*_kernel, penalty_kernel, final_force_kernel, wrench_atomic_kernel: P2 applies-and-done
///   (one item per thread over the active prefix with a fixed grid and grid-stride loop, seed
///   sec. 1 and 6); P1/P3/P4 n/a (no levels; nothing loop-invariant to hoist; records are the
///   compact prefix).
/// - guess_kernel, reaction_particle_kernel, local_residual_kernel, deform_residual_kernel: P2
///   applies-and-done (one thread per particle, gathering over its list: no output atomics).
/// - friction_kernel, scatter_kernel: P1 applies-and-done (per color, the color is the level);
///   P2 applies-and-done (one particle per thread / one record per thread with atomics (legacy)).
/// - chunk_sum_kernel, shape_sum_kernel (deterministic per-shape sums): P2 applies-and-done (one
///   warp per 256-record chunk of a (kind, shape) run with a fixed lane order and butterfly, then
///   one thread per shape over its chunks in order: the reduction order is fixed); P1 the chunk
///   offsets are a scan over runs (one level).
/// - patch_friction_block_kernel (one block per body): its review in contacts_patch_block.cuh;
///   patch_friction_kernel (one thread per body) is its serial reference (DFM_CUDA_PATCH_SERIAL=1).
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "contact_detect.h"
#include "contact_patch_friction.h"
#include "contact_reaction.h"
#include "contact_sheet.h"
#include "contacts_cuda.h"
#include "contacts_patch_block.cuh"
#include "cuda_check.h"
#include "model_arrays.h"

#define BLOCK 256

static unsigned blocks_for(int64_t n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

/// Active records of the advance (the counter may exceed the capacity).
__device__ __forceinline__ int32_t active_records(const dfm_contact_view& c) {
    int32_t n = *c.count;
    return n < c.capacity ? n : c.capacity;
}

// ---- detection ----------------------------------------------------------------------------------

/// Candidate k of list Kind (DFM_CANDIDATE_*), one thread each.
template <int Kind>
__global__ void detect_kernel(dfm_contact_view c, dfm_detect_input in) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= c.cand.count[Kind]) return;
    if (c.cand_record) c.cand_record[dfm_contact_candidates_first(&c.cand, Kind) + k] = -1;
    dfm_detect_candidate(&c, &in, Kind, k);
}

/// Launches detect_kernel over list Kind (none when it is empty).
template <int Kind>
static void launch_detect(const dfm_contact_view& c, const dfm_detect_input& in, cudaStream_t st) {
    if (c.cand.count[Kind] > 0) detect_kernel<Kind><<<blocks_for(c.cand.count[Kind]), BLOCK, 0, st>>>(c, in);
}

/// Deterministic compaction, 1: flag of each candidate that produced a record (the scratch
/// records hold one per candidate, so none is lost before the scan picks the first `capacity`).
__global__ void flag_kernel(const int32_t* cand_record, int32_t* flag, int64_t total) {
    int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= total) return;
    flag[g] = cand_record[g] >= 0;
}

/// Deterministic compaction, 2: record of candidate g moves to slot[g] (candidate order, the
/// CPU's order); on overflow the first `capacity` in candidate order are kept, as on the CPU.
__global__ void permute_kernel(const int32_t* cand_record, const int32_t* flag, const int32_t* slot, int64_t total,
                               int32_t capacity, dfm_contact_records src, dfm_contact_records dst) {
    int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= total || !flag[g] || slot[g] >= capacity) return;
    dfm_contact_records_copy(dst, slot[g], src, cand_record[g], 1);
}

// ---- lists --------------------------------------------------------------------------------------

/// Default lists: lock-free push of every active node onto its particle's list (order varies
/// run to run). Fixed grid, grid-stride over the active prefix (or the capacity, when the prefix
/// switch is off).
__global__ void lists_atomic_kernel(dfm_contact_view c, int full) {
    int32_t n = 3 * (full ? c.capacity : active_records(c)), active = 3 * active_records(c);
    for (int32_t node = blockIdx.x * blockDim.x + threadIdx.x; node < n; node += gridDim.x * blockDim.x) {
        if (node >= active) continue;
        int32_t p = c.rec.corners[node];
        if (p < 0) continue;
        c.next[node] = atomicExch(&c.head[p], node);
    }
}

/// Deterministic lists, 1: nodes per particle.
__global__ void lists_count_kernel(dfm_contact_view c, int32_t* count) {
    int32_t n = 3 * active_records(c);
    for (int32_t node = blockIdx.x * blockDim.x + threadIdx.x; node < n; node += gridDim.x * blockDim.x) {
        int32_t p = c.rec.corners[node];
        if (p >= 0) atomicAdd(&count[p], 1);
    }
}

/// Deterministic lists, 2: nodes into their particle's segment (positions vary; sorted next).
__global__ void lists_fill_kernel(dfm_contact_view c, const int32_t* offset, int32_t* fill, int32_t* items) {
    int32_t n = 3 * active_records(c);
    for (int32_t node = blockIdx.x * blockDim.x + threadIdx.x; node < n; node += gridDim.x * blockDim.x) {
        int32_t p = c.rec.corners[node];
        if (p >= 0) items[offset[p] + atomicAdd(&fill[p], 1)] = node;
    }
}

/// Deterministic lists, 3: each particle sorts its few nodes ascending (the CPU's list order)
/// and links them.
__global__ void lists_link_kernel(dfm_contact_view c, int32_t particles, const int32_t* offset, int32_t* items) {
    int32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= particles) return;
    int32_t b = offset[p], e = offset[p + 1];
    for (int32_t i = b + 1; i < e; ++i) {
        int32_t v = items[i], j = i - 1;
        while (j >= b && items[j] > v) {
            items[j + 1] = items[j];
            --j;
        }
        items[j + 1] = v;
    }
    c.head[p] = b < e ? items[b] : -1;
    for (int32_t i = b; i < e; ++i) c.next[items[i]] = i + 1 < e ? items[i + 1] : -1;
}

__global__ void guess_kernel(dfm_contact_view c, int32_t particles, float* normal, float* gap) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < particles) dfm_contact_guess_particle(&c, i, normal, gap);
}

// ---- iterations ---------------------------------------------------------------------------------

__global__ void penalty_kernel(dfm_contact_view c, const float* d, int full) {
    int32_t active = active_records(c), n = full ? c.capacity : active;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        if (k < active) dfm_contact_update_penalty(&c, d, k);
}

__global__ void zero_color_kernel(const int32_t* particles, int32_t count, float* acc_f, float* acc_H) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    int32_t p = particles[k];
    for (int a = 0; a < 3; ++a) acc_f[3 * p + a] = 0.0f;
    for (int a = 0; a < 9; ++a) acc_H[9 * p + a] = 0.0f;
}

__global__ void scatter_kernel(dfm_contact_view c, const float* d, float h, const int32_t* particle_color,
                               int32_t color, float* acc_f, float* acc_H) {
    int32_t n = active_records(c);
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        int any = 0;
        for (int j = 0; j < 3; ++j) {
            int32_t p = c.rec.corners[3 * k + j];
            any |= p >= 0 && particle_color[p] == color;
        }
        if (!any) continue;
        dfm_v3 f;
        dfm_m33 H;
        dfm_contact_point_force(&c, d, h, k, &f, &H);
        for (int j = 0; j < 3; ++j) {
            int32_t p = c.rec.corners[3 * k + j];
            if (p < 0 || particle_color[p] != color) continue;
            float w = c.rec.bary[3 * k + j];
            atomicAdd(acc_f + 3 * p + 0, w * f.x);
            atomicAdd(acc_f + 3 * p + 1, w * f.y);
            atomicAdd(acc_f + 3 * p + 2, w * f.z);
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) atomicAdd(acc_H + 9 * p + 3 * a + b, w * w * H.m[a][b]);
        }
    }
}

__global__ void friction_kernel(dfm_contact_view c, dfm_vbd_view v, const int32_t* particles, int32_t count,
                                float* node_friction) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) (void)dfm_contact_friction_particle(&c, v.mode, v.x, v.d, v.h, particles[k], node_friction);
}

/// One thread per body (contact_patch_friction.h), serial over its particles: the CPU's bits. Kept
/// as the A/B reference of patch_friction_block_kernel (DFM_CUDA_PATCH_SERIAL=1).
/// Parallelism review: P2 done in patch_friction_block_kernel (this serial form is kept on purpose,
/// as the reference); P1/P3/P4 n/a (a reference path).
__global__ void patch_friction_kernel(dfm_contact_view c, dfm_vbd_view v, const int32_t* offsets, int32_t bodies,
                                      float* node_body_friction, uint8_t* particle_slides) {
    int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bodies)
        (void)dfm_patch_friction_body(&c, &v, offsets[b], offsets[b + 1], node_body_friction, particle_slides);
}

/// node_friction += node_body_friction over the active records' nodes.
__global__ void patch_friction_attribute_kernel(dfm_contact_view c, const float* node_body_friction,
                                                float* node_friction) {
    int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int32_t active = *c.count < c.capacity ? *c.count : c.capacity;
    if (q < 9 * (int64_t)active) node_friction[q] += node_body_friction[q];
}

// ---- reactions ----------------------------------------------------------------------------------

__global__ void final_force_kernel(dfm_contact_view c, const float* d, float h, float* record_force, int32_t* kinds,
                                   int32_t* max_pen_bits, int full) {
    int32_t active = active_records(c), n = full ? c.capacity : active;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        if (k >= active) continue;
        atomicAdd(&kinds[dfm_contact_kind_index(&c, k)], 1);
        float pen = dfm_contact_final_force(&c, d, h, k, record_force);
        if (pen > 0.0f) atomicMax(max_pen_bits, __float_as_int(pen)); /* positive floats order as ints */
    }
}

__global__ void residual_kernel(dfm_vbd_view v, float* residual) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.particle_count) dfm_contact_particle_residual(&v, i, residual);
}

/// With deformable contact (issue 16): particle i's residual less its deformable-contact force
/// (contacts_cpu.c residual_range; launched only when there is one). P2 applies-and-done (one
/// thread per particle); P1, P3, P4 do not apply.
__global__ void deform_residual_kernel(dfm_vbd_view v, const float* deform_force, float* residual) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count || v.mode[i] != 0) return;
    dfm_v3_store(dfm_v3_sub(dfm_v3_load(residual + 3 * i), dfm_v3_load(deform_force + 3 * i)), residual + 3 * i);
}

/// One thread per body, serial over its particles and their lists in order (deterministic).
__global__ void body_extra_kernel(dfm_contact_view c, dfm_vbd_view v, const float* record_force,
                                  const float* node_friction, const float* residual, const int32_t* offsets,
                                  int32_t bodies, float* extra) {
    int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bodies)
        dfm_contact_body_extra(&c, &v, record_force, node_friction, residual, offsets[b], offsets[b + 1],
                               extra + 3 * b);
}

__global__ void reaction_particle_kernel(dfm_contact_view c, dfm_vbd_view v, const float* record_force,
                                         const float* node_friction, const float* body_extra,
                                         const int32_t* particle_body, float* node_part) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.particle_count)
        dfm_contact_reaction_particle(&c, &v, record_force, node_friction, body_extra + 3 * particle_body[i], node_part,
                                      i);
}

/// Last advance: the largest local force residual (atomicMax on the bits of non-negative floats:
/// exact and order-free, so deterministic mode stays bitwise reproducible).
__global__ void local_residual_kernel(dfm_contact_view c, dfm_vbd_view v, const float* record_force,
                                      const float* residual, const float* node_friction, float* norms,
                                      int32_t* residual_bits) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count) return;
    float r = dfm_contact_local_residual(&c, &v, record_force, residual, node_friction, i);
    norms[i] = r;
    if (r > 0.0f) atomicMax(residual_bits, __float_as_int(r));
}

/// Default: each record adds its wrench impulse to its shape (double atomics; order varies).
__global__ void wrench_atomic_kernel(dfm_contact_view c, const float* d, const float* node_part, float h,
                                     double* shape_impulse, int full) {
    int32_t active = active_records(c), n = full ? c.capacity : active;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        if (k >= active) continue;
        dfm_v3 fp, fr, tr;
        dfm_contact_record_wrench(&c, d, node_part, k, &fp, &fr, &tr);
        double* imp = shape_impulse + 6 * c.rec.shape[k];
        atomicAdd(imp + 0, (double)fr.x * h);
        atomicAdd(imp + 1, (double)fr.y * h);
        atomicAdd(imp + 2, (double)fr.z * h);
        atomicAdd(imp + 3, (double)tr.x * h);
        atomicAdd(imp + 4, (double)tr.y * h);
        atomicAdd(imp + 5, (double)tr.z * h);
    }
}

/// Deterministic, 1: each record's wrench, and the bounds of each (kind, shape) run of records.
/// Records are in candidate order: particle, then edge, then face candidates, each kind sorted by
/// shape, so a shape has up to three runs, one per kind (index kind * shapes + shape).
__global__ void wrench_store_kernel(dfm_contact_view c, const float* d, const float* node_part, float* wrench,
                                    int32_t shapes, int32_t* run_begin, int32_t* run_end) {
    int32_t n = active_records(c);
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        dfm_v3 fp, fr, tr;
        dfm_contact_record_wrench(&c, d, node_part, k, &fp, &fr, &tr);
        dfm_v3_store(fr, wrench + 6 * k);
        dfm_v3_store(tr, wrench + 6 * k + 3);
        int32_t s = c.rec.shape[k], kind = dfm_contact_kind_index(&c, k), run = kind * shapes + s;
        if (k == 0 || c.rec.shape[k - 1] != s || dfm_contact_kind_index(&c, k - 1) != kind) run_begin[run] = k;
        if (k == n - 1 || c.rec.shape[k + 1] != s || dfm_contact_kind_index(&c, k + 1) != kind) run_end[run] = k + 1;
    }
}

/// Records per chunk of the deterministic per-shape reduction (one warp per chunk).
#define DFM_WRENCH_CHUNK 256

/// Deterministic, 2: the number of chunks of each (kind, shape) run; entry 3 x shapes is 0 so
/// that the exclusive scan's last entry is the total.
__global__ void run_chunks_kernel(int32_t runs, const int32_t* run_begin, const int32_t* run_end, int32_t* chunks) {
    int32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < runs)
        chunks[r] = (run_end[r] - run_begin[r] + DFM_WRENCH_CHUNK - 1) / DFM_WRENCH_CHUNK;
    else if (r == runs)
        chunks[r] = 0;
}

/// Deterministic, 3: one warp per chunk of a run sums its records' wrench impulses in a fixed
/// order (each lane serially over records lane, lane + 32, ..., then a xor butterfly; lane 0's
/// result is written), so the result does not depend on scheduling. Grid-stride over warps up to
/// the chunk total, which lives on the device (fixed launch size: no host read inside a step).
__global__ void chunk_sum_kernel(int32_t runs, const int32_t* run_begin, const int32_t* run_end,
                                 const int32_t* chunk_offset, const float* wrench, float h, double* chunk_sum) {
    const int32_t total = chunk_offset[runs];
    const int lane = threadIdx.x & 31;
    const int32_t warps = (int32_t)(gridDim.x * blockDim.x / 32);
    for (int32_t g = (int32_t)((blockIdx.x * blockDim.x + threadIdx.x) / 32); g < total; g += warps) {
        int32_t lo = 0, hi = runs; /* the run r with chunk_offset[r] <= g < chunk_offset[r + 1] */
        while (hi - lo > 1) {
            int32_t mid = (lo + hi) / 2;
            if (chunk_offset[mid] <= g)
                lo = mid;
            else
                hi = mid;
        }
        const int32_t first = run_begin[lo] + (g - chunk_offset[lo]) * DFM_WRENCH_CHUNK;
        const int32_t last = min(first + DFM_WRENCH_CHUNK, run_end[lo]);
        double acc[6] = {0, 0, 0, 0, 0, 0};
        for (int32_t k = first + lane; k < last; k += 32)
            for (int a = 0; a < 6; ++a) acc[a] += (double)wrench[6 * k + a] * h;
        for (int m = 16; m >= 1; m >>= 1)
            for (int a = 0; a < 6; ++a) acc[a] += __shfl_xor_sync(0xffffffffu, acc[a], m);
        if (lane == 0)
            for (int a = 0; a < 6; ++a) chunk_sum[6 * (int64_t)g + a] = acc[a];
    }
}

/// Deterministic, 4: one thread per shape adds its particle, edge and face runs' chunk sums in
/// that order (a few hundred adds for a shape shared by a thousand environments, where the serial
/// sum over its records took 3.2x the whole step on soft-lift).
__global__ void shape_sum_kernel(int32_t shapes, const int32_t* chunk_offset, const double* chunk_sum,
                                 double* shape_impulse) {
    int32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= shapes) return;
    double acc[6];
    for (int a = 0; a < 6; ++a) acc[a] = shape_impulse[6 * s + a];
    for (int kind = 0; kind < 3; ++kind) {
        const int32_t r = kind * shapes + s;
        for (int32_t g = chunk_offset[r]; g < chunk_offset[r + 1]; ++g)
            for (int a = 0; a < 6; ++a) acc[a] += chunk_sum[6 * (int64_t)g + a];
    }
    for (int a = 0; a < 6; ++a) shape_impulse[6 * s + a] = acc[a];
}

// ---- memory -------------------------------------------------------------------------------------

static int track(dfm_cuda_contacts* c, void* p, char* err, size_t err_size) {
    if (c->allocation_count == c->allocation_capacity) {
        int grown = c->allocation_capacity ? 2 * c->allocation_capacity : 64;
        void** a = (void**)realloc(c->allocations, (size_t)grown * sizeof(void*));
        if (!a) {
            cudaFree(p);
            snprintf(err, err_size, "out of host memory tracking contact device arrays");
            return DFM_ERROR_OUT_OF_HOST_MEMORY;
        }
        c->allocations = a;
        c->allocation_capacity = grown;
    }
    c->allocations[c->allocation_count++] = p;
    return 0;
}

/// Frees a tracked array before the pipeline's end (a buffer replaced by a larger one).
static void release(dfm_cuda_contacts* c, void* p) {
    if (!p) return;
    for (int k = 0; k < c->allocation_count; ++k)
        if (c->allocations[k] == p) {
            cudaFree(p);
            c->allocations[k] = c->allocations[--c->allocation_count];
            return;
        }
}

/// cudaMalloc of `count` items (at least one), tracked for freeing; copies from `src` if given.
template <typename T>
static int dev_alloc(dfm_cuda_contacts* c, T** dst, int64_t count, const void* src, cudaStream_t st, char* err,
                     size_t err_size) {
    size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(T);
    void* p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        snprintf(err, err_size, "cudaMalloc of %zu bytes for the contact pipeline: %s", bytes, cudaGetErrorString(e));
        return dfm_cuda_result(e);
    }
    int r = track(c, p, err, err_size);
    if (r) return r;
    c->device_bytes += (int64_t)bytes;
    *dst = (T*)p;
    if (src && count > 0) DFM_CUDA_TRY(cudaMemcpyAsync(p, src, (size_t)count * sizeof(T), cudaMemcpyHostToDevice, st));
    return 0;
}

/// Device arrays for `cap` records (every field of DFM_CONTACT_RECORD_FIELDS), tracked for freeing.
static int alloc_records(dfm_cuda_contacts* c, dfm_contact_records* r, int64_t cap, cudaStream_t st, char* err,
                         size_t err_size) {
    int e = 0;
#define ALLOC(type, name, width) e = e ? e : dev_alloc(c, &r->name, (width)*cap, NULL, st, err, err_size);
    DFM_CONTACT_RECORD_FIELDS(ALLOC)
#undef ALLOC
    return e;
}

void dfm_cuda_contacts_free(dfm_cuda_contacts* c) {
    for (int k = 0; k < c->allocation_count; ++k) cudaFree(c->allocations[k]);
    free(c->allocations);
    if (c->rt_staging) cudaFreeHost(c->rt_staging);
    free(c->grid_values);
    memset(c, 0, sizeof(*c));
}

int dfm_cuda_contacts_upload(dfm_cuda_contacts* c, const dfm_cuda_contacts_desc* d, int32_t particle_count, int32_t sms,
                             cudaStream_t st, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaStreamSynchronize(st)); /* nothing in flight may still use the old buffers */
    dfm_cuda_contacts_free(c);
    if (d->shape_count <= 0 || d->capacity <= 0) return 0;
    c->shape_count = d->shape_count;
    c->capacity = d->capacity;
    c->particle_count = particle_count;
    for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k) c->cand.count[k] = d->cand.count[k];
    const int64_t cap = d->capacity, n = particle_count, S = d->shape_count, T = dfm_contact_candidates_total(&d->cand);
    c->grid_values = (const float**)calloc((size_t)S, sizeof(float*));
    if (!c->grid_values) {
        snprintf(err, err_size, "out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    int e = 0;
    for (int64_t s = 0; s < S && !e; ++s) {
        const dfm_shape_geom* g = &d->shapes[s].geom;
        if (g->type != DFM_GEOM_MESH || !g->grid.values) continue;
        /* Shapes of one mesh (e.g. one per environment) share one host grid (plugin/sdf_cache.c):
         * upload it once. */
        int64_t same = -1;
        for (int64_t q = s - 1; q >= 0 && same < 0; --q)
            if (d->shapes[q].geom.type == DFM_GEOM_MESH && d->shapes[q].geom.grid.values == g->grid.values) same = q;
        if (same >= 0) {
            c->grid_values[s] = c->grid_values[same];
            continue;
        }
        const int64_t cells = (int64_t)g->grid.dims[0] * g->grid.dims[1] * g->grid.dims[2];
        float* p = NULL;
        e = dev_alloc(c, &p, cells, g->grid.values, st, err, err_size);
        c->grid_values[s] = p;
    }
    /* d->name: host arrays; c->name: device arrays */
#define FEATURE_ROW(type, name, count, width) \
    e = e ? e : dev_alloc(c, &c->name, (width) * (int64_t)d->count, d->name, st, err, err_size);
    DFM_MODEL_FEATURE_ARRAYS(FEATURE_ROW)
#undef FEATURE_ROW
    for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k)
        e = e ? e : dev_alloc(c, &c->cand.pairs[k], 2 * (int64_t)d->cand.count[k], d->cand.pairs[k], st, err, err_size);
    e = e ? e : alloc_records(c, &c->rec, cap, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->head, n, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->next, 3 * cap, NULL, st, err, err_size);
    c->deterministic = d->deterministic;
    if (d->deterministic) {
        /* Only deterministic mode compacts, sorts lists and sums per shape in order (about half of
         * the contact memory at capacity = all candidates). Its scratch records hold one per
         * candidate pair whatever the capacity, so that an overflow keeps the first `capacity`
         * records in candidate order (as the CPU does) rather than the first to win an atomic. */
        if (!e && T > INT32_MAX) {
            snprintf(err, err_size, "deterministic mode: %lld candidate pairs exceed 2^31 - 1", (long long)T);
            e = DFM_ERROR_CAPACITY;
        }
        e = e ? e : alloc_records(c, &c->raw, T, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->cand_record, T, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->cand_flag, T, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->cand_slot, T, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->list_count, n + 1, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->list_offset, n + 1, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->list_fill, n, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->list_items, 3 * cap, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->record_wrench, 6 * cap, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->shape_begin, 3 * (int64_t)S, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->shape_end, 3 * (int64_t)S, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->run_chunks, 3 * (int64_t)S + 1, NULL, st, err, err_size);
        e = e ? e : dev_alloc(c, &c->chunk_offset, 3 * (int64_t)S + 1, NULL, st, err, err_size);
        c->chunk_capacity = (cap + DFM_WRENCH_CHUNK - 1) / DFM_WRENCH_CHUNK + 3 * S;
        e = e ? e : dev_alloc(c, &c->chunk_sum, 6 * c->chunk_capacity, NULL, st, err, err_size);
    }
    e = e ? e : dev_alloc(c, &c->acc_f, 3 * n, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->acc_H, 9 * n, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->guess_normal, 3 * n, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->guess_gap, n, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->record_force, 3 * cap, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->node_part, 9 * cap, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->node_friction, 9 * cap, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->node_body_friction, 9 * cap, NULL, st, err, err_size);
    e = e ? e : dev_alloc(c, &c->shape_impulse, 6 * S, NULL, st, err, err_size);
    if (!e && d->deterministic) {
        /* One scratch buffer large enough for the three scans (candidates, particles + 1, runs + 1). */
        size_t a = 0, b = 0, r = 0;
        DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, a, c->cand_flag, c->cand_slot, (int)(T > 0 ? T : 1), st));
        DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, b, c->list_count, c->list_offset, (int)(n + 1), st));
        DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, r, c->run_chunks, c->chunk_offset, (int)(3 * S + 1), st));
        c->scan_temp_bytes = a > b ? a : b;
        if (r > c->scan_temp_bytes) c->scan_temp_bytes = r;
        e = dev_alloc(c, (char**)&c->scan_temp, (int64_t)c->scan_temp_bytes, NULL, st, err, err_size);
    }
    if (e) {
        dfm_cuda_contacts_free(c);
        return e;
    }
    /* Enough resident blocks to fill the GPU; never more than the capacity needs. */
    int64_t need = blocks_for(3 * cap);
    c->prefix_blocks = (int32_t)(need < 4 * (int64_t)sms ? need : 4 * (int64_t)sms);
    if (c->prefix_blocks < 1) c->prefix_blocks = 1;
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    return 0;
}

int dfm_cuda_contacts_reserve(dfm_cuda_contacts* c, int32_t advances, char* err, size_t err_size) {
    if (c->shape_count == 0) return 0;
    if (advances > c->rt_advances) {
        if (c->rt_staging) cudaFreeHost(c->rt_staging);
        c->rt_staging = NULL;
        c->rt_advances = 0;
        size_t bytes = (size_t)advances * (size_t)c->shape_count * sizeof(dfm_shape_rt);
        DFM_CUDA_TRY(cudaMallocHost((void**)&c->rt_staging, bytes));
        dfm_shape_rt* rt = NULL;
        int e = dev_alloc(c, &rt, (int64_t)advances * c->shape_count, NULL, 0, err, err_size);
        if (e) return e;
        if (c->rt) c->device_bytes -= (int64_t)c->rt_bytes;
        release(c, c->rt); /* the step before synchronized: nothing in flight uses it */
        c->rt = rt;
        c->rt_bytes = (size_t)advances * (size_t)c->shape_count * sizeof(dfm_shape_rt);
        c->rt_advances = advances;
    }
    if (advances + DFM_CUDA_COUNTER_TAIL > c->counter_advances) {
        int32_t* counters = NULL;
        int e = dev_alloc(c, &counters, (int64_t)advances + DFM_CUDA_COUNTER_TAIL, NULL, 0, err, err_size);
        if (e) return e;
        if (c->counters) c->device_bytes -= (int64_t)c->counter_advances * (int64_t)sizeof(int32_t);
        release(c, c->counters);
        c->counters = counters;
        c->counter_advances = advances + DFM_CUDA_COUNTER_TAIL;
    }
    return 0;
}

dfm_contact_view dfm_cuda_contacts_view(const dfm_cuda_contacts* c, int32_t s, float penalty_beta, float penalty_start,
                                        uint32_t flags) {
    dfm_contact_view v;
    memset(&v, 0, sizeof(v));
    v.shape_count = c->shape_count;
    v.shapes = c->rt + (size_t)s * (size_t)c->shape_count;
#define FEATURE_ROW(type, name, count, width) v.name = c->name;
    DFM_MODEL_FEATURE_ARRAYS(FEATURE_ROW)
#undef FEATURE_ROW
    v.cand = c->cand;
    v.capacity = c->capacity;
    v.count = c->counters + s;
    v.rec = c->rec;
    v.head = c->head;
    v.next = c->next;
    v.penalty_beta = penalty_beta;
    v.penalty_start = penalty_start;
    v.flags = flags;
    return v;
}

int dfm_cuda_contacts_begin_step(dfm_cuda_contacts* c, cudaStream_t st, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaMemsetAsync(c->counters, 0, (size_t)c->counter_advances * sizeof(int32_t), st));
    DFM_CUDA_TRY(cudaMemsetAsync(c->shape_impulse, 0, (size_t)c->shape_count * 6u * sizeof(double), st));
    return 0;
}

// ---- passes -------------------------------------------------------------------------------------

int dfm_cuda_contacts_detect(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                             size_t err_size) {
    const dfm_contact_view& v = a->view;
    int32_t* kinds = c->counters + c->counter_advances - DFM_CUDA_COUNTER_TAIL;
    /* kinds and max penetration describe the last advance */
    DFM_CUDA_TRY(cudaMemsetAsync(kinds, 0, 4 * sizeof(int32_t), st));
    dfm_detect_input in;
    in.x = a->vbd.x;
    in.v = a->vbd.v;
    in.radius = a->vbd.radius;
    in.h = a->vbd.h;
    const int64_t total = dfm_contact_candidates_total(&c->cand);
    dfm_contact_view dv = v;
    if (a->deterministic) {
        dv.rec = c->raw;
        dv.cand_record = c->cand_record;
        dv.capacity = (int32_t)total; /* one scratch record per candidate */
    }
    launch_detect<DFM_CANDIDATE_PARTICLE>(dv, in, st);
    launch_detect<DFM_CANDIDATE_EDGE>(dv, in, st);
    launch_detect<DFM_CANDIDATE_FACE>(dv, in, st);
    DFM_CUDA_TRY(cudaGetLastError());
    if (a->deterministic && total > 0) {
        flag_kernel<<<blocks_for(total), BLOCK, 0, st>>>(c->cand_record, c->cand_flag, total);
        DFM_CUDA_TRY(cudaGetLastError());
        size_t bytes = c->scan_temp_bytes;
        DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(c->scan_temp, bytes, c->cand_flag, c->cand_slot, (int)total, st));
        permute_kernel<<<blocks_for(total), BLOCK, 0, st>>>(c->cand_record, c->cand_flag, c->cand_slot, total,
                                                            c->capacity, c->raw, c->rec);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    return 0;
}

/// Thin-shell normals of the advance's records (kernels/shared/contact_sheet.h; with the
/// body-level solve): grid-stride over the active records, each writes only its own normal. P2
/// applies-and-done; P1/P3/P4 n/a.
__global__ void sheet_kernel(dfm_contact_view c, dfm_vbd_view v, int full) {
    int32_t active = active_records(c), n = full ? c.capacity : active;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        if (k < active) dfm_contact_sheet_record(&c, &v, k);
}

int dfm_cuda_contacts_lists(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                            size_t err_size) {
    const dfm_contact_view& v = a->view;
    const int32_t n = c->particle_count;
    const int full = (v.flags & DFM_DISABLE_ACTIVE_PREFIX) != 0;
    const unsigned prefix = full ? blocks_for(3 * (int64_t)c->capacity) : (unsigned)c->prefix_blocks;
    if (v.flags & DFM_CONTACT_SHEET_NORMALS) {
        sheet_kernel<<<full ? blocks_for(c->capacity) : (unsigned)c->prefix_blocks, BLOCK, 0, st>>>(v, a->vbd, full);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    if (!a->deterministic) {
        DFM_CUDA_TRY(cudaMemsetAsync(c->head, 0xFF, (size_t)n * sizeof(int32_t), st));
        lists_atomic_kernel<<<prefix, BLOCK, 0, st>>>(v, full);
        DFM_CUDA_TRY(cudaGetLastError());
    } else {
        DFM_CUDA_TRY(cudaMemsetAsync(c->list_count, 0, ((size_t)n + 1u) * sizeof(int32_t), st));
        DFM_CUDA_TRY(cudaMemsetAsync(c->list_fill, 0, (size_t)n * sizeof(int32_t), st));
        lists_count_kernel<<<c->prefix_blocks, BLOCK, 0, st>>>(v, c->list_count);
        DFM_CUDA_TRY(cudaGetLastError());
        size_t bytes = c->scan_temp_bytes;
        DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(c->scan_temp, bytes, c->list_count, c->list_offset, n + 1, st));
        lists_fill_kernel<<<c->prefix_blocks, BLOCK, 0, st>>>(v, c->list_offset, c->list_fill, c->list_items);
        lists_link_kernel<<<blocks_for(n), BLOCK, 0, st>>>(v, n, c->list_offset, c->list_items);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    guess_kernel<<<blocks_for(n), BLOCK, 0, st>>>(v, n, c->guess_normal, c->guess_gap);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_penalties(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                                size_t err_size) {
    const int full = (a->view.flags & DFM_DISABLE_ACTIVE_PREFIX) != 0;
    unsigned grid = full ? blocks_for(c->capacity) : (unsigned)c->prefix_blocks;
    penalty_kernel<<<grid, BLOCK, 0, st>>>(a->view, a->vbd.d, full);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_scatter(dfm_cuda_contacts* c, const dfm_cuda_advance* a, const int32_t* color_particles,
                              int32_t count, int32_t color, cudaStream_t st, char* err, size_t err_size) {
    zero_color_kernel<<<blocks_for(count), BLOCK, 0, st>>>(color_particles, count, c->acc_f, c->acc_H);
    scatter_kernel<<<c->prefix_blocks, BLOCK, 0, st>>>(a->view, a->vbd.d, a->vbd.h, a->particle_color, color, c->acc_f,
                                                       c->acc_H);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_patch_friction(dfm_cuda_contacts* c, const dfm_cuda_advance* a, uint8_t* particle_slides,
                                     int serial, cudaStream_t st, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaMemsetAsync(c->node_body_friction, 0, 9 * (size_t)c->capacity * sizeof(float), st));
    if (a->body_count > 0 && serial)
        patch_friction_kernel<<<blocks_for(a->body_count), BLOCK, 0, st>>>(
            a->view, a->vbd, a->body_offsets, a->body_count, c->node_body_friction, particle_slides);
    else if (a->body_count > 0)
        patch_friction_block_kernel<<<(unsigned)a->body_count, DFM_PATCH_BLOCK, 0, st>>>(
            a->view, a->vbd, a->body_offsets, c->node_body_friction, particle_slides);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_patch_friction_attribute(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st,
                                               char* err, size_t err_size) {
    patch_friction_attribute_kernel<<<blocks_for(9 * (int64_t)c->capacity), BLOCK, 0, st>>>(
        a->view, c->node_body_friction, c->node_friction);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_friction(dfm_cuda_contacts* c, const dfm_cuda_advance* a, const int32_t* color_particles,
                               int32_t count, cudaStream_t st, char* err, size_t err_size) {
    (void)c;
    friction_kernel<<<blocks_for(count), BLOCK, 0, st>>>(a->view, a->vbd, color_particles, count, c->node_friction);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_finalize(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                               size_t err_size) {
    const dfm_contact_view& v = a->view;
    const int full = (v.flags & DFM_DISABLE_ACTIVE_PREFIX) != 0;
    unsigned grid = full ? blocks_for(c->capacity) : (unsigned)c->prefix_blocks;
    int32_t* kinds = c->counters + c->counter_advances - DFM_CUDA_COUNTER_TAIL;
    final_force_kernel<<<grid, BLOCK, 0, st>>>(v, a->vbd.d, a->vbd.h, c->record_force, kinds, kinds + 3, full);
    residual_kernel<<<blocks_for(c->particle_count), BLOCK, 0, st>>>(a->vbd, a->residual);
    if (a->deform_force)
        deform_residual_kernel<<<blocks_for(c->particle_count), BLOCK, 0, st>>>(a->vbd, a->deform_force, a->residual);
    if (a->body_count > 0)
        body_extra_kernel<<<blocks_for(a->body_count), BLOCK, 0, st>>>(
            v, a->vbd, c->record_force, c->node_friction, a->residual, a->body_offsets, a->body_count, a->body_extra);
    reaction_particle_kernel<<<blocks_for(c->particle_count), BLOCK, 0, st>>>(
        v, a->vbd, c->record_force, c->node_friction, a->body_extra, a->particle_body, c->node_part);
    if (a->residual_pass)
        local_residual_kernel<<<blocks_for(c->particle_count), BLOCK, 0, st>>>(
            v, a->vbd, c->record_force, a->residual, c->node_friction, a->residual_norm, kinds + 4);
    DFM_CUDA_TRY(cudaGetLastError());
    if (!a->deterministic) {
        wrench_atomic_kernel<<<grid, BLOCK, 0, st>>>(v, a->vbd.d, c->node_part, a->vbd.h, c->shape_impulse, full);
    } else {
        DFM_CUDA_TRY(cudaMemsetAsync(c->shape_begin, 0, 3u * (size_t)c->shape_count * sizeof(int32_t), st));
        DFM_CUDA_TRY(cudaMemsetAsync(c->shape_end, 0, 3u * (size_t)c->shape_count * sizeof(int32_t), st));
        wrench_store_kernel<<<c->prefix_blocks, BLOCK, 0, st>>>(v, a->vbd.d, c->node_part, c->record_wrench,
                                                                c->shape_count, c->shape_begin, c->shape_end);
        const int32_t runs = 3 * c->shape_count;
        run_chunks_kernel<<<blocks_for(runs + 1), BLOCK, 0, st>>>(runs, c->shape_begin, c->shape_end, c->run_chunks);
        DFM_CUDA_TRY(cudaGetLastError());
        size_t bytes = c->scan_temp_bytes;
        DFM_CUDA_TRY(cub::DeviceScan::ExclusiveSum(c->scan_temp, bytes, c->run_chunks, c->chunk_offset, runs + 1, st));
        const int64_t warps = c->chunk_capacity < 4LL * c->prefix_blocks * (BLOCK / 32)
                                  ? c->chunk_capacity
                                  : 4LL * c->prefix_blocks * (BLOCK / 32);
        chunk_sum_kernel<<<(unsigned)((warps * 32 + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
            runs, c->shape_begin, c->shape_end, c->chunk_offset, c->record_wrench, a->vbd.h, c->chunk_sum);
        DFM_CUDA_TRY(cudaGetLastError());
        shape_sum_kernel<<<blocks_for(c->shape_count), BLOCK, 0, st>>>(c->shape_count, c->chunk_offset, c->chunk_sum,
                                                                       c->shape_impulse);
    }
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_contacts_download(dfm_cuda_contacts* c, int32_t advances, int32_t* emitted, int32_t kinds[3],
                               int32_t* max_pen_bits, int32_t* residual_bits, double* shape_impulse, cudaStream_t st,
                               char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaMemcpyAsync(emitted, c->counters, (size_t)advances * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(kinds, c->counters + c->counter_advances - DFM_CUDA_COUNTER_TAIL, 3 * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(residual_bits, c->counters + c->counter_advances - 1, sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(max_pen_bits, c->counters + c->counter_advances - 2, sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(shape_impulse, c->shape_impulse, (size_t)c->shape_count * 6u * sizeof(double),
                                 cudaMemcpyDeviceToHost, st));
    return 0;
}
