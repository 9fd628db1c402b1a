/// @file vbd_cuda_sweep_shared.cuh
/// The shared-memory per-body sweep (issue 15, second slice; DFM_CUDA_BODY_SWEEP=2): one block
/// owns a body, stages the body's particle state (x, x_prev, d, y) in shared memory, runs every
/// color of every iteration of the substep there (block barrier between colors) and writes x and
/// d back once. Included by vbd_cuda.cu only, after its per-particle device functions
/// (serial_particle, tiled_particle) and its upload helpers, so the per-particle solve is the very
/// code the per-color kernels run; only where the solve reads positions from changes.
///
/// Parallelism review (seed 001) of solve_body_staged_kernel:
/// - P1 applies-and-done: the substep's iterations x colors are the serial chain (Gauss-Seidel);
///   they run inside one launch with one __syncthreads() per color instead of one launch per
///   color (iterations stay separate launches only where a penalty update, the body-level solve
///   or the host-body coupling runs between them).
/// - P2 applies-and-done: a block per body; within a color every particle is independent, one
///   thread per particle (serial layout) or 16 lanes per particle with a fixed butterfly (tiled
///   layout), the same layout the per-color path picks for that color, so the results are bitwise
///   the per-color path's. No atomics.
/// - P3 applies-TODO: element data is read from global memory through L1 here; mode 3
///   (vbd_cuda_sweep_resident.cuh) stages it in shared memory for the bodies that fit, and this
///   kernel runs the others. The membrane and hinge coefficients stay per visit on both (bitwise
///   parity with the per-color path; budget in docs/perf.md, "the shared-memory sweep").
/// - P4 applies-TODO: staging and write-back are flat coalesced copies of the body's contiguous
///   range; inside the sweep the neighbour reads are indexed gathers from shared memory (12-byte
///   stride, bank conflicts not measured); particles are not renumbered by color, element and
///   adjacency arrays are the model's global SoA (local 16-bit indices would halve them).
#ifndef DFM_VBD_CUDA_SWEEP_SHARED_CUH
#define DFM_VBD_CUDA_SWEEP_SHARED_CUH

/// Tiers of the shared sweeps, one per block (counted in dfm_cuda_backend.sweep_runs): resident
/// (particles and elements staged: vbd_cuda_sweep_resident.cuh, mode 3), particles staged (this
/// file), global memory (this file's fallback).
enum { DFM_SWEEP_TIER_RESIDENT = 0, DFM_SWEEP_TIER_STAGED = 1, DFM_SWEEP_TIER_GLOBAL = 2, DFM_SWEEP_TIERS = 3 };

/// Shared memory per staged particle, bytes: x, x_prev, d and y, 3 floats each.
#define DFM_SWEEP_PARTICLE_BYTES 48

/// Layouts of the shared sweep's colors (a template parameter: a kernel compiled for one layout
/// needs fewer registers than one that holds both: ptxas 103 and 100 against 118 for the cloth).
enum { DFM_SWEEP_MIXED = 0, DFM_SWEEP_SERIAL = 1, DFM_SWEEP_TILED = 2 };

/// Default largest block of the shared sweep (threads) when DFM_CUDA_SWEEP_BLOCK is not set: the
/// block is sized to the widest color of a body (one pass per color), up to this.
#define DFM_SWEEP_SHARED_BLOCK_MAX 512

