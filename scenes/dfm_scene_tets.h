/// @file dfm_scene_tets.h
/// Tet boxes of a scene: an n x n x n-vertex box of tets (5 per cell) spanning [lo, hi] (m,
/// world frame, axis-aligned), added to a world as a volume body, and its z layers' vertex modes
/// set (a pinned base).
#ifndef DFM_SCENE_TETS_H
#define DFM_SCENE_TETS_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A generated tet box (positions and tets, owned; free with dfm_scene_tets_free).
/// Vertex (i, j, k) is i + n * (j + n * k): layer k lies at z = lo[2] + (hi[2] - lo[2]) * k / (n - 1).
typedef struct dfm_scene_tets {
    int32_t vertex_count, tet_count;
    float* positions;
    int32_t* tets;
} dfm_scene_tets;

/// Generates an n^3-vertex tet box spanning [lo, hi] (m) into `out`. Returns DFM_OK, the counts'
/// error, or DFM_ERROR_OUT_OF_HOST_MEMORY (then `out` holds nothing to free).
dfm_result dfm_scene_tets_make(int32_t n, const float lo[3], const float hi[3], dfm_scene_tets* out);

/// Frees a generated tet box's arrays (safe on a zeroed box).
void dfm_scene_tets_free(dfm_scene_tets* b);

/// `def` with the box's mesh in it (positions, tets and their counts).
dfm_volume_def dfm_scene_tets_volume_def(const dfm_scene_tets* b, dfm_volume_def def);

/// Adds the box as a volume body with `def`'s other fields; the id into `out`.
dfm_result dfm_scene_add_volume(dfm_world* w, const dfm_scene_tets* b, dfm_volume_def def, dfm_body_id* out);

/// Sets the mode of every vertex of z layer `layer` (vertices layer * n^2 .. layer * n^2 + n^2 - 1)
/// of an n^3-vertex tet box body: DFM_VERTEX_PINNED on layer 0 (z = lo[2]) stands it on a fixed base.
dfm_result dfm_scene_set_layer_mode(dfm_world* w, dfm_body_id body, int32_t n, int32_t layer, dfm_vertex_mode mode);

#ifdef __cplusplus
}
#endif

#endif
