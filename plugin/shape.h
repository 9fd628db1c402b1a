/// @file shape.h
/// Private layout of one rigid shape record registered by the host (geometry, material, the
/// host body's poses around the step, accumulated reactions), and dfm_shape_free (plugin/shape.c).
#ifndef DFM_PLUGIN_SHAPE_H
#define DFM_PLUGIN_SHAPE_H

#include <stdint.h>

#include "shape_geom.h"
#include "transform.h"

/// A rigid shape registered by the host.
typedef struct dfm_shape {
    int32_t type; ///< dfm_shape_type.
    int32_t environment;
    uint64_t host_body;
    dfm_shape_geom geom;       ///< geom.grid.values points into sdf->sdf.values for meshes.
    struct dfm_sdf_entry* sdf; ///< Mesh shapes: the (shared) baked grid, one reference held.
    float sdf_max_error;       ///< m, measured at bake time.
    dfm_xform local;           ///< Shape frame in the body frame.
    float margin, gap, ke, kd, mu;
    int has_state;         ///< 0 until the host first sets a state.
    dfm_xform body_prev;   ///< Body pose at the start of the next step.
    dfm_xform body_cur;    ///< Body pose at the end of the next step (last state set).
    dfm_xform body_last;   ///< Body pose at the end of the last step (points of dfm_world_get_contacts).
    float velocity_cur[6]; ///< Linear (m/s) and angular (rad/s) velocity of the last state set (host bodies with
                           ///< dynamics: their free motion's end velocity, plugin/host_bodies.c).
    float aabb_prev[6];    ///< World AABB at the previous state (min xyz, max xyz).
    float aabb_cur[6];     ///< World AABB at the current state.
    double impulse[6];     ///< Reaction impulse (N s) and angular impulse (N m s) accumulated in a step.
    float reaction[6];     ///< Average reaction force and torque of the last step.
} dfm_shape;

/// Frees a shape record.
void dfm_shape_free(dfm_shape* shape);

#endif
