/// @file vbd_cuda.cu
/// CUDA backend: the whole VBD step (predict, hoisted hinge angles, per-color particle solves with
/// the contact gather, friction, reactions, velocity update) over the same kernels/shared functions
/// as the CPU backend; the contact passes live in contacts_cuda.cu.
///
/// Parallelism review (seed 001), per kernel:
/// - predict_kernel / velocity_kernel: P1 does not apply (no levels); P2 applies-and-done (one
///   thread per particle, independent); P3 applies-and-done (rest data precomputed at body
///   creation); P4 applies-TODO (positions are AoS float3 in SoA arrays: x, v, d each contiguous,
///   12-byte strided per thread; a float4 or split-component layout would coalesce better).
/// - solve_color_tiled_kernel: see its own review below (16 lanes per particle, two particles per
///   warp, tet-only variant).
/// - solve_dc_kernel and solve_dc_tiled_kernel (deformable-deformable contact, issue 16): see their
///   own reviews below; its detection and final-force passes are in deform_contact_cuda.cu.
/// - solve_body_sweep_kernel (DFM_CUDA_BODY_SWEEP=1): its own review below;
///   solve_body_staged_kernel (=2): the review at the top of vbd_cuda_sweep_shared.cuh;
///   solve_body_resident_kernel (=3, element data staged too): vbd_cuda_sweep_resident.cuh.
/// - DFM_FEATURE_COARSE_CORRECTION adds no kernel: its host-assisted first slice runs the CPU's
///   coarse code between the sweeps (coarse_cuda.h).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "body_translation.h"
#include "coarse_cuda.h"
#include "contact_response.h"
#include "contacts_cuda.h"
#include "cuda_check.h"
#include "deform_contact_cuda.h"
#include "host_bodies_cuda.h"
#include "model_arrays.h"
#include "vbd_coef.h"
#include "vbd_cuda_api.h"
#include "vbd_particle.h"

/// Threads per block of the per-particle kernels (to be tuned by measurement, seed sec. 7).
#define DFM_CUDA_BLOCK 128

typedef struct dfm_sweep_resident_body dfm_sweep_resident_body; /* vbd_cuda_sweep_resident.cuh */

/// The step settings a captured graph depends on.
typedef struct dfm_step_key {
    float dt, gravity[3], penalty_beta, penalty_start;
    int32_t substeps, iterations, deterministic, host_body_count;
    uint32_t disable_flags, feature_flags;
} dfm_step_key;

/// Device mirror: a view whose pointers are device pointers, plus bookkeeping.
struct dfm_cuda_backend {
    int device;
    cudaStream_t stream;
    int own_stream;
    dfm_vbd_view view; ///< Device pointers.
    int32_t color_count;
    int32_t* color_offsets; ///< Host copy (launch bounds per color).
    int32_t body_count;
    int32_t* body_offsets; ///< Device, body_count + 1.
    /* device copies of the rows of DFM_MODEL_DEVICE_ARRAYS (model_arrays.h) */
    int32_t* color_particles; ///< Particles grouped by color.
    int32_t* particle_color;  ///< Color of each particle (legacy scatter).
    int32_t* particle_body;   ///< Body of each particle.
    float* residual;          ///< Device scratch, 3 per particle (reactions).
    float* body_extra;        ///< Device scratch, 3 per body (reactions).
    void* allocations[64];    ///< Everything cudaMalloc'ed for the model.
    int allocation_count;
    dfm_cuda_contacts contacts;   ///< Contact pipeline buffers (shape_count 0 = none).
    int tet_only;                 ///< The model has tets and no active triangle or hinge material.
    int32_t tri_count, tet_count; ///< Elements of the model (the view carries only edge_count).
    /* The per-body sweep (solve_body_sweep_kernel; issue 15, first slice). */
    int32_t body_sweep;          ///< 1: small bodies' sweeps run one block per body (DFM_CUDA_BODY_SWEEP).
    int32_t patch_serial;        ///< 1: the patch decision's one-thread-per-body reference (DFM_CUDA_PATCH_SERIAL).
    int32_t sweep_block;         ///< Threads per block of the sweep (DFM_CUDA_SWEEP_BLOCK, default 512).
    int32_t sweep_max_particles; ///< Largest body the sweep takes (DFM_CUDA_SWEEP_MAX, default 4096).
    int32_t* body_color_ranges;  ///< Device, 2 per body and color: first index into color_particles, count.
    int sweep_ok;                ///< Every body of the model fits (decided at upload).
    /* The shared-memory sweep (DFM_CUDA_BODY_SWEEP=2; vbd_cuda_sweep_shared.cuh). */
    int32_t sweep_shared_limit;  ///< The device's dynamic shared memory per block (opt-in), bytes.
    int32_t sweep_shared_cap;    ///< Bytes a block may stage (DFM_CUDA_SWEEP_SHARED; default the limit).
    int32_t sweep_block_set;     ///< DFM_CUDA_SWEEP_BLOCK was given (else the shared sweep sizes its block).
    int32_t sweep_shared_block;  ///< Threads per block of the shared sweep.
    int32_t sweep_staged_max;    ///< Largest body staged, particles (larger ones run on global memory).
    int32_t sweep_layout;        ///< DFM_SWEEP_MIXED, _SERIAL or _TILED: the colors' layouts.
    uint8_t* sweep_color_serial; ///< Device, per color: 1 = the serial layout (the per-color path's choice).
    int32_t* sweep_offsets_host; ///< Host copy of body_offsets (the contact features' check).
    int sweep_shared_ok;         ///< The model qualifies (elements within bodies; decided at upload).
    int sweep_features_ok;       ///< The contact features lie within bodies (decided at contact upload).
    int32_t sm_count;            ///< Multiprocessors of the device (read once at creation).
    int32_t tiled_max_count;     ///< Colors up to this many particles use the tiled solve, larger ones the serial one.
    int32_t solve_block;         ///< Threads per block of the per-color solve kernels (both variants).
    int64_t model_bytes;         ///< Device memory of the model mirror, bytes.
    int profiling;               ///< Time each launch group with CUDA events (eager steps).
    cudaEvent_t* events;         ///< Profiling pool: 2 per timed group.
    int* event_phase;            ///< Phase of each timed group.
    int event_capacity, event_count;
    float phase_ms[DFM_PHASE_COUNT]; ///< Last profiled step.
    cudaGraphExec_t graph;           ///< Captured step (NULL until captured).
    float* backup;                   ///< Device: x, v, kin_start at the start of the step (9 floats per particle).
    int32_t* bad_index;              ///< Device, 2: smallest particle left non-finite by the step, smallest left beyond
                                     ///< DFM_MAX_COORD (0x7f7f7f7f: none).
    float* residual_norm;            ///< Device: each particle's local force residual at the end of the step, N.
    float* convergence;              ///< Device, 2: largest residual (bits of a non-negative float; worlds without
                                     ///< contacts) and the residuals' sum, N.
    void* reduce_temp;               ///< cub::DeviceReduce::Sum scratch over residual_norm.
    size_t reduce_temp_bytes;
    /* The body-level translation solve (DFM_FEATURE_BODY_TRANSLATION). */
    int32_t* body_record_count;    ///< Device, body_count + 1: records per body (index b + 1).
    int32_t* body_record_offset;   ///< Device, body_count + 1: their inclusive scan (body b's first record at [b]).
    uint8_t* particle_slides;      ///< Device, 1 per particle.
    dfm_body_record* body_records; ///< Device, body_records_cap (grown before a step, outside capture).
    int32_t body_records_cap;
    void* body_scan_temp;
    size_t body_scan_temp_bytes;
    dfm_cuda_host_bodies hosts; ///< Dynamic host bodies of the implicit coupling (count 0: none).
    dfm_step_key graph_key;     ///< Step settings the graph was captured with.
    dfm_cuda_dc deform;         ///< Deformable-deformable contact (generation -1: none uploaded).
    int64_t deform_dropped;     ///< Deformable candidates dropped by the current step's advances.
    dfm_cuda_coarse coarse;     ///< The host-assisted coarse correction's mirrors (particle_count 0: none).
    /* The shared sweeps' tiers and the resident sweep (DFM_CUDA_BODY_SWEEP=3; vbd_cuda_sweep_resident.cuh). */
    unsigned long long* sweep_runs;       ///< Device, DFM_SWEEP_TIERS: blocks run per tier since the upload.
    dfm_sweep_resident_body* sweep_plans; ///< Device, per body: the slices its staging copies.
    int32_t* sweep_body_list;             ///< Device, body_count: the resident bodies, then the rest (body order).
    int32_t sweep_resident_count;         ///< Resident bodies (0 in mode 2).
    int32_t sweep_rest_count;             ///< The others (mode 2's kernel: particles staged or global).
    int32_t sweep_resident_bytes;         ///< Dynamic shared memory of the resident launch (its largest body), bytes.
    int32_t sweep_resident_block;         ///< Threads per block of the resident sweep.
    int32_t* sweep_body_bytes_host;       ///< Host, 2 per body: resident layout bytes, particle-staged bytes.
};

static void free_events(dfm_cuda_backend* b);

/// Sentinel of bad_index: no particle is non-finite.
#define DFM_CUDA_NO_BAD 0x7f7f7f7f

// ---- kernels ------------------------------------------------------------------------------------

/// The step's guard check (P2 applies-and-done: one thread per particle, order-free atomicMins
/// on the index; P1/P3/P4 n/a): the smallest particle whose position or velocity is not finite
/// into bad[0], the smallest whose position is beyond DFM_MAX_COORD into bad[1].
__global__ void nonfinite_kernel(const float* x, const float* v, int32_t n, int32_t* bad) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool ok = true, inside = true;
    for (int a = 0; a < 3; ++a) {
        ok = ok && isfinite(x[3 * i + a]) && isfinite(v[3 * i + a]);
        inside = inside && fabsf(x[3 * i + a]) <= DFM_MAX_COORD;
    }
    if (!ok)
        atomicMin(bad, i);
    else if (!inside)
        atomicMin(bad + 1, i);
}

/// Last advance of a step without contacts: each particle's local force residual, the norm of
/// the force its balance still needs (dfm_vbd_particle_need), and their max (atomicMax on the
/// bits of non-negative floats: exact and order-free). The contact pipeline's
/// local_residual_kernel does the same with contact forces. P2 applies-and-done (one thread per
/// particle); P1, P3, P4 do not apply.
__global__ void residual_norm_kernel(dfm_vbd_view v, float* norms, int32_t* max_bits) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count) return;
    float r = dfm_v3_len(dfm_vbd_particle_need(&v, i));
    norms[i] = r;
    if (r > 0.0f) atomicMax(max_bits, __float_as_int(r));
}

__global__ void predict_kernel(dfm_vbd_view v, float alpha) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count) return;
    dfm_vbd_predict(&v, i, alpha);
}

/// The step's per-element coefficients (P3, kernels/shared/vbd_coef.h): one thread per index,
/// filling the tables the view has (non-NULL) at that index (bitwise the per-visit values: the
/// same expressions). Parallelism review: P1 applies-and-done (one launch per step, before
/// the substeps); P2 applies-and-done (one thread per element index, no atomics); P3 this kernel
/// is the hoist; P4 applies-and-done (coefficients stored in element order, next to the
/// element's other arrays).
__global__ void coef_kernel(dfm_vbd_view v, int32_t tri_count, int32_t tet_count) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (v.tri_coef && k < tri_count) dfm_vbd_tri_coef(&v, k);
    if (v.edge_coef && k < v.edge_count) dfm_vbd_edge_coef(&v, k);
    if (v.tet_coef && k < tet_count) dfm_vbd_tet_coef(&v, k);
}

