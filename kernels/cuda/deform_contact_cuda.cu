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
/// - dc_particle_terms_kernel (final forces, stage 1): P2 applies-and-done (one thread per
///   particle: its momentum need, the costly part, its shape contacts' force and magnitude sum,
///   its raw pair forces and each cross-body corner's magnitude; session 11 moved the need here
///   from a per-body loop that took 149 ms of a 200 ms cloth-fold step on the H200); P1/P3 n/a;
///   P4 applies-TODO as dc_guess_kernel.
/// - dc_body_sums_kernel (stage 2a): P2 applies-and-done over bodies (one thread per body sums its
///   particles' terms serially in index order, the CPU's order: deterministic); applies-TODO
///   within a body (a fixed-tree reduction would shorten the chain); P1/P3/P4 n/a.
/// - dc_edge_sums_kernel (stage 2b): P2 applies-and-done over body pairs (one thread per body pair
///   walks its pairs in pair order: deterministic, no atomics); applies-TODO within one (a body
///   pair with thousands of pairs is one serial chain); P1/P3 n/a; P4 applies-and-done (each body
///   pair's pairs are a contiguous CSR run, built on the host at detection).
/// - dc_pull_kernel (stage 3, the no-pull rounds): P2 applies-and-done (one thread per particle of
///   a tested body; a pull sets its body's flag to 1, every writer storing the same value, so the
///   result does not depend on order); P1/P3/P4 n/a.
/// - dc_final_force_kernel (stage 4): P2 applies-and-done (one thread per particle over its list,
///   no atomics); P1 n/a; P3 applies-and-done (each corner's magnitude from stage 1, each body
///   pair's change once on the host); P4 applies-TODO as dc_guess_kernel.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "deform_balance.h"
#include "deform_balance_terms.h"
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
    const dfm_v3 b = dfm_dc_bound_step(dfm_v3_zero(), d, gap, dfm_dc_vertex_bound(&c, i));
    dfm_v3_store(b, v.d + 3 * (int64_t)i);
    dfm_v3_store(dfm_v3_add(dfm_v3_load(v.x_prev + 3 * (int64_t)i), b), v.x + 3 * (int64_t)i);
}

/// Bodies of pair pr's two sides (dfm_dc_pair_bodies on the device).
__device__ __forceinline__ void dc_pair_bodies(const dfm_dc_pair* pr, const int32_t* particle_body, int32_t* a,
                                               int32_t* b) {
    *a = particle_body[pr->v[0]];
    *b = particle_body[pr->kind == DFM_DC_VERTEX_TRIANGLE ? pr->v[1] : pr->v[2]];
}

/// Final forces, stage 1 (dfm_cpu_dc_final_forces steps 1 and 3), one thread per particle i: for
/// a dynamic particle its momentum need, raw cross-body pair force, shape contact force R and
/// magnitude sum S into terms (10 doubles), the magnitude of each of its cross-body corner forces
/// into corner_mag (by item), and its raw deformable-contact force (all its pairs) into
/// final_force; zero for pinned and kinematic particles.
__global__ void dc_particle_terms_kernel(dfm_dc_view dcv, dfm_vbd_view v, dfm_contact_view c,
                                         const float* node_friction, const uint8_t* surface,
                                         const int32_t* particle_body, double* terms, float* corner_mag,
                                         float* final_force) {
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= v.particle_count) return;
    double t[10] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    dfm_v3 f = dfm_v3_zero();
    if (v.mode[i] == 0) {
        const dfm_v3 nd = dfm_vbd_particle_need(&v, i);
        t[0] = nd.x;
        t[1] = nd.y;
        t[2] = nd.z;
        const int friction = node_friction && !(c.flags & DFM_DISABLE_STATIC_FRICTION);
        for (int32_t node = c.head ? c.head[i] : -1; node >= 0; node = c.next[node]) {
            const dfm_v3 q = dfm_dc_shape_node_force(&c, v.d, v.h, node_friction, friction, node);
            t[6] += q.x;
            t[7] += q.y;
            t[8] += q.z;
            if (!c.shapes[c.rec.shape[node / 3]].coupled) t[9] += dfm_v3_len(q);
        }
        if (surface[i])
            for (int32_t k = dcv.offsets[i]; k < dcv.offsets[i + 1]; ++k) {
                const int32_t item = dcv.items[k], p = item >> 2, corner = item & 3;
                const dfm_dc_pair* pr = dcv.pairs + p;
                dfm_v3 fp = dfm_v3_zero();
                dfm_m33 H = dfm_m33_zero();
                dfm_dc_pair_force(pr, v.x, v.d, dcv.radius, dcv.ke, dcv.mu, v.h, corner, &fp, &H);
                f = dfm_v3_add(f, fp);
                int32_t a, b;
                dc_pair_bodies(pr, particle_body, &a, &b);
                if (a == b) continue;
                corner_mag[item] = dfm_v3_len(fp);
                t[3] += fp.x;
                t[4] += fp.y;
                t[5] += fp.z;
            }
    }
    for (int k = 0; k < 10; ++k) terms[10 * (int64_t)i + k] = t[k];
    dfm_v3_store(f, final_force + 3 * (int64_t)i);
}

