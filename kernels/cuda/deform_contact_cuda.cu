/// @file deform_contact_cuda.cu
/// Deformable-deformable contact on the CUDA backend (issue 16): see deform_contact_cuda.h. The
/// broad phase is bvh_cuda.cu; the narrow phase, lists and sub-colours are the CPU's
/// (dfm_cpu_dc_build, host-assisted first slice); the kernels below are the per-particle passes
/// of the advance, over kernels/shared/deform_contact.h. The per-sub-colour solve is
/// solve_dc_kernel in vbd_cuda.cu (it shares the solve's contact terms).
///
/// Parallelism review (seed 001), per kernel:
/// - dc_guess_kernel (the guess bound after detection): P1 does not apply (no levels: every
///   particle is bounded from x_prev alone); P2 applies-and-done (one thread per particle, each
///   walking its own pair list serially, as the CPU does; no atomics, writes only its own d and x);
///   P3 applies-and-done (the advance's total bound is computed once, on the host, not per
///   thread); P4 applies-TODO (lists are in pair order: the pairs of neighbouring particles are
///   not adjacent in memory, and positions are xyz per particle).
/// - dc_particle_terms_kernel (final forces, stage 1a): P2 applies-and-done (one thread per
///   particle: its momentum need, the costly part, and its raw pair force; session 11 moved them
///   here from the per-body loop, where one thread evaluated a whole body's elements serially:
///   149 ms of a 200 ms cloth-fold step at one environment on the H200); P1/P3/P4 n/a.
/// - dc_body_scale_kernel (stage 1b): P2 applies-and-done over bodies (one thread per body sums
///   its particles' terms serially in index order: the CPU's order, deterministic); applies-TODO
///   within a body (a fixed-tree reduction would shorten the chain, but would change the order of
///   the additions against the CPU); P3 applies-and-done (one scale per body); P4 n/a.
/// - dc_final_force_kernel (stage 2): P2 applies-and-done (one thread per particle over its list,
///   no atomics); P1/P3 n/a; P4 applies-TODO as dc_guess_kernel.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "deform_contact_cuda.h"
#include "vbd_particle.h"

#define BLOCK 256

static unsigned blocks_for(int64_t n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

// ---- kernels ------------------------------------------------------------------------------------

/// The initial guess as a step from x_prev, bounded by the gaps of particle i's pairs at x_prev
/// (the tail of dfm_cpu_dc_detect).
__global__ void dc_guess_kernel(dfm_dc_view c, dfm_vbd_view v, const uint8_t* surface) {
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= v.particle_count || !surface[i] || v.mode[i] != 0) return;
    float gap = 3.0e38f;
    for (int32_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k) {
        float w[4];
        gap = dfm_fminf(gap, dfm_v3_len(dfm_dc_pair_stencil(c.pairs + (c.items[k] >> 2), v.x_prev, w)));
    }
    const dfm_v3 d = dfm_v3_load(v.d + 3 * (int64_t)i);
    const dfm_v3 b = dfm_dc_bound_step(dfm_v3_zero(), d, gap, c.total_bound);
    dfm_v3_store(b, v.d + 3 * (int64_t)i);
    dfm_v3_store(dfm_v3_add(dfm_v3_load(v.x_prev + 3 * (int64_t)i), b), v.x + 3 * (int64_t)i);
}

/// Final forces, stage 1a: particle i's terms of its body's sums (dfm_cpu_dc_final_forces step
/// 1), one thread per particle: its momentum need and raw deformable-contact force at the final
/// iterate (6 floats in `terms`) and whether it supports its body (`support`: a pinned or
/// kinematic vertex, or a shape contact). Each term is the value the serial loop computed.
__global__ void dc_particle_terms_kernel(dfm_dc_view c, dfm_vbd_view v, const uint8_t* surface,
                                         const int32_t* shape_head, float* terms, uint8_t* support) {
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= v.particle_count) return;
    if (v.mode[i] != 0) {
        support[i] = 1;
        return;
    }
    support[i] = shape_head && shape_head[i] >= 0;
    dfm_v3_store(dfm_vbd_particle_need(&v, i), terms + 6 * (int64_t)i);
    if (!surface[i]) return;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 H = dfm_m33_zero();
    dfm_dc_gather(&c, v.x, v.d, v.h, i, &f, &H);
    dfm_v3_store(f, terms + 6 * (int64_t)i + 3);
}

