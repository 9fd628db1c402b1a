/// @file gpu_contact_scenes.h
/// Contact scenes stepped on both backends by the GPU contact tests, built from the scene library
/// (scenes/) through the test helpers (public ABI only). Each scene has a setup and an optional
/// per-step driver (moves shapes, changes vertex modes).
#ifndef DFM_GPU_CONTACT_SCENES_H
#define DFM_GPU_CONTACT_SCENES_H

#include "../contact/contact_scenes.h"
#include "dfm_test_shapes.h"

#include <dfm_scene_mesh.h>

/// Scene state shared by setup and driver.
typedef struct gcs_scene {
    dfm_body_id body; ///< The deformable body that the checks look at.
    int32_t vertex_count;
    dfm_shape_id shapes[8];
    int32_t shape_count;
    float size;   ///< Scene size for relative tolerances, m.
    float weight; ///< Total weight of the deformables, N.
} gcs_scene;

typedef void (*gcs_setup_fn)(dfm_world* w, gcs_scene* s);
typedef void (*gcs_drive_fn)(dfm_world* w, gcs_scene* s, int step);
/// Called with the world after the last step, before it is destroyed (tests of internals).
typedef void (*gcs_inspect_fn)(dfm_world* w, void* user);

/// Adds an n x n cloth of `size` m centred at (cx, cy) at height z; returns its id.
static inline dfm_body_id gcs_cloth(dfm_world* w, gcs_scene* s, int32_t n, float size, float cx, float cy, float z) {
    dfm_test_grid g = dfm_test_make_grid(n, n, size, size, cx - 0.5f * size, cy - 0.5f * size, z);
    dfm_cloth_def cd = dfm_cloth_def_default();
    dfm_body_id id = dfm_test_add_cloth(w, &g, cd);
    s->body = id;
    s->vertex_count = g.vertex_count;
    s->weight += cd.density * size * size * 9.81f;
    dfm_test_free_grid(&g);
    return id;
}

/// A cloth dropped 2 cm onto an infinite plane (rests at radius + margin).
static inline void gcs_plane(dfm_world* w, gcs_scene* s) {
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_plane_def(), 0, 0, 0, NULL);
    gcs_cloth(w, s, 16, 0.4f, 0, 0, 0.02f);
    s->size = 0.4f;
}

/// Sample 02's scene: a cloth dropped onto a sphere and a box side by side.
static inline void gcs_sphere_box(dfm_world* w, gcs_scene* s) {
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_sphere_def(0.12f), -0.12f, 0, 0.12f, NULL);
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_box_def(0.1f, 0.1f, 0.1f), 0.15f, 0, 0.1f, NULL);
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_plane_def(), 0, 0, 0, NULL);
    gcs_cloth(w, s, 20, 0.6f, 0, 0, 0.3f);
    s->size = 0.6f;
}

/// A soft tet cube (6^3 vertices, 6 cm) dropped onto a box.
static inline void gcs_soft_cube(dfm_world* w, gcs_scene* s) {
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, dfm_scene_box_def(0.2f, 0.2f, 0.05f), 0, 0, -0.05f, NULL);
    float lo[3] = {-0.03f, -0.03f, 0.01f}, hi[3] = {0.03f, 0.03f, 0.07f};
    dfm_test_tets b = dfm_test_make_tet_box(6, lo, hi);
    dfm_volume_def vd = dfm_volume_def_default();
    s->body = dfm_test_add_volume(w, &b, vd);
    s->vertex_count = b.vertex_count;
    s->weight = vd.density * 0.06f * 0.06f * 0.06f * 9.81f;
    s->size = 0.1f;
    dfm_test_free_tets(&b);
}

/// A cloth dropped onto a box given as a 12-triangle closed mesh (baked SDF on the device).
static inline void gcs_mesh_box(dfm_world* w, gcs_scene* s) {
    float v[3 * DFM_SCENE_BOX_MESH_VERTICES];
    int32_t tri[3 * DFM_SCENE_BOX_MESH_TRIANGLES];
    dfm_scene_box_mesh(0.1f, 0.1f, 0.05f, v, tri);
    dfm_shape_def m = dfm_scene_mesh_def(v, DFM_SCENE_BOX_MESH_VERTICES, tri, DFM_SCENE_BOX_MESH_TRIANGLES);
    s->shapes[s->shape_count++] = dfm_test_add_shape(w, m, 0, 0, 0.05f, NULL);
    gcs_cloth(w, s, 16, 0.3f, 0, 0, 0.12f);
    s->size = 0.3f;
}

