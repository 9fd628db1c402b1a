/// @file coarse_cuda.cu
/// The coarse correction on the CUDA backend, host-assisted first slice (see coarse_cuda.h): the
/// contact-terms kernel, the transfers and the call of the CPU's dfm_cpu_coarse_correct.
///
/// Parallelism review (seed 001), per kernel:
/// - coarse_contact_terms_kernel: P1 does not apply (one pass after a sweep, no levels); P2
///   applies-and-done (one thread per particle walks its own contact list, as the sweep's gather
///   does; no atomics, each writes its own 12 floats); P3 applies-and-done (the lists are the
///   advance's, built once per advance, not per correction); P4 applies-TODO (f and H stored per
///   particle, xyz and row-major, the layout the host's dfm_cpu_contact_terms reads and the one
///   copy down needs; a structure of arrays would coalesce the stores better). Its CPU twin is the gather path of
///   dfm_cpu_contact_terms (kernels/cpu/vbd_cpu.c), over the same dfm_contact_gather.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "coarse_cpu.h"
#include "coarse_cuda.h"
#include "contact_response.h"
#include "cuda_check.h"

#define BLOCK 256

/// Particle i's contact force and Hessian at the iterate d (dfm_contact_gather over its list, as
/// the sweep's solve_contact_terms in gather mode) into f[3 i ...] and H[9 i ...] (row-major);
/// zero for a pinned or kinematic particle (the CPU's correction skips those).
__global__ void coarse_contact_terms_kernel(dfm_vbd_view v, dfm_contact_view c, float* f_out, float* H_out) {
    const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count) return;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 H = dfm_m33_zero();
    if (v.mode[i] == 0) dfm_contact_gather(&c, v.d, v.h, i, &f, &H);
    dfm_v3_store(f, f_out + 3 * (int64_t)i);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) H_out[9 * (int64_t)i + 3 * a + b] = H.m[a][b];
}

void dfm_cuda_coarse_free(dfm_cuda_coarse* co) {
    if (co->terms) cudaFree(co->terms); /* teardown: nothing to report to */
    if (co->host) cudaFreeHost(co->host);
    memset(co, 0, sizeof(*co));
}

int dfm_cuda_coarse_reserve(dfm_cuda_coarse* co, int32_t particle_count, char* err, size_t err_size) {
    if (co->terms && co->particle_count == particle_count) return 0;
    dfm_cuda_coarse_free(co);
    const size_t n = (size_t)(particle_count > 0 ? particle_count : 1);
    cudaError_t e = cudaMalloc((void**)&co->terms, 12u * n * sizeof(float));
    if (e != cudaSuccess) {
        co->terms = NULL;
        snprintf(err, err_size, "%s:%d: cudaMalloc (coarse correction terms, %zu particles): %s", __FILE__, __LINE__, n,
                 cudaGetErrorString(e));
        return dfm_cuda_result(e);
    }
    e = cudaMallocHost((void**)&co->host, 24u * n * sizeof(float));
    if (e != cudaSuccess) {
        co->host = NULL;
        dfm_cuda_coarse_free(co);
        snprintf(err, err_size, "%s:%d: cudaMallocHost (coarse correction staging, %zu particles): %s", __FILE__,
                 __LINE__, n, cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? DFM_ERROR_OUT_OF_HOST_MEMORY : dfm_cuda_result(e);
    }
    co->particle_count = particle_count;
    co->device_bytes = (int64_t)(12u * n * sizeof(float));
    return 0;
}

int dfm_cuda_coarse_correct(dfm_cuda_coarse* co, dfm_cpu_coarse* level, const dfm_vbd_view* model,
                            const dfm_vbd_view& v, const dfm_contact_view* c, int first, cudaStream_t st, char* err,
                            size_t err_size) {
    const int32_t n = v.particle_count;
    if (!level->node_first || level->particle_count != n) return 0; /* dfm_cpu_coarse_correct's own early-out */
    if (co->particle_count != n || !co->host) {
        snprintf(err, err_size, "internal: coarse correction buffers sized for %d particles, the model has %d",
                 co->particle_count, n);
        return DFM_ERROR_INVALID_STATE;
    }
    const size_t n3 = 3u * (size_t)n, bytes = n3 * sizeof(float);
    /* pinned layout: x, d, x_prev, y, f (3 per particle each), H (9); f and H as on the device */
    float* hx = co->host;
    float* hd = hx + n3;
    float* hx_prev = hd + n3;
    float* hy = hx_prev + n3;
    float* hf = hy + n3;
    float* hH = hf + n3;
    if (c) {
        coarse_contact_terms_kernel<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(v, *c, co->terms,
                                                                                           co->terms + n3);
        DFM_CUDA_TRY(cudaGetLastError());
        DFM_CUDA_TRY(cudaMemcpyAsync(hf, co->terms, 4u * bytes, cudaMemcpyDeviceToHost, st));
    }
    DFM_CUDA_TRY(cudaMemcpyAsync(hx, v.x, bytes, cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(hd, v.d, bytes, cudaMemcpyDeviceToHost, st));
    if (first) { /* constant over the advance's sweeps */
        DFM_CUDA_TRY(cudaMemcpyAsync(hx_prev, v.x_prev, bytes, cudaMemcpyDeviceToHost, st));
        DFM_CUDA_TRY(cudaMemcpyAsync(hy, v.y, bytes, cudaMemcpyDeviceToHost, st));
    }
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    /* the CPU's correction over the model's host arrays and the mirrors: element coefficients and
       hinge start angles per visit (the host has no tables of this step), the scalar path */
    dfm_vbd_view hv = *model;
    hv.particle_count = n;
    hv.x = hx;
    hv.d = hd;
    hv.x_prev = hx_prev;
    hv.y = hy;
    hv.v = NULL;
    hv.kin_start = hv.kin_target = NULL;
    hv.guess_normal = hv.guess_gap = NULL;
    hv.edge_start_angle = NULL;
    hv.tri_coef = hv.edge_coef = hv.tet_coef = NULL;
    hv.h = v.h;
    memcpy(hv.gravity, v.gravity, sizeof(hv.gravity));
    dfm_cpu_contacts cc;
    memset(&cc, 0, sizeof(cc));
    cc.gather = 0; /* the terms below, not a host contact view */
    cc.acc_complete = 1;
    cc.acc_f = hf;
    cc.acc_H = hH;
    dfm_cpu_coarse_correct(level, &hv, c ? &cc : NULL, NULL, 1, first);
    ++co->corrections;
    /* the pinned sources stay untouched until the next correction's synchronization */
    DFM_CUDA_TRY(cudaMemcpyAsync(v.d, hd, bytes, cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(v.x, hx, bytes, cudaMemcpyHostToDevice, st));
    return 0;
}