__global__ void edge_angle_kernel(dfm_vbd_view v) {
    int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < v.edge_count) dfm_vbd_edge_start_angle(&v, e);
}

/// Contact input of the solve: none, the gather over the particle's list, or the scatter
/// accumulators.
enum { SOLVE_NO_CONTACTS = 0, SOLVE_GATHER = 1, SOLVE_SCATTERED = 2 };

/// Lanes per particle of the tiled elasticity solve (seed 000 sec. 4): each lane walks every 16th
/// incident element, a 16-lane XOR butterfly (offsets 8, 4, 2, 1) sums the partial forces and
/// Hessians, and lane 0 adds inertia, drag and contacts and takes the Newton step.
#define DFM_TILE 16

/// Sum over the 16 lanes of a half warp with a fixed tree (the same addends in the same order
/// whichever half and however many particles a warp holds, so results are bitwise equal).
__device__ __forceinline__ float half_warp_sum(float r, unsigned mask) {
    r += __shfl_xor_sync(mask, r, 8, 16);
    r += __shfl_xor_sync(mask, r, 4, 16);
    r += __shfl_xor_sync(mask, r, 2, 16);
    r += __shfl_xor_sync(mask, r, 1, 16);
    return r;
}

/// Contact force/Hessian of particle i for the solve.
__device__ __forceinline__ void solve_contact_terms(const dfm_vbd_view& v, const dfm_contact_view& c, int mode,
                                                    const float* acc_f, const float* acc_H, int32_t i, dfm_v3* f,
                                                    dfm_m33* H) {
    *f = dfm_v3_zero();
    *H = dfm_m33_zero();
    if (mode == SOLVE_GATHER) {
        dfm_contact_gather(&c, v.d, v.h, i, f, H);
    } else if (mode == SOLVE_SCATTERED) {
        *f = dfm_v3_load(acc_f + 3 * i);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) H->m[a][b] = acc_H[9 * i + 3 * a + b];
    }
}

/// One particle of a serial solve, by one thread (nothing for a pinned or kinematic one): its
/// contact terms, then dfm_vbd_solve_particle. Shared by the per-color serial kernel and the
/// shared-memory sweep (vbd_cuda_sweep_shared.cuh), so both give bitwise the same particle.
__device__ __forceinline__ void serial_particle(const dfm_vbd_view& v, const dfm_contact_view& c, int mode,
                                                const float* acc_f, const float* acc_H, int32_t i) {
    if (v.mode[i] != 0) return;
    dfm_v3 f;
    dfm_m33 H;
    solve_contact_terms(v, c, mode, acc_f, acc_H, i, &f, &H);
    dfm_vbd_solve_particle(&v, i, f, H);
}

/// Serial solve of one color: one thread per particle walks all its elements (the layout for
/// colors too large for the tiled kernel to help: with 16 lanes per particle they would need more
/// threads than the GPU holds at once; measured on cloth-lift at 1024 environments, 96k particles
/// per color: with the tiled solve the whole step took 0.061 ms per env step, with this one 0.042).
/// Parallelism review: P1 applies-and-done (one launch per color); P2 applies-and-done (one
/// thread per particle, no atomics); P3 applies-and-done; P4 applies-TODO (no color renumbering).
__global__ void solve_color_serial_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f,
                                          const float* acc_H, const int32_t* __restrict__ particles, int32_t count) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    serial_particle(v, c, mode, acc_f, acc_H, particles[k]);
}

/// Particle i of a sub-colour with deformable contact (vbd_cpu.c solve_one): a particle that is
/// no corner of any primitive is solved as without it; a surface particle adds the force and
/// Hessian of its pairs at the live iterate (dfm_dc_gather) and its step is bounded
/// (dfm_dc_bound_step) by DFM_DC_BOUND_FRACTION of its smallest gap and the advance's total bound.
__device__ __forceinline__ void dc_solve_particle(const dfm_vbd_view& v, const dfm_contact_view& c, int mode,
                                                  const float* acc_f, const float* acc_H, const dfm_dc_view& dc,
                                                  const uint8_t* surface, int32_t i) {
    if (v.mode[i] != 0) return;
    dfm_v3 f;
    dfm_m33 H;
    solve_contact_terms(v, c, mode, acc_f, acc_H, i, &f, &H);
    if (!surface[i]) {
        dfm_vbd_solve_particle(&v, i, f, H);
        return;
    }
    const float gap = dfm_dc_gather(&dc, v.x, v.d, v.h, i, &f, &H);
    const dfm_v3 d_old = dfm_v3_load(v.d + 3 * (int64_t)i);
    if (!dfm_vbd_solve_particle(&v, i, f, H)) return;
    const dfm_v3 d_new = dfm_v3_load(v.d + 3 * (int64_t)i);
    const dfm_v3 bd = dfm_dc_bound_step(d_old, d_new, gap, dfm_dc_vertex_bound(&dc, i));
    if (bd.x != d_new.x || bd.y != d_new.y || bd.z != d_new.z) {
        dfm_v3_store(bd, v.d + 3 * (int64_t)i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v.x_prev + 3 * (int64_t)i), bd), v.x + 3 * (int64_t)i);
    }
}

/// Solve of one sub-colour of a color with deformable contact (issue 16): `particles` are the
/// sub-colour's (dfm_cpu_dc sub_particles; no contact pair and no element joins two of them, so
/// the threads neither race nor depend on each other's order); serial: the last sub-colour
/// (particles whose partners held every free sub-colour, which may share pairs), walked by one
/// thread in order, as the CPU walks it on one thread.
///
/// Parallelism review (seed 001): P1 applies-and-done (the sub-colours are the levels: one launch
/// each, in sequence; the serial sub-colour is the one level that is not fanned out, and it is
/// empty unless a particle has partners in all DFM_DC_SUBCOLORS sub-colours); P2 applies-and-done
/// (one thread per particle, its pair list walked serially, as the CPU does; no atomics);
/// applies-TODO for the elements (the 16-lane tiled layout of solve_color_tiled_kernel is not
/// used here: one thread walks all of a particle's elements); P3 applies-and-done (pair lists
/// and sub-colours once per advance, not per iteration); P4 applies-TODO (lists in pair order;
/// positions xyz per particle; sub-colour particles not renumbered).
__global__ void solve_dc_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f, const float* acc_H,
                                dfm_dc_view dc, const uint8_t* __restrict__ surface,
                                const int32_t* __restrict__ particles, int32_t count, int serial) {
    const int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (serial) {
        if (k == 0)
            for (int32_t j = 0; j < count; ++j) dc_solve_particle(v, c, mode, acc_f, acc_H, dc, surface, particles[j]);
        return;
    }
    if (k >= count) return;
    dc_solve_particle(v, c, mode, acc_f, acc_H, dc, surface, particles[k]);
}

/// Tiled solve of one color. TET_ONLY: only the tetrahedron loop is compiled in (seed sec. 5; the
/// model has no active triangle or hinge material, so the generic kernel's other loops add
/// nothing and the results are bitwise equal). two_per_warp: two particles per 32-lane warp, one
/// per half (seed sec. 4); else one particle per warp with the upper half idle (the legacy layout).
///
/// Parallelism review (seed 001): P1 applies-and-done (one launch per color); P2 applies-and-done
/// (16 lanes split a particle's elements; no output atomics: lane 0 writes the particle);
/// P3 applies-and-done (rest data and hinge start angles hoisted); P4 applies-TODO (particles
/// are not renumbered by color).
/// The elastic force and Hessian of particle i's incident elements, split over the 16 lanes of a
/// half warp (sub 0..15: every 16th element each) and summed by the butterfly: every lane of the
/// half warp gets the sums. Shared by tiled_particle and dc_tiled_particle.
template <int TET_ONLY>
__device__ __forceinline__ void tiled_elements(const dfm_vbd_view& v, int32_t i, int32_t sub, unsigned mask,
                                               dfm_v3* fe_out, dfm_m33* He_out) {
    dfm_v3 fe = dfm_v3_zero();
    dfm_m33 He = dfm_m33_zero();
    if (!TET_ONLY) {
        dfm_vbd_accumulate_tris(&v, i, sub, DFM_TILE, &fe, &He);
        dfm_vbd_accumulate_edges(&v, i, sub, DFM_TILE, &fe, &He);
    }
    dfm_vbd_accumulate_tets(&v, i, sub, DFM_TILE, &fe, &He);
    fe.x = half_warp_sum(fe.x, mask);
    fe.y = half_warp_sum(fe.y, mask);
    fe.z = half_warp_sum(fe.z, mask);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) He.m[a][b] = half_warp_sum(He.m[a][b], mask);
    *fe_out = fe;
    *He_out = He;
}

/// One particle of a tiled solve, run by the 16 lanes (sub 0..15, mask: the half warp's lanes) of
/// a half warp: each lane walks every 16th incident element, the butterfly sums their forces and
/// Hessians, lane 0 adds inertia, drag and contacts and takes the Newton step. Shared by the
/// per-color tiled kernel and the per-body sweep, so both give bitwise the same particle.
template <int TET_ONLY>
__device__ __forceinline__ void tiled_particle(const dfm_vbd_view& v, const dfm_contact_view& c, int mode,
                                               const float* acc_f, const float* acc_H, int32_t i, int32_t sub,
                                               unsigned mask) {
    dfm_v3 fe;
    dfm_m33 He;
    tiled_elements<TET_ONLY>(v, i, sub, mask, &fe, &He);
    /* Every lane's element reads (particle i's own position among them) before lane 0 writes i: the
     * shuffles order them only through their data; the shared-memory sweep's positions are in
     * shared memory, where racecheck needs a warp barrier to see the order. No arithmetic changes. */
    __syncwarp(mask);
    if (sub != 0) return;
    dfm_v3 fc, f;
    dfm_m33 Hc, H;
    solve_contact_terms(v, c, mode, acc_f, acc_H, i, &fc, &Hc);
    dfm_vbd_particle_base(&v, i, fc, Hc, &f, &H);
    dfm_vbd_particle_newton(&v, i, dfm_v3_add(f, fe), dfm_m33_add(H, He));
}

/// Particle i of a sub-colour with deformable contact in the tiled layout: the 16 lanes of a half
/// warp split its elements as tiled_particle does, lane 0 adds the rigid contacts, the pairs
/// (dfm_dc_gather, serially in list order), inertia and drag, takes the Newton step and bounds it
/// as dc_solve_particle does. The same terms as dc_solve_particle summed in another order (the
/// elements' sum first, as the tiled color solve): not bitwise the one-thread path, whose parity with
/// the CPU is by physical outcomes anyway (test_gpu_deform_contact_parity).
template <int TET_ONLY>
__device__ __forceinline__ void dc_tiled_particle(const dfm_vbd_view& v, const dfm_contact_view& c, int mode,
                                                  const float* acc_f, const float* acc_H, const dfm_dc_view& dc,
                                                  const uint8_t* surface, int32_t i, int32_t sub, unsigned mask) {
    dfm_v3 fe;
    dfm_m33 He;
    tiled_elements<TET_ONLY>(v, i, sub, mask, &fe, &He);
    __syncwarp(mask); /* every lane's reads of particle i before lane 0 writes it (tiled_particle) */
    if (sub != 0) return;
    dfm_v3 fc, f;
    dfm_m33 Hc, H;
    solve_contact_terms(v, c, mode, acc_f, acc_H, i, &fc, &Hc);
    if (!surface[i]) {
        dfm_vbd_particle_base(&v, i, fc, Hc, &f, &H);
        dfm_vbd_particle_newton(&v, i, dfm_v3_add(f, fe), dfm_m33_add(H, He));
        return;
    }
    const float gap = dfm_dc_gather(&dc, v.x, v.d, v.h, i, &fc, &Hc);
    const dfm_v3 d_old = dfm_v3_load(v.d + 3 * (int64_t)i);
    dfm_vbd_particle_base(&v, i, fc, Hc, &f, &H);
    if (!dfm_vbd_particle_newton(&v, i, dfm_v3_add(f, fe), dfm_m33_add(H, He))) return;
    const dfm_v3 d_new = dfm_v3_load(v.d + 3 * (int64_t)i);
    const dfm_v3 bd = dfm_dc_bound_step(d_old, d_new, gap, dfm_dc_vertex_bound(&dc, i));
    if (bd.x != d_new.x || bd.y != d_new.y || bd.z != d_new.z) {
        dfm_v3_store(bd, v.d + 3 * (int64_t)i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v.x_prev + 3 * (int64_t)i), bd), v.x + 3 * (int64_t)i);
    }
}

