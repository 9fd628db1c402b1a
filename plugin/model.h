/// @file model.h
/// Private layout of the world-wide model (structure of arrays over all placed bodies, rebuilt
/// when topology changes) and the per-particle state, and their lifetime (plugin/model_build.c).
#ifndef DFM_PLUGIN_MODEL_H
#define DFM_PLUGIN_MODEL_H

#include <dfm/dfm.h>
#include <stdint.h>

#include "model_arrays.h"
#include "topology.h"

/// World-wide model: concatenation of all bodies, in slot order. Rebuilt on topology change. The
/// arrays are the rows of DFM_MODEL_ARRAYS (kernels/shared/model_arrays.h), plus the offsets and
/// the adjacency, whose lengths are not a count times a width.
typedef struct dfm_model {
    int32_t particle_count, tri_count, edge_count, tet_count;
    int32_t feat_particle_count, feat_edge_count, feat_face_count;
    int32_t color_count;
    int32_t body_count; ///< Placed bodies.
    DFM_MODEL_ARRAYS(DFM_ARRAY_MEMBER)
    dfm_adjacency adjacency; ///< Per-particle incident elements.
    int32_t* color_offsets;  ///< color_count + 1: color c is color_particles[color_offsets[c] .. color_offsets[c + 1]).
    int32_t* body_offsets;   ///< body_count + 1: particles of body b are [body_offsets[b], body_offsets[b + 1]).
} dfm_model;

/// World-wide per-particle state (survives rebuilds by copying): the rows of DFM_STATE_ARRAYS.
typedef struct dfm_state {
    DFM_STATE_ARRAYS(DFM_ARRAY_MEMBER)
} dfm_state;

/// Frees model arrays.
void dfm_model_free(dfm_model* model);

/// Frees state arrays.
void dfm_state_free(dfm_state* state);

/// Rebuilds the model and state arrays if topology changed. Keeps the old ones on failure.
dfm_result dfm_world_ensure_model(dfm_world* world);

#endif