/// Final forces, stage 2a (dfm_cpu_dc_final_forces step 1): body b's need, raw cross-body pair
/// force, R and S summed from stage 1's terms in particle order, and whether it is pinned, into
/// bodies[b] (its other fields zero, root b), for the host's balance.
__global__ void dc_body_sums_kernel(dfm_vbd_view v, const double* terms, const int32_t* body_offsets,
                                    int32_t body_count, dfm_cpu_dc_body* bodies) {
    const int32_t b = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (b >= body_count) return;
    dfm_cpu_dc_body o;
    memset(&o, 0, sizeof(o));
    o.root = b;
    for (int32_t i = body_offsets[b]; i < body_offsets[b + 1]; ++i) {
        if (v.mode[i] != 0) {
            o.pinned = 1;
            continue;
        }
        const double* t = terms + 10 * (int64_t)i;
        for (int k = 0; k < 3; ++k) {
            o.need[k] += t[k];
            o.raw[k] += t[3 + k];
            o.shape_force[k] += t[6 + k];
        }
        o.shape_sum += t[9];
    }
    bodies[b] = o;
}

/// Final forces, stage 2b (dfm_cpu_dc_final_forces step 3): body pair e's corner-force magnitudes
/// summed on each side over the dynamic corners of its pairs (in pair order) into edges[e].s_lo
/// and s_hi.
__global__ void dc_edge_sums_kernel(dfm_dc_view dcv, dfm_vbd_view v, const uint8_t* surface,
                                    const int32_t* particle_body, const float* corner_mag, const int32_t* edge_offsets,
                                    const int32_t* edge_pairs, int32_t edge_count, dfm_cpu_dc_edge* edges) {
    const int32_t e = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (e >= edge_count) return;
    const int32_t hi = edges[e].hi;
    double s_lo = 0.0, s_hi = 0.0;
    for (int32_t k = edge_offsets[e]; k < edge_offsets[e + 1]; ++k) {
        const int32_t p = edge_pairs[k];
        for (int j = 0; j < 4; ++j) {
            const int32_t i = dcv.pairs[p].v[j];
            if (!surface[i] || v.mode[i] != 0) continue;
            const double m = corner_mag[4 * (int64_t)p + j];
            if (particle_body[i] == hi)
                s_hi += m;
            else
                s_lo += m;
        }
    }
    edges[e].s_lo = s_lo;
    edges[e].s_hi = s_hi;
}

/// Final forces, stage 3 (a round of the no-pull check, deform_contact_cpu.c shape_pull): for a
/// dynamic particle of a tested body (flags[b]), whether its body's share lambda + 3b of one of
/// its shape contacts turns the contact into a pull along its normal; a pull sets
/// flags[body_count + b] to 1.
__global__ void dc_pull_kernel(dfm_vbd_view v, dfm_contact_view c, const float* node_friction,
                               const int32_t* particle_body, const double* lambda, int32_t body_count, uint8_t* flags) {
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= v.particle_count || v.mode[i] != 0 || !c.head) return;
    const int32_t b = particle_body[i];
    if (!flags[b]) return;
    const int friction = node_friction && !(c.flags & DFM_DISABLE_STATIC_FRICTION);
    for (int32_t node = c.head[i]; node >= 0; node = c.next[node]) {
        if (c.shapes[c.rec.shape[node / 3]].coupled) continue;
        const dfm_v3 q = dfm_dc_shape_node_force(&c, v.d, v.h, node_friction, friction, node);
        if (dfm_dc_shape_node_pulls(&c, q, node, lambda + 3 * b)) {
            flags[body_count + b] = 1;
            return;
        }
    }
}