/// Tiled solve of one (free) sub-colour with deformable contact: two particles per warp, 16 lanes
/// each (dc_tiled_particle). Chosen as the color solve chooses its tiled layout (sub-colours up to
/// tiled_max_count particles; DFM_CUDA_TILED_MAX=0 keeps solve_dc_kernel's thread per particle).
///
/// Parallelism review (seed 001): P1 as solve_dc_kernel (one launch per sub-colour); P2
/// applies-and-done for the elements (16 lanes split them, the butterfly sums; no atomics: lane 0
/// writes the particle), applies-TODO for the pairs (lane 0 walks the particle's pair list); P3 as
/// solve_dc_kernel; P4 applies-TODO (as solve_dc_kernel).
template <int TET_ONLY>
__global__ void solve_dc_tiled_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f,
                                      const float* acc_H, dfm_dc_view dc, const uint8_t* __restrict__ surface,
                                      const int32_t* __restrict__ particles, int32_t count) {
    const int32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int32_t warp = tid >> 5, lane = tid & 31, half = lane >> 4, sub = lane & 15;
    const int32_t slot = 2 * warp + half;
    if (slot >= count) return; /* uniform per half warp */
    const int32_t i = particles[slot];
    if (v.mode[i] != 0) return; /* uniform per half warp */
    dc_tiled_particle<TET_ONLY>(v, c, mode, acc_f, acc_H, dc, surface, i, sub, 0xFFFFu << (16 * half));
}

/// Tiled solve of one color. TET_ONLY: only the tetrahedron loop is compiled in (seed sec. 5; the
/// model has no active triangle or hinge material, so the generic kernel's other loops add
/// nothing and the results are bitwise equal). two_per_warp: two particles per 32-lane warp, one
/// per half (seed sec. 4); else one particle per warp with the upper half idle (the legacy layout).
///
/// Parallelism review (seed 001): P1 applies-and-done (one launch per color); P2 applies-and-done
/// (16 lanes split a particle's elements; no output atomics: lane 0 writes the particle);
/// P3 applies-and-done (rest data and hinge start angles hoisted); P4 applies-TODO (particles
/// are not renumbered by color).
template <int TET_ONLY>
__global__ void solve_color_tiled_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f,
                                         const float* acc_H, const int32_t* __restrict__ particles, int32_t count,
                                         int two_per_warp) {
    int32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    int32_t warp = tid >> 5, lane = tid & 31, half = lane >> 4, sub = lane & 15;
    int32_t slot = two_per_warp ? 2 * warp + half : (half ? -1 : warp);
    if (slot < 0 || slot >= count) return; /* uniform per half warp */
    int32_t i = particles[slot];
    if (v.mode[i] != 0) return; /* uniform per half warp */
    tiled_particle<TET_ONLY>(v, c, mode, acc_f, acc_H, i, sub, 0xFFFFu << (16 * half));
}

/// One whole sweep (every color in order) of small bodies, one block per body (issue 15, first
/// slice): the block walks the body's particles of each color two per warp with the tiled
/// per-particle solve, and a block barrier separates the colors (it also makes the color's
/// writes to x and d visible to the block's next color). One launch per iteration replaces one
/// per color, and a body's element data stays in its SM's L1 across the colors. Per particle the
/// same code as solve_color_tiled_kernel (bitwise the same results as the tiled path).
/// ranges: per body and color, the first index into `particles` and the count (2 ints).
///
/// Parallelism review (seed 001): P1 applies-and-done (one launch per sweep instead of per color;
/// the iterations stay separate launches because the penalty update runs between them);
/// P2 applies-and-done (a block per body, 16 lanes per particle, no atomics); P3 applies-and-done
/// (as the tiled kernel); P4 applies-TODO (the body's particles are not renumbered by color, and
/// nothing is staged in shared memory yet).
template <int TET_ONLY>
__global__ void solve_body_sweep_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f,
                                        const float* acc_H, const int32_t* __restrict__ particles,
                                        const int32_t* __restrict__ ranges, int32_t color_count) {
    const int32_t body = blockIdx.x;
    const int32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31, half = lane >> 4, sub = lane & 15;
    const int32_t per_pass = (int32_t)(blockDim.x >> 4); /* particles per pass: one per half warp */
    const unsigned mask = 0xFFFFu << (16 * half);
    for (int32_t col = 0; col < color_count; ++col) {
        const int32_t begin = ranges[2 * ((int64_t)body * color_count + col)];
        const int32_t count = ranges[2 * ((int64_t)body * color_count + col) + 1];
        for (int32_t slot = 2 * warp + half; slot < count; slot += per_pass) { /* uniform per half warp */
            const int32_t i = particles[begin + slot];
            if (v.mode[i] != 0) continue; /* uniform per half warp */
            tiled_particle<TET_ONLY>(v, c, mode, acc_f, acc_H, i, sub, mask);
        }
        __syncthreads();
    }
}

__global__ void velocity_kernel(dfm_vbd_view v) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count) return;
    dfm_vbd_update_velocity(&v, i);
}

// ---- memory -------------------------------------------------------------------------------------

static void free_graph(dfm_cuda_backend* b) {
    if (b->graph) cudaGraphExecDestroy(b->graph);
    b->graph = NULL;
}

static void free_model(dfm_cuda_backend* b) {
    free_graph(b);                        /* its kernel parameters point into the model */
    dfm_cuda_contacts_free(&b->contacts); /* sized to the model's particles */
    dfm_cuda_dc_free(&b->deform);         /* sized to the model's particles and bodies */
    dfm_cuda_coarse_free(&b->coarse);     /* sized to the model's particles */
    for (int k = 0; k < b->allocation_count; ++k) cudaFree(b->allocations[k]);
    b->allocation_count = 0;
    b->model_bytes = 0;
    free(b->color_offsets);
    b->color_offsets = NULL;
#define NULL_ROW(type, name, count, width) b->name = NULL;
    DFM_MODEL_DEVICE_ARRAYS(NULL_ROW)
#undef NULL_ROW
    b->body_offsets = NULL;
    b->body_color_ranges = NULL;
    b->sweep_ok = 0;
    free(b->sweep_offsets_host);
    b->sweep_offsets_host = NULL;
    b->sweep_color_serial = NULL;
    b->sweep_shared_ok = 0;
    b->sweep_features_ok = 1;
    b->sweep_runs = NULL;
    b->sweep_plans = NULL;
    b->sweep_body_list = NULL;
    b->sweep_resident_count = b->sweep_rest_count = 0;
    b->sweep_resident_bytes = 0;
    free(b->sweep_body_bytes_host);
    b->sweep_body_bytes_host = NULL;
    b->residual = b->body_extra = NULL;
    b->backup = NULL;
    b->bad_index = NULL;
    b->residual_norm = b->convergence = NULL;
    if (b->body_records) cudaFree(b->body_records);
    b->body_records = NULL;
    b->body_records_cap = 0;
    b->body_record_count = b->body_record_offset = NULL;
    b->particle_slides = NULL;
    b->body_scan_temp = NULL;
    b->body_scan_temp_bytes = 0;
    b->reduce_temp = NULL;
    b->reduce_temp_bytes = 0;
    b->body_count = 0;
    memset(&b->view, 0, sizeof(b->view));
}

/// cudaMalloc + copy of `bytes` from host `src` (may be NULL: zero-filled), tracked for freeing.
static int upload(dfm_cuda_backend* b, void** dst, const void* src, size_t bytes, char* err, size_t err_size) {
    if (b->allocation_count >= (int)(sizeof(b->allocations) / sizeof(b->allocations[0]))) {
        snprintf(err, err_size, "internal: too many device arrays");
        return DFM_ERROR_INVALID_STATE;
    }
    size_t n = bytes ? bytes : 4;
    DFM_CUDA_TRY(cudaMalloc(dst, n));
    b->allocations[b->allocation_count++] = *dst;
    b->model_bytes += (int64_t)n;
    if (src && bytes)
        DFM_CUDA_TRY(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, b->stream));
    else
        DFM_CUDA_TRY(cudaMemsetAsync(*dst, 0, n, b->stream));
    return 0;
}

/// Uploads `count` items of `type` from the host array `src` into a new device array, stored in
/// `dst` (on failure: free_model and return).
#define UP(dst, src, count, type)                                                      \
    do {                                                                               \
        void* p_ = NULL;                                                               \
        int r_ = upload(b, &p_, (src), (size_t)(count) * sizeof(type), err, err_size); \
        if (r_) {                                                                      \
            free_model(b);                                                             \
            return r_;                                                                 \
        }                                                                              \
        (dst) = (type*)p_;                                                             \
    } while (0)

#include "vbd_cuda_sweep_shared.cuh"   /* the shared-memory sweep: kernel, upload and launch helpers */
#include "vbd_cuda_sweep_resident.cuh" /* its resident tier (elements staged too) */