/// Final forces, stage 1b (dfm_cpu_dc_final_forces step 1): body b's raw deformable-contact force
/// and momentum need, summed from stage 1a's terms in particle order (the CPU's order: bitwise its
/// sums), and from them its scale (< 0: supported: it keeps its raw forces).
__global__ void dc_body_scale_kernel(dfm_vbd_view v, const uint8_t* surface, const float* terms, const uint8_t* support,
                                     const int32_t* body_offsets, int32_t body_count, float* scale) {
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= body_count) return;
    dfm_v3 fr = dfm_v3_zero(), nd = dfm_v3_zero();
    int supported = 0;
    for (int32_t i = body_offsets[b]; i < body_offsets[b + 1]; ++i) {
        supported |= support[i];
        if (v.mode[i] != 0) continue;
        nd = dfm_v3_add(nd, dfm_v3_load(terms + 6 * (int64_t)i));
        if (surface[i]) fr = dfm_v3_add(fr, dfm_v3_load(terms + 6 * (int64_t)i + 3));
    }
    const float rr = dfm_v3_dot(fr, fr);
    scale[b] = supported || !(rr > 0.0f) ? -1.0f : dfm_fmaxf(dfm_v3_dot(nd, fr) / rr, 0.0f);
}

/// Final forces, stage 2 (dfm_cpu_dc_final_forces step 2): particle i's pairs, each scaled by the
/// factor of its unsupported side (equal and opposite on both sides), summed into final_force.
__global__ void dc_final_force_kernel(dfm_dc_view c, dfm_vbd_view v, const uint8_t* surface,
                                      const int32_t* particle_body, const float* scale, float* final_force) {
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= v.particle_count) return;
    dfm_v3 f = dfm_v3_zero();
    if (surface[i] && v.mode[i] == 0)
        for (int32_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k) {
            const int32_t item = c.items[k], p = item >> 2, corner = item & 3;
            const dfm_dc_pair* pr = c.pairs + p;
            const int32_t a = particle_body[pr->v[0]];
            const int32_t bb = particle_body[pr->kind == DFM_DC_VERTEX_TRIANGLE ? pr->v[1] : pr->v[2]];
            const float sc = scale[a] >= 0.0f ? scale[a] : (scale[bb] >= 0.0f ? scale[bb] : 1.0f);
            dfm_v3 fp = dfm_v3_zero();
            dfm_m33 H = dfm_m33_zero();
            dfm_dc_pair_force(pr, v.x, v.d, c.radius, c.ke, c.mu, v.h, corner, &fp, &H);
            f = dfm_v3_madd(f, fp, sc);
        }
    dfm_v3_store(f, final_force + 3 * (int64_t)i);
}

// ---- host side ----------------------------------------------------------------------------------

void dfm_cuda_dc_free(dfm_cuda_dc* dc) {
    dfm_cuda_bvh_destroy(dc->tri_bvh);
    dfm_cuda_bvh_destroy(dc->edge_bvh);
    void* bufs[] = {dc->pairs,       dc->offsets,    dc->items,      dc->sub_particles, dc->surface,
                    dc->final_force, dc->body_scale, dc->part_terms, dc->part_support};
    for (size_t k = 0; k < sizeof(bufs) / sizeof(bufs[0]); ++k)
        if (bufs[k]) cudaFree(bufs[k]); /* teardown: nothing to report to */
    if (dc->host_x_prev) cudaFreeHost(dc->host_x_prev);
    if (dc->host_y) cudaFreeHost(dc->host_y);
    memset(dc, 0, sizeof(*dc));
    dc->generation = -1;
}

/// cudaMalloc of `bytes` (at least 4) into *p, counted in dc->device_bytes.
template <typename T>
static int dc_alloc(dfm_cuda_dc* dc, T** p, size_t bytes, char* err, size_t err_size) {
    const size_t n = bytes > 4 ? bytes : 4;
    DFM_CUDA_TRY(cudaMalloc((void**)p, n));
    dc->device_bytes += (int64_t)n;
    return 0;
}

