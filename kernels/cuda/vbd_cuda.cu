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
/// - solve_color_kernel: P1 applies-and-done (colors are the levels, one launch per color);
///   P2 applies-TODO (one thread per particle walks all its elements serially; the seed's
///   2-particles-per-warp tiled variant, sec. 4, and the tet-only kernel, sec. 5, come next);
///   P3 applies-and-done (D^-1, areas, rest angles, adjacency hoisted to creation); P4 applies-TODO
///   (particles are not renumbered by color, so a color's threads gather scattered particles;
///   renumbering by color would make their reads contiguous).
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "contact_response.h"
#include "contacts_cuda.h"
#include "cuda_check.h"
#include "vbd_cuda_api.h"
#include "vbd_particle.h"

/// Threads per block of the per-particle kernels (to be tuned by measurement, seed sec. 7).
#define DFM_CUDA_BLOCK 128

/// Device mirror: a view whose pointers are device pointers, plus bookkeeping.
struct dfm_cuda_backend {
    int device;
    cudaStream_t stream;
    int own_stream;
    dfm_vbd_view view;         ///< Device pointers.
    int32_t color_count;
    int32_t* color_offsets;    ///< Host copy (launch bounds per color).
    int32_t* color_particles;  ///< Device.
    int32_t* particle_color;   ///< Device: color of each particle (legacy scatter).
    void* allocations[64];     ///< Everything cudaMalloc'ed for the model.
    int allocation_count;
    dfm_cuda_contacts contacts;///< Contact pipeline buffers (shape_count 0 = none).
    cudaGraphExec_t graph;     ///< Captured step (NULL until captured).
    float graph_key[12];       ///< Step settings the graph was captured with (see step_key).
};

// ---- kernels ------------------------------------------------------------------------------------

__global__ void predict_kernel(dfm_vbd_view v, float alpha) {
    int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.particle_count) return;
    dfm_vbd_predict(&v, i, alpha);
}

__global__ void edge_angle_kernel(dfm_vbd_view v) {
    int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < v.edge_count) dfm_vbd_edge_start_angle(&v, e);
}

/// Contact input of the solve: none, the gather over the particle's list, or the scatter
/// accumulators.
enum { SOLVE_NO_CONTACTS = 0, SOLVE_GATHER = 1, SOLVE_SCATTERED = 2 };

__global__ void solve_color_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f, const float* acc_H,
                                   const int32_t* __restrict__ particles, int32_t count) {
    int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    int32_t i = particles[k];
    if (v.mode[i] != 0) return;
    dfm_v3 f = dfm_v3_zero();
    dfm_m33 H = dfm_m33_zero();
    if (mode == SOLVE_GATHER) {
        dfm_contact_gather(&c, v.d, v.h, i, &f, &H);
    } else if (mode == SOLVE_SCATTERED) {
        f = dfm_v3_load(acc_f + 3 * i);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) H.m[a][b] = acc_H[9 * i + 3 * a + b];
    }
    dfm_vbd_solve_particle(&v, i, f, H);
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
    free_graph(b); /* its kernel parameters point into the model */
    dfm_cuda_contacts_free(&b->contacts); /* sized to the model's particles */
    for (int k = 0; k < b->allocation_count; ++k) cudaFree(b->allocations[k]);
    b->allocation_count = 0;
    free(b->color_offsets);
    b->color_offsets = NULL;
    b->color_particles = NULL;
    b->particle_color = NULL;
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
    if (src && bytes) DFM_CUDA_TRY(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, b->stream));
    else DFM_CUDA_TRY(cudaMemsetAsync(*dst, 0, n, b->stream));
    return 0;
}

#define UP(field, count, type)                                                                          \
    do {                                                                                                \
        void* p_ = NULL;                                                                                \
        int r_ = upload(b, &p_, h->field, (size_t)(count) * sizeof(type), err, err_size);              \
        if (r_) {                                                                                       \
            free_model(b);                                                                              \
            return r_;                                                                                  \
        }                                                                                               \
        v->field = (type*)p_;                                                                           \
    } while (0)

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
    if (b->own_stream) cudaStreamDestroy(b->stream);
    free(b);
}