/// Final forces, stage 4 (dfm_cpu_dc_final_forces step 6b): particle i's raw force (stage 1) plus,
/// for each of its cross-body corners, its side's share of the body pair's change delta_e (the
/// host's solve), in proportion to the corner's force magnitude.
__global__ void dc_final_force_kernel(dfm_dc_view dcv, dfm_vbd_view v, const uint8_t* surface,
                                      const int32_t* particle_body, const int32_t* pair_edge,
                                      const dfm_cpu_dc_edge* edges, const float* corner_mag, float* final_force) {
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= v.particle_count || !surface[i] || v.mode[i] != 0) return;
    const int32_t bi = particle_body[i];
    dfm_v3 f = dfm_v3_load(final_force + 3 * (int64_t)i);
    for (int32_t k = dcv.offsets[i]; k < dcv.offsets[i + 1]; ++k) {
        const int32_t item = dcv.items[k], e = pair_edge[item >> 2];
        if (e < 0) continue;
        const dfm_cpu_dc_edge* E = edges + e;
        const double side = bi == E->hi ? E->s_hi : E->s_lo, sign = bi == E->hi ? 1.0 : -1.0;
        if (!(E->c > 0.0) || !(side > 0.0)) continue;
        const double share = sign * (double)corner_mag[item] / side;
        f.x += (float)(share * E->delta[0]);
        f.y += (float)(share * E->delta[1]);
        f.z += (float)(share * E->delta[2]);
    }
    dfm_v3_store(f, final_force + 3 * (int64_t)i);
}

// ---- host side ----------------------------------------------------------------------------------