/// `iterations` sweeps over every color of body `body`, run by every thread of the block (each
/// color ends in a __syncthreads(), reached by all threads: the loops around it are uniform per
/// block). serial[col]: 1 = one thread per particle (serial_particle), 0 = two particles per warp
/// (tiled_particle); LAYOUT other than DFM_SWEEP_MIXED: every color has that layout (serial is
/// then not read). v's state pointers are global memory or the block's staged copy.
template <int TET_ONLY, int LAYOUT>
__device__ __forceinline__ void body_sweeps(const dfm_vbd_view& v, const dfm_contact_view& c, int mode,
                                            const float* acc_f, const float* acc_H,
                                            const int32_t* __restrict__ particles, const int32_t* __restrict__ ranges,
                                            const uint8_t* __restrict__ serial, int32_t color_count, int32_t iterations,
                                            int32_t body) {
    const int32_t tid = (int32_t)threadIdx.x, threads = (int32_t)blockDim.x;
    const int32_t warp = tid >> 5, lane = tid & 31, half = lane >> 4, sub = lane & 15;
    const int32_t per_pass = threads >> 4; /* tiled: particles per pass, one per half warp */
    const unsigned mask = 0xFFFFu << (16 * half);
    const int32_t* r = ranges + 2 * (int64_t)body * color_count;
    for (int32_t it = 0; it < iterations; ++it)
        for (int32_t col = 0; col < color_count; ++col) {
            const int32_t begin = r[2 * col], count = r[2 * col + 1];
            if (LAYOUT == DFM_SWEEP_SERIAL || (LAYOUT == DFM_SWEEP_MIXED && serial[col])) {
                for (int32_t k = tid; k < count; k += threads)
                    serial_particle(v, c, mode, acc_f, acc_H, particles[begin + k]);
            } else {
                for (int32_t slot = 2 * warp + half; slot < count; slot += per_pass) { /* uniform per half warp */
                    const int32_t i = particles[begin + slot];
                    if (v.mode[i] != 0) continue; /* uniform per half warp */
                    tiled_particle<TET_ONLY>(v, c, mode, acc_f, acc_H, i, sub, mask);
                }
            }
            /* The color's writes (d and x of its particles, shared or global) before the next color
             * reads them as neighbours; and no thread writes the next color before every thread
             * has read this color's neighbours. */
            __syncthreads();
        }
}

/// The substep's (or, with work between iterations, one iteration's) sweeps of the bodies in
/// `bodies` (mode 2: all of them; mode 3: those not resident, vbd_cuda_sweep_resident.cuh), one
/// block per body (parallelism review in the file comment). Thread 0 counts the block's tier in
/// runs[] (DFM_SWEEP_TIER_STAGED or _GLOBAL; one integer atomicAdd, order-free). A body of at most staged_max particles
/// is staged: its x, x_prev, d and y are copied into dynamic shared memory (12 * staged_max floats),
/// the solve runs on a view whose x, x_prev, d and y point into that copy, and x and d are written
/// back at the end (x_prev and y do not change in a sweep). A larger body runs the same sweeps on
/// global memory (the fallback; __syncthreads() also orders global memory within the block). The
/// staged view's pointers are rebased by the body's first particle: the solve indexes them with
/// global particle ids, and every id it forms (element corners, contact record corners) lies in
/// [first, first + n) (checked at upload: sweep_shared_setup, sweep_shared_features), so every
/// address formed lies in the staged copy.
///
/// Shared-memory hazards: the staging writes (each thread its own entries q) are separated from
/// the sweep's reads by the barrier after the copy; within the sweep a color's particle writes
/// only its own d and x (lane 0 or its thread) and reads only other colors' entries (elements and
/// contact records join particles of different colors), with a barrier after each color; the
/// write-back reads entries the sweep's last barrier published, or, with no color or iteration,
/// only the entries the same thread staged.
template <int TET_ONLY, int LAYOUT>
__global__ void solve_body_staged_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f,
                                         const float* acc_H, const int32_t* __restrict__ particles,
                                         const int32_t* __restrict__ ranges, const uint8_t* __restrict__ serial,
                                         const int32_t* __restrict__ body_offsets, const int32_t* __restrict__ bodies,
                                         int32_t color_count, int32_t iterations, int32_t staged_max,
                                         unsigned long long* runs) {
    extern __shared__ float s_state[];
    const int32_t body = bodies[blockIdx.x];
    const int32_t first = body_offsets[body], n = body_offsets[body + 1] - first;
    if (threadIdx.x == 0) atomicAdd(runs + (n > staged_max ? DFM_SWEEP_TIER_GLOBAL : DFM_SWEEP_TIER_STAGED), 1ull);
    if (n > staged_max) { /* uniform per block: the fallback on global memory */
        body_sweeps<TET_ONLY, LAYOUT>(v, c, mode, acc_f, acc_H, particles, ranges, serial, color_count, iterations,
                                      body);
        return;
    }
    const int32_t n3 = 3 * n;
    float* s_x = s_state;
    float* s_xp = s_x + n3;
    float* s_d = s_xp + n3;
    float* s_y = s_d + n3;
    float* gx = v.x + 3 * (int64_t)first;
    float* gd = v.d + 3 * (int64_t)first;
    const float* gxp = v.x_prev + 3 * (int64_t)first;
    const float* gy = v.y + 3 * (int64_t)first;
    for (int32_t q = (int32_t)threadIdx.x; q < n3; q += (int32_t)blockDim.x) { /* coalesced */
        s_x[q] = gx[q];
        s_xp[q] = gxp[q];
        s_d[q] = gd[q];
        s_y[q] = gy[q];
    }
    __syncthreads();
    dfm_vbd_view sv = v;
    const ptrdiff_t shift = 3 * (ptrdiff_t)first;
    sv.x = s_x - shift;
    sv.x_prev = s_xp - shift;
    sv.d = s_d - shift;
    sv.y = s_y - shift;
    body_sweeps<TET_ONLY, LAYOUT>(sv, c, mode, acc_f, acc_H, particles, ranges, serial, color_count, iterations, body);
    for (int32_t q = (int32_t)threadIdx.x; q < n3; q += (int32_t)blockDim.x) {
        gx[q] = s_x[q];
        gd[q] = s_d[q];
    }
}