extern "C" int dfm_cuda_backend_upload_model(dfm_cuda_backend* b, const dfm_cuda_model_desc* desc, char* err,
                                             size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    free_model(b);
    const dfm_vbd_view* h = desc->host;
    dfm_vbd_view* v = &b->view;
    const int32_t n = h->particle_count, T = desc->tri_count, E = desc->edge_count, K = desc->tet_count;
    v->particle_count = n;
    UP(mass, n, const float);
    UP(drag, n, const float);
    UP(radius, n, const float);
    UP(mode, n, const uint8_t);
    UP(x, 3 * n, float);
    UP(v, 3 * n, float);
    UP(x_prev, 3 * n, float);
    UP(d, 3 * n, float);
    UP(y, 3 * n, float);
    UP(kin_start, 3 * n, const float);
    UP(kin_target, 3 * n, const float);
    v->edge_count = E;
    UP(tris, 3 * T, const int32_t);
    UP(tri_dinv, 4 * T, const float);
    UP(tri_area, T, const float);
    UP(tri_material, 3 * T, const float);
    UP(edges, 4 * E, const int32_t);
    UP(edge_rest_angle, E, const float);
    UP(edge_rest_length, E, const float);
    UP(edge_material, 2 * E, const float);
    UP(edge_start_angle, E, float);
    UP(tets, 4 * K, const int32_t);
    UP(tet_dminv, 9 * K, const float);
    UP(tet_volume, K, const float);
    UP(tet_material, 3 * K, const float);
    UP(v_tri_offsets, n + 1, const int32_t);
    UP(v_tri_items, 2 * h->v_tri_offsets[n], const int32_t);
    UP(v_edge_offsets, n + 1, const int32_t);
    UP(v_edge_items, 2 * h->v_edge_offsets[n], const int32_t);
    UP(v_tet_offsets, n + 1, const int32_t);
    UP(v_tet_items, 2 * h->v_tet_offsets[n], const int32_t);
    v->guess_normal = NULL;
    v->guess_gap = NULL;
    void* cp = NULL;
    int r = upload(b, &cp, desc->color_particles, (size_t)n * sizeof(int32_t), err, err_size);
    if (r) {
        free_model(b);
        return r;
    }
    b->color_particles = (int32_t*)cp;
    r = upload(b, &cp, desc->particle_color, (size_t)n * sizeof(int32_t), err, err_size);
    if (r) {
        free_model(b);
        return r;
    }
    b->particle_color = (int32_t*)cp;
    b->color_count = desc->color_count;
    b->color_offsets = (int32_t*)malloc(((size_t)desc->color_count + 1u) * sizeof(int32_t));
    if (!b->color_offsets) {
        free_model(b);
        snprintf(err, err_size, "out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(b->color_offsets, desc->color_offsets, ((size_t)desc->color_count + 1u) * sizeof(int32_t));
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    return 0;
}

extern "C" int dfm_cuda_backend_upload_state(dfm_cuda_backend* b, const dfm_vbd_view* h, char* err, size_t err_size) {
    DFM_CUDA_TRY(cudaSetDevice(b->device));
    size_t n = (size_t)b->view.particle_count;
    DFM_CUDA_TRY(cudaMemcpyAsync(b->view.x, h->x, 3 * n * sizeof(float), cudaMemcpyHostToDevice, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync(b->view.v, h->v, 3 * n * sizeof(float), cudaMemcpyHostToDevice, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync((void*)b->view.mode, h->mode, n, cudaMemcpyHostToDevice, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync((void*)b->view.kin_start, h->kin_start, 3 * n * sizeof(float),
                                 cudaMemcpyHostToDevice, b->stream));
    DFM_CUDA_TRY(cudaMemcpyAsync((void*)b->view.kin_target, h->kin_target, 3 * n * sizeof(float),
                                 cudaMemcpyHostToDevice, b->stream));
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
    return dfm_cuda_contacts_upload(&b->contacts, desc, b->view.particle_count, b->stream, err, err_size);
}

/// Enqueues one whole step on the stream (eager, or while the stream is being captured).
static int enqueue_step(dfm_cuda_backend* b, dfm_vbd_view v, const dfm_cuda_step_desc* d, char* err, size_t err_size) {
    const int32_t n = v.particle_count, substeps = d->substeps;
    dfm_cuda_contacts* c = &b->contacts;
    const int contacts = c->shape_count > 0;
    const uint32_t flags = d->disable_flags;
    if (contacts) {
        int r = dfm_cuda_contacts_begin_step(c, b->stream, err, err_size);
        if (r) return r;
    }
    for (int32_t s = 0; s < substeps; ++s) {
        float alpha = (float)(s + 1) / (float)substeps;
        dfm_cuda_advance a;
        memset(&a, 0, sizeof(a));
        a.vbd = v;
        a.particle_color = b->particle_color;
        a.deterministic = d->deterministic;
        a.advance = s;
        int mode = SOLVE_NO_CONTACTS;
        if (contacts) {
            a.view = dfm_cuda_contacts_view(c, s, d->penalty_beta, d->penalty_start, flags);
            a.view.particle_mass = v.mass;
            int r = dfm_cuda_contacts_detect(c, &a, b->stream, err, err_size);
            if (r) return r;
            a.vbd.guess_normal = c->guess_normal;
            a.vbd.guess_gap = c->guess_gap;
            mode = (flags & DFM_DISABLE_CONTACT_LISTS) ? SOLVE_SCATTERED : SOLVE_GATHER;
        }
        predict_kernel<<<grid_for(n), DFM_CUDA_BLOCK, 0, b->stream>>>(a.vbd, alpha);
        DFM_CUDA_TRY(cudaGetLastError());
        if (v.edge_count > 0) {
            edge_angle_kernel<<<grid_for(v.edge_count), DFM_CUDA_BLOCK, 0, b->stream>>>(a.vbd);
            DFM_CUDA_TRY(cudaGetLastError());
        }
        for (int32_t it = 0; it < d->iterations; ++it) {
            if (contacts && d->penalty_beta > 0.0f) {
                int r = dfm_cuda_contacts_penalties(c, &a, b->stream, err, err_size);
                if (r) return r;
            }
            for (int32_t col = 0; col < b->color_count; ++col) {
                int32_t begin = b->color_offsets[col], count = b->color_offsets[col + 1] - begin;
                if (count == 0) continue;
                if (mode == SOLVE_SCATTERED) {
                    int r = dfm_cuda_contacts_scatter(c, &a, b->color_particles + begin, count, col, b->stream, err,
                                                      err_size);
                    if (r) return r;
                }
                solve_color_kernel<<<grid_for(count), DFM_CUDA_BLOCK, 0, b->stream>>>(
                    a.vbd, a.view, mode, c->acc_f, c->acc_H, b->color_particles + begin, count);
                DFM_CUDA_TRY(cudaGetLastError());
            }
        }
        if (contacts) {
            if (!(flags & DFM_DISABLE_STATIC_FRICTION))
                for (int32_t col = 0; col < b->color_count; ++col) {
                    int32_t begin = b->color_offsets[col], count = b->color_offsets[col + 1] - begin;
                    if (count == 0) continue;
                    int r = dfm_cuda_contacts_friction(c, &a, b->color_particles + begin, count, b->stream, err, err_size);
                    if (r) return r;
                }
            int r = dfm_cuda_contacts_finalize(c, &a, b->stream, err, err_size);
            if (r) return r;
        }
        velocity_kernel<<<grid_for(n), DFM_CUDA_BLOCK, 0, b->stream>>>(a.vbd);
        DFM_CUDA_TRY(cudaGetLastError());
    }
    DFM_CUDA_TRY(cudaMemcpyAsync((void*)v.kin_start, v.kin_target, 3 * (size_t)n * sizeof(float),
                                 cudaMemcpyDeviceToDevice, b->stream));
    return 0;
}

/// The settings a captured graph depends on (shape data excluded: it is copied before each launch).
static void step_key(const dfm_cuda_step_desc* d, float key[12]) {
    key[0] = d->dt;
    key[1] = d->gravity[0];
    key[2] = d->gravity[1];
    key[3] = d->gravity[2];
    key[4] = (float)d->substeps;
    key[5] = (float)d->iterations;
    key[6] = (float)(d->disable_flags & 0xFFFFu);
    key[7] = (float)(d->disable_flags >> 16);
    key[8] = (float)d->deterministic;
    key[9] = d->penalty_beta;
    key[10] = d->penalty_start;
    key[11] = 0.0f;
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
    if (c->shape_count > 0) {
        int32_t old_rt = c->rt_advances, old_counters = c->counter_advances;
        int r = dfm_cuda_contacts_reserve(c, d->substeps, err, err_size);
        if (r) return r;
        if (c->rt_advances != old_rt || c->counter_advances != old_counters) free_graph(b);
        /* Stage this step's shape records with the device copies of the mesh grids, one copy. */
        size_t per = (size_t)c->shape_count;
        for (int32_t s = 0; s < d->substeps; ++s)
            for (size_t k = 0; k < per; ++k) {
                dfm_shape_rt r_ = d->shapes[(size_t)s * per + k];
                if (c->grid_values[k]) r_.geom.grid.values = c->grid_values[k];
                c->rt_staging[(size_t)s * per + k] = r_;
            }
        DFM_CUDA_TRY(cudaMemcpyAsync(c->rt, c->rt_staging, (size_t)d->substeps * per * sizeof(dfm_shape_rt),
                                     cudaMemcpyHostToDevice, b->stream));
    }
    if (d->disable_flags & DFM_DISABLE_GRAPH_CAPTURE) {
        free_graph(b);
        int r = enqueue_step(b, v, d, err, err_size);
        if (r) return r;
    } else {
        float key[12];
        step_key(d, key);
        if (b->graph && memcmp(key, b->graph_key, sizeof(key)) != 0) free_graph(b);
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
            memcpy(b->graph_key, key, sizeof(key));
        }
        DFM_CUDA_TRY(cudaGraphLaunch(b->graph, b->stream));
    }
    int32_t max_pen_bits = 0;
    if (c->shape_count > 0 && out) {
        int r = dfm_cuda_contacts_download(c, d->substeps, out->emitted, out->kind_counts, &max_pen_bits,
                                           out->shape_impulse, b->stream, err, err_size);
        if (r) return r;
    }
    DFM_CUDA_TRY(cudaStreamSynchronize(b->stream));
    if (out) memcpy(&out->max_penetration, &max_pen_bits, sizeof(float));
    return 0;
}
