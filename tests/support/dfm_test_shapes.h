/// @file dfm_test_shapes.h
/// Shape helpers for tests: add a shape with a pose, and move it (sets its state).
#ifndef DFM_TEST_SHAPES_H
#define DFM_TEST_SHAPES_H

#include "dfm_test.h"

/// A state at position p with rotation q (x, y, z, w), zero velocity, AABB computed by dfm.
static inline dfm_shape_state dfm_test_state(float px, float py, float pz, const float q[4]) {
    dfm_shape_state s;
    memset(&s, 0, sizeof(s));
    s.position[0] = px;
    s.position[1] = py;
    s.position[2] = pz;
    if (q)
        memcpy(s.rotation, q, 4 * sizeof(float));
    else
        s.rotation[3] = 1.0f;
    s.aabb_min[0] = 1.0f; /* inverted: dfm computes the AABB */
    s.aabb_max[0] = -1.0f;
    return s;
}

/// Adds a shape and places its body at (px, py, pz) with rotation q (NULL = identity).
static inline dfm_shape_id dfm_test_add_shape(dfm_world* w, dfm_shape_def def, float px, float py, float pz,
                                              const float q[4]) {
    dfm_shape_id id = DFM_NULL_SHAPE_ID;
    if (dfm_world_add_shape(w, &def, &id) != DFM_OK) {
        fprintf(stderr, "add_shape failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    dfm_shape_state st = dfm_test_state(px, py, pz, q);
    if (dfm_world_set_shape_states(w, &id, 0, &st, 0, 1) != DFM_OK) {
        fprintf(stderr, "set_shape_states failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    return id;
}

/// Moves a shape's body to (px, py, pz) with rotation q (NULL = identity) for the next step.
static inline void dfm_test_move_shape(dfm_world* w, dfm_shape_id id, float px, float py, float pz, const float q[4]) {
    dfm_shape_state st = dfm_test_state(px, py, pz, q);
    if (dfm_world_set_shape_states(w, &id, 0, &st, 0, 1) != DFM_OK) {
        fprintf(stderr, "set_shape_states failed: %s\n", dfm_world_last_error(w));
        exit(2);
    }
}

/// A frictionless 0.4 x 0.4 x 0.1 m box whose top face is the plane z = 0 (the support of the
/// resting-cube scenes).
static inline dfm_shape_id dfm_test_add_frictionless_floor(dfm_world* w) {
    dfm_shape_def bx = dfm_shape_def_default();
    bx.type = DFM_SHAPE_BOX;
    bx.half_extents[0] = bx.half_extents[1] = 0.2f;
    bx.half_extents[2] = 0.05f;
    bx.mu = 0.0f;
    return dfm_test_add_shape(w, bx, 0, 0, -0.05f, NULL);
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