/// Vertices per side of the pinch scene's cloth.
#define GCS_PINCH_N 12
/// z of the pinch pads' centres before the lift, m (the pads face each other across y = 0).
#define GCS_PINCH_Z 0.15f

/// The pinch scene's pad: a 12 x 2 x 6 cm box (1 cm half thickness along y), mu 0.8, ke 2e4 N/m.
static inline dfm_shape_def gcs_pinch_pad(void) {
    dfm_shape_def pad = dfm_scene_box_def(0.06f, 0.01f, 0.03f);
    pad.mu = 0.8f;
    pad.ke = 2e4f;
    return pad;
}

/// Pinch and lift: a vertical cloth hangs from its pinned top row between two box pads; the
/// pads squeeze it (1 mm past its surface each), the top row is released at step 30 and the pads
/// lift 0.15 m over steps 40-100. Friction carries the cloth.
static inline void gcs_pinch(dfm_world* w, gcs_scene* s) {
    const int32_t n = GCS_PINCH_N;
    /* the x-z plane, top row at z = 0.2 */
    const float o[3] = {-0.1f, 0, 0}, u[3] = {0.2f, 0, 0}, v[3] = {0, 0, 0.2f};
    dfm_test_grid g = dfm_test_make_grid_uv(n, n, o, u, v);
    dfm_cloth_def cd = dfm_cloth_def_default();
    s->body = dfm_test_add_cloth(w, &g, cd);
    s->vertex_count = g.vertex_count;
    s->weight = cd.density * 0.04f * 9.81f;
    CHECK_OK(w, dfm_scene_set_row_mode(w, s->body, n, n - 1, DFM_VERTEX_PINNED));
    dfm_test_free_grid(&g);
    const float centre[3] = {0, 0, GCS_PINCH_Z};
    dfm_test_add_pad_pair(w, gcs_pinch_pad(), 1, centre, 1, 0.03f, &s->shapes[s->shape_count]);
    s->shape_count += 2;
    s->size = 0.3f;
}

static inline void gcs_pinch_drive(dfm_world* w, gcs_scene* s, int step) {
    const float r = dfm_cloth_def_default().contact_radius,
                closed = dfm_scene_pinch_half_gap(gcs_pinch_pad().half_extents[1], r, 0.001f);
    float t = step < 20 ? (float)(step + 1) / 20.0f : 1.0f;
    float y = 0.03f + (closed - 0.03f) * t;
    float lift = step < 40 ? 0.0f : 0.15f * (float)(step - 39 > 60 ? 60 : step - 39) / 60.0f;
    if (step == 30) CHECK_OK(w, dfm_scene_set_row_mode(w, s->body, GCS_PINCH_N, GCS_PINCH_N - 1, DFM_VERTEX_DYNAMIC));
    const float centre[3] = {0, 0, GCS_PINCH_Z + lift};
    dfm_test_move_pad_pair(w, s->shapes, centre, 1, y);
}

/// Four environments, each with its own plane at a different height and its own cloth.
static inline void gcs_environments(dfm_world* w, gcs_scene* s) {
    for (int e = 0; e < 4; ++e) {
        dfm_shape_def p = dfm_scene_plane_def();
        p.environment = e;
        s->shapes[s->shape_count++] = dfm_test_add_shape(w, p, 0, 0, 0.05f * (float)e, NULL);
        dfm_test_grid g = dfm_test_make_grid(10, 10, 0.2f, 0.2f, 0.5f * (float)e, 0, 0.2f);
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.environment = e;
        s->body = dfm_test_add_cloth(w, &g, cd);
        s->vertex_count = g.vertex_count;
        s->weight += cd.density * 0.04f * 9.81f;
        dfm_test_free_grid(&g);
    }
    s->size = 2.0f;
}

