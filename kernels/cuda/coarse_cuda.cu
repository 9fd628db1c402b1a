/// @file coarse_cuda.cu
/// The coarse correction on the CUDA backend, host-assisted first slice (see coarse_cuda.h): the
/// transfers between the device iterate and contact state and their host mirrors, and the call of
/// the CPU's dfm_cpu_coarse_correct over them. No kernel of its own: the coarse math is the CPU's
/// (kernels/cpu/coarse_cpu.c, its contact terms the shared dfm_contact_gather on the mirrored
/// records), so the parallelism review of seed 001 is coarse_cpu.c's.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coarse_cpu.h"
#include "contacts_cpu.h"
#include "coarse_cuda.h"
#include "cuda_check.h"

void dfm_cuda_coarse_free(dfm_cuda_coarse* co) {
    /* teardown: nothing to report to */
    if (co->host) cudaFreeHost(co->host);
    if (co->head) cudaFreeHost(co->head);
    if (co->slides) cudaFreeHost(co->slides);
    if (co->count) cudaFreeHost(co->count);
    if (co->node_body_friction) cudaFreeHost(co->node_body_friction);
#define FREE_FIELD(type, name, width) free(co->rec.name);
    DFM_CONTACT_RECORD_FIELDS(FREE_FIELD)
#undef FREE_FIELD
    free(co->next);
    free(co->shapes);
    memset(co, 0, sizeof(*co));
}

