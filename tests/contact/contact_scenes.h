/// @file contact_scenes.h
/// Helpers shared by the contact tests (tests/contact): world creation with contact options,
/// lumped vertex masses of a grid (for weights and momenta), a 12-triangle box mesh, per-body
/// measurements (speed, extreme heights, distance to a sphere), and the scenes that several tests
/// run (cloth resting on a plane or a box, draped over a sphere, a strip pinched between pads).
#ifndef DFM_CONTACT_SCENES_H
#define DFM_CONTACT_SCENES_H

#include "dfm_test_shapes.h"

#include <dfm_scene_mesh.h>

/// Host step of every contact test, s.
#define CS_DT (1.0f / 60.0f)
/// Gravity magnitude, m/s^2 (along -z).
#define CS_G 9.81f

/// World options beyond dfm_test_world's.
typedef struct cs_world_opts {
    int32_t substeps, iterations, environment_count, contact_capacity;
    uint32_t disable_flags;
    dfm_log_fn log_fn;
    void* log_user;
} cs_world_opts;

/// 4 substeps x 10 iterations, one environment, automatic capacity, everything enabled.
static inline cs_world_opts cs_opts(void) {
    cs_world_opts o = {4, 10, 1, 0, 0u, NULL, NULL};
    return o;
}

/// Creates a world (CPU unless DFM_TEST_BACKEND=cuda) with gravity (0, 0, -CS_G) and the given options (exits on failure).
static inline dfm_world* cs_world(cs_world_opts o) {
    dfm_world_def def = dfm_world_def_default();
    def.gravity[2] = -CS_G;
    def.substeps = o.substeps;
    def.iterations = o.iterations;
    def.environment_count = o.environment_count;
    def.contact_capacity = o.contact_capacity;
    def.disable_flags = o.disable_flags;
    def.log_fn = o.log_fn;
    def.log_user = o.log_user;
    dfm_test_pick_backend(&def);
    /* CUDA's legacy scatter sums with float atomics; deterministic mode rejects it (world.c). */
    if (def.backend == DFM_BACKEND_CUDA && (def.disable_flags & DFM_DISABLE_CONTACT_LISTS)) def.deterministic = 0;
    return dfm_test_create(&def);
}

/// Lumped vertex masses of a grid cloth (area density `density`, a third of each triangle's area
/// to each corner; this is how the library lumps them). `out` holds vertex_count floats.
static inline double cs_lumped_masses(const dfm_test_grid* g, float density, float* out) {
    double total = 0.0;
    for (int32_t i = 0; i < g->vertex_count; ++i) out[i] = 0.0f;
    for (int32_t t = 0; t < g->triangle_count; ++t) {
        const int32_t* c = g->triangles + 3 * t;
        const float *a = g->positions + 3 * c[0], *b = g->positions + 3 * c[1], *d = g->positions + 3 * c[2];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        double cr[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double area = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
        for (int k = 0; k < 3; ++k) out[c[k]] += (float)(density * area / 3.0);
        total += density * area;
    }
    return total;
}

/// A closed box mesh of half extents (hx, hy, hz) centred on the origin: 8 vertices, 12 triangles
/// wound counter-clockwise seen from outside (the scene library's dfm_scene_box_mesh).
static inline void cs_box_mesh(float hx, float hy, float hz, float vertices[24], int32_t triangles[36]) {
    dfm_scene_box_mesh(hx, hy, hz, vertices, triangles);
}

/// Largest vertex speed of a body, m/s.
static inline float cs_max_speed(dfm_world* w, dfm_body_id id, int32_t n) {
    float* v = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    dfm_body_get_velocities(w, id, 0, n, v, 0);
    float m = 0.0f;
    for (int32_t i = 0; i < n; ++i) {
        float s = sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        if (!(s <= m)) m = s; /* NaN propagates */
    }
    free(v);
    return m;
}

/// Mean z of a body's vertices, m.
static inline double cs_mean_z(dfm_world* w, dfm_body_id id, int32_t n) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    dfm_body_get_positions(w, id, 0, n, x, 0);
    double s = 0.0;
    for (int32_t i = 0; i < n; ++i) s += x[3 * i + 2];
    free(x);
    return s / n;
}

