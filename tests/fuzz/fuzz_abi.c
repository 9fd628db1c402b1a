/// libFuzzer harness over the public ABI (issue 14): each input is a world def and a sequence of up
/// to 48 ABI calls with hostile arguments read from the input bytes (every def field, ids after
/// removal and forged ones, struct sizes, ranges and strides, dt, meshes, shape states, vertex
/// modes). Return codes are not judged: the harness looks for crashes, leaks, hangs and undefined
/// behaviour under ASan + UBSan (tests/fuzz/run-fuzz.sh; CI runs it for a bounded time). Not yet
/// checked: that a step which returned DFM_OK left finite state (accepted but unsimulatable values
/// can still turn a world NaN; issue 14).
#include <dfm/dfm.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The input as a byte stream; reads past the end give zeros.
typedef struct reader {
    const uint8_t* p;
    size_t n;
} reader;

static uint8_t u8(reader* r) {
    if (!r->n) return 0;
    --r->n;
    return *r->p++;
}

static int32_t i32(reader* r) {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= (uint32_t)u8(r) << (8 * k);
    return (int32_t)v;
}

/// Small counts mostly, hostile ones sometimes.
static int32_t count(reader* r, int32_t small) {
    uint8_t sel = u8(r);
    if (sel < 200) return sel % (small + 1);
    static const int32_t odd[] = {-1, 0, INT32_MIN, INT32_MAX, 1 << 20, -1000};
    return odd[sel % 6];
}

/// An environment index: -1..3 mostly, hostile ones sometimes.
static int32_t environment(reader* r) {
    static const int32_t choice[] = {-1, 0, 0, 0, 1, 2, 3, -2, INT32_MIN, INT32_MAX};
    return choice[u8(r) % 10];
}

/// A count for a caller's array of `have` items: the true one mostly, else a hostile one that is
/// never larger than the array (reading past the caller's own buffer is the caller's bug, which no
/// library can detect).
static int32_t array_count(reader* r, int32_t have) {
    uint8_t sel = u8(r);
    if (sel < 220) return have;
    static const int32_t odd[] = {0, -1, INT32_MIN, 1, 2, 3};
    int32_t c = odd[sel % 6];
    return c <= have ? c : have;
}

/// A stride in bytes for 3-float items: packed mostly, 16 (the harness's buffers leave room for
/// it) or one the library must refuse.
static int32_t stride3(reader* r) {
    static const int32_t choice[] = {0, 0, 0, 12, 16, 5, -12, 8};
    return choice[u8(r) % 8];
}

/// Plain values mostly, then zero, negatives, NaN, infinities, huge, tiny and raw bit patterns.
static float f32(reader* r, float scale) {
    uint8_t sel = u8(r);
    if (sel < 160) return scale * ((float)u8(r) / 128.0f - 0.5f) * 2.0f;
    switch (sel % 9) {
    case 0: return 0.0f;
    case 1: return -scale;
    case 2: return NAN;
    case 3: return INFINITY;
    case 4: return -INFINITY;
    case 5: return 3e38f;
    case 6: return 1e-45f;
    case 7: return 1e7f;
    default: {
        uint32_t b = (uint32_t)i32(r);
        float f;
        memcpy(&f, &b, sizeof(f));
        return f;
    }
    }
}

#define POOL 6

typedef struct fuzz_world {
    dfm_world* w;
    dfm_body_id bodies[POOL];
    dfm_shape_id shapes[POOL];
    int32_t environments;
} fuzz_world;

/// An id from the pool (maybe stale or null) or a forged one.
static dfm_body_id pick_body(reader* r, const fuzz_world* f) {
    uint8_t sel = u8(r);
    dfm_body_id id = f->bodies[sel % POOL];
    if (sel >= 240) id.index1 = i32(r);
    if (sel >= 250) id.generation = (uint16_t)i32(r);
    return id;
}

static dfm_shape_id pick_shape(reader* r, const fuzz_world* f) {
    uint8_t sel = u8(r);
    dfm_shape_id id = f->shapes[sel % POOL];
    if (sel >= 240) id.index1 = i32(r);
    if (sel >= 250) id.world_tag = (uint16_t)i32(r);
    return id;
}