/// The body of particle p (a binary search of the host copy of body_offsets, ascending).
static int32_t sweep_body_of(const int32_t* offsets, int32_t body_count, int32_t p) {
    int32_t lo = 0, hi = body_count; /* offsets[lo] <= p < offsets[hi] */
    while (hi - lo > 1) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/// 1 when each of `count` items of `width` particle ids (-1 padding allowed) lies in one body.
static int sweep_items_in_one_body(const int32_t* ids, int32_t count, int width, const int32_t* offsets,
                                   int32_t body_count) {
    for (int32_t k = 0; k < count; ++k) {
        const int32_t p0 = ids[(int64_t)width * k];
        if (p0 < 0) return 0;
        const int32_t b0 = sweep_body_of(offsets, body_count, p0);
        for (int j = 1; j < width; ++j) {
            const int32_t p = ids[(int64_t)width * k + j];
            if (p >= 0 && (p < offsets[b0] || p >= offsets[b0 + 1])) return 0;
        }
    }
    return 1;
}

/// The shared sweep's knob (at creation, after the other sweep knobs): DFM_CUDA_SWEEP_SHARED, the
/// dynamic shared memory a block may stage in bytes, in [0, the device's opt-in limit per block]
/// (default the limit; a smaller value sends larger bodies to the global fallback, 0 all of them).
static int sweep_shared_knobs(dfm_cuda_backend* b, int device, char* err, size_t err_size) {
    int optin = 0;
    DFM_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    b->sweep_shared_limit = optin;
    b->sweep_shared_cap = optin;
    b->sweep_block_set = getenv("DFM_CUDA_SWEEP_BLOCK") != NULL;
    const char* e = getenv("DFM_CUDA_SWEEP_SHARED");
    if (e) {
        char* end = NULL;
        const long v = strtol(e, &end, 10);
        if (end == e || *end != '\0' || v < 0 || v > optin) {
            snprintf(err, err_size,
                     "DFM_CUDA_SWEEP_SHARED=%s: must be an integer in [0, %d] (bytes; the device's limit)", e, optin);
            return DFM_ERROR_INVALID_VALUE;
        }
        b->sweep_shared_cap = (int32_t)v;
    }
    return 0;
}

/// Calls f.template run<TET_ONLY, LAYOUT>() for the instantiation a layout and the tet-only choice
/// pick (the serial layout has one: TET_ONLY changes only the tiled solve). Shared by mode 2's
/// launch and the resident one.
template <class F>
static void sweep_dispatch(int layout, int tet, const F& f) {
    if (layout == DFM_SWEEP_SERIAL)
        f.template run<0, DFM_SWEEP_SERIAL>();
    else if (layout == DFM_SWEEP_TILED && tet)
        f.template run<1, DFM_SWEEP_TILED>();
    else if (layout == DFM_SWEEP_TILED)
        f.template run<0, DFM_SWEEP_TILED>();
    else if (tet)
        f.template run<1, DFM_SWEEP_MIXED>();
    else
        f.template run<0, DFM_SWEEP_MIXED>();
}

/// Reads the attributes of the two kernels k[0..1] (the instantiations a layout launches: generic and
/// tet-only, the same one twice for the serial layout) into fa[0..1], raises their dynamic shared
/// memory limit to `smem` when it is above the 48 KB default, and with prefer_shared asks for the
/// largest shared-memory carveout. Shared by mode 2's kernels and the resident ones.
static int sweep_kernels_setup(const void* const k[2], size_t smem, int prefer_shared, cudaFuncAttributes fa[2],
                               char* err, size_t err_size) {
    for (int j = 0; j < 2; ++j) {
        DFM_CUDA_TRY(cudaFuncGetAttributes(&fa[j], k[j]));
        if (smem > 48u * 1024u)
            DFM_CUDA_TRY(cudaFuncSetAttribute(k[j], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        if (prefer_shared)
            DFM_CUDA_TRY(cudaFuncSetAttribute(k[j], cudaFuncAttributePreferredSharedMemoryCarveout,
                                              (int)cudaSharedmemCarveoutMaxShared));
    }
    return 0;
}

/// Stores the instantiation run<TET_ONLY, LAYOUT> names (for sweep_dispatch).
struct staged_kernel_ptr {
    const void** out;
    template <int TET_ONLY, int LAYOUT>
    void run() const {
        *out = (const void*)solve_body_staged_kernel<TET_ONLY, LAYOUT>;
    }
};

/// Mode 2's two instantiations for a layout, generic and tet-only (as sweep_kernels_setup takes them).
static void staged_kernels(int layout, const void* k[2]) {
    for (int tet = 0; tet < 2; ++tet) sweep_dispatch(layout, tet, staged_kernel_ptr{&k[tet]});
}

/// The shared sweep's per-model data, at upload (body_count > 0, b->sweep_ok, `ranges`: the host
/// copy of b->body_color_ranges): whether the model qualifies (every element's corners in one
/// body: the staged view only holds its body), each color's layout (serial when the per-color path
/// runs it serially: more than tiled_max_count particles), the largest staged body, the block
/// size and the kernels' shared-memory limit. A model that does not qualify runs the per-color
/// path (sweep_shared_ok 0).
static int sweep_shared_setup(dfm_cuda_backend* b, const dfm_cuda_model_desc* desc, const int32_t* ranges, char* err,
                              size_t err_size) {
    b->sweep_shared_ok = 0;
    if (b->body_sweep < 2) return 0;
    const dfm_vbd_view* h = desc->host;
    const int32_t nb = desc->body_count, nc = desc->color_count;
    const int32_t* off = desc->body_offsets;
    if (!sweep_items_in_one_body(h->tris, desc->tri_count, 3, off, nb) ||
        !sweep_items_in_one_body(h->edges, desc->edge_count, 4, off, nb) ||
        !sweep_items_in_one_body(h->tets, desc->tet_count, 4, off, nb))
        return 0;
    b->sweep_offsets_host = (int32_t*)malloc(((size_t)nb + 1u) * sizeof(int32_t));
    uint8_t* serial = (uint8_t*)malloc((size_t)nc);
    if (!b->sweep_offsets_host || !serial) {
        free(serial);
        snprintf(err, err_size, "out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(b->sweep_offsets_host, off, ((size_t)nb + 1u) * sizeof(int32_t));
    int32_t serial_colors = 0;
    for (int32_t col = 0; col < nc; ++col) {
        serial[col] = desc->color_offsets[col + 1] - desc->color_offsets[col] > b->tiled_max_count;
        serial_colors += serial[col];
    }
    const int layout = serial_colors == nc ? DFM_SWEEP_SERIAL
                                           : (serial_colors == 0 ? DFM_SWEEP_TILED : DFM_SWEEP_MIXED);
    /* The block: one pass over the widest color of any body (a thread per particle, or 16 lanes). */
    int64_t need = 32;
    for (int32_t k = 0; k < nb; ++k)
        for (int32_t col = 0; col < nc; ++col) {
            const int64_t count = ranges[2 * ((int64_t)k * nc + col) + 1];
            const int64_t t = serial[col] ? count : 16 * count;
            if (t > need) need = t;
        }
    int32_t block = (int32_t)((need + 31) / 32 * 32);
    if (block > DFM_SWEEP_SHARED_BLOCK_MAX) block = DFM_SWEEP_SHARED_BLOCK_MAX;
    if (b->sweep_block_set) block = b->sweep_block;
    /* The largest body that fits the cap; larger ones take the fallback. */
    const int64_t cap_particles = (int64_t)b->sweep_shared_cap / DFM_SWEEP_PARTICLE_BYTES;
    int32_t staged = 0;
    for (int32_t k = 0; k < nb; ++k) {
        const int32_t n = off[k + 1] - off[k];
        if (n <= cap_particles && n > staged) staged = n;
    }
    const size_t smem = (size_t)staged * DFM_SWEEP_PARTICLE_BYTES;
    cudaFuncAttributes fa[2];
    const void* kernels[2];
    staged_kernels(layout, kernels);
    int r = sweep_kernels_setup(kernels, smem, 0, fa, err, err_size);
    if (r) {
        free(serial);
        return r;
    }
    for (int k = 0; k < 2; ++k) {
        const int32_t most = fa[k].maxThreadsPerBlock / 32 * 32;
        if (smem + fa[k].sharedSizeBytes > (size_t)b->sweep_shared_limit) {
            free(serial);
            snprintf(err, err_size, "internal: shared sweep needs %zu + %zu bytes of shared memory, device limit %d",
                     smem, (size_t)fa[k].sharedSizeBytes, b->sweep_shared_limit);
            return DFM_ERROR_INVALID_STATE;
        }
        if (block > most && b->sweep_block_set) {
            free(serial);
            snprintf(
                err, err_size,
                "DFM_CUDA_SWEEP_BLOCK=%d: the shared sweep kernel runs at most %d threads per block (%d registers)",
                block, most, fa[k].numRegs);
            return DFM_ERROR_INVALID_VALUE;
        }
        if (block > most) block = most;
    }
    void* p = NULL;
    r = upload(b, &p, serial, (size_t)nc, err, err_size);
    free(serial);
    if (r) return r;
    b->sweep_color_serial = (uint8_t*)p;
    r = upload(b, &p, NULL, DFM_SWEEP_TIERS * sizeof(unsigned long long), err, err_size); /* zero-filled */
    if (r) return r;
    b->sweep_runs = (unsigned long long*)p;
    b->sweep_staged_max = staged;
    b->sweep_shared_block = block;
    b->sweep_layout = layout;
    b->sweep_shared_ok = 1;
    return 0;
}

/// At a contact upload: whether every contact feature's corners lie in one body (the gather then
/// reads only its body's staged displacements); no contacts: 1.
static void sweep_shared_features(dfm_cuda_backend* b, const dfm_cuda_contacts_desc* desc) {
    b->sweep_features_ok = 1;
    if (!b->sweep_offsets_host || desc->shape_count == 0) return;
    const int32_t* off = b->sweep_offsets_host;
    const int32_t nb = b->body_count;
    b->sweep_features_ok = sweep_items_in_one_body(desc->feat_edges, desc->feat_edge_count, 2, off, nb) &&
                           sweep_items_in_one_body(desc->feat_faces, desc->feat_face_count, 3, off, nb);
}

/// Launches mode 2's sweep over the bodies that are not resident (the body list after its
/// b->sweep_resident_count resident ones: all of them in mode 2), `iterations` sweeps.
struct staged_launch {
    dfm_cuda_backend* b;
    const dfm_cuda_advance* a;
    int mode;
    int32_t iterations;
    template <int TET_ONLY, int LAYOUT>
    void run() const {
        const dfm_cuda_contacts* c = &b->contacts;
        const size_t smem = (size_t)b->sweep_staged_max * DFM_SWEEP_PARTICLE_BYTES;
        solve_body_staged_kernel<TET_ONLY, LAYOUT>
            <<<(unsigned)b->sweep_rest_count, b->sweep_shared_block, smem, b->stream>>>(
                a->vbd, a->view, mode, c->acc_f, c->acc_H, b->color_particles, b->body_color_ranges,
                b->sweep_color_serial, b->body_offsets, b->sweep_body_list + b->sweep_resident_count, b->color_count,
                iterations, b->sweep_staged_max, b->sweep_runs);
    }
};

/// The shared sweep over the bodies that are not resident, `iterations` sweeps in one launch.
static int launch_body_staged(dfm_cuda_backend* b, const dfm_cuda_advance& a, int mode, uint32_t flags,
                              int32_t iterations, char* err, size_t err_size) {
    const int tet = b->tet_only && !(flags & DFM_DISABLE_TET_KERNEL);
    sweep_dispatch(b->sweep_layout, tet, staged_launch{b, &a, mode, iterations});
    DFM_CUDA_TRY(cudaGetLastError());
    return 0;
}

#endif