/// Smallest distance of a body's vertices to the point c, m.
static inline float cs_min_distance(dfm_world* w, dfm_body_id id, int32_t n, const float c[3]) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    dfm_body_get_positions(w, id, 0, n, x, 0);
    float m = 1e30f;
    for (int32_t i = 0; i < n; ++i) {
        float d[3] = {x[3 * i] - c[0], x[3 * i + 1] - c[1], x[3 * i + 2] - c[2]};
        float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (!(l >= m)) m = l;
    }
    free(x);
    return m;
}

/// True when every position of the world's particles is finite.
static inline int cs_all_finite(dfm_world* w) {
    dfm_world_stats st = dfm_world_stats_init();
    dfm_world_get_stats(w, &st);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count + 1);
    dfm_world_get_positions(w, 0, st.particle_count, x, 0);
    int ok = 1;
    for (int32_t i = 0; i < 3 * st.particle_count; ++i) ok &= isfinite(x[i]) != 0;
    free(x);
    return ok;
}

/// Contact counters of the last step.
static inline dfm_contact_stats cs_stats(dfm_world* w) {
    dfm_contact_stats s = dfm_contact_stats_init();
    CHECK_OK(w, dfm_world_get_contact_stats(w, &s));
    return s;
}

/// A shape def with the given type and the tests' common material (margin as given).
static inline dfm_shape_def cs_shape_def(dfm_shape_type type, float margin) {
    dfm_shape_def d = dfm_shape_def_default();
    d.type = type;
    d.margin = margin;
    return d;
}

/* ---------------------------------------------------------------------------------------------
 * Scenes run by several tests. Each builds its world from `o`, runs `steps` host steps and leaves
 * the world for the caller to inspect (body ids and shape ids in the scene struct).
 * ------------------------------------------------------------------------------------------- */

/// A scene: world, the cloth and up to four shapes.
typedef struct cs_scene {
    dfm_world* w;
    dfm_test_grid g;
    dfm_body_id cloth;
    dfm_shape_id shapes[4];
    int32_t shape_count;
} cs_scene;

/// Scene kinds.
enum { CS_SCENE_PLANE = 0, CS_SCENE_BOX = 1, CS_SCENE_SPHERE = 2, CS_SCENE_PINCH = 3, CS_SCENE_COUNT = 4 };

/// Names of the scene kinds.
static inline const char* cs_scene_name(int kind) {
    static const char* names[CS_SCENE_COUNT] = {"rest on plane", "rest on box", "drape on sphere", "pinched strip"};
    return names[kind];
}

/// Sphere of the drape scene: centre and radius (m).
#define CS_SPHERE_Z 0.10f
#define CS_SPHERE_R 0.08f

/// Pinch pads: half thickness of a pad (m) and the distance of each pad face from the strip's
/// mid-plane x = 0 (m): with the 2 mm contact radius the pads squeeze the top row 1 mm deep from
/// both sides.
#define CS_PAD_HALF 0.01f
#define CS_PAD_FACE 0.001f
/// Lift speed of the pads after CS_PINCH_HOLD steps, m/s.
#define CS_PINCH_LIFT 0.3f
#define CS_PINCH_HOLD 10

