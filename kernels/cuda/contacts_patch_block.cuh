/// @file contacts_patch_block.cuh
/// Coulomb's patch decision (kernels/shared/contact_patch_friction.h) with one block per body:
/// the threads stride over the body's particles and their contact lists, and fixed-order block
/// reductions give the body's sums; the same shared pieces as the CPU's serial
/// dfm_patch_friction_body, so the same math (not its bits: the summation order differs).
/// Included by contacts_cuda.cu.
#ifndef DFM_CONTACTS_PATCH_BLOCK_CUH
#define DFM_CONTACTS_PATCH_BLOCK_CUH

#include <stdint.h>

#include "contact_patch_friction.h"

/// Threads per body of patch_friction_block_kernel (a multiple of 32).
#define DFM_PATCH_BLOCK 128
#define DFM_PATCH_WARPS (DFM_PATCH_BLOCK / 32)

/// Sums v[0, K) over the block into every thread's v, in a fixed order (lanes by butterfly-free
/// shuffle-down tree, then the warps' partials in warp order): the same bits every run.
/// scratch: shared, DFM_PATCH_WARPS x K. Every thread of the block must call it.
template <int K>
__device__ __forceinline__ void dfm_patch_block_sum(float (&v)[K], float (*scratch)[K]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < K; ++k)
        for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
    if (lane == 0)
#pragma unroll
        for (int k = 0; k < K; ++k) scratch[warp][k] = v[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < K; ++k) {
        float s = scratch[0][k];
        for (int w = 1; w < DFM_PATCH_WARPS; ++w) s += scratch[w][k];
        v[k] = s;
    }
    __syncthreads(); /* scratch is free again */
}

/// Slot of shape s in the block's shape table (shared, DFM_PATCH_MAX entries, -1 = free), taken
/// with atomicCAS if new (slots fill as a prefix); -1 when the table is full of other shapes.
__device__ __forceinline__ int dfm_patch_slot(int32_t* table, int32_t s) {
    for (int q = 0; q < DFM_PATCH_MAX; ++q) {
        int32_t old = atomicCAS(&table[q], -1, s);
        if (old == -1 || old == s) return q;
    }
    return -1;
}

