/// @file model.h
/// Private layout of the world-wide model (structure of arrays over all placed bodies, rebuilt
/// when topology changes) and the per-particle state, and their lifetime (plugin/model_build.c).
#ifndef DFM_PLUGIN_MODEL_H
#define DFM_PLUGIN_MODEL_H

#include <dfm/dfm.h>
#include <stdint.h>

#include "topology.h"

/// World-wide model: concatenation of all bodies, in slot order. Rebuilt on topology change.
typedef struct dfm_model {
    int32_t particle_count;
    float* mass;          ///< kg.
    float* radius;        ///< m, contact radius.
    float* drag;          ///< kg/s, linear air drag.
    int32_t* environment; ///< Per particle.
    int32_t feat_particle_count, feat_edge_count, feat_face_count;
    int32_t* feat_particles; ///< Contact features in world particle indices (see dfm_body.surf_*).
    int32_t* feat_edges;
    int32_t* feat_faces;
    int32_t tri_count;
    int32_t* tris; ///< Global indices, 3 each.
    float* tri_dinv;
    float* tri_area;
    float* tri_material; ///< 3 each.
    int32_t edge_count;
    int32_t* edges; ///< Global indices, 4 each.
    float* edge_rest_angle;
    float* edge_rest_length;
    float* edge_material;    ///< 2 each.
    float* edge_start_angle; ///< Scratch per edge: hinge angle at the advance start (CPU backend).
    int32_t tet_count;
    int32_t* tets; ///< Global indices, 4 each.
    float* tet_dminv;
    float* tet_volume;
    float* tet_material;     ///< 3 each.
    dfm_adjacency adjacency; ///< Per-particle incident elements.
    int32_t color_count;
    int32_t* color_offsets;   ///< color_count + 1 entries.
    int32_t* color_particles; ///< Particles grouped by color.
    int32_t* particle_color;  ///< Color per particle.
    int32_t body_count;       ///< Placed bodies.
    int32_t* body_offsets;    ///< body_count + 1: particles of body b are [body_offsets[b], body_offsets[b + 1]).
    int32_t* particle_body;   ///< Body index (into body_offsets) of each particle.
} dfm_model;

/// World-wide per-particle state (survives rebuilds by copying).
typedef struct dfm_state {
    float* x; ///< Positions, 3 per particle (m).
    float* v; ///< Velocities (m/s).

    float* x_prev;     ///< Positions at the start of the advance.
    float* d;          ///< Displacement of the iterate from x_prev within an advance.
    float* y;          ///< Inertia displacement targets.
    uint8_t* mode;     ///< dfm_vertex_mode per particle.
    float* kin_start;  ///< Kinematic: position at step start.
    float* kin_target; ///< Kinematic: position at step end.
} dfm_state;

/// Frees model arrays.
void dfm_model_free(dfm_model* model);

/// Frees state arrays.
void dfm_state_free(dfm_state* state);

/// Rebuilds the model and state arrays if topology changed. Keeps the old ones on failure.
dfm_result dfm_world_ensure_model(dfm_world* world);

#endif