/// Builds a scene (12 x 12 cloth, 0.3 m, unless noted) and returns it; run it with cs_scene_step.
/// - PLANE: infinite plane at z = 0, cloth dropped from 3 cm.
/// - BOX: box 1 x 1 x 0.2 m with its top at z = 0, cloth dropped from 3 cm.
/// - SPHERE: sphere of radius 8 cm at (0, 0, 0.1), a 0.3 m cloth dropped from 2 cm above it.
/// - PINCH: a vertical 12 x 6 strip (0.1 m wide, 0.05 m tall, top row at z = 0.5) whose top row
///   is squeezed between two box pads (host bodies 1 and 2, mu 0.8) that hold it by friction for
///   CS_PINCH_HOLD steps and then lift it at CS_PINCH_LIFT.
static inline cs_scene cs_scene_make(int kind, cs_world_opts o) {
    cs_scene s;
    memset(&s, 0, sizeof(s));
    s.w = cs_world(o);
    dfm_cloth_def cd = dfm_cloth_def_default();
    if (kind == CS_SCENE_PINCH) {
        /* vertical strip in the x = 0 plane: u along y, v along z */
        float org[3] = {0.0f, -0.05f, 0.45f}, u[3] = {0.0f, 0.1f, 0.0f}, v[3] = {0.0f, 0.0f, 0.05f};
        CHECK_OK(s.w, dfm_scene_grid_make(12, 6, org, u, v, &s.g));
    } else {
        float z0 = kind == CS_SCENE_SPHERE ? CS_SPHERE_Z + CS_SPHERE_R + 0.02f : 0.03f;
        s.g = dfm_test_make_grid(12, 12, 0.3f, 0.3f, -0.15f, -0.15f, z0);
    }
    s.cloth = dfm_test_add_cloth(s.w, &s.g, cd);
    dfm_shape_def sd;
    switch (kind) {
    case CS_SCENE_PLANE:
        sd = cs_shape_def(DFM_SHAPE_PLANE, 0.0f);
        s.shapes[s.shape_count++] = dfm_test_add_shape(s.w, sd, 0, 0, 0, NULL);
        break;
    case CS_SCENE_BOX:
        sd = cs_shape_def(DFM_SHAPE_BOX, 0.0f);
        sd.half_extents[0] = sd.half_extents[1] = 0.5f;
        sd.half_extents[2] = 0.1f;
        s.shapes[s.shape_count++] = dfm_test_add_shape(s.w, sd, 0, 0, -0.1f, NULL);
        break;
    case CS_SCENE_SPHERE:
        sd = cs_shape_def(DFM_SHAPE_SPHERE, 0.0f);
        sd.radius = CS_SPHERE_R;
        s.shapes[s.shape_count++] = dfm_test_add_shape(s.w, sd, 0, 0, CS_SPHERE_Z, NULL);
        break;
    case CS_SCENE_PINCH: {
        sd = cs_shape_def(DFM_SHAPE_BOX, 0.0f);
        sd.half_extents[0] = CS_PAD_HALF;
        sd.half_extents[1] = 0.07f;
        sd.half_extents[2] = 0.006f; /* covers the top row only (rows are 1 cm apart) */
        sd.mu = 0.8f;
        const float centre[3] = {0, 0, 0.5f}; /* host bodies 1 and 2, across the strip along x */
        dfm_test_add_pad_pair(s.w, sd, 1, centre, 0, CS_PAD_HALF + CS_PAD_FACE, s.shapes);
        s.shape_count = 2;
        break;
    }
    default: break;
    }
    return s;
}

/// Runs one host step of a scene (`step` counts from 0): moves the pinch pads, then steps.
static inline void cs_scene_step(cs_scene* s, int kind, int step) {
    if (kind == CS_SCENE_PINCH) {
        float z = 0.5f + (step < CS_PINCH_HOLD ? 0.0f : (float)(step + 1 - CS_PINCH_HOLD) * CS_PINCH_LIFT * CS_DT);
        const float centre[3] = {0, 0, z};
        dfm_test_move_pad_pair(s->w, s->shapes, centre, 0, CS_PAD_HALF + CS_PAD_FACE);
    }
    CHECK_OK(s->w, dfm_world_step(s->w, CS_DT));
}

/// Destroys a scene.
static inline void cs_scene_free(cs_scene* s) {
    dfm_world_destroy(s->w);
    dfm_test_free_grid(&s->g);
}

#endif
