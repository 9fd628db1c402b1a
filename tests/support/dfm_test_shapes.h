/// @file dfm_test_shapes.h
/// Shape helpers for tests: the scene library's posed shapes and pad pairs (scenes/) with the
/// tests' policy (exit 2 on failure), a frictionless floor, a body's z range.
#ifndef DFM_TEST_SHAPES_H
#define DFM_TEST_SHAPES_H

#include "dfm_test.h"

#include <dfm_scene_pads.h>
#include <dfm_scene_shape.h>

/// A state at position p with rotation q (x, y, z, w), zero velocity, AABB computed by dfm.
static inline dfm_shape_state dfm_test_state(float px, float py, float pz, const float q[4]) {
    return dfm_scene_state(px, py, pz, q);
}

/// Adds a shape and places its body at (px, py, pz) with rotation q (NULL = identity).
static inline dfm_shape_id dfm_test_add_shape(dfm_world* w, dfm_shape_def def, float px, float py, float pz,
                                              const float q[4]) {
    dfm_shape_id id = DFM_NULL_SHAPE_ID;
    if (dfm_scene_add_shape(w, &def, px, py, pz, q, &id) != DFM_OK) {
        fprintf(stderr, "add_shape failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    return id;
}

/// Moves a shape's body to (px, py, pz) with rotation q (NULL = identity) for the next step.
static inline void dfm_test_move_shape(dfm_world* w, dfm_shape_id id, float px, float py, float pz, const float q[4]) {
    if (dfm_scene_move_shape(w, id, px, py, pz, q) != DFM_OK) {
        fprintf(stderr, "set_shape_states failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
}

/// Adds a pad pair (scenes/dfm_scene_pads.h) into `ids` (exits on failure).
static inline void dfm_test_add_pad_pair(dfm_world* w, dfm_shape_def pad, uint64_t first_host_body,
                                         const float centre[3], int axis, float half_gap, dfm_shape_id ids[2]) {
    if (dfm_scene_add_pad_pair(w, &pad, first_host_body, centre, axis, half_gap, ids) != DFM_OK) {
        fprintf(stderr, "add_pad_pair failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
}

/// Moves a pad pair for the next step (exits on failure).
static inline void dfm_test_move_pad_pair(dfm_world* w, const dfm_shape_id ids[2], const float centre[3], int axis,
                                          float half_gap) {
    if (dfm_scene_move_pad_pair(w, ids, centre, axis, half_gap) != DFM_OK) {
        fprintf(stderr, "set_shape_states failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
}

/// A frictionless 0.4 x 0.4 x 0.1 m box whose top face is the plane z = 0 (the support of the
/// resting-cube scenes).
static inline dfm_shape_id dfm_test_add_frictionless_floor(dfm_world* w) {
    dfm_shape_def bx = dfm_scene_box_def(0.2f, 0.2f, 0.05f);
    bx.mu = 0.0f;
    return dfm_test_add_shape(w, bx, 0, 0, -0.05f, NULL);
}

/// The incline scene's slope: a 4 x 4 x 0.1 m box with friction mu, tilted by th (rad) about +x so
/// that it descends toward -y, its top face through the origin.
static inline dfm_shape_id dfm_test_add_slope(dfm_world* w, float mu, float th) {
    dfm_shape_def bx = dfm_scene_box_def(2.0f, 2.0f, 0.05f);
    bx.mu = mu;
    const float q[4] = {sinf(0.5f * th), 0, 0, cosf(0.5f * th)};
    return dfm_test_add_shape(w, bx, 0, 0, -0.05f / cosf(th), q);
}

/// The incline scene's 6 cm cube (6^3 vertices, its bottom 2 mm above the slope of
/// dfm_test_add_slope(th)), rotated onto that slope. Free with dfm_test_free_tets.
static inline dfm_test_tets dfm_test_make_slope_cube(float th) {
    const float lo[3] = {-0.03f, -0.03f, 0.002f}, hi[3] = {0.03f, 0.03f, 0.062f};
    dfm_test_tets box = dfm_test_make_tet_box(6, lo, hi);
    float* p = box.positions;
    for (int32_t i = 0; i < box.vertex_count; ++i) {
        float y = p[3 * i + 1], z = p[3 * i + 2];
        p[3 * i + 1] = cosf(th) * y - sinf(th) * z;
        p[3 * i + 2] = sinf(th) * y + cosf(th) * z;
    }
    return box;
}

/// Lowest and highest z of a body's vertices.
static inline void dfm_test_z_range(dfm_world* w, dfm_body_id id, int32_t n, float* zmin, float* zmax) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    dfm_body_get_positions(w, id, 0, n, x, 0);
    *zmin = 1e30f;
    *zmax = -1e30f;
    for (int32_t i = 0; i < n; ++i) {
        if (x[3 * i + 2] < *zmin) *zmin = x[3 * i + 2];
        if (x[3 * i + 2] > *zmax) *zmax = x[3 * i + 2];
    }
    free(x);
}

#endif
