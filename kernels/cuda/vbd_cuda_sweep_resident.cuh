/// @file vbd_cuda_sweep_resident.cuh
/// The resident per-body sweep (issue 15, third slice; DFM_CUDA_BODY_SWEEP=3): mode 2's shared-memory
/// sweep (vbd_cuda_sweep_shared.cuh) with the body's element data staged too, so that a body that
/// fits is resident in its block's shared memory for the whole substep: particle state (x, x_prev,
/// d, y), mass, drag and mode, the three adjacency CSRs (offsets and items) and the triangles',
/// hinges' and tets' indices and per-element constants (D^-1 / Dm^-1, area / volume, material,
/// rest angle and length, the advance's hinge start angles, the step's tet coefficients). The
/// colour sweeps then read nothing from global memory but the contact lists and records. Bodies
/// that do not fit keep mode 2's path (particles staged, or the global fallback), chosen per body
/// at upload; both launches run in the same place of the step. Included by vbd_cuda.cu only,
/// after vbd_cuda_sweep_shared.cuh (whose body_sweeps it runs: bitwise the per-color path's
/// per-particle code; only where every array is read from changes).
///
/// Parallelism review (seed 001) of solve_body_resident_kernel:
/// - P1 applies-and-done: as mode 2 (the substep's iterations x colors in one launch, one
///   __syncthreads() per color; a launch per iteration where a penalty update, the body-level
///   solve or the host-body coupling runs between them).
/// - P2 applies-and-done: a block per resident body, each color's layout the per-color path's
///   (serial: a thread per particle; tiled: 16 lanes per particle, two per warp); no atomics in the
///   solve (one integer atomicAdd per block counts the tier, order-free).
/// - P3 applies-and-done for what the global path precomputes (rest data at body creation, hinge
///   start angles per advance, tet coefficients per step): staged once per launch, read from shared
///   memory in every colour of every iteration. applies-TODO: the membrane and hinge coefficients
///   (a division each) stay per visit, because the per-color path computes them per visit on
///   CUDA and a table load could round differently from the inlined expression under FMA
///   contraction (bitwise parity with mode 0 is this path's contract); hoisting them into the
///   staged table is the next P3 step, to be made on both paths at once.
/// - P4 applies-and-done for the staging: every staged array is one contiguous slice of the
///   model's element-ordered SoA array (a body's elements, incidences and particles are
///   contiguous index ranges), copied with coalesced 4-byte loads, each slice at a 16-byte
///   boundary. Inside the sweep all reads are shared-memory gathers (bank conflicts not measured).
///   applies-TODO: particles and elements are not renumbered by colour (the staged layout keeps
///   the model's order, so the indices in it are the model's and the shared per-particle code
///   reads them unchanged); 16-bit local indices would cut the budget to ~150 KB (docs/perf.md).
///
/// Data movement of a 24 x 24 cloth body (576 particles, 1058 triangles, 1541 hinges), from global
/// memory: mode 2 reads 27.6 KB of particle state per launch, then per sweep (an iteration, 6
/// colors) ~188 KB of element data, adjacency and mass/drag/mode (once per element if its 3-4
/// visits hit L1/L2, up to ~2.3x that if they miss) plus the contact lists and records; this
/// kernel reads 211.5 KB once per launch (the substep's 10 sweeps), writes 13.8 KB, and per sweep
/// reads only the contact lists and records. Cloth-lift at 1024 environments: ~9.4-20 GB per step
/// -> ~0.9 GB of staging + <= 1.6 GB of contact data. Predicted (docs/perf.md, "third slice"; not
/// yet measured): one block per SM (211.5 KB) with 3-4 warps, so latency-bound rather than
/// byte-bound: cloth-lift 27.9k -> ~35k env-steps/s at 1024 environments (range 30k-43k), soft-lift
/// ~34k (0.8-1.2x mode 2: 2 blocks of 2 warps per SM against mode 2's 9).
#ifndef DFM_VBD_CUDA_SWEEP_RESIDENT_CUH
#define DFM_VBD_CUDA_SWEEP_RESIDENT_CUH