/// One block per body, DFM_PATCH_BLOCK threads (contact_patch_friction.h; the serial twin is
/// dfm_patch_friction_body, patch_friction_kernel below keeps it under DFM_CUDA_PATCH_SERIAL=1).
/// Parallelism review (seed 001):
/// - P1 n/a: no tree levels; the body's passes (sums, loads, solve, writes) are sequential by
///   data dependence, one __syncthreads-separated phase each.
/// - P2 applies-and-done: the body's particles (and each one's list of records) are independent
///   columns: threads stride over them; the sums (M, P, R, S; dbar; per patch N, nsum, Dsum, Bsum)
///   are fixed-order block reductions (no float atomics: deterministic). The patch set is an
///   integer table (atomicCAS per new shape, atomicMin of a 64-bit first-occurrence key
///   particle << 32 | list position), sorted by that key: the CPU's patch order. The Gauss-Seidel
///   over <= DFM_PATCH_MAX patches is serial by nature (each patch reads the others' forces) and
///   tiny; every thread runs it on the same reduced inputs (identical bits, no broadcast).
/// - P3 applies-and-done: the per-record force is recomputed in the load pass rather than stored
///   (a record's force is a few flops; a scratch band would cost a global round trip); the load
///   pass's record terms are reduced, not kept.
/// - P4 applies-and-done: a body's particles are contiguous ([first, end)), so the strided
///   particle reads coalesce; list walks are indirect by nature (records by detection order).
/// Bodies with no record exit after the particle_slides reset (one pass over head[]).
__global__ void __launch_bounds__(DFM_PATCH_BLOCK)
    patch_friction_block_kernel(dfm_contact_view c, dfm_vbd_view v, const int32_t* offsets, float* node_body_friction,
                                uint8_t* particle_slides) {
    __shared__ int32_t shape_slot[DFM_PATCH_MAX];
    __shared__ unsigned long long slot_key[DFM_PATCH_MAX];
    __shared__ float scratch8[DFM_PATCH_WARPS][8];
    __shared__ float scratch10[DFM_PATCH_WARPS][10];
    const int32_t first = offsets[blockIdx.x], end = offsets[blockIdx.x + 1];
    const int tid = threadIdx.x;
    if (tid < DFM_PATCH_MAX) {
        shape_slot[tid] = -1;
        slot_key[tid] = ~0ull;
    }
    int any = 0;
    for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK) {
        particle_slides[i] = 0;
        any |= c.head[i] >= 0;
    }
    if (!__syncthreads_or(any)) return; /* no record: np == 0 whatever else (the CPU's return 0) */
    /* pass 1: mass, needed momentum, record forces; the refusals; the patch set */
    const float h = v.h, ih2 = 1.0f / (h * h);
    dfm_patch_sums sum = dfm_patch_sums_zero();
    int refuse = 0, last_shape = -1, last_slot = -1;
    for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK) {
        if (v.mode[i] != 0) refuse = 1;
        dfm_patch_add_particle(&v, i, ih2, &sum);
        uint32_t pos = 0;
        for (int32_t node = c.head[i]; node >= 0; node = c.next[node], ++pos) {
            if (node % 3 != 0) continue; /* each record once, at its corner 0 */
            const int32_t k = node / 3, s = c.rec.shape[k];
            if (c.shapes[s].coupled) refuse = 1;
            if (s != last_shape) {
                last_shape = s;
                last_slot = dfm_patch_slot(shape_slot, s);
            }
            if (last_slot < 0)
                refuse = 1; /* more than DFM_PATCH_MAX shapes */
            else
                atomicMin(&slot_key[last_slot], ((unsigned long long)(uint32_t)(i - first) << 32) | pos);
            dfm_patch_add_record_force(&c, &v, k, &sum);
        }
    }
    refuse = __syncthreads_or(refuse); /* also publishes the shape table */
    if (refuse) return;
    int np = 0;
    while (np < DFM_PATCH_MAX && shape_slot[np] >= 0) ++np;
    /* the patches in first-occurrence order (keys are distinct: one record each) */
    dfm_friction_patch pt[DFM_PATCH_MAX];
    for (int q = 0; q < np; ++q) {
        int rank = 0;
        for (int r = 0; r < np; ++r) rank += slot_key[r] < slot_key[q];
        dfm_patch_open(&pt[rank], shape_slot[q]);
    }
    float s8[8] = {sum.M, sum.P.x, sum.P.y, sum.P.z, sum.R.x, sum.R.y, sum.R.z, sum.S};
    dfm_patch_block_sum<8>(s8, scratch8);
    const float M = s8[0], S = s8[7];
    if (np == 0 || !(S > 0.0f) || !(M > 0.0f)) return; /* uniform: every thread has the same sums */
    const dfm_v3 P = dfm_v3_make(s8[1], s8[2], s8[3]), R = dfm_v3_make(s8[4], s8[5], s8[6]);
    const dfm_v3 extra = dfm_v3_scale(dfm_v3_sub(P, R), 1.0f / S);
    /* the body's mean displacement over the advance */
    dfm_v3 dbar = dfm_v3_zero();
    for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK)
        dbar = dfm_v3_madd(dbar, dfm_v3_load(v.d + 3 * i), v.mass[i] / M);
    {
        float s3[8] = {dbar.x, dbar.y, dbar.z, 0, 0, 0, 0, 0};
        dfm_patch_block_sum<8>(s3, scratch8);
        dbar = dfm_v3_make(s3[0], s3[1], s3[2]);
    }
    /* pass 2: the records' normal loads and slips, per patch (this thread's records) */
    for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK)
        for (int32_t node = c.head[i]; node >= 0; node = c.next[node]) {
            if (node % 3 != 0) continue;
            const int32_t k = node / 3;
            dfm_patch_record_terms t = dfm_patch_record(&c, &v, k, extra, dbar);
            node_body_friction[3 * node] = t.fn > 0.0f ? t.fn : 0.0f; /* kept for the attribution below */
            if (t.fn > 0.0f) dfm_patch_add_terms(&pt[dfm_patch_index(pt, np, c.rec.shape[k])], &t);
        }
    for (int q = 0; q < np; ++q) {
        float s10[10] = {pt[q].N,      pt[q].nsum.x, pt[q].nsum.y, pt[q].nsum.z, pt[q].Dsum.x,
                         pt[q].Dsum.y, pt[q].Dsum.z, pt[q].Bsum.x, pt[q].Bsum.y, pt[q].Bsum.z};
        dfm_patch_block_sum<10>(s10, scratch10);
        pt[q].N = s10[0];
        pt[q].nsum = dfm_v3_make(s10[1], s10[2], s10[3]);
        pt[q].Dsum = dfm_v3_make(s10[4], s10[5], s10[6]);
        pt[q].Bsum = dfm_v3_make(s10[7], s10[8], s10[9]);
    }
    if (!dfm_patch_coherent(pt, np)) { /* uniform */
        for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK)
            for (int32_t node = c.head[i]; node >= 0; node = c.next[node])
                if (node % 3 == 0) node_body_friction[3 * node] = 0.0f;
        return;
    }
    const dfm_v3 delta = dfm_patch_solve(&c, pt, np, h, M);
    __syncthreads(); /* every read of d (other threads' corners) is done before the translation */
    for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK) dfm_patch_translate(&v, i, delta);
    /* attribution to this thread's records' nodes, and the sliding patches' particles (any
     * thread's: all reset before the first barrier; concurrent writes store the same 1) */
    for (int32_t i = first + tid; i < end; i += DFM_PATCH_BLOCK)
        for (int32_t node = c.head[i]; node >= 0; node = c.next[node]) {
            if (node % 3 != 0) continue;
            const int32_t k = node / 3;
            dfm_patch_attribute(&c, &pt[dfm_patch_index(pt, np, c.rec.shape[k])], k, node_body_friction[3 * node],
                                node_body_friction, particle_slides);
        }
}

#endif