static void add_cloth(reader* r, fuzz_world* f) {
    int32_t nu = 2 + u8(r) % 6, nv = 2 + u8(r) % 6, n, t;
    if (dfm_cloth_grid_counts(nu, nv, &n, &t) != DFM_OK) return;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    int32_t* tri = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)t);
    float* xs = (float*)calloc(4 * (size_t)n, sizeof(float)); /* the same positions 16 bytes apart */
    float o[3] = {f32(r, 1), f32(r, 1), f32(r, 1)}, au[3] = {f32(r, 0.5f), 0, 0},
          av[3] = {0, f32(r, 0.5f), f32(r, 0.1f)};
    if (x && tri && dfm_cloth_grid_generate(nu, nv, o, au, av, x, tri) == DFM_OK) {
        if (u8(r) > 200) x[3 * (u8(r) % n) + u8(r) % 3] = f32(r, 10);
        if (u8(r) > 220) tri[u8(r) % (3 * t)] = i32(r);
        dfm_cloth_def d = dfm_cloth_def_default();
        if (u8(r) > 240) d.struct_size = (uint32_t)i32(r);
        d.environment = environment(r);
        d.positions = x;
        d.vertex_count = array_count(r, n);
        d.position_stride = stride3(r);
        if (d.position_stride == 16 && xs) {
            for (int32_t i = 0; i < n; ++i) memcpy(xs + 4 * i, x + 3 * i, 3 * sizeof(float));
            d.positions = xs;
        } else if (d.position_stride > 12) {
            d.position_stride = 0;
        }
        d.triangles = tri;
        d.triangle_count = array_count(r, t);
        d.density = u8(r) > 200 ? f32(r, 1) : d.density;
        d.stretch_mu = u8(r) > 200 ? f32(r, 5000) : d.stretch_mu;
        d.stretch_lambda = u8(r) > 200 ? f32(r, 5000) : d.stretch_lambda;
        d.bend_stiffness = u8(r) > 200 ? f32(r, 1) : d.bend_stiffness;
        d.contact_radius = u8(r) > 200 ? f32(r, 0.01f) : d.contact_radius;
        d.air_drag = u8(r) > 220 ? f32(r, 1) : d.air_drag;
        dfm_body_id id;
        if (dfm_world_add_cloth(f->w, &d, &id) == DFM_OK) f->bodies[u8(r) % POOL] = id;
    }
    free(x);
    free(tri);
    free(xs);
}

static void add_volume(reader* r, fuzz_world* f) {
    int32_t nx = 2 + u8(r) % 3, ny = 2 + u8(r) % 3, nz = 2 + u8(r) % 3, n, t;
    if (dfm_tet_box_counts(nx, ny, nz, &n, &t) != DFM_OK) return;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    int32_t* tet = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)t);
    float lo[3] = {f32(r, 1), f32(r, 1), f32(r, 1)}, hi[3];
    for (int a = 0; a < 3; ++a) hi[a] = lo[a] + f32(r, 0.2f);
    if (x && tet && dfm_tet_box_generate(nx, ny, nz, lo, hi, x, tet) == DFM_OK) {
        if (u8(r) > 220) tet[u8(r) % (4 * t)] = i32(r);
        dfm_volume_def d = dfm_volume_def_default();
        d.environment = environment(r);
        d.positions = x;
        d.vertex_count = n;
        d.tets = tet;
        d.tet_count = array_count(r, t);
        d.mu = u8(r) > 200 ? f32(r, 1e6f) : d.mu;
        d.lambda = u8(r) > 200 ? f32(r, 1e6f) : d.lambda;
        d.density = u8(r) > 220 ? f32(r, 2000) : d.density;
        dfm_body_id id;
        if (dfm_world_add_volume(f->w, &d, &id) == DFM_OK) f->bodies[u8(r) % POOL] = id;
    }
    free(x);
    free(tet);
}