/// Where one body's data lies in the model's arrays (index ranges the staging copies). Every index
/// the body's solve forms lies in these ranges: particles [first, first + n) (its elements'
/// corners, checked at upload), elements [*_lo, *_lo + *_n) (the smallest range holding every
/// element its particles' adjacency names), incidences [*_item_lo, *_item_lo + *_item_n) (its
/// particles' CSR rows, contiguous because its particles are).
typedef struct dfm_sweep_resident_body {
    int32_t first, n;
    int32_t tri_lo, tri_n, edge_lo, edge_n, tet_lo, tet_n;
    int32_t tri_item_lo, tri_item_n, edge_item_lo, edge_item_n, tet_item_lo, tet_item_n;
    int32_t words; ///< Shared memory it needs, 4-byte words (sweep_resident_layout).
    int32_t pad_;
} dfm_sweep_resident_body;

/// Slots of the resident layout, in the order they lie in shared memory.
enum {
    RS_X,
    RS_XP,
    RS_D,
    RS_Y,
    RS_MASS,
    RS_DRAG,
    RS_TRI_OFF,
    RS_EDGE_OFF,
    RS_TET_OFF,
    RS_TRI_ITEMS,
    RS_EDGE_ITEMS,
    RS_TET_ITEMS,
    RS_TRIS,
    RS_TRI_DINV,
    RS_TRI_AREA,
    RS_TRI_MAT,
    RS_EDGES,
    RS_EDGE_REST_ANGLE,
    RS_EDGE_REST_LENGTH,
    RS_EDGE_MAT,
    RS_EDGE_START,
    RS_TETS,
    RS_TET_DMINV,
    RS_TET_VOLUME,
    RS_TET_MAT,
    RS_TET_COEF,
    RS_MODE,
    RS_COUNT
};

/// Words rounded up to 16 bytes (every slot starts 16-byte aligned).
__host__ __device__ __forceinline__ int32_t rs_pad4(int32_t words) { return (words + 3) & ~3; }

/// The body's shared-memory layout: slot s starts at word off[s]; returns the total in words. The
/// same function on the host (the budget at upload) and in the kernel (the staging), so both agree.
/// The hinge start angles and tet coefficients always get their slots (staged when the view has them).
__host__ __device__ __forceinline__ int32_t sweep_resident_layout(const dfm_sweep_resident_body& r,
                                                                  int32_t off[RS_COUNT]) {
    int32_t size[RS_COUNT];
    const int32_t n = r.n;
    size[RS_X] = size[RS_XP] = size[RS_D] = size[RS_Y] = 3 * n;
    size[RS_MASS] = size[RS_DRAG] = n;
    size[RS_TRI_OFF] = size[RS_EDGE_OFF] = size[RS_TET_OFF] = n + 1;
    size[RS_TRI_ITEMS] = 2 * r.tri_item_n;
    size[RS_EDGE_ITEMS] = 2 * r.edge_item_n;
    size[RS_TET_ITEMS] = 2 * r.tet_item_n;
    size[RS_TRIS] = 3 * r.tri_n;
    size[RS_TRI_DINV] = 4 * r.tri_n;
    size[RS_TRI_AREA] = r.tri_n;
    size[RS_TRI_MAT] = 3 * r.tri_n;
    size[RS_EDGES] = 4 * r.edge_n;
    size[RS_EDGE_REST_ANGLE] = size[RS_EDGE_REST_LENGTH] = size[RS_EDGE_START] = r.edge_n;
    size[RS_EDGE_MAT] = 2 * r.edge_n;
    size[RS_TETS] = 4 * r.tet_n;
    size[RS_TET_DMINV] = 9 * r.tet_n;
    size[RS_TET_VOLUME] = r.tet_n;
    size[RS_TET_MAT] = size[RS_TET_COEF] = 3 * r.tet_n;
    size[RS_MODE] = (n + 3) / 4; /* bytes */
    int32_t w = 0;
    for (int s = 0; s < RS_COUNT; ++s) {
        off[s] = w;
        w += rs_pad4(size[s]);
    }
    return w;
}