int dfm_cuda_coarse_reserve(dfm_cuda_coarse* co, int32_t particle_count, int32_t capacity, int32_t shape_count,
                            char* err, size_t err_size) {
    if (co->host && co->particle_count == particle_count && co->capacity == capacity && co->shape_count == shape_count)
        return 0;
    dfm_cuda_coarse_free(co);
    const size_t n = (size_t)(particle_count > 0 ? particle_count : 1);
    const size_t cap = (size_t)(capacity > 0 ? capacity : 1), ns = (size_t)(shape_count > 0 ? shape_count : 1);
    cudaError_t e = cudaMallocHost((void**)&co->host, 12u * n * sizeof(float));
    if (e == cudaSuccess) e = cudaMallocHost((void**)&co->head, n * sizeof(int32_t));
    if (e == cudaSuccess) e = cudaMallocHost((void**)&co->slides, n);
    if (e == cudaSuccess) e = cudaMallocHost((void**)&co->count, sizeof(int32_t));
    if (e == cudaSuccess) e = cudaMallocHost((void**)&co->node_body_friction, 9u * cap * sizeof(float));
    if (e != cudaSuccess) {
        dfm_cuda_coarse_free(co);
        snprintf(err, err_size, "%s:%d: cudaMallocHost (coarse correction mirrors, %zu particles): %s", __FILE__,
                 __LINE__, n, cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? DFM_ERROR_OUT_OF_HOST_MEMORY : dfm_cuda_result(e);
    }
    int ok = 1;
#define ALLOC_FIELD(type, name, width) ok = ok && (co->rec.name = (type*)malloc((width)*cap * sizeof(type))) != NULL;
    DFM_CONTACT_RECORD_FIELDS(ALLOC_FIELD)
#undef ALLOC_FIELD
    co->next = (int32_t*)malloc(3u * cap * sizeof(int32_t));
    co->shapes = (dfm_shape_rt*)malloc(ns * sizeof(dfm_shape_rt));
    if (!ok || !co->next || !co->shapes) {
        dfm_cuda_coarse_free(co);
        snprintf(err, err_size, "out of host memory for the coarse correction's contact mirrors (%zu records)", cap);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    co->particle_count = particle_count;
    co->mirror_advance = -1;
    co->capacity = capacity;
    co->shape_count = shape_count;
    return 0;
}

/// The host view of the advance's contacts over the mirrors: `c`'s settings and flags, the mirrored
/// records, lists, shapes and sliding flags; nothing of detection (no candidates or features).
static dfm_contact_view host_contacts(dfm_cuda_coarse* co, const dfm_contact_view* c, const dfm_vbd_view* model) {
    dfm_contact_view h = *c;
    h.shapes = co->shapes;
    h.particle_mass = model->mass;
    h.feat_particles = h.feat_edges = h.feat_faces = NULL;
    memset(&h.cand, 0, sizeof(h.cand));
    h.count = co->count;
    h.rec = co->rec;
    h.particle_slides = c->particle_slides ? co->slides : NULL;
    h.cand_record = NULL;
    h.head = co->head;
    h.next = co->next;
    return h;
}

/// The host view of the advance over the model's host arrays and the mirrors (x, d, x_prev, y):
/// element coefficients and hinge start angles per visit (bitwise the tables' values, vbd_coef.h),
/// the scalar path.
static dfm_vbd_view host_view(dfm_cuda_coarse* co, const dfm_vbd_view* model, const dfm_vbd_view& v) {
    const size_t n3 = 3u * (size_t)v.particle_count;
    dfm_vbd_view hv = *model;
    hv.particle_count = v.particle_count;
    hv.x = co->host;
    hv.d = co->host + n3;
    hv.x_prev = co->host + 2 * n3;
    hv.y = co->host + 3 * n3;
    hv.v = NULL;
    hv.kin_start = hv.kin_target = NULL;
    hv.guess_normal = hv.guess_gap = NULL;
    hv.edge_start_angle = NULL;
    hv.tri_coef = hv.edge_coef = hv.tet_coef = NULL;
    hv.h = v.h;
    memcpy(hv.gravity, v.gravity, sizeof(hv.gravity));
    return hv;
}

int dfm_cuda_coarse_correct(dfm_cuda_coarse* co, dfm_cpu_coarse* level, const dfm_vbd_view* model,
                            const dfm_vbd_view& v, const dfm_contact_view* c, int first, int friction, cudaStream_t st,
                            char* err, size_t err_size) {
    const int32_t n = v.particle_count;
    if (!level->node_first || level->particle_count != n) return 0; /* dfm_cpu_coarse_correct's own early-out */
    if (co->particle_count != n || !co->host ||
        (c && (co->capacity < c->capacity || co->shape_count < c->shape_count))) {
        snprintf(err, err_size, "internal: coarse correction mirrors sized for %d particles, the model has %d",
                 co->particle_count, n);
        return DFM_ERROR_INVALID_STATE;
    }
    const size_t n3 = 3u * (size_t)n, bytes = n3 * sizeof(float);
    float* hx = co->host; /* pinned: x, d, x_prev, y */
    float* hd = hx + n3;
    float* hx_prev = hd + n3;
    float* hy = hx_prev + n3;
    DFM_CUDA_TRY(cudaMemcpyAsync(hx, v.x, bytes, cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(hd, v.d, bytes, cudaMemcpyDeviceToHost, st));
    if (first) { /* constant over the advance's sweeps */
        DFM_CUDA_TRY(cudaMemcpyAsync(hx_prev, v.x_prev, bytes, cudaMemcpyDeviceToHost, st));
        DFM_CUDA_TRY(cudaMemcpyAsync(hy, v.y, bytes, cudaMemcpyDeviceToHost, st));
    }
    if (c && c->shape_count > 0) /* every correction: a coupled host body moves its shapes between the sweeps */
        DFM_CUDA_TRY(cudaMemcpyAsync(co->shapes, c->shapes, (size_t)c->shape_count * sizeof(dfm_shape_rt),
                                     cudaMemcpyDeviceToHost, st));
    if (c && first) { /* the advance's lists and record count (the records after it is known) */
        DFM_CUDA_TRY(cudaMemcpyAsync(co->head, c->head, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
        DFM_CUDA_TRY(cudaMemcpyAsync(co->count, c->count, sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    }
    if (c && c->particle_slides) /* every correction: the body-level solve decides them after every sweep */
        DFM_CUDA_TRY(cudaMemcpyAsync(co->slides, c->particle_slides, (size_t)n, cudaMemcpyDeviceToHost, st));
    if (c && !first && c->penalty_beta > 0.0f && co->active > 0) /* the AVBD ramp moved them since */
        DFM_CUDA_TRY(cudaMemcpyAsync(co->rec.penalty, c->rec.penalty, (size_t)co->active * sizeof(float),
                                     cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    if (c && first) {
        const int32_t count = *co->count;
        co->active = count < 0 ? 0 : count < c->capacity ? count : c->capacity;
        const size_t r = (size_t)co->active;
        if (r > 0) { /* co->rec.name: host mirrors; c->rec.name: device records */
#define DOWN(type, name, width) \
    DFM_CUDA_TRY(cudaMemcpyAsync(co->rec.name, c->rec.name, (width)*r * sizeof(type), cudaMemcpyDeviceToHost, st));
            DFM_CONTACT_RECORD_FIELDS(DOWN)
#undef DOWN
            DFM_CUDA_TRY(cudaMemcpyAsync(co->next, c->next, 3u * r * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
        }
        DFM_CUDA_TRY(cudaStreamSynchronize(st));
    }
    /* the CPU's correction over the model's host arrays and the mirrors: element coefficients and
       hinge start angles per visit (bitwise the tables' values, vbd_coef.h), the scalar path */
    dfm_vbd_view hv = host_view(co, model, v);
    dfm_contact_view hc;
    dfm_cpu_contacts cc;
    memset(&cc, 0, sizeof(cc));
    if (c) {
        hc = host_contacts(co, c, model);
        cc.view = &hc;
        cc.gather = 1;
        cc.coarse_friction = friction;
    }
    dfm_cpu_coarse_correct(level, &hv, c ? &cc : NULL, NULL, 1, first);
    if (first) co->mirror_advance = c ? level->advances : -1; /* the records above are this advance's */
    ++co->corrections;
    /* the pinned sources stay untouched until the next correction's synchronization */
    DFM_CUDA_TRY(cudaMemcpyAsync(v.d, hd, bytes, cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(v.x, hx, bytes, cudaMemcpyHostToDevice, st));
    return 0;
}

int dfm_cuda_coarse_patch_friction(dfm_cuda_coarse* co, dfm_cpu_coarse* level, const dfm_vbd_view* model,
                                   const dfm_vbd_view& v, const dfm_contact_view* c, float* node_body_friction,
                                   uint8_t* particle_slides, int* done, cudaStream_t st, char* err, size_t err_size) {
    const int32_t n = v.particle_count;
    *done = 0;
    if (!c || co->mirror_advance < 0 || co->mirror_advance != level->advances) return 0;
    if (co->particle_count != n || !co->host || co->capacity < c->capacity || !level->node_first ||
        level->particle_count != n) {
        snprintf(err, err_size, "internal: coarse patch friction without mirrors for %d particles", n);
        return DFM_ERROR_INVALID_STATE;
    }
    const size_t n3 = 3u * (size_t)n, bytes = n3 * sizeof(float);
    float* hx = co->host;
    float* hd = hx + n3;
    DFM_CUDA_TRY(cudaMemcpyAsync(hx, v.x, bytes, cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(hd, v.d, bytes, cudaMemcpyDeviceToHost, st));
    if (c->shape_count > 0)
        DFM_CUDA_TRY(cudaMemcpyAsync(co->shapes, c->shapes, (size_t)c->shape_count * sizeof(dfm_shape_rt),
                                     cudaMemcpyDeviceToHost, st));
    if (c->penalty_beta > 0.0f && co->active > 0) /* the AVBD ramp moved them since the last correction */
        DFM_CUDA_TRY(cudaMemcpyAsync(co->rec.penalty, c->rec.penalty, (size_t)co->active * sizeof(float),
                                     cudaMemcpyDeviceToHost, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st));
    dfm_vbd_view hv = host_view(co, model, v);
    dfm_contact_view hc = host_contacts(co, c, model);
    hc.particle_slides = co->slides;
    dfm_cpu_contacts cc;
    memset(&cc, 0, sizeof(cc));
    cc.view = &hc;
    cc.gather = 1;
    cc.node_body_friction = co->node_body_friction;
    cc.particle_slides = co->slides;
    cc.body_count = level->body_count;
    cc.body_offsets = level->body_offsets;
    cc.threads = 1;
    cc.coarse_friction = 1;
    dfm_cpu_contacts_patch_friction(&cc, &hv, level);
    DFM_CUDA_TRY(cudaMemsetAsync(node_body_friction, 0, 9u * (size_t)c->capacity * sizeof(float), st));
    if (co->active > 0)
        DFM_CUDA_TRY(cudaMemcpyAsync(node_body_friction, co->node_body_friction,
                                     9u * (size_t)co->active * sizeof(float), cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(particle_slides, co->slides, (size_t)n, cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(v.d, hd, bytes, cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaMemcpyAsync(v.x, hx, bytes, cudaMemcpyHostToDevice, st));
    DFM_CUDA_TRY(cudaStreamSynchronize(st)); /* the pinned sources are rewritten by the next correction */
    *done = 1;
    co->mirror_advance = -1; /* consumed: the next advance's first correction mirrors its own records */
    return 0;
}