static void add_shape(reader* r, fuzz_world* f) {
    dfm_shape_def d = dfm_shape_def_default();
    if (u8(r) > 245) d.struct_size = (uint32_t)i32(r);
    d.type = 1 + u8(r) % 8; /* 8 is not a type */
    d.environment = environment(r);
    d.radius = f32(r, 0.3f);
    d.half_height = f32(r, 0.3f);
    for (int a = 0; a < 3; ++a) d.half_extents[a] = f32(r, 0.3f);
    for (int a = 0; a < 3; ++a) d.local_position[a] = u8(r) > 200 ? f32(r, 1) : 0.0f;
    if (u8(r) > 200) d.local_rotation[0] = f32(r, 1);
    d.margin = u8(r) > 200 ? f32(r, 0.01f) : d.margin;
    d.gap = u8(r) > 200 ? f32(r, 0.01f) : d.gap;
    d.ke = u8(r) > 200 ? f32(r, 1e5f) : d.ke;
    d.kd = u8(r) > 200 ? f32(r, 100) : d.kd;
    d.mu = u8(r) > 200 ? f32(r, 1) : d.mu;
    float v[24];
    int32_t tri[36];
    static const int32_t box_tris[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                         2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    float s = u8(r) > 230 ? f32(r, 1) : 0.1f;
    for (int i = 0; i < 8; ++i)
        for (int a = 0; a < 3; ++a) v[3 * i + a] = ((i >> a) & 1) ? s : -s;
    memcpy(tri, box_tris, sizeof(tri));
    if (u8(r) > 220) tri[u8(r) % 36] = i32(r);
    if (u8(r) > 230) v[u8(r) % 24] = f32(r, 1);
    d.mesh_vertices = v;
    d.mesh_vertex_count = array_count(r, 8);
    d.mesh_triangles = tri;
    d.mesh_triangle_count = array_count(r, 12);
    /* automatic, a coarse valid cell, or one to refuse: a tiny valid cell bakes a grid of up to
     * 256^3 nodes, which is slow under the sanitizers (a CI run timed out at 11 s), not wrong */
    static const float cells[] = {0.0f, 0.0f, 0.01f, 0.03f, -1.0f, NAN, INFINITY, 3e38f, 1e-45f};
    d.sdf_cell_size = cells[u8(r) % 9];
    dfm_shape_id id;
    d.host_body = u8(r) % 3; /* bodies 0-2 may get dynamics (host_dynamics) */
    if (dfm_world_add_shape(f->w, &d, &id) == DFM_OK) f->shapes[u8(r) % POOL] = id;
}

static void set_states(reader* r, fuzz_world* f) {
    dfm_shape_id ids[POOL];
    dfm_shape_state st[POOL];
    int32_t n = 1 + u8(r) % POOL;
    for (int32_t k = 0; k < n; ++k) {
        ids[k] = pick_shape(r, f);
        memset(&st[k], 0, sizeof(st[k]));
        for (int a = 0; a < 3; ++a) st[k].position[a] = f32(r, 1);
        st[k].rotation[3] = 1.0f;
        if (u8(r) > 200)
            for (int a = 0; a < 4; ++a) st[k].rotation[a] = f32(r, 1);
        for (int a = 0; a < 3; ++a) st[k].linear_velocity[a] = u8(r) > 220 ? f32(r, 10) : 0.0f;
        st[k].aabb_min[0] = 1.0f; /* inverted: computed */
        st[k].aabb_max[0] = -1.0f;
        if (u8(r) > 220)
            for (int a = 0; a < 3; ++a) {
                st[k].aabb_min[a] = f32(r, 2);
                st[k].aabb_max[a] = f32(r, 2);
            }
    }
    int32_t count_arg = array_count(r, n);
    (void)dfm_world_set_shape_states(f->w, ids, 0, st, 0, count_arg);
}

static void body_arrays(reader* r, fuzz_world* f) {
    float buf[4 * 64]; /* 64 items at the largest stride used, 16 bytes */
    memset(buf, 0, sizeof(buf));
    dfm_body_id id = pick_body(r, f);
    int32_t first = count(r, 40), n = array_count(r, 1 + u8(r) % 64), stride = stride3(r);
    switch (u8(r) % 4) {
    case 0: (void)dfm_body_get_positions(f->w, id, first, n, buf, stride); break;
    case 1: (void)dfm_body_get_velocities(f->w, id, first, n, buf, stride); break;
    case 2:
        for (int k = 0; k < (n > 0 ? 4 * n : 0); ++k) buf[k] = f32(r, 1);
        (void)dfm_body_set_positions(f->w, id, first, n, buf, stride);
        break;
    default:
        for (int k = 0; k < (n > 0 ? 4 * n : 0); ++k) buf[k] = f32(r, 5);
        (void)dfm_body_set_velocities(f->w, id, first, n, buf, stride);
    }
}

static void vertex_modes(reader* r, fuzz_world* f) {
    int32_t v[8];
    int32_t n = 1 + u8(r) % 8;
    for (int32_t k = 0; k < n; ++k) v[k] = u8(r) > 230 ? i32(r) : u8(r) % 40;
    (void)dfm_body_set_vertex_mode(f->w, pick_body(r, f), v, n, u8(r) % 4);
}

static void queries(reader* r, fuzz_world* f) {
    dfm_shape_id ids[2] = {pick_shape(r, f), pick_shape(r, f)};
    float a[6], b[6];
    dfm_contact_point cp[8];
    int32_t n = 0;
    dfm_world_stats ws = dfm_world_stats_init();
    dfm_contact_stats cs = dfm_contact_stats_init();
    dfm_body_info bi = dfm_body_info_init();
    dfm_shape_info si = dfm_shape_info_init();
    switch (u8(r) % 6) {
    case 0: (void)dfm_world_get_shape_reactions(f->w, ids, array_count(r, 2), a, b, 0); break;
    case 1: {
        int32_t el = u8(r) > 200 ? count(r, 200) : (int32_t)sizeof(cp[0]);
        if (el > (int32_t)sizeof(cp[0])) el = (int32_t)sizeof(cp[0]) + 4; /* refused: larger than the library's */
        (void)dfm_world_get_contacts(f->w, cp, array_count(r, 8), el, &n);
        break;
    }
    case 2:
        if (u8(r) > 200) ws.struct_size = (uint32_t)i32(r);
        (void)dfm_world_get_stats(f->w, &ws);
        (void)dfm_world_get_contact_stats(f->w, &cs);
        break;
    case 3: (void)dfm_body_get_info(f->w, pick_body(r, f), &bi); break;
    case 4: (void)dfm_shape_get_info(f->w, ids[0], &si); break;
    default: { /* small counts (large valid ones are slow, not wrong), or ones to refuse */
        static const int32_t odd[] = {0, -1, INT32_MIN, INT32_MAX, DFM_MAX_SUBSTEPS + 1};
        int32_t s = u8(r) < 230 ? 1 + u8(r) % 4 : odd[u8(r) % 5], it = u8(r) < 230 ? 1 + u8(r) % 4 : odd[u8(r) % 5];
        (void)dfm_world_set_solver_counts(f->w, s, it);
    }
    }
}

/// dfm_coupling.h: dynamics for host bodies 0-2 (or hostile ids, masses, inertias, strides),
/// then their corrections.
static void host_dynamics(reader* r, fuzz_world* f) {
    dfm_host_body_dynamics d[3];
    memset(d, 0, sizeof(d));
    for (int k = 0; k < 3; ++k) {
        d[k].host_body = u8(r) > 240 ? (uint64_t)(uint32_t)i32(r) : (uint64_t)(u8(r) % 3);
        d[k].mass = u8(r) > 200 ? f32(r, 1e10f) : (float)(u8(r) % 20);
        const float diag = u8(r) > 200 ? f32(r, 1) : 0.1f;
        d[k].inertia[0] = d[k].inertia[4] = d[k].inertia[8] = diag;
        if (u8(r) > 220) d[k].inertia[u8(r) % 9] = f32(r, 1);
    }
    static const int32_t strides[] = {0, 0, 0, (int32_t)sizeof(dfm_host_body_dynamics), 4, -8, 7};
    (void)dfm_world_set_host_body_dynamics(f->w, u8(r) > 20 ? d : NULL, strides[u8(r) % 7], array_count(r, 3));
    uint64_t ids[3] = {u8(r) % 3, u8(r) % 3, u8(r) > 240 ? (uint64_t)i32(r) : 0u};
    dfm_host_body_correction c[3];
    (void)dfm_world_get_host_body_corrections(f->w, ids, array_count(r, 3), c, strides[u8(r) % 7]);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader r = {data, size};
    dfm_world_def def = dfm_world_def_default();
    def.backend = DFM_BACKEND_CPU;
    def.cpu_threads = 1;
    def.substeps = 1 + u8(&r) % 3;
    def.iterations = 1 + u8(&r) % 3;
    def.environment_count = 1 + u8(&r) % 3;
    if (u8(&r) > 200) def.contact_capacity = count(&r, 64);
    if (u8(&r) > 220) def.disable_flags = (uint32_t)i32(&r);
    if (u8(&r) > 230) def.contact_penalty_beta = f32(&r, 1e4f);
    if (u8(&r) > 240) def.gravity[2] = f32(&r, 10);
    def.log_level = -1; /* quiet */
    fuzz_world f;
    memset(&f, 0, sizeof(f));
    if (dfm_world_create(DFM_ABI_VERSION, &def, &f.w) != DFM_OK) return 0;
    const int trace = getenv("DFM_FUZZ_TRACE") != NULL; /* replaying one input: print each call */
    for (int op = 0; op < 48 && r.n > 0; ++op) {
        const int kind = r.n ? r.p[0] % 12 : 0;
        if (trace) {
            dfm_world_stats ts = dfm_world_stats_init();
            (void)dfm_world_get_stats(f.w, &ts);
            fprintf(stderr, "op %d: kind %d (%d bodies, %d particles)\n", op, kind, ts.body_count, ts.particle_count);
        }
        switch (u8(&r) % 12) {
        case 0: add_cloth(&r, &f); break;
        case 1: add_volume(&r, &f); break;
        case 2: add_shape(&r, &f); break;
        case 3: (void)dfm_world_remove_body(f.w, pick_body(&r, &f)); break;
        case 4: (void)dfm_world_remove_shape(f.w, pick_shape(&r, &f)); break;
        case 5: set_states(&r, &f); break;
        case 6:
        case 7: (void)dfm_world_step(f.w, u8(&r) > 200 ? f32(&r, 0.1f) : 1.0f / 60.0f); break;
        case 8: vertex_modes(&r, &f); break;
        case 9: body_arrays(&r, &f); break;
        case 10: queries(&r, &f); break;
        default:
            if (u8(&r) % 2)
                (void)dfm_world_prepare(f.w);
            else
                host_dynamics(&r, &f);
        }
    }
    dfm_world_destroy(f.w);
    return 0;
}