/// Copies `count` items of global `src` into shared `dst`, the block's threads striding (coalesced).
template <typename T>
__device__ __forceinline__ void rs_stage(T* dst, const T* src, int32_t count) {
    for (int32_t q = (int32_t)threadIdx.x; q < count; q += (int32_t)blockDim.x) dst[q] = src[q];
}

/// The resident sweep (review in the file comment): one block per body of `bodies` (the resident
/// ones), `iterations` sweeps of every color. The block stages every array the per-particle solve
/// reads for its body (the slices of dfm_sweep_resident_body), runs body_sweeps on a view whose
/// pointers point into the staged copies, rebased by each slice's first index (the solve indexes
/// them with the model's indices, all inside the slices: checked at upload), and writes x and d
/// back (nothing else changes in a sweep). The contact view stays in global memory (its gather
/// reads the staged d of the record's corners, all in the body: checked at contact upload).
///
/// Shared-memory hazards: each staging loop writes its own slice, one entry per thread, and the
/// barrier after the last one orders them before the sweep; the sweep's hazards are mode 2's
/// (vbd_cuda_sweep_shared.cuh: a color writes only its particles' x and d, reads only other
/// colors' and its own, a barrier after each color); element slices are only read. The
/// write-back reads entries the sweep's last barrier published (with no color or iteration:
/// entries the same thread staged). No barrier is inside divergent code: the loops around
/// body_sweeps' barriers run the same trip counts in every thread of the block.
template <int TET_ONLY, int LAYOUT>
__global__ void solve_body_resident_kernel(dfm_vbd_view v, dfm_contact_view c, int mode, const float* acc_f,
                                           const float* acc_H, const int32_t* __restrict__ particles,
                                           const int32_t* __restrict__ ranges, const uint8_t* __restrict__ serial,
                                           const dfm_sweep_resident_body* __restrict__ plans,
                                           const int32_t* __restrict__ bodies, int32_t color_count, int32_t iterations,
                                           unsigned long long* runs) {
    extern __shared__ float4 s_words4[]; /* 16-byte aligned base */
    float* s = (float*)s_words4;
    const int32_t body = bodies[blockIdx.x];
    const dfm_sweep_resident_body r = plans[body];
    if (threadIdx.x == 0) atomicAdd(runs + DFM_SWEEP_TIER_RESIDENT, 1ull);
    int32_t off[RS_COUNT];
    sweep_resident_layout(r, off);
    const int32_t first = r.first, n = r.n;
    float* s_x = s + off[RS_X];
    float* s_d = s + off[RS_D];
    float* gx = v.x + 3 * (int64_t)first;
    float* gd = v.d + 3 * (int64_t)first;
    int32_t* si = (int32_t*)s;
    /* particles */
    rs_stage(s_x, (const float*)gx, 3 * n);
    rs_stage(s + off[RS_XP], (const float*)v.x_prev + 3 * (int64_t)first, 3 * n);
    rs_stage(s_d, (const float*)gd, 3 * n);
    rs_stage(s + off[RS_Y], (const float*)v.y + 3 * (int64_t)first, 3 * n);
    rs_stage(s + off[RS_MASS], v.mass + first, n);
    rs_stage(s + off[RS_DRAG], v.drag + first, n);
    rs_stage((uint8_t*)(s + off[RS_MODE]), v.mode + first, n);
    /* adjacency: the body's n + 1 offsets of each CSR and its incidences */
    rs_stage(si + off[RS_TRI_OFF], v.v_tri_offsets + first, n + 1);
    rs_stage(si + off[RS_EDGE_OFF], v.v_edge_offsets + first, n + 1);
    rs_stage(si + off[RS_TET_OFF], v.v_tet_offsets + first, n + 1);
    rs_stage(si + off[RS_TRI_ITEMS], v.v_tri_items + 2 * (int64_t)r.tri_item_lo, 2 * r.tri_item_n);
    rs_stage(si + off[RS_EDGE_ITEMS], v.v_edge_items + 2 * (int64_t)r.edge_item_lo, 2 * r.edge_item_n);
    rs_stage(si + off[RS_TET_ITEMS], v.v_tet_items + 2 * (int64_t)r.tet_item_lo, 2 * r.tet_item_n);
    /* elements */
    const int64_t t0 = r.tri_lo, e0 = r.edge_lo, k0 = r.tet_lo;
    rs_stage(si + off[RS_TRIS], v.tris + 3 * t0, 3 * r.tri_n);
    rs_stage(s + off[RS_TRI_DINV], v.tri_dinv + 4 * t0, 4 * r.tri_n);
    rs_stage(s + off[RS_TRI_AREA], v.tri_area + t0, r.tri_n);
    rs_stage(s + off[RS_TRI_MAT], v.tri_material + 3 * t0, 3 * r.tri_n);
    rs_stage(si + off[RS_EDGES], v.edges + 4 * e0, 4 * r.edge_n);
    rs_stage(s + off[RS_EDGE_REST_ANGLE], v.edge_rest_angle + e0, r.edge_n);
    rs_stage(s + off[RS_EDGE_REST_LENGTH], v.edge_rest_length + e0, r.edge_n);
    rs_stage(s + off[RS_EDGE_MAT], v.edge_material + 2 * e0, 2 * r.edge_n);
    rs_stage(s + off[RS_EDGE_START], (const float*)v.edge_start_angle + e0, r.edge_n);
    rs_stage(si + off[RS_TETS], v.tets + 4 * k0, 4 * r.tet_n);
    rs_stage(s + off[RS_TET_DMINV], v.tet_dminv + 9 * k0, 9 * r.tet_n);
    rs_stage(s + off[RS_TET_VOLUME], v.tet_volume + k0, r.tet_n);
    rs_stage(s + off[RS_TET_MAT], v.tet_material + 3 * k0, 3 * r.tet_n);
    if (v.tet_coef) rs_stage(s + off[RS_TET_COEF], (const float*)v.tet_coef + 3 * k0, 3 * r.tet_n);
    __syncthreads();
    /* The view of the resident copy: each pointer rebased by its slice's first index (times width). */
    dfm_vbd_view sv = v;
    const ptrdiff_t p3 = 3 * (ptrdiff_t)first;
    sv.x = s_x - p3;
    sv.x_prev = s + off[RS_XP] - p3;
    sv.d = s_d - p3;
    sv.y = s + off[RS_Y] - p3;
    sv.mass = s + off[RS_MASS] - first;
    sv.drag = s + off[RS_DRAG] - first;
    sv.mode = (const uint8_t*)(s + off[RS_MODE]) - first;
    sv.v_tri_offsets = si + off[RS_TRI_OFF] - first;
    sv.v_edge_offsets = si + off[RS_EDGE_OFF] - first;
    sv.v_tet_offsets = si + off[RS_TET_OFF] - first;
    sv.v_tri_items = si + off[RS_TRI_ITEMS] - 2 * (ptrdiff_t)r.tri_item_lo;
    sv.v_edge_items = si + off[RS_EDGE_ITEMS] - 2 * (ptrdiff_t)r.edge_item_lo;
    sv.v_tet_items = si + off[RS_TET_ITEMS] - 2 * (ptrdiff_t)r.tet_item_lo;
    sv.tris = si + off[RS_TRIS] - 3 * t0;
    sv.tri_dinv = s + off[RS_TRI_DINV] - 4 * t0;
    sv.tri_area = s + off[RS_TRI_AREA] - t0;
    sv.tri_material = s + off[RS_TRI_MAT] - 3 * t0;
    sv.edges = si + off[RS_EDGES] - 4 * e0;
    sv.edge_rest_angle = s + off[RS_EDGE_REST_ANGLE] - e0;
    sv.edge_rest_length = s + off[RS_EDGE_REST_LENGTH] - e0;
    sv.edge_material = s + off[RS_EDGE_MAT] - 2 * e0;
    /* Unconditional (a pointer that is shared memory or NULL would make every read a generic load):
     * the CUDA view always has the start angles (checked at setup), and the tet coefficients
     * whenever the model has tets and DFM_CUDA_TET_COEF_LOAD is 1 (a body without tets never
     * reads its slot). */
    sv.edge_start_angle = s + off[RS_EDGE_START] - e0;
    sv.tets = si + off[RS_TETS] - 4 * k0;
    sv.tet_dminv = s + off[RS_TET_DMINV] - 9 * k0;
    sv.tet_volume = s + off[RS_TET_VOLUME] - k0;
    sv.tet_material = s + off[RS_TET_MAT] - 3 * k0;
    if (DFM_CUDA_TET_COEF_LOAD) sv.tet_coef = s + off[RS_TET_COEF] - 3 * k0;
    body_sweeps<TET_ONLY, LAYOUT>(sv, c, mode, acc_f, acc_H, particles, ranges, serial, color_count, iterations, body);
    for (int32_t q = (int32_t)threadIdx.x; q < 3 * n; q += (int32_t)blockDim.x) {
        gx[q] = s_x[q];
        gd[q] = s_d[q];
    }
}