int dfm_cuda_dc_upload(dfm_cuda_dc* dc, const dfm_cpu_dc* s, int64_t generation, int32_t particle_count,
                       int32_t body_count, cudaStream_t st, char* err, size_t err_size) {
    dfm_cuda_dc_free(dc);
    const size_t n = (size_t)particle_count, cap = (size_t)(s->candidate_capacity > 0 ? s->candidate_capacity : 1);
    dc->particle_count = particle_count;
    dc->body_count = body_count;
    dc->capacity = (int64_t)cap;
    int r = 0;
#define DC_A(ptr, bytes) \
    if (!r) r = dc_alloc(dc, &dc->ptr, (bytes), err, err_size)
    DC_A(pairs, cap * sizeof(dfm_dc_pair));
    DC_A(offsets, (n + 1u) * sizeof(int32_t));
    DC_A(items, 4u * cap * sizeof(int32_t));
    DC_A(sub_particles, n * sizeof(int32_t));
    DC_A(surface, n);
    DC_A(final_force, 3u * n * sizeof(float));
    DC_A(body_scale, ((size_t)body_count + 1u) * sizeof(float));
    DC_A(part_terms, 6u * n * sizeof(float));
    DC_A(part_support, n);
#undef DC_A
    if (!r) {
        cudaError_t e = cudaMallocHost((void**)&dc->host_x_prev, 3u * (n + 1u) * sizeof(float));
        if (e == cudaSuccess) e = cudaMallocHost((void**)&dc->host_y, 3u * (n + 1u) * sizeof(float));
        if (e != cudaSuccess) {
            snprintf(err, err_size, "%s:%d: cudaMallocHost (deformable contact staging): %s", __FILE__, __LINE__,
                     cudaGetErrorString(e));
            r = DFM_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    const int32_t nb = body_count > 0 ? body_count : 1, nv = particle_count > 0 ? particle_count : 1;
    if (!r && s->tri_count > 0 && s->point_count > 0) {
        dfm_cuda_bvh_caps caps = {s->tri_count, s->point_count, nv, nb, (int64_t)cap};
        r = dfm_cuda_bvh_create(&caps, &dc->tri_bvh, err, err_size);
    }
    if (!r && s->edge_count > 0) {
        dfm_cuda_bvh_caps caps = {s->edge_count, s->edge_count, nv, nb, (int64_t)cap};
        r = dfm_cuda_bvh_create(&caps, &dc->edge_bvh, err, err_size);
    }
    if (!r && n > 0) {
        cudaError_t e = cudaMemcpyAsync(dc->surface, s->surface, n, cudaMemcpyHostToDevice, st);
        if (e == cudaSuccess) e = cudaMemsetAsync(dc->offsets, 0, (n + 1u) * sizeof(int32_t), st);
        if (e == cudaSuccess) e = cudaMemsetAsync(dc->final_force, 0, 3u * n * sizeof(float), st);
        if (e == cudaSuccess) e = cudaMemsetAsync(dc->part_terms, 0, 6u * n * sizeof(float), st);
        if (e == cudaSuccess) e = cudaStreamSynchronize(st);
        if (e != cudaSuccess) {
            snprintf(err, err_size, "%s:%d: uploading the deformable contact state: %s", __FILE__, __LINE__,
                     cudaGetErrorString(e));
            r = dfm_cuda_result(e);
        }
    }
    if (r) {
        dfm_cuda_dc_free(dc);
        return r;
    }
    memset(&dc->view, 0, sizeof(dc->view));
    dc->view.pairs = dc->pairs;
    dc->view.offsets = dc->offsets;
    dc->view.items = dc->items;
    dc->view.radius = s->radius;
    dc->view.ke = s->ke;
    dc->view.mu = s->mu;
    dc->generation = generation;
    return 0;
}

/// One tree's query of dfm_cpu_dc_detect on the GPU: build over in's tree primitives, query into
/// pairs (room slots, NULL with 0); *found gets every pair found (also those beyond the room).
/// An input the broad phase refuses (non-finite positions) finds nothing, as on the CPU (the
/// step's guard then refuses the step); device failures are returned.
static int dc_query(dfm_cuda_bvh* tree, const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t room, int64_t* found,
                    char* err, size_t err_size) {
    *found = 0;
    if (!tree) return 0;
    int r = dfm_cuda_bvh_build(tree, in, err, err_size);
    if (r == DFM_ERROR_DEVICE_UNAVAILABLE || r == DFM_ERROR_OUT_OF_DEVICE_MEMORY) return r;
    if (r) return 0;
    r = dfm_cuda_bvh_query(tree, in, room > 0 ? pairs : NULL, room > 0 ? room : 0, found, err, err_size);
    if (r == DFM_ERROR_DEVICE_UNAVAILABLE || r == DFM_ERROR_OUT_OF_DEVICE_MEMORY) return r;
    return 0; /* DFM_ERROR_CAPACITY: *found counts the candidates left out (reported as dropped) */
}

int dfm_cuda_dc_detect(dfm_cuda_dc* dc, dfm_cpu_dc* s, const dfm_vbd_view& v, int32_t color_count,
                       const int32_t* color_offsets, const int32_t* color_particles, const int32_t* particle_color,
                       cudaStream_t st, char* err, size_t err_size) {
    const int32_t n = v.particle_count;
    if (n != dc->particle_count || dc->generation < 0) {
        snprintf(err, err_size, "internal: deformable contact buffers sized for %d particles, the model has %d",
                 dc->particle_count, n);
        return DFM_ERROR_INVALID_STATE;
    }
    const size_t bytes = 3u * (size_t)n * sizeof(float);
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->host_x_prev, v.x_prev, bytes, cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->host_y, v.y, bytes, cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    dfm_cpu_dc_query_radius(s, dc->host_y, n);
    dfm_bvh_input in;
    int64_t vt = 0, ee = 0;
    const int64_t cap = s->candidate_capacity < dc->capacity ? s->candidate_capacity : dc->capacity;
    if (s->tri_count > 0 && s->point_count > 0) {
        dfm_cpu_dc_bvh_input(s, dc->host_x_prev, n, 0, &in);
        int r = dc_query(dc->tri_bvh, &in, s->cand, cap, &vt, err, err_size);
        if (r) return r;
    }
    const int64_t vt_kept = vt < cap ? vt : cap;
    if (s->edge_count > 0) {
        dfm_cpu_dc_bvh_input(s, dc->host_x_prev, n, 1, &in);
        int r = dc_query(dc->edge_bvh, &in, s->cand + vt_kept, cap - vt_kept, &ee, err, err_size);
        if (r) return r;
    }
    dfm_cpu_dc_build(s, dc->host_x_prev, n, vt, ee, color_count, color_offsets, color_particles, particle_color);
    /* the lists up (pageable sources: each copy has read its source when it returns) */
    if (s->pair_count > 0) {
        DFM_CUDA_TRY(cudaMemcpyAsync(dc->pairs, s->pairs, (size_t)s->pair_count * sizeof(dfm_dc_pair),
                                     cudaMemcpyHostToDevice, st));
        DFM_CUDA_TRY(cudaMemcpyAsync(dc->items, s->items, 4u * (size_t)s->pair_count * sizeof(int32_t),
                                     cudaMemcpyHostToDevice, st));
    }
    DFM_CUDA_TRY(
        cudaMemcpyAsync(dc->offsets, s->offsets, ((size_t)n + 1u) * sizeof(int32_t), cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(dc->sub_particles, s->sub_particles, (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice, st));
    dc->view.total_bound = s->view.total_bound;
    dc_guess_kernel<<<blocks_for(n), BLOCK, 0, st>>>(dc->view, v, dc->surface);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

int dfm_cuda_dc_final_forces(dfm_cuda_dc* dc, const dfm_vbd_view& v, const int32_t* shape_head,
                             const int32_t* body_offsets, const int32_t* particle_body, cudaStream_t st, char* err,
                             size_t err_size) {
    if (dc->body_count > 0) {
        dc_particle_terms_kernel<<<blocks_for(v.particle_count), BLOCK, 0, st>>>(dc->view, v, dc->surface, shape_head,
                                                                                 dc->part_terms, dc->part_support);
        DFM_CUDA_TRY(cudaGetLastError());
        dc_body_scale_kernel<<<blocks_for(dc->body_count), BLOCK, 0, st>>>(
            v, dc->surface, dc->part_terms, dc->part_support, body_offsets, dc->body_count, dc->body_scale);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    dc_final_force_kernel<<<blocks_for(v.particle_count), BLOCK, 0, st>>>(dc->view, v, dc->surface, particle_body,
                                                                          dc->body_scale, dc->final_force);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}