extern "C" int dfm_cuda_backend_create(int device, void* stream, dfm_cuda_backend** out, char* err, size_t err_size) {
    *out = NULL;
    int count = 0;
    DFM_CUDA_TRY(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count) {
        snprintf(err, err_size, "CUDA device %d requested; %d device(s) present", device, count);
        return DFM_ERROR_DEVICE_UNAVAILABLE;
    }
    DFM_CUDA_TRY(cudaSetDevice(device));
    dfm_cuda_backend* b = (dfm_cuda_backend*)calloc(1, sizeof(dfm_cuda_backend));
    if (!b) {
        snprintf(err, err_size, "out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    b->device = device;
    b->deform.generation = -1;
    {
        /* Tiled or serial solve per color: 16 lanes per particle pay off while a color's lanes fit
         * in what the GPU runs at once (its resident threads); beyond that the serial kernel
         * already fills the GPU and the tiled one only adds reduction work. */
        int sms = 0, per_sm = 0;
        cudaError_t e1 = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaError_t e2 = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (e1 != cudaSuccess || e2 != cudaSuccess) {
            cudaError_t e = e1 != cudaSuccess ? e1 : e2;
            snprintf(err, err_size, "cudaDeviceGetAttribute: %s", cudaGetErrorString(e));
            free(b);
            return dfm_cuda_result(e);
        }
        b->sm_count = sms;
        /* Measured on an H200 (docs/perf.md, tiled vs serial forced): cloth colors of 12.3k
         * particles ran 1.33x faster tiled, 24.6k 1.07x faster serial; tet colors of 13.8k 1.27x
         * faster tiled, 27.6k equal, 55k 1.10x faster serial. One GPU-full of 16-lane tiles
         * (resident threads / 16: 16.9k on an H200) separates them; twice that did not. */
        b->tiled_max_count = (int32_t)((int64_t)sms * per_sm / DFM_TILE);
        /* Measurement knobs (docs/perf.md, "block size and tiled threshold"): the solve's block
         * size and the tiled/serial threshold can be overridden for sweeps; out-of-range values
         * are refused so that a typo cannot silently change what is measured. */
        b->solve_block = DFM_CUDA_BLOCK;
        const char* blk = getenv("DFM_CUDA_SOLVE_BLOCK");
        if (blk) {
            long v = strtol(blk, NULL, 10);
            if (v < 32 || v > 1024 || v % 32 != 0) {
                snprintf(err, err_size, "DFM_CUDA_SOLVE_BLOCK=%s: must be a multiple of 32 in [32, 1024]", blk);
                free(b);
                return DFM_ERROR_INVALID_VALUE;
            }
            b->solve_block = (int32_t)v;
        }
        const char* thr = getenv("DFM_CUDA_TILED_MAX");
        if (thr) {
            long v = strtol(thr, NULL, 10);
            if (v < 0 || v > INT32_MAX) {
                snprintf(err, err_size, "DFM_CUDA_TILED_MAX=%s: must be a particle count >= 0", thr);
                free(b);
                return DFM_ERROR_INVALID_VALUE;
            }
            b->tiled_max_count = (int32_t)v;
        }
    }
    {
        /* The per-body sweep's knobs (docs/perf.md session 10): on/off, block size, body size. */
        b->body_sweep = 0;
        b->sweep_block = 512;
        b->sweep_max_particles = 4096;
        const char* names[3] = {"DFM_CUDA_BODY_SWEEP", "DFM_CUDA_SWEEP_BLOCK", "DFM_CUDA_SWEEP_MAX"};
        const long lo[3] = {0, 32, 1}, hi[3] = {3, 1024, 1 << 20};
        int32_t* dst[3] = {&b->body_sweep, &b->sweep_block, &b->sweep_max_particles};
        for (int k = 0; k < 3; ++k) {
            const char* e = getenv(names[k]);
            if (!e) continue;
            char* end = NULL;
            long v = strtol(e, &end, 10);
            if (end == e || *end != '\0' || v < lo[k] || v > hi[k] || (k == 1 && v % 32 != 0)) {
                snprintf(err, err_size, "%s=%s: must be an integer in [%ld, %ld]%s", names[k], e, lo[k], hi[k],
                         k == 1 ? ", a multiple of 32" : "");
                free(b);
                return DFM_ERROR_INVALID_VALUE;
            }
            *dst[k] = (int32_t)v;
        }
        int r = sweep_shared_knobs(b, device, err, err_size);
        if (r) {
            free(b);
            return r;
        }
        /* the patch decision's serial reference (A/B of contacts_patch_block.cuh), read per world */
        const char* ps = getenv("DFM_CUDA_PATCH_SERIAL");
        if (ps && strcmp(ps, "0") != 0 && strcmp(ps, "1") != 0) {
            snprintf(err, err_size, "DFM_CUDA_PATCH_SERIAL=%s: must be 0 or 1", ps);
            free(b);
            return DFM_ERROR_INVALID_VALUE;
        }
        b->patch_serial = ps && strcmp(ps, "1") == 0;
    }
    if (stream) {
        b->stream = (cudaStream_t)stream;
    } else {
        cudaError_t e = cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            snprintf(err, err_size, "cudaStreamCreate: %s", cudaGetErrorString(e));
            free(b);
            return dfm_cuda_result(e);
        }
        b->own_stream = 1;
    }
    *out = b;
    return 0;
}

extern "C" void dfm_cuda_backend_destroy(dfm_cuda_backend* b) {
    if (!b) return;
    cudaSetDevice(b->device);
    free_model(b);
    free_events(b);
    dfm_cuda_host_bodies_free(&b->hosts);
    if (b->own_stream) cudaStreamDestroy(b->stream);
    free(b);
}

extern "C" int dfm_cuda_backend_upload_model(dfm_cuda_backend* b, const dfm_cuda_model_desc* desc, char* err,
                                             size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    free_model(b);
    const dfm_vbd_view* h = desc->host;
    dfm_vbd_view* v = &b->view;
    /* the counts the table rows name (kernels/shared/model_arrays.h) */
    const int32_t particle_count = h->particle_count, tri_count = desc->tri_count, edge_count = desc->edge_count,
                  tet_count = desc->tet_count;
    const int32_t n = particle_count;
    v->particle_count = particle_count;
    v->edge_count = edge_count;
    /* h->name: host arrays; v->name and b->name: device arrays */
#define VIEW_ROW(type, name, count, width) UP(v->name, h->name, (size_t)(count) * (width), type);
    DFM_MODEL_VIEW_ARRAYS(VIEW_ROW)
    DFM_STATE_ARRAYS(VIEW_ROW)
#undef VIEW_ROW
#define DEVICE_ROW(type, name, count, width) UP(b->name, desc->name, (size_t)(count) * (width), type);
    DFM_MODEL_DEVICE_ARRAYS(DEVICE_ROW)
#undef DEVICE_ROW
    /* The adjacency CSR: offsets n + 1, items 2 per incidence (the offsets' last entry). */
    UP(v->v_tri_offsets, h->v_tri_offsets, n + 1, int32_t);
    UP(v->v_tri_items, h->v_tri_items, 2 * h->v_tri_offsets[n], int32_t);
    UP(v->v_edge_offsets, h->v_edge_offsets, n + 1, int32_t);
    UP(v->v_edge_items, h->v_edge_items, 2 * h->v_edge_offsets[n], int32_t);
    UP(v->v_tet_offsets, h->v_tet_offsets, n + 1, int32_t);
    UP(v->v_tet_items, h->v_tet_items, 2 * h->v_tet_offsets[n], int32_t);
    /* The per-element coefficients the solve loads (vbd_particle.h: only the tets', filled once
     * per step by coef_kernel; triangles and hinges compute theirs per visit). */
    v->tri_coef = v->edge_coef = v->tet_coef = NULL;
    if (DFM_CUDA_TET_COEF_LOAD && tet_count > 0) UP(v->tet_coef, NULL, 3 * (size_t)tet_count, float);
    b->tri_count = tri_count;
    b->tet_count = tet_count;
    v->guess_normal = NULL;
    v->guess_gap = NULL;
    /* Tet-only eligibility, decided once from static model data (seed sec. 5). */
    b->tet_only = tet_count > 0;
    for (int32_t t = 0; t < tri_count && b->tet_only; ++t)
        if (h->tri_material[3 * t] > 0.0f || h->tri_material[3 * t + 1] > 0.0f) b->tet_only = 0;
    for (int32_t e = 0; e < edge_count && b->tet_only; ++e)
        if (h->edge_material[2 * e] > 0.0f) b->tet_only = 0;
    b->body_count = desc->body_count;
    UP(b->body_offsets, desc->body_offsets, (size_t)desc->body_count + 1u, int32_t);
    /* The reactions' scratch (zero-filled). */
    UP(b->residual, NULL, 3u * (size_t)n, float);
    UP(b->body_extra, NULL, 3u * ((size_t)desc->body_count + 1u), float);
    int r = 0;
    /* The non-finite guard: the step's rollback copy and its flag. */
    void* guard[2] = {NULL, NULL};
    const size_t guard_bytes[2] = {9u * (size_t)n * sizeof(float), 2u * sizeof(int32_t)};
    for (int k = 0; k < 2; ++k) {
        r = upload(b, &guard[k], NULL, guard_bytes[k], err, err_size);
        if (r) {
            free_model(b);
            return r;
        }
    }
    b->backup = (float*)guard[0];
    b->bad_index = (int32_t*)guard[1];
    /* The convergence figure: per-particle residuals, their max and sum, the reduction's scratch. */
    size_t temp_bytes = 0;
    DFM_CUDA_TRY(cub::DeviceReduce::Sum(NULL, temp_bytes, (const float*)NULL, (float*)NULL, n, b->stream));
    void* conv[3] = {NULL, NULL, NULL};
    const size_t conv_bytes[3] = {(size_t)n * sizeof(float), 2u * sizeof(float), temp_bytes};
    for (int k = 0; k < 3; ++k) {
        r = upload(b, &conv[k], NULL, conv_bytes[k], err, err_size);
        if (r) {
            free_model(b);
            return r;
        }
    }
    b->residual_norm = (float*)conv[0];
    b->convergence = (float*)conv[1];
    b->reduce_temp = conv[2];
    b->reduce_temp_bytes = temp_bytes;
    /* The body-level solve's per-body offsets and per-particle flags (records are sized per step). */
    size_t scan_bytes = 0;
    DFM_CUDA_TRY(cub::DeviceScan::InclusiveSum(NULL, scan_bytes, (const int32_t*)NULL, (int32_t*)NULL,
                                               desc->body_count + 1, b->stream));
    void* bodies[4] = {NULL, NULL, NULL, NULL};
    const size_t body_bytes[4] = {((size_t)desc->body_count + 1u) * sizeof(int32_t),
                                  ((size_t)desc->body_count + 1u) * sizeof(int32_t), (size_t)n, scan_bytes};
    for (int k = 0; k < 4; ++k) {
        r = upload(b, &bodies[k], NULL, body_bytes[k], err, err_size);
        if (r) {
            free_model(b);
            return r;
        }
    }
    b->body_record_count = (int32_t*)bodies[0];
    b->body_record_offset = (int32_t*)bodies[1];
    b->particle_slides = (uint8_t*)bodies[2];
    b->body_scan_temp = bodies[3];
    b->body_scan_temp_bytes = scan_bytes;
    b->color_count = desc->color_count;
    b->color_offsets = (int32_t*)malloc(((size_t)desc->color_count + 1u) * sizeof(int32_t));
    if (!b->color_offsets) {
        free_model(b);
        snprintf(err, err_size, "out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(b->color_offsets, desc->color_offsets, ((size_t)desc->color_count + 1u) * sizeof(int32_t));
    /* The per-body sweep's ranges: within a color the particles are in ascending order and a body's
     * particles are contiguous, so each body's particles of a color are one run of that color. */
    b->sweep_ok = desc->body_count > 0 && desc->color_count > 0;
    for (int32_t k = 0; k < desc->body_count && b->sweep_ok; ++k)
        if (desc->body_offsets[k + 1] - desc->body_offsets[k] > b->sweep_max_particles) b->sweep_ok = 0;
    b->body_color_ranges = NULL;
    if (b->sweep_ok) {
        const size_t nr = 2u * (size_t)desc->body_count * (size_t)desc->color_count;
        int32_t* ranges = (int32_t*)calloc(nr, sizeof(int32_t));
        if (!ranges) {
            free_model(b);
            snprintf(err, err_size, "out of host memory");
            return DFM_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (int32_t col = 0; col < desc->color_count; ++col)
            for (int32_t k = desc->color_offsets[col + 1] - 1; k >= desc->color_offsets[col]; --k) {
                const int32_t body = desc->particle_body[desc->color_particles[k]];
                int32_t* r = ranges + 2 * ((size_t)body * desc->color_count + col);
                r[0] = k; /* walking down: ends at the body's first index */
                r[1]++;
            }
        void* p = NULL;
        int ru = upload(b, &p, ranges, nr * sizeof(int32_t), err, err_size);
        if (!ru) ru = sweep_shared_setup(b, desc, ranges, err, err_size);
        if (!ru && b->sweep_shared_ok) ru = sweep_resident_setup(b, desc, err, err_size);
        free(ranges);
        if (ru) {
            free_model(b);
            return ru;
        }
        b->body_color_ranges = (int32_t*)p;
    }
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return 0;
}

extern "C" int dfm_cuda_backend_upload_state(dfm_cuda_backend* b, const dfm_vbd_view* h, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    const size_t particle_count = (size_t)b->view.particle_count;
    /* b->view.name: device arrays; h->name: host arrays */
#define KEPT_ROW(type, name, count, width)                                                       \
    DFM_CUDA_TRY(cudaMemcpyAsync((void*)b->view.name, h->name, (count) * (width) * sizeof(type), \
                                 cudaMemcpyHostToDevice, b->stream));
    DFM_STATE_KEPT_ARRAYS(KEPT_ROW)
#undef KEPT_ROW
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return 0;
}

extern "C" int dfm_cuda_backend_download_state(dfm_cuda_backend* b, float* x, float* v, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    size_t n = (size_t)b->view.particle_count;
    DFM_CUDA_TRY(cudaMemcpyAsync(x, b->view.x, 3 * n * sizeof(float), cudaMemcpyDeviceToHost, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync(v, b->view.v, 3 * n * sizeof(float), cudaMemcpyDeviceToHost, b->stream));
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return 0;
}

static unsigned grid_for(int32_t n) { return (unsigned)((n + DFM_CUDA_BLOCK - 1) / DFM_CUDA_BLOCK); }

extern "C" int dfm_cuda_backend_upload_contacts(dfm_cuda_backend* b, const dfm_cuda_contacts_desc* desc, char* err,
                                                size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    free_graph(b); /* its kernel parameters point into the contact buffers */
    sweep_shared_features(b, desc);
    return dfm_cuda_contacts_upload(&b->contacts, desc, b->view.particle_count, b->sm_count, b->stream, err, err_size);
}

/// Profiling: marks the start of a timed launch group of `phase` (no-op unless profiling).
static int phase_begin(dfm_cuda_backend* b, int phase, char* err, size_t err_size) {
    if (!b->profiling || b->event_count >= b->event_capacity) return 0;
    b->event_phase[b->event_count] = phase;
    DFM_CUDA_TRY(cudaEventRecord(b->events[2 * b->event_count], b->stream));
    return 0;
}

/// Profiling: marks the end of the group begun last.
static int phase_end(dfm_cuda_backend* b, char* err, size_t err_size) {
    if (!b->profiling || b->event_count >= b->event_capacity) return 0;
    DFM_CUDA_TRY(cudaEventRecord(b->events[2 * b->event_count + 1], b->stream));
    b->event_count++;
    return 0;
}

/// Runs `call` (an int-returning enqueue) inside a timed group of `phase`.
#define TIMED(phase, call)                             \
    do {                                               \
        int r_ = phase_begin(b, phase, err, err_size); \
        if (!r_) r_ = (call);                          \
        if (!r_) r_ = phase_end(b, err, err_size);     \
        if (r_) return r_;                             \
    } while (0)

static int launch_predict(dfm_cuda_backend* b, const dfm_vbd_view& v, float alpha, char* err, size_t err_size) {
    predict_kernel<<<grid_for(v.particle_count), DFM_CUDA_BLOCK, 0, b->stream>>>(v, alpha);
    DFM_CUDA_TRY(cudaGetLastError());
    if (v.edge_count > 0) {
        edge_angle_kernel<<<grid_for(v.edge_count), DFM_CUDA_BLOCK, 0, b->stream>>>(v);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    return 0;
}

/// The step's convergence figure after its last advance's reactions: residual norms (with
/// contacts, local_residual_kernel already wrote them in finalize) and their sum.
static int launch_convergence(dfm_cuda_backend* b, const dfm_vbd_view& v, int contacts, char* err, size_t err_size) {
    const int32_t n = v.particle_count;
    if (!contacts)
        residual_norm_kernel<<<(unsigned)((n + DFM_CUDA_BLOCK - 1) / DFM_CUDA_BLOCK), DFM_CUDA_BLOCK, 0, b->stream>>>(
            v, b->residual_norm, (int32_t*)b->convergence);
    DFM_CUDA_TRY(cudaGetLastError());
    size_t bytes = b->reduce_temp_bytes;
    DFM_CUDA_TRY(cub::DeviceReduce::Sum(b->reduce_temp, bytes, b->residual_norm, b->convergence + 1, n, b->stream));
    return 0;
}

/// Body-level solve, once per advance after the lists (P2 applies-and-done: one thread per body;
/// P1/P3/P4 n/a): each body's record count at index b + 1 (index 0 is zero).
__global__ void body_count_kernel(dfm_contact_view c, dfm_vbd_view v, const int32_t* body_offsets, int32_t nb,
                                  int contacts, int32_t* counts) {
    int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b == 0) counts[0] = 0;
    if (b >= nb) return;
    counts[b + 1] = contacts ? dfm_body_gather_records(&c, v.d, body_offsets[b], body_offsets[b + 1], NULL) : 0;
}

/// Threads per block of the body-level solve (one block per body).
#define DFM_BODY_BLOCK 128

/// Sums n_f floats per thread (s_f[j][tid]) and one double (s_e[tid]) over the block with a fixed
/// tree (deterministic); the results land in element 0. All threads must call it.
template <int NF>
__device__ void body_block_sum(double* s_e, float (*s_f)[DFM_BODY_BLOCK]) {
    __syncthreads();
    for (int stride = DFM_BODY_BLOCK / 2; stride > 0; stride >>= 1) {
        if ((int)threadIdx.x < stride) {
            if (s_e) s_e[threadIdx.x] += s_e[threadIdx.x + stride];
            for (int j = 0; j < NF; ++j) s_f[j][threadIdx.x] += s_f[j][threadIdx.x + stride];
        }
        __syncthreads();
    }
}

/// Phi of the body's records at delta with lambda at lag, summed by the block; thread 0 adds the
/// inertia and gets e, G, A (the shared arrays' element 0 and its outputs). All threads call it.
__device__ void body_block_phi(const dfm_body_record* rec, int32_t count, float h, dfm_v3 g0, float M, dfm_v3 delta,
                               dfm_v3 lag, double* s_e, float (*s_f)[DFM_BODY_BLOCK], double* e, dfm_v3* G,
                               dfm_m33* A) {
    double pe = 0.0;
    dfm_v3 pg = dfm_v3_zero();
    dfm_m33 pa = dfm_m33_zero();
    for (int32_t k = threadIdx.x; k < count; k += DFM_BODY_BLOCK)
        dfm_body_record_terms(rec + k, h, delta, lag, &pe, &pg, &pa);
    s_e[threadIdx.x] = pe;
    s_f[0][threadIdx.x] = pg.x;
    s_f[1][threadIdx.x] = pg.y;
    s_f[2][threadIdx.x] = pg.z;
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) s_f[3 + 3 * r + q][threadIdx.x] = pa.m[r][q];
    body_block_sum<12>(s_e, s_f);
    if (threadIdx.x == 0) {
        double te = s_e[0];
        dfm_v3 tg = dfm_v3_make(s_f[0][0], s_f[1][0], s_f[2][0]);
        dfm_m33 ta;
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) ta.m[r][q] = s_f[3 + 3 * r + q][0];
        dfm_body_inertia_terms(g0, M, delta, &te, &tg, &ta);
        *e = te;
        *G = tg;
        *A = ta;
    }
    __syncthreads(); /* the shared arrays are reused by the next call */
}

/// Body-level solve after each sweep (kernels/shared/body_translation.h; the CPU's
/// translate_bodies with dfm_body_translation): one block per body. The block gathers the body's
/// records in particle and list order (each thread a contiguous chunk of particles, a block scan
/// of the chunks' counts), reduces its inertia, and runs the same damped Newton with every Phi
/// evaluation summed over the records by the block (fixed-tree sums: deterministic); thread 0
/// takes the 3x3 steps and line-search decisions. P1 n/a; P2 applies-and-done (a block per body,
/// its threads over records and particles); P3 applies-and-done (record offsets scanned once per
/// advance); P4 applies-and-done for the records (gathered once per call into a contiguous
/// range), TODO for the particles (AoS x and d).
__global__ void __launch_bounds__(DFM_BODY_BLOCK)
    body_translate_kernel(dfm_contact_view c, dfm_vbd_view v, const int32_t* body_offsets, int32_t nb, int contacts,
                          const int32_t* offsets, dfm_body_record* records, uint8_t* slides) {
    __shared__ double s_e[DFM_BODY_BLOCK];
    __shared__ float s_f[12][DFM_BODY_BLOCK];
    __shared__ int32_t s_cnt[DFM_BODY_BLOCK];
    __shared__ float s_step[3];
    __shared__ int32_t s_count, s_go;
    const int32_t b = blockIdx.x, tid = threadIdx.x;
    if (b >= nb) return; /* uniform per block */
    const int32_t first = body_offsets[b], end = body_offsets[b + 1];
    int pinned = 0;
    for (int32_t i = first + tid; i < end; i += DFM_BODY_BLOCK) pinned |= v.mode[i] != 0;
    if (__syncthreads_or(pinned) || end <= first) return;
    /* gather: thread tid owns particles [p0, p1) */
    const int32_t n = end - first, chunk = (n + DFM_BODY_BLOCK - 1) / DFM_BODY_BLOCK;
    const int32_t p0 = min(first + tid * chunk, end), p1 = min(p0 + chunk, end);
    int32_t mine = contacts ? dfm_body_gather_records(&c, v.d, p0, p1, NULL) : 0;
    s_cnt[tid] = mine;
    __syncthreads();
    if (tid == 0) {
        int32_t acc = 0;
        for (int j = 0; j < DFM_BODY_BLOCK; ++j) {
            const int32_t t = s_cnt[j];
            s_cnt[j] = acc;
            acc += t;
        }
        s_count = acc;
    }
    __syncthreads();
    dfm_body_record* rec = records + offsets[b];
    if (contacts && mine > 0) dfm_body_gather_records(&c, v.d, p0, p1, rec + s_cnt[tid]);
    const int32_t count = s_count;
    /* inertia: g0 and M */
    const float h = v.h;
    dfm_v3 g = dfm_v3_zero();
    float m = 0.0f;
    for (int32_t i = first + tid; i < end; i += DFM_BODY_BLOCK) {
        const float mh = v.mass[i] / (h * h), ch = v.drag[i] / h;
        const dfm_v3 d = dfm_v3_load(v.d + 3 * i);
        g = dfm_v3_add(g, dfm_v3_scale(dfm_v3_sub(d, dfm_v3_load(v.y + 3 * i)), mh));
        g = dfm_v3_madd(g, d, ch);
        m += mh + ch;
    }
    s_f[0][tid] = g.x;
    s_f[1][tid] = g.y;
    s_f[2][tid] = g.z;
    s_f[3][tid] = m;
    body_block_sum<4>(NULL, s_f);
    const dfm_v3 g0 = dfm_v3_make(s_f[0][0], s_f[1][0], s_f[2][0]);
    const float M = s_f[3][0];
    __syncthreads();
    /* the solve (dfm_body_translation's steps, thread 0 deciding) */
    dfm_v3 delta = dfm_v3_zero();
    if (M > 0.0f && count == 0) delta = dfm_v3_scale(g0, -1.0f / M);
    if (M > 0.0f && count > 0)
        for (int outer = 0; outer < DFM_BODY_OUTER; ++outer) {
            const dfm_v3 lag = delta;
            for (int it = 0; it < DFM_BODY_NEWTON_MAX; ++it) {
                double e = 0.0;
                dfm_v3 G = dfm_v3_zero();
                dfm_m33 H = dfm_m33_zero();
                body_block_phi(rec, count, h, g0, M, delta, lag, s_e, s_f, &e, &G, &H);
                float slope = 0.0f;
                if (tid == 0) {
                    dfm_m33 Hinv;
                    s_go = 0;
                    if (dfm_m33_inverse(H, 0.0f, &Hinv)) {
                        const dfm_v3 step = dfm_v3_neg(dfm_m33_mul_v3(Hinv, G));
                        slope = dfm_v3_dot(G, step);
                        s_go = slope < 0.0f && dfm_v3_len(step) > DFM_BODY_STEP_TOL;
                        dfm_v3_store(step, s_step);
                    }
                }
                __syncthreads();
                if (!s_go) break; /* uniform */
                const dfm_v3 step = dfm_v3_load(s_step);
                float a = 1.0f;
                for (int ls = 0; ls < 12; ++ls) {
                    double et = 0.0;
                    dfm_v3 Gt;
                    dfm_m33 Ht;
                    body_block_phi(rec, count, h, g0, M, dfm_v3_madd(delta, step, a), lag, s_e, s_f, &et, &Gt, &Ht);
                    if (tid == 0) s_go = et <= e + 1e-4 * (double)a * (double)slope;
                    __syncthreads();
                    const int accept = s_go;
                    __syncthreads();
                    if (accept) break; /* uniform */
                    a *= 0.5f;
                }
                delta = dfm_v3_madd(delta, step, a);
            }
        }
    if (!dfm_v3_isfinite(delta)) delta = dfm_v3_zero();
    int slide = 0;
    for (int32_t k = tid; k < count; k += DFM_BODY_BLOCK) slide |= dfm_body_record_slides(rec + k, delta);
    slide = __syncthreads_or(slide);
    for (int32_t i = first + tid; i < end; i += DFM_BODY_BLOCK) {
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v.d + 3 * i), delta), v.d + 3 * i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(v.x + 3 * i), delta), v.x + 3 * i);
        slides[i] = (uint8_t)slide;
    }
}