/// The smallest range [lo, lo + count) of the element ids that the incidences items[2 k] of
/// k in [k0, k1) name (count 0: none).
static void rs_element_range(const int32_t* items, int32_t k0, int32_t k1, int32_t* lo, int32_t* count) {
    int32_t a = INT32_MAX, z = -1;
    for (int32_t k = k0; k < k1; ++k) {
        const int32_t e = items[2 * (int64_t)k];
        if (e < a) a = e;
        if (e > z) z = e;
    }
    *lo = z < 0 ? 0 : a;
    *count = z < 0 ? 0 : z - a + 1;
}

/// The plan of body k (its slices and their size), from the host copy of the model.
static dfm_sweep_resident_body rs_plan(const dfm_vbd_view* h, const int32_t* off, int32_t k) {
    dfm_sweep_resident_body r;
    memset(&r, 0, sizeof(r));
    r.first = off[k];
    r.n = off[k + 1] - off[k];
    const int32_t p0 = r.first, p1 = r.first + r.n;
    r.tri_item_lo = h->v_tri_offsets[p0];
    r.tri_item_n = h->v_tri_offsets[p1] - r.tri_item_lo;
    r.edge_item_lo = h->v_edge_offsets[p0];
    r.edge_item_n = h->v_edge_offsets[p1] - r.edge_item_lo;
    r.tet_item_lo = h->v_tet_offsets[p0];
    r.tet_item_n = h->v_tet_offsets[p1] - r.tet_item_lo;
    rs_element_range(h->v_tri_items, r.tri_item_lo, r.tri_item_lo + r.tri_item_n, &r.tri_lo, &r.tri_n);
    rs_element_range(h->v_edge_items, r.edge_item_lo, r.edge_item_lo + r.edge_item_n, &r.edge_lo, &r.edge_n);
    rs_element_range(h->v_tet_items, r.tet_item_lo, r.tet_item_lo + r.tet_item_n, &r.tet_lo, &r.tet_n);
    int32_t slots[RS_COUNT];
    r.words = sweep_resident_layout(r, slots);
    return r;
}