void dfm_cuda_dc_free(dfm_cuda_dc* dc) {
    dfm_cuda_bvh_destroy(dc->tri_bvh);
    dfm_cuda_bvh_destroy(dc->edge_bvh);
    void* bufs[] = {dc->pairs,      dc->offsets,    dc->items,      dc->sub_particles, dc->surface,    dc->final_force,
                    dc->part_terms, dc->corner_mag, dc->pair_edge,  dc->edge_offsets,  dc->edge_pairs, dc->edges,
                    dc->bodies,     dc->lambda,     dc->body_flags, dc->vertex_bound};
    for (size_t k = 0; k < sizeof(bufs) / sizeof(bufs[0]); ++k)
        if (bufs[k]) cudaFree(bufs[k]); /* teardown: nothing to report to */
    if (dc->host_x_prev) cudaFreeHost(dc->host_x_prev);
    if (dc->host_y) cudaFreeHost(dc->host_y);
    free(dc->host_particle_body);
    free(dc->host_pair_edge);
    free(dc->host_edge_offsets);
    free(dc->host_edge_pairs);
    free(dc->host_flags);
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
                       int32_t body_count, const int32_t* particle_body, cudaStream_t st, char* err, size_t err_size) {
    dfm_cuda_dc_free(dc);
    if (s->body_count != body_count) { /* the balance reads s->body_work with the device's bodies */
        snprintf(err, err_size, "internal: deformable contact state of %d bodies, the model has %d", s->body_count,
                 body_count);
        return DFM_ERROR_INVALID_STATE;
    }
    const size_t n = (size_t)particle_count, cap = (size_t)(s->candidate_capacity > 0 ? s->candidate_capacity : 1);
    dc->particle_count = particle_count;
    dc->body_count = body_count;
    dc->capacity = (int64_t)cap;
    const int64_t body_pairs = (int64_t)body_count * (body_count - 1) / 2;
    dc->edge_capacity = (int32_t)(body_pairs < (int64_t)cap ? body_pairs : (int64_t)cap);
    const size_t ncap = (size_t)dc->edge_capacity, nbody = (size_t)(body_count > 0 ? body_count : 0);
    int r = 0;
#define DC_A(ptr, bytes) \
    if (!r) r = dc_alloc(dc, &dc->ptr, (bytes), err, err_size)
    DC_A(pairs, cap * sizeof(dfm_dc_pair));
    DC_A(offsets, (n + 1u) * sizeof(int32_t));
    DC_A(items, 4u * cap * sizeof(int32_t));
    DC_A(sub_particles, n * sizeof(int32_t));
    DC_A(vertex_bound, n * sizeof(float));
    DC_A(surface, n);
    DC_A(final_force, 3u * n * sizeof(float));
    DC_A(part_terms, 10u * n * sizeof(double));
    DC_A(corner_mag, 4u * cap * sizeof(float));
    DC_A(pair_edge, cap * sizeof(int32_t));
    DC_A(edge_offsets, (ncap + 1u) * sizeof(int32_t));
    DC_A(edge_pairs, cap * sizeof(int32_t));
    DC_A(edges, (ncap + 1u) * sizeof(dfm_cpu_dc_edge));
    DC_A(bodies, (nbody + 1u) * sizeof(dfm_cpu_dc_body));
    DC_A(lambda, 3u * (nbody + 1u) * sizeof(double));
    DC_A(body_flags, 2u * (nbody + 1u));
#undef DC_A
    if (!r) {
        dc->host_particle_body = (int32_t*)calloc(n + 1u, sizeof(int32_t));
        dc->host_pair_edge = (int32_t*)calloc(cap, sizeof(int32_t));
        dc->host_edge_offsets = (int32_t*)calloc(ncap + 2u, sizeof(int32_t));
        dc->host_edge_pairs = (int32_t*)calloc(cap, sizeof(int32_t));
        dc->host_flags = (uint8_t*)calloc(2u * (nbody + 1u), 1);
        if (!dc->host_particle_body || !dc->host_pair_edge || !dc->host_edge_offsets || !dc->host_edge_pairs ||
            !dc->host_flags) {
            snprintf(err, err_size, "out of host memory for the deformable contact balance (%zu pairs)", cap);
            r = DFM_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
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
        if (e == cudaSuccess) e = cudaMemsetAsync(dc->part_terms, 0, 10u * n * sizeof(double), st);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(dc->host_particle_body, particle_body, n * sizeof(int32_t), cudaMemcpyDeviceToHost, st);
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

/// The body pairs of this advance's pairs (dfm_dc_balance_edges: keys in s->cand, which the host
/// leaves alone until the final forces, and s->edge_work), each pair's body pair and each body
/// pair's pairs in pair order (CSR), staged up for the final forces' sums. Nothing goes up when no
/// two bodies touch.
static int upload_edges(dfm_cuda_dc* dc, dfm_cpu_dc* s, cudaStream_t st, char* err, size_t err_size) {
    dc->edge_count = 0;
    if (s->pair_count == 0) return 0;
    const int32_t ne = dfm_dc_balance_edges(s->pairs, s->pair_count, dc->host_particle_body, s->cand, s->edge_work);
    if (ne > dc->edge_capacity) { /* cannot happen: at most min(pairs, bodies choose 2) */
        snprintf(err, err_size, "internal: %d body pairs touch, room for %d", ne, dc->edge_capacity);
        return DFM_ERROR_INVALID_STATE;
    }
    dc->edge_count = ne;
    if (ne == 0) return 0;
    int32_t* off = dc->host_edge_offsets;
    memset(off, 0, ((size_t)ne + 2u) * sizeof(int32_t));
    for (int32_t p = 0; p < s->pair_count; ++p) {
        int32_t a, b;
        dfm_dc_pair_bodies(s->pairs + p, dc->host_particle_body, &a, &b);
        dc->host_pair_edge[p] = a == b ? -1 : dfm_dc_balance_edge_index(s->cand, ne, a, b);
        if (a != b) off[dc->host_pair_edge[p] + 2]++;
    }
    for (int32_t e = 0; e < ne; ++e) off[e + 2] += off[e + 1];
    for (int32_t p = 0; p < s->pair_count; ++p) /* off[e + 1] is e's cursor, then e + 1's start */
        if (dc->host_pair_edge[p] >= 0) dc->host_edge_pairs[off[dc->host_pair_edge[p] + 1]++] = p;
    const int32_t cross = off[ne];
    /* pageable sources: each copy has read its source when it returns */
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->pair_edge, dc->host_pair_edge, (size_t)s->pair_count * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(dc->edge_offsets, off, ((size_t)ne + 1u) * sizeof(int32_t), cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->edge_pairs, dc->host_edge_pairs, (size_t)cross * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(dc->edges, s->edge_work, (size_t)ne * sizeof(dfm_cpu_dc_edge), cudaMemcpyHostToDevice, st));
    return 0;
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
    int r = upload_edges(dc, s, st, err, err_size);
    if (r) return r;
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
    dc->view.vertex_bound = NULL; /* per-particle bounds where detection dropped redundant pairs */
    if (s->view.vertex_bound) {
        DFM_CUDA_TRY(cudaMemcpyAsync(dc->vertex_bound, s->view.vertex_bound, (size_t)n * sizeof(float),
                                     cudaMemcpyHostToDevice, st));
        dc->view.vertex_bound = dc->vertex_bound;
    }
    dc_guess_kernel<<<blocks_for(n), BLOCK, 0, st>>>(dc->view, v, dc->surface);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

/// What the CUDA pull check of a balance round needs (dfm_dc_pull_fn).
struct dc_pull_ctx {
    dfm_cuda_dc* dc;
    const dfm_vbd_view* v;
    const dfm_contact_view* c;
    const float* node_friction;
    const int32_t* particle_body;
    cudaStream_t st;
    char* err;
    size_t err_size;
};

/// One round's pull check on the device: the tests and potentials up, dc_pull_kernel, the pulls
/// down (a stream synchronization).
static int cuda_pull(void* ctx, dfm_cpu_dc_body* B, int32_t body_count, const double* lambda) {
    dc_pull_ctx* p = (dc_pull_ctx*)ctx;
    dfm_cuda_dc* dc = p->dc;
    char* err = p->err;
    const size_t err_size = p->err_size;
    const size_t nb = (size_t)body_count;
    for (int32_t b = 0; b < body_count; ++b) {
        dc->host_flags[b] = B[b].pull_test;
        dc->host_flags[nb + (size_t)b] = 0;
    }
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->body_flags, dc->host_flags, 2u * nb, cudaMemcpyHostToDevice, p->st));
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->lambda, lambda, 3u * nb * sizeof(double), cudaMemcpyHostToDevice, p->st));
    dc_pull_kernel<<<blocks_for(p->v->particle_count), BLOCK, 0, p->st>>>(
        *p->v, *p->c, p->node_friction, p->particle_body, dc->lambda, body_count, dc->body_flags);
    DFM_CUDA_TRY(cudaGetLastError());
    DFM_CUDA_TRY(cudaMemcpyAsync(dc->host_flags + nb, dc->body_flags + nb, nb, cudaMemcpyDeviceToHost, p->st));
    DFM_CUDA_TRY(cudaStreamSynchronize(p->st));
    for (int32_t b = 0; b < body_count; ++b) B[b].pulls = dc->host_flags[nb + (size_t)b];
    return 0;
}