/// Record offsets of the body-level solve for this advance (count kernel and an inclusive scan).
static int launch_body_offsets(dfm_cuda_backend* b, const dfm_cuda_advance& a, int contacts, char* err,
                               size_t err_size) {
    const int32_t nb = b->body_count;
    body_count_kernel<<<(unsigned)((nb + DFM_CUDA_BLOCK) / DFM_CUDA_BLOCK), DFM_CUDA_BLOCK, 0, b->stream>>>(
        a.view, a.vbd, b->body_offsets, nb, contacts, b->body_record_count);
    DFM_CUDA_TRY(cudaGetLastError());
    size_t bytes = b->body_scan_temp_bytes;
    DFM_CUDA_TRY(cub::DeviceScan::InclusiveSum(b->body_scan_temp, bytes, b->body_record_count, b->body_record_offset,
                                               nb + 1, b->stream));
    return 0;
}

static int launch_body_translate(dfm_cuda_backend* b, const dfm_cuda_advance& a, int contacts, char* err,
                                 size_t err_size) {
    const int32_t nb = b->body_count;
    if (nb == 0) return 0;
    body_translate_kernel<<<(unsigned)nb, DFM_BODY_BLOCK, 0, b->stream>>>(
        a.view, a.vbd, b->body_offsets, nb, contacts, b->body_record_offset, b->body_records, b->particle_slides);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

static int launch_velocity(dfm_cuda_backend* b, const dfm_vbd_view& v, char* err, size_t err_size) {
    velocity_kernel<<<grid_for(v.particle_count), DFM_CUDA_BLOCK, 0, b->stream>>>(v);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

static int launch_solve(dfm_cuda_backend* b, const dfm_cuda_advance& a, int mode, uint32_t flags, int32_t begin,
                        int32_t count, char* err, size_t err_size) {
    dfm_cuda_contacts* c = &b->contacts;
    if (count > b->tiled_max_count) {
        solve_color_serial_kernel<<<(unsigned)((count + b->solve_block - 1) / b->solve_block), b->solve_block, 0,
                                    b->stream>>>(a.vbd, a.view, mode, c->acc_f, c->acc_H, b->color_particles + begin,
                                                 count);
        DFM_CUDA_TRY(cudaGetLastError());
        return 0;
    }
    const int two = !(flags & DFM_DISABLE_TWO_PARTICLE_WARPS);
    const int64_t threads = two ? (int64_t)(count + 1) / 2 * 32 : (int64_t)count * 32;
    const unsigned grid = (unsigned)((threads + b->solve_block - 1) / b->solve_block);
    if (b->tet_only && !(flags & DFM_DISABLE_TET_KERNEL))
        solve_color_tiled_kernel<1><<<grid, b->solve_block, 0, b->stream>>>(a.vbd, a.view, mode, c->acc_f, c->acc_H,
                                                                            b->color_particles + begin, count, two);
    else
        solve_color_tiled_kernel<0><<<grid, b->solve_block, 0, b->stream>>>(a.vbd, a.view, mode, c->acc_f, c->acc_H,
                                                                            b->color_particles + begin, count, two);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

/// One whole sweep of every small body, one block each (solve_body_sweep_kernel).
static int launch_body_sweep(dfm_cuda_backend* b, const dfm_cuda_advance& a, int mode, uint32_t flags, char* err,
                             size_t err_size) {
    dfm_cuda_contacts* c = &b->contacts;
    const unsigned grid = (unsigned)b->body_count;
    if (b->tet_only && !(flags & DFM_DISABLE_TET_KERNEL))
        solve_body_sweep_kernel<1><<<grid, b->sweep_block, 0, b->stream>>>(
            a.vbd, a.view, mode, c->acc_f, c->acc_H, b->color_particles, b->body_color_ranges, b->color_count);
    else
        solve_body_sweep_kernel<0><<<grid, b->sweep_block, 0, b->stream>>>(
            a.vbd, a.view, mode, c->acc_f, c->acc_H, b->color_particles, b->body_color_ranges, b->color_count);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

/// Solves the sub-colours of color `col` in order (deformable contact; the host's sub-colour table
/// of this advance, s->sub_offsets), one launch each: solve_dc_tiled_kernel up to tiled_max_count
/// particles, else (and the serial sub-colour) solve_dc_kernel.
static int launch_dc_solve(dfm_cuda_backend* b, const dfm_cuda_advance& a, const dfm_cpu_dc* s, int mode, int32_t col,
                           char* err, size_t err_size) {
    dfm_cuda_contacts* c = &b->contacts;
    const int32_t* off = s->sub_offsets + (size_t)col * DFM_DC_SUBCOLOR_SLOTS;
    for (int sub = 0; sub < DFM_DC_SUBCOLOR_SLOTS; ++sub) {
        const int32_t begin = off[sub], count = off[sub + 1] - off[sub];
        if (count <= 0) continue;
        const int serial = sub == DFM_DC_SUBCOLORS;
        if (!serial && count <= b->tiled_max_count) { /* 16 lanes per particle, two per warp */
            const unsigned grid = (unsigned)(((int64_t)(count + 1) / 2 * 32 + b->solve_block - 1) / b->solve_block);
            if (b->tet_only)
                solve_dc_tiled_kernel<1>
                    <<<grid, b->solve_block, 0, b->stream>>>(a.vbd, a.view, mode, c->acc_f, c->acc_H, b->deform.view,
                                                             b->deform.surface, b->deform.sub_particles + begin, count);
            else
                solve_dc_tiled_kernel<0>
                    <<<grid, b->solve_block, 0, b->stream>>>(a.vbd, a.view, mode, c->acc_f, c->acc_H, b->deform.view,
                                                             b->deform.surface, b->deform.sub_particles + begin, count);
            DFM_CUDA_TRY(cudaGetLastError());
            continue;
        }
        const unsigned grid = serial ? 1u : (unsigned)((count + b->solve_block - 1) / b->solve_block);
        solve_dc_kernel<<<grid, serial ? 32 : b->solve_block, 0, b->stream>>>(
            a.vbd, a.view, mode, c->acc_f, c->acc_H, b->deform.view, b->deform.surface, b->deform.sub_particles + begin,
            count, serial);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    return 0;
}

/// Enqueues one whole step on the stream (eager, or while the stream is being captured).
static int enqueue_step(dfm_cuda_backend* b, dfm_vbd_view v, const dfm_cuda_step_desc* d, char* err, size_t err_size) {
    const int32_t n = v.particle_count, substeps = d->substeps;
    dfm_cuda_contacts* c = &b->contacts;
    const int contacts = c->shape_count > 0;
    const uint32_t flags = d->disable_flags;
    const int body_solve = (d->feature_flags & DFM_FEATURE_BODY_TRANSLATION) != 0;
    const int coupled = contacts && d->host_body_count > 0; /* b->hosts sized for them (dfm_cuda_backend_step) */
    dfm_cpu_dc* deform = d->deform;     /* host state of deformable contact (eager steps only), or NULL */
    dfm_cpu_coarse* coarse = d->coarse; /* host coarse level (eager steps only), or NULL */
    /* the coarse correction gathers with the patch decision's sliding flags, as the CPU's step.c
     * (zeroed at the step's start there, then each advance's decision read by the next one's) */
    const int coarse_slides = coarse && contacts && !body_solve && !deform && !(flags & DFM_DISABLE_STATIC_FRICTION);
    /* with the patch path, the coarse steps carry friction per patch (coarse_friction.h) and the patch
       decision after the iterations runs on the host (dfm_cuda_coarse_patch_friction), as the CPU's;
       only with the gathered lists (the scatter keeps contacts out of the coarse problem) */
    const int coarse_friction = coarse_slides && !(flags & DFM_DISABLE_CONTACT_LISTS);
    if (contacts) TIMED(DFM_PHASE_OTHER, dfm_cuda_contacts_begin_step(c, b->stream, err, err_size));
    if (body_solve || coarse_slides) DFM_CUDA_TRY(cudaMemsetAsync(b->particle_slides, 0, (size_t)n, b->stream));
    if (v.tri_coef || v.edge_coef || v.tet_coef) {
        const int32_t k = b->tri_count > v.edge_count ? b->tri_count : v.edge_count;
        const int32_t ke = k > b->tet_count ? k : b->tet_count;
        if (ke > 0) {
            coef_kernel<<<grid_for(ke), DFM_CUDA_BLOCK, 0, b->stream>>>(v, b->tri_count, b->tet_count);
            DFM_CUDA_TRY(cudaGetLastError());
        }
    }
    for (int32_t s = 0; s < substeps; ++s) {
        float alpha = (float)(s + 1) / (float)substeps;
        dfm_cuda_advance a;
        memset(&a, 0, sizeof(a));
        a.vbd = v;
        a.particle_color = b->particle_color;
        a.body_count = b->body_count;
        a.body_offsets = b->body_offsets;
        a.particle_body = b->particle_body;
        a.residual = b->residual;
        a.body_extra = b->body_extra;
        a.residual_pass = s == substeps - 1;
        a.residual_norm = b->residual_norm;
        a.deterministic = d->deterministic;
        int mode = SOLVE_NO_CONTACTS;
        if (contacts) {
            a.view = dfm_cuda_contacts_view(c, s, d->penalty_beta, d->penalty_start, flags);
            a.view.particle_mass = v.mass;
            if (body_solve) {
                a.view.flags |= DFM_CONTACT_BODY_SOLVE | DFM_CONTACT_SHEET_NORMALS;
                a.view.particle_slides = b->particle_slides;
            }
            if (coarse) a.view.flags |= DFM_CONTACT_SHEET_NORMALS; /* as the CPU's step.c (contact_view.h) */
            if (coupled) /* the bodies' shapes at their corrected poses before detection */
                TIMED(DFM_PHASE_OTHER, dfm_cuda_host_bodies_begin_advance(&b->hosts, (dfm_shape_rt*)a.view.shapes, v.h,
                                                                          b->stream, err, err_size));
            TIMED(DFM_PHASE_DETECTION, dfm_cuda_contacts_detect(c, &a, b->stream, err, err_size));
            TIMED(DFM_PHASE_LISTS, dfm_cuda_contacts_lists(c, &a, b->stream, err, err_size));
            if (coupled)
                TIMED(DFM_PHASE_LISTS, dfm_cuda_host_bodies_bucket(&b->hosts, a.view, b->stream, err, err_size));
            a.vbd.guess_normal = c->guess_normal;
            a.vbd.guess_gap = c->guess_gap;
            mode = (flags & DFM_DISABLE_CONTACT_LISTS) ? SOLVE_SCATTERED : SOLVE_GATHER;
        }
        TIMED(DFM_PHASE_OTHER, launch_predict(b, a.vbd, alpha, err, err_size));
        if (deform) { /* pairs at x_prev, lists and sub-colours (host-built), the guess bound */
            TIMED(DFM_PHASE_DETECTION,
                  dfm_cuda_dc_detect(&b->deform, deform, a.vbd, b->color_count, b->color_offsets,
                                     d->host_color_particles, deform->particle_color, b->stream, err, err_size));
            b->deform_dropped += deform->dropped;
        }
        if (body_solve) TIMED(DFM_PHASE_SOLVE, launch_body_offsets(b, a, contacts, err, err_size));
        /* Small bodies: the whole sweep in one launch, one block per body (the tiled per-particle
         * solve, two particles per warp; not with the legacy scatter, whose accumulators are
         * filled per color). Mode 2 (vbd_cuda_sweep_shared.cuh) stages each body in shared memory
         * and runs the whole substep's iterations in one launch unless something runs between
         * them (penalty update, body-level solve, host-body coupling, coarse correction: then one
         * launch per iteration); mode 3 (vbd_cuda_sweep_resident.cuh) stages a body's element data too where
         * the body fits, the others run mode 2's kernel. Deformable contact, which reads other bodies' positions and solves by
         * sub-colour, takes the per-color path (no body sweep). */
        const int body_path = b->sweep_ok && mode != SOLVE_SCATTERED && !(flags & DFM_DISABLE_TWO_PARTICLE_WARPS) &&
                              !deform;
        const int sweep = body_path && b->body_sweep == 1;
        const int staged = body_path && b->body_sweep >= 2 && b->sweep_shared_ok && b->sweep_features_ok;
        const int between = (contacts && d->penalty_beta > 0.0f) || body_solve || coupled || coarse;
        if (staged && !between)
            TIMED(DFM_PHASE_SOLVE, launch_body_shared(b, a, mode, flags, d->iterations, err, err_size));
        for (int32_t it = 0; it < d->iterations && !(staged && !between); ++it) {
            if (contacts && d->penalty_beta > 0.0f)
                TIMED(DFM_PHASE_DUALS, dfm_cuda_contacts_penalties(c, &a, b->stream, err, err_size));
            if (staged) TIMED(DFM_PHASE_SOLVE, launch_body_shared(b, a, mode, flags, 1, err, err_size));
            if (sweep) TIMED(DFM_PHASE_SOLVE, launch_body_sweep(b, a, mode, flags, err, err_size));
            for (int32_t col = 0; col < b->color_count && !sweep && !staged; ++col) {
                int32_t begin = b->color_offsets[col], count = b->color_offsets[col + 1] - begin;
                if (count == 0) continue;
                if (mode == SOLVE_SCATTERED)
                    TIMED(DFM_PHASE_SOLVE, dfm_cuda_contacts_scatter(c, &a, b->color_particles + begin, count, col,
                                                                     b->stream, err, err_size));
                if (deform) /* sub-colour after sub-colour: no pair inside one */
                    TIMED(DFM_PHASE_SOLVE, launch_dc_solve(b, a, deform, mode, col, err, err_size));
                else
                    TIMED(DFM_PHASE_SOLVE, launch_solve(b, a, mode, flags, begin, count, err, err_size));
            }
            if (body_solve) TIMED(DFM_PHASE_SOLVE, launch_body_translate(b, a, contacts, err, err_size));
            if (coarse && it < d->iterations - 1) { /* after every sweep but the last, as vbd_cpu.c */
                dfm_contact_view cv = a.view;
                if (coarse_slides) cv.particle_slides = b->particle_slides;
                TIMED(DFM_PHASE_SOLVE, dfm_cuda_coarse_correct(&b->coarse, coarse, d->coarse_model, a.vbd,
                                                               mode == SOLVE_GATHER ? &cv : NULL, it == 0,
                                                               coarse_friction, b->stream, err, err_size));
            }
            if (coupled)
                TIMED(DFM_PHASE_SOLVE,
                      dfm_cuda_host_bodies_solve(&b->hosts, a.view, a.vbd.d, v.h, b->stream, err, err_size));
        }
        if (coupled) TIMED(DFM_PHASE_OTHER, dfm_cuda_host_bodies_end_advance(&b->hosts, v.h, b->stream, err, err_size));
        if (contacts) {
            /* Coulomb's decision per contact patch (contact_patch_friction.h), as the CPU's step.c */
            const int patch = !body_solve && !deform && !(flags & DFM_DISABLE_STATIC_FRICTION);
            if (patch) {
                a.view.particle_slides = b->particle_slides;
                int done = 0; /* the coarse steps' friction decides their bodies: on the host, as the CPU */
                if (coarse_friction)
                    TIMED(DFM_PHASE_FRICTION,
                          dfm_cuda_coarse_patch_friction(&b->coarse, coarse, d->coarse_model, a.vbd, &a.view,
                                                         c->node_body_friction, b->particle_slides, &done, b->stream,
                                                         err, err_size));
                if (!done)
                    TIMED(DFM_PHASE_FRICTION,
                          dfm_cuda_contacts_patch_friction(c, &a, b->particle_slides, b->patch_serial, b->stream, err,
                                                           err_size));
            }
            if (!(flags & DFM_DISABLE_STATIC_FRICTION))
                for (int32_t col = 0; col < b->color_count; ++col) {
                    int32_t begin = b->color_offsets[col], count = b->color_offsets[col + 1] - begin;
                    if (count == 0) continue;
                    TIMED(DFM_PHASE_FRICTION, dfm_cuda_contacts_friction(c, &a, b->color_particles + begin, count,
                                                                         b->stream, err, err_size));
                }
            if (patch)
                TIMED(DFM_PHASE_FRICTION, dfm_cuda_contacts_patch_friction_attribute(c, &a, b->stream, err, err_size));
            if (deform) { /* the reactions take the deformable-contact forces out of the residuals */
                TIMED(DFM_PHASE_REACTIONS,
                      dfm_cuda_dc_final_forces(&b->deform, deform, a.vbd, a.view, c->node_friction, b->body_offsets,
                                               b->particle_body, b->stream, err, err_size));
                a.deform_force = b->deform.final_force;
            }
            TIMED(DFM_PHASE_REACTIONS, dfm_cuda_contacts_finalize(c, &a, b->stream, err, err_size));
        }
        if (a.residual_pass) TIMED(DFM_PHASE_OTHER, launch_convergence(b, a.vbd, contacts, err, err_size));
        TIMED(DFM_PHASE_OTHER, launch_velocity(b, a.vbd, err, err_size));
    }
    DFM_CUDA_TRY(cudaMemcpyAsync((void*)v.kin_start, v.kin_target, 3 * (size_t)n * sizeof(float),
                                 cudaMemcpyDeviceToDevice, b->stream));
    return 0;
}

/// The settings a captured graph depends on (shape data excluded: it is copied before each launch).
static dfm_step_key step_key(const dfm_cuda_step_desc* d) {
    dfm_step_key k;
    memset(&k, 0, sizeof(k)); /* padding too: keys are compared with memcmp */
    k.dt = d->dt;
    memcpy(k.gravity, d->gravity, sizeof(k.gravity));
    k.substeps = d->substeps;
    k.iterations = d->iterations;
    k.disable_flags = d->disable_flags;
    k.feature_flags = d->feature_flags;
    k.deterministic = d->deterministic;
    k.penalty_beta = d->penalty_beta;
    k.penalty_start = d->penalty_start;
    k.host_body_count = d->host_body_count;
    return k;
}

/// Sizes the per-advance contact buffers for `substeps` (a change frees the captured graph).
static int reserve_contacts(dfm_cuda_backend* b, int32_t substeps, char* err, size_t err_size) {
    dfm_cuda_contacts* c = &b->contacts;
    int32_t old_rt = c->rt_advances, old_counters = c->counter_advances;
    int r = dfm_cuda_contacts_reserve(c, substeps, err, err_size);
    if (r) return r;
    if (c->rt_advances != old_rt || c->counter_advances != old_counters) free_graph(b);
    return 0;
}

extern "C" int dfm_cuda_backend_shape_staging(dfm_cuda_backend* b, int32_t substeps, dfm_shape_rt** out, char* err,
                                              size_t err_size) {
    *out = NULL;
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    if (b->contacts.shape_count == 0) {
        snprintf(err, err_size, "no contact shapes uploaded");
        return DFM_ERROR_INVALID_STATE;
    }
    int r = reserve_contacts(b, substeps, err, err_size);
    if (r) return r;
    *out = b->contacts.rt_staging;
    return 0;
}

extern "C" int dfm_cuda_backend_download_contacts(dfm_cuda_backend* b, int32_t count, const dfm_contact_records* host,
                                                  float* record_force, float* node_friction, char* err,
                                                  size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    const dfm_cuda_contacts* c = &b->contacts;
    if (count <= 0 || c->shape_count == 0) return 0;
    if (count > c->capacity) count = c->capacity;
    const size_t n = (size_t)count;
    /* host->name: host arrays; c->rec.name: device arrays */
#define DOWN(type, name, width) \
    DFM_CUDA_TRY(cudaMemcpyAsync(host->name, c->rec.name, (width)*n * sizeof(type), cudaMemcpyDeviceToHost, b->stream));
    DFM_CONTACT_RECORD_FIELDS(DOWN)
#undef DOWN
    DFM_CUDA_TRY(
        cudaMemcpyAsync(record_force, c->record_force, 3 * n * sizeof(float), cudaMemcpyDeviceToHost, b->stream));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(node_friction, c->node_friction, 9 * n * sizeof(float), cudaMemcpyDeviceToHost, b->stream));
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return 0;
}

extern "C" int dfm_cuda_backend_step(dfm_cuda_backend* b, const dfm_cuda_step_desc* d, dfm_cuda_step_results* out,
                                     char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    dfm_vbd_view v = b->view;
    if (v.particle_count == 0) return 0;
    v.h = d->dt / (float)d->substeps;
    v.gravity[0] = d->gravity[0];
    v.gravity[1] = d->gravity[1];
    v.gravity[2] = d->gravity[2];
    dfm_cuda_contacts* c = &b->contacts;
    if (d->deform && (d->deform_generation != b->deform.generation || !d->host_color_particles)) {
        snprintf(err, err_size,
                 "deformable contact: the device buffers are of generation %lld, the step's state of %lld "
                 "(dfm_cuda_backend_upload_deform first), or no host color table",
                 (long long)b->deform.generation, (long long)d->deform_generation);
        return DFM_ERROR_INVALID_STATE;
    }
    if (d->coarse && !d->coarse_model) {
        snprintf(err, err_size, "internal: coarse correction without the model's host arrays");
        return DFM_ERROR_INVALID_STATE;
    }
    if (d->coarse) { /* sized outside any capture (the step runs eagerly with it anyway) */
        int r = dfm_cuda_coarse_reserve(&b->coarse, v.particle_count, c->shape_count > 0 ? c->capacity : 0,
                                        c->shape_count, err, err_size);
        if (r) return r;
    }
    if (c->shape_count > 0 && d->deterministic && !c->deterministic) {
        snprintf(err, err_size, "deterministic step asked of contact buffers uploaded without deterministic mode");
        return DFM_ERROR_INVALID_STATE;
    }
    const int32_t records_needed = c->shape_count > 0 ? c->capacity : 1;
    if ((d->feature_flags & DFM_FEATURE_BODY_TRANSLATION) && records_needed > b->body_records_cap) {
        /* The body-level solve's record scratch, sized to the contact capacity (never inside a capture). */
        free_graph(b);
        if (b->body_records) DFM_CUDA_TRY(cudaFree(b->body_records));
        b->body_records = NULL;
        b->body_records_cap = 0;
        DFM_CUDA_TRY(cudaMalloc((void**)&b->body_records, (size_t)records_needed * sizeof(dfm_body_record)));
        b->body_records_cap = records_needed;
    }
    if (c->shape_count > 0) {
        int r = reserve_contacts(b, d->substeps, err, err_size);
        if (r) return r;
        /* Stage this step's shape records with the device copies of the mesh grids, one copy
         * (in place when the caller filled the staging buffer itself). */
        size_t per = (size_t)c->shape_count;
        for (int32_t s = 0; s < d->substeps; ++s)
            for (size_t k = 0; k < per; ++k) {
                dfm_shape_rt* dst = c->rt_staging + (size_t)s * per + k;
                if (d->shapes != c->rt_staging) *dst = d->shapes[(size_t)s * per + k];
                if (c->grid_values[k]) dst->geom.grid.values = c->grid_values[k];
            }
        DFM_CUDA_TRY(cudaMemcpyAsync(c->rt, c->rt_staging, (size_t)d->substeps * per * sizeof(dfm_shape_rt),
                                     cudaMemcpyHostToDevice, b->stream));
    }
    const int32_t host_bodies = c->shape_count > 0 ? d->host_body_count : 0;
    int hosts_changed = 0;
    int rh = dfm_cuda_host_bodies_reserve(&b->hosts, host_bodies, c->shape_count, c->capacity, &hosts_changed, err,
                                          err_size);
    if (rh) return rh;
    if (hosts_changed) free_graph(b); /* its kernel parameters point into the bodies' buffers */
    if (host_bodies > 0) {
        rh = dfm_cuda_host_bodies_upload(&b->hosts, d->host_bodies, d->shape_host, d->host_first_shape, b->stream, err,
                                         err_size);
        if (rh) return rh;
    }
    /* The rollback copy of what the step changes for good (x, v, kin_start; D2D, outside the graph). */
    const size_t n3 = 3u * (size_t)v.particle_count;
    DFM_CUDA_TRY(cudaMemcpyAsync(b->backup, v.x, n3 * sizeof(float), cudaMemcpyDeviceToDevice, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync(b->backup + n3, v.v, n3 * sizeof(float), cudaMemcpyDeviceToDevice, b->stream));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(b->backup + 2 * n3, v.kin_start, n3 * sizeof(float), cudaMemcpyDeviceToDevice, b->stream));
    DFM_CUDA_TRY(cudaMemsetAsync(b->bad_index, 0x7f, 2u * sizeof(int32_t), b->stream));
    DFM_CUDA_TRY(cudaMemsetAsync(b->convergence, 0, 2u * sizeof(float), b->stream));
    b->event_count = 0;
    b->deform_dropped = 0;
    const int64_t corrections_before = b->coarse.corrections;
    if ((d->disable_flags & DFM_DISABLE_GRAPH_CAPTURE) || b->profiling || d->deform || d->coarse) {
        free_graph(b);
        int r = enqueue_step(b, v, d, err, err_size);
        if (r) return r;
    } else {
        dfm_step_key key = step_key(d);
        if (b->graph && memcmp(&key, &b->graph_key, sizeof(key)) != 0) free_graph(b);
        if (!b->graph) {
            /* Capture the step once; replays need no host work beyond one launch. */
            cudaGraph_t g = NULL;
            DFM_CUDA_TRY(cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeThreadLocal));
            int r = enqueue_step(b, v, d, err, err_size);
            cudaError_t e = cudaStreamEndCapture(b->stream, &g);
            if (r) {
                if (g) cudaGraphDestroy(g);
                return r;
            }
            if (e != cudaSuccess) {
                snprintf(err, err_size, "cudaStreamEndCapture: %s", cudaGetErrorString(e));
                return dfm_cuda_result(e);
            }
            e = cudaGraphInstantiate(&b->graph, g, 0);
            cudaGraphDestroy(g);
            if (e != cudaSuccess) {
                b->graph = NULL;
                snprintf(err, err_size, "cudaGraphInstantiate: %s", cudaGetErrorString(e));
                return dfm_cuda_result(e);
            }
            b->graph_key = key;
        }
        DFM_CUDA_TRY(cudaGraphLaunch(b->graph, b->stream));
    }
    nonfinite_kernel<<<(unsigned)((v.particle_count + 255) / 256), 256, 0, b->stream>>>(v.x, v.v, v.particle_count,
                                                                                        b->bad_index);
    DFM_CUDA_TRY(cudaGetLastError());
    int32_t bad[2] = {DFM_CUDA_NO_BAD, DFM_CUDA_NO_BAD};
    DFM_CUDA_TRY(cudaMemcpyAsync(bad, b->bad_index, sizeof(bad), cudaMemcpyDeviceToHost, b->stream));
    int32_t max_pen_bits = 0, residual_bits = 0;
    float convergence[2] = {0.0f, 0.0f};
    DFM_CUDA_TRY(cudaMemcpyAsync(convergence, b->convergence, sizeof(convergence), cudaMemcpyDeviceToHost, b->stream));
    if (host_bodies > 0) {
        int r = dfm_cuda_host_bodies_download(&b->hosts, d->host_bodies, b->stream, err, err_size);
        if (r) return r;
    }
    if (c->shape_count > 0 && out) {
        int r = dfm_cuda_contacts_download(c, d->substeps, out->emitted, out->kind_counts, &max_pen_bits,
                                           &residual_bits, out->shape_impulse, b->stream, err, err_size);
        if (r) return r;
    }
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    if (bad[0] != DFM_CUDA_NO_BAD || bad[1] != DFM_CUDA_NO_BAD) { /* roll back: the device state is the step's
                                                                     start again */
        float* xs[3] = {v.x, v.v, (float*)v.kin_start};
        for (int k = 0; k < 3; ++k)
            DFM_CUDA_TRY(cudaMemcpyAsync(xs[k], b->backup + (size_t)k * n3, n3 * sizeof(float),
                                         cudaMemcpyDeviceToDevice, b->stream));
        DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
        const int bounds = bad[0] == DFM_CUDA_NO_BAD;
        if (out) {
            out->refused_particle = bounds ? bad[1] : bad[0];
            out->refused_kind = bounds;
        }
        snprintf(err, err_size, "%s particle %d", bounds ? "out-of-bounds" : "non-finite", bounds ? bad[1] : bad[0]);
        return bounds ? DFM_ERROR_OUT_OF_BOUNDS : DFM_ERROR_NON_FINITE;
    }
    if (out) {
        out->deform_dropped = b->deform_dropped;
        out->coarse_corrections = b->coarse.corrections - corrections_before;
        memcpy(&out->max_penetration, &max_pen_bits, sizeof(float));
        if (c->shape_count > 0)
            memcpy(&out->residual_max, &residual_bits, sizeof(float));
        else
            out->residual_max = convergence[0]; /* the bits of residual_norm_kernel's max */
        out->residual_sum = convergence[1];
    }
    for (int k = 0; k < DFM_PHASE_COUNT; ++k) b->phase_ms[k] = 0.0f;
    for (int e = 0; b->profiling && e < b->event_count; ++e) {
        float ms = 0.0f;
        DFM_CUDA_TRY(cudaEventElapsedTime(&ms, b->events[2 * e], b->events[2 * e + 1]));
        b->phase_ms[b->event_phase[e]] += ms;
    }
    return 0;
}

static void free_events(dfm_cuda_backend* b) {
    for (int k = 0; k < 2 * b->event_capacity; ++k) cudaEventDestroy(b->events[k]);
    free(b->events);
    free(b->event_phase);
    b->events = NULL;
    b->event_phase = NULL;
    b->event_capacity = b->event_count = 0;
}

/// Timed groups a profiled step can hold; further groups go untimed.
#define DFM_PROFILE_GROUPS 4096

extern "C" int dfm_cuda_backend_set_profiling(dfm_cuda_backend* b, int enabled, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    if (!enabled) {
        b->profiling = 0;
        return 0;
    }
    if (!b->events) {
        b->events = (cudaEvent_t*)calloc(2 * DFM_PROFILE_GROUPS, sizeof(cudaEvent_t));
        b->event_phase = (int*)calloc(DFM_PROFILE_GROUPS, sizeof(int));
        if (!b->events || !b->event_phase) {
            free_events(b);
            snprintf(err, err_size, "out of host memory for profiling events");
            return DFM_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (int k = 0; k < 2 * DFM_PROFILE_GROUPS; ++k) {
            cudaError_t e = cudaEventCreate(&b->events[k]);
            if (e != cudaSuccess) {
                b->event_capacity = k / 2;
                free_events(b);
                snprintf(err, err_size, "cudaEventCreate: %s", cudaGetErrorString(e));
                return dfm_cuda_result(e);
            }
        }
        b->event_capacity = DFM_PROFILE_GROUPS;
    }
    b->profiling = 1;
    return 0;
}

extern "C" int dfm_cuda_backend_phase_times(const dfm_cuda_backend* b, float out_ms[DFM_PHASE_COUNT]) {
    for (int k = 0; k < DFM_PHASE_COUNT; ++k) out_ms[k] = b->phase_ms[k];
    return b->profiling;
}

extern "C" int64_t dfm_cuda_backend_device_bytes(const dfm_cuda_backend* b) {
    return b->model_bytes + b->contacts.device_bytes + b->deform.device_bytes;
}

extern "C" int dfm_cuda_backend_sweep_info(dfm_cuda_backend* b, int32_t body, dfm_cuda_sweep_info* out, char* err,
                                           size_t err_size) {
    memset(out, 0, sizeof(*out));
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    out->mode = b->body_sweep;
    out->shared_ok = b->sweep_shared_ok && b->sweep_features_ok;
    out->resident_bodies = b->sweep_resident_count;
    out->resident_launch_bytes = b->sweep_resident_bytes;
    out->staged_launch_bytes = b->sweep_staged_max * DFM_SWEEP_PARTICLE_BYTES;
    if (b->sweep_body_bytes_host && body >= 0 && body < b->body_count) {
        out->body_resident_bytes = b->sweep_body_bytes_host[2 * body];
        out->body_staged_bytes = b->sweep_body_bytes_host[2 * body + 1];
    }
    if (b->sweep_runs) {
        unsigned long long runs[DFM_SWEEP_TIERS];
        DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
        DFM_CUDA_TRY(cudaMemcpy(runs, b->sweep_runs, sizeof(runs), cudaMemcpyDeviceToHost));
        for (int k = 0; k < DFM_SWEEP_TIERS; ++k) out->blocks[k] = (int64_t)runs[k];
    }
    return 0;
}

extern "C" int dfm_cuda_backend_upload_deform(dfm_cuda_backend* b, const dfm_cpu_dc* s, int64_t generation, char* err,
                                              size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    if (!s) {
        dfm_cuda_dc_free(&b->deform);
        return 0;
    }
    if (b->deform.generation == generation && b->deform.particle_count == b->view.particle_count) return 0;
    free_graph(b); /* no graph runs with deformable contact; a stale one must not outlive its buffers */
    return dfm_cuda_dc_upload(&b->deform, s, generation, b->view.particle_count, b->body_count, b->particle_body,
                              b->stream, err, err_size);
}