/// Stores the instantiation run<TET_ONLY, LAYOUT> names (for sweep_dispatch).
struct resident_kernel_ptr {
    const void** out;
    template <int TET_ONLY, int LAYOUT>
    void run() const {
        *out = (const void*)solve_body_resident_kernel<TET_ONLY, LAYOUT>;
    }
};

/// The resident kernel's two instantiations for a layout (as staged_kernels).
static void resident_kernels(int layout, const void* k[2]) {
    for (int tet = 0; tet < 2; ++tet) sweep_dispatch(layout, tet, resident_kernel_ptr{&k[tet]});
}

/// The tiers of the model's bodies, after sweep_shared_setup (b->sweep_shared_ok; `desc` as there).
/// Every body's resident and particle-staged sizes go into b->sweep_body_bytes_host. With mode 3 a
/// body is resident when its layout fits both the cap (DFM_CUDA_SWEEP_SHARED) and the device limit
/// less the kernel's static shared memory; the others keep mode 2's kernel (staged if 48 n bytes fit
/// the cap, else on global memory), which then runs over the list of those bodies only. Uploads the
/// plans and the two body lists (resident first, then the rest), sets the resident kernels' limits
/// and block size, and recomputes mode 2's largest staged body over the rest.
static int sweep_resident_setup(dfm_cuda_backend* b, const dfm_cuda_model_desc* desc, char* err, size_t err_size) {
    const int32_t nb = desc->body_count;
    const int32_t* off = desc->body_offsets;
    b->sweep_resident_count = 0;
    b->sweep_rest_count = nb;
    b->sweep_body_bytes_host = (int32_t*)malloc(2u * (size_t)nb * sizeof(int32_t));
    dfm_sweep_resident_body* plans = (dfm_sweep_resident_body*)malloc((size_t)nb * sizeof(dfm_sweep_resident_body));
    int32_t* list = (int32_t*)malloc((size_t)nb * sizeof(int32_t));
    if (!b->sweep_body_bytes_host || !plans || !list) {
        free(plans);
        free(list);
        snprintf(err, err_size, "out of host memory");
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    int r = 0;
    cudaFuncAttributes fa[2];
    const void* kernels[2];
    resident_kernels(b->sweep_layout, kernels);
    /* The resident kernels' static shared memory (none today; read, not assumed) comes off the limit. */
    int64_t room = b->sweep_shared_limit;
    if (b->body_sweep == 3) r = sweep_kernels_setup(kernels, 0, 0, fa, err, err_size);
    if (b->body_sweep == 3 && !r)
        room -= (int64_t)(fa[0].sharedSizeBytes > fa[1].sharedSizeBytes ? fa[0].sharedSizeBytes
                                                                        : fa[1].sharedSizeBytes);
    /* The kernel points the hinge start angles at their slot unconditionally: without them (never
     * on CUDA today: a state array) no body is resident. */
    if (!b->view.edge_start_angle) room = -1;
    const int64_t cap = (int64_t)b->sweep_shared_cap < room ? (int64_t)b->sweep_shared_cap : room;
    int32_t resident = 0, largest = 0, staged = 0;
    for (int32_t k = 0; k < nb && !r; ++k) {
        plans[k] = rs_plan(desc->host, off, k);
        const int64_t bytes = 4 * (int64_t)plans[k].words;
        const int64_t pbytes = (int64_t)plans[k].n * DFM_SWEEP_PARTICLE_BYTES;
        b->sweep_body_bytes_host[2 * k] = bytes > INT32_MAX ? INT32_MAX : (int32_t)bytes;
        b->sweep_body_bytes_host[2 * k + 1] = (int32_t)pbytes;
        if (b->body_sweep == 3 && bytes <= cap) {
            list[resident++] = k;
            if (bytes > largest) largest = (int32_t)bytes;
        }
    }
    /* The rest after the resident bodies, in body order; mode 2's largest staged body among them. */
    for (int32_t k = 0, at = resident; k < nb && !r; ++k) {
        const int64_t bytes = 4 * (int64_t)plans[k].words;
        if (b->body_sweep == 3 && bytes <= cap) continue;
        list[at++] = k;
        if ((int64_t)plans[k].n * DFM_SWEEP_PARTICLE_BYTES <= (int64_t)b->sweep_shared_cap && plans[k].n > staged)
            staged = plans[k].n;
    }
    if (!r && b->body_sweep == 3 && resident > 0)
        /* the limit raised for the largest resident body; shared memory preferred over L1 (the kernel
         * reads nearly everything from shared memory) */
        r = sweep_kernels_setup(kernels, (size_t)largest, 1, fa, err, err_size);
    int32_t block = b->sweep_shared_block;
    for (int k = 0; k < 2 && !r && resident > 0; ++k) {
        const int32_t most = fa[k].maxThreadsPerBlock / 32 * 32;
        if (block > most && b->sweep_block_set) {
            snprintf(err, err_size,
                     "DFM_CUDA_SWEEP_BLOCK=%d: the resident sweep kernel runs at most %d threads per block (%d "
                     "registers)",
                     block, most, fa[k].numRegs);
            r = DFM_ERROR_INVALID_VALUE;
        }
        if (block > most) block = most;
    }
    void* p[2] = {NULL, NULL};
    if (!r) r = upload(b, &p[0], plans, (size_t)nb * sizeof(dfm_sweep_resident_body), err, err_size);
    if (!r) r = upload(b, &p[1], list, (size_t)nb * sizeof(int32_t), err, err_size);
    free(plans);
    free(list);
    if (r) return r;
    b->sweep_plans = (dfm_sweep_resident_body*)p[0];
    b->sweep_body_list = (int32_t*)p[1];
    b->sweep_resident_count = resident;
    b->sweep_rest_count = nb - resident;
    b->sweep_resident_bytes = largest;
    b->sweep_resident_block = block;
    b->sweep_staged_max = staged; /* mode 2's launch now covers only the rest */
    return 0;
}

/// Launches the resident sweep over the resident bodies, `iterations` sweeps (for sweep_dispatch).
struct resident_launch {
    dfm_cuda_backend* b;
    const dfm_cuda_advance* a;
    int mode;
    int32_t iterations;
    template <int TET_ONLY, int LAYOUT>
    void run() const {
        const dfm_cuda_contacts* c = &b->contacts;
        solve_body_resident_kernel<TET_ONLY, LAYOUT><<<(unsigned)b->sweep_resident_count, b->sweep_resident_block,
                                                       (size_t)b->sweep_resident_bytes, b->stream>>>(
            a->vbd, a->view, mode, c->acc_f, c->acc_H, b->color_particles, b->body_color_ranges, b->sweep_color_serial,
            b->sweep_plans, b->sweep_body_list, b->color_count, iterations, b->sweep_runs);
    }
};

/// The shared sweeps of every body, `iterations` sweeps in one launch each: the resident bodies
/// (mode 3) with the resident kernel, the others with mode 2's (over the rest of the body list).
/// The bodies are independent within a sweep (no element or contact feature joins two), so the
/// two launches' order does not change a result.
static int launch_body_shared(dfm_cuda_backend* b, const dfm_cuda_advance& a, int mode, uint32_t flags,
                              int32_t iterations, char* err, size_t err_size) {
    const int tet = b->tet_only && !(flags & DFM_DISABLE_TET_KERNEL);
    if (b->sweep_resident_count > 0) {
        sweep_dispatch(b->sweep_layout, tet, resident_launch{b, &a, mode, iterations});
        DFM_CUDA_TRY(cudaGetLastError());
    }
    if (b->sweep_rest_count > 0) return launch_body_staged(b, a, mode, flags, iterations, err, err_size);
    return 0;
}

#endif