/// One run's settings and results.
typedef struct gcs_run_desc {
    int backend; ///< DFM_BACKEND_*.
    uint32_t disable_flags;
    int deterministic;
    int32_t environment_count;
    int32_t steps;
    gcs_setup_fn setup;
    gcs_drive_fn drive;   ///< May be NULL.
    int32_t device_index; ///< CUDA device ordinal (0 when left out of an initializer).
} gcs_run_desc;

typedef struct gcs_run_result {
    int skipped; ///< No usable CUDA device.
    float* x;    ///< All particle positions at the end (malloc'ed).
    int32_t count;
    float reaction_z; ///< Sum over the scene's shapes of the reaction force z of the last step, N.
    gcs_scene scene;
    dfm_contact_stats stats;
} gcs_run_result;

/// Runs a scene with world_def.contact_penalty_beta `penalty_beta`, then calls inspect(w, user)
/// unless it is NULL; exits on unexpected errors.
static inline gcs_run_result gcs_run_inspect(gcs_run_desc d, float penalty_beta, gcs_inspect_fn inspect, void* user) {
    gcs_run_result out;
    memset(&out, 0, sizeof(out));
    dfm_world_def def = dfm_world_def_default();
    def.backend = d.backend;
    def.disable_flags = d.disable_flags;
    def.deterministic = d.deterministic;
    def.environment_count = d.environment_count > 0 ? d.environment_count : 1;
    def.device_index = d.device_index;
    def.contact_penalty_beta = penalty_beta;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    if (r != DFM_OK) {
        if (r == DFM_ERROR_DEVICE_UNAVAILABLE) {
            printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
            out.skipped = 1;
            return out;
        }
        fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        exit(1);
    }
    d.setup(w, &out.scene);
    for (int s = 0; s < d.steps; ++s) {
        if (d.drive) d.drive(w, &out.scene, s);
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    }
    dfm_world_stats st = dfm_world_stats_init();
    CHECK_OK(w, dfm_world_get_stats(w, &st));
    CHECK(st.backend == d.backend, "world runs on backend %d, asked for %d", st.backend, d.backend);
    out.count = st.particle_count;
    out.x = (float*)malloc(sizeof(float) * 3 * (size_t)st.particle_count);
    CHECK_OK(w, dfm_world_get_positions(w, 0, st.particle_count, out.x, 0));
    float f[3 * 8], t[3 * 8];
    CHECK_OK(w, dfm_world_get_shape_reactions(w, out.scene.shapes, out.scene.shape_count, f, t, 0));
    for (int k = 0; k < out.scene.shape_count; ++k) out.reaction_z += f[3 * k + 2];
    out.stats = dfm_contact_stats_init();
    CHECK_OK(w, dfm_world_get_contact_stats(w, &out.stats));
    if (inspect) inspect(w, user);
    dfm_world_destroy(w);
    return out;
}

/// Runs a scene with world_def.contact_penalty_beta `penalty_beta`; exits on unexpected errors.
static inline gcs_run_result gcs_run_beta(gcs_run_desc d, float penalty_beta) {
    return gcs_run_inspect(d, penalty_beta, NULL, NULL);
}

/// Runs a scene (the default penalty settings); exits on unexpected errors.
static inline gcs_run_result gcs_run(gcs_run_desc d) { return gcs_run_beta(d, 0.0f); }

/// Largest coordinate difference between two runs' positions (inf when counts differ).
static inline double gcs_max_diff(const gcs_run_result* a, const gcs_run_result* b) {
    if (a->count != b->count) return INFINITY;
    double worst = 0.0;
    for (int32_t i = 0; i < 3 * a->count; ++i) {
        double d = fabs((double)a->x[i] - b->x[i]);
        if (!(d <= worst)) worst = d; /* NaN propagates */
    }
    return worst;
}

/// Centroid (3) and bounding box (min 3, max 3) of a run's positions.
static inline void gcs_aggregates(const gcs_run_result* r, double out[9]) {
    for (int a = 0; a < 3; ++a) {
        out[a] = 0.0;
        out[3 + a] = 1e30;
        out[6 + a] = -1e30;
    }
    for (int32_t i = 0; i < r->count; ++i)
        for (int a = 0; a < 3; ++a) {
            double x = r->x[3 * i + a];
            out[a] += x / r->count;
            if (x < out[3 + a]) out[3 + a] = x;
            if (x > out[6 + a]) out[6 + a] = x;
        }
}

#endif