int dfm_cuda_dc_final_forces(dfm_cuda_dc* dc, dfm_cpu_dc* s, const dfm_vbd_view& v, const dfm_contact_view& c,
                             const float* node_friction, const int32_t* body_offsets, const int32_t* particle_body,
                             cudaStream_t st, char* err, size_t err_size) {
    const int32_t n = v.particle_count, nb = dc->body_count, ne = dc->edge_count;
    if (s->pair_count == 0) { /* no pair: every pair force is zero, and no balance changes one */
        DFM_CUDA_TRY(cudaMemsetAsync(dc->final_force, 0, 3u * (size_t)n * sizeof(float), st));
        return 0;
    }
    dc_particle_terms_kernel<<<blocks_for(n), BLOCK, 0, st>>>(dc->view, v, c, node_friction, dc->surface, particle_body,
                                                              dc->part_terms, dc->corner_mag, dc->final_force);
    DFM_CUDA_TRY(cudaGetLastError());
    if (ne == 0 || nb == 0) return 0; /* no two bodies touch: no balance changes a pair (raw forces) */
    dc_body_sums_kernel<<<blocks_for(nb), BLOCK, 0, st>>>(v, dc->part_terms, body_offsets, nb, dc->bodies);
    DFM_CUDA_TRY(cudaGetLastError());
    dc_edge_sums_kernel<<<blocks_for(ne), BLOCK, 0, st>>>(dc->view, v, dc->surface, particle_body, dc->corner_mag,
                                                          dc->edge_offsets, dc->edge_pairs, ne, dc->edges);
    DFM_CUDA_TRY(cudaGetLastError());
    DFM_CUDA_TRY(
        cudaMemcpyAsync(s->body_work, dc->bodies, (size_t)nb * sizeof(dfm_cpu_dc_body), cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(
        cudaMemcpyAsync(s->edge_work, dc->edges, (size_t)ne * sizeof(dfm_cpu_dc_edge), cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    dc_pull_ctx pc = {dc, &v, &c, node_friction, particle_body, st, err, err_size};
    const int32_t solved = dfm_dc_balance_solve(s->body_work, nb, s->edge_work, ne, s->solve_work, cuda_pull, &pc);
    if (solved < 0) return solved;
    if (solved == 0) return 0; /* nothing solved: every pair keeps its raw force */
    DFM_CUDA_TRY(
        cudaMemcpyAsync(dc->edges, s->edge_work, (size_t)ne * sizeof(dfm_cpu_dc_edge), cudaMemcpyHostToDevice, st));
    dc_final_force_kernel<<<blocks_for(n), BLOCK, 0, st>>>(dc->view, v, dc->surface, particle_body, dc->pair_edge,
                                                           dc->edges, dc->corner_mag, dc->final_force);
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}
