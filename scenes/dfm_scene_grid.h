/// @file dfm_scene_grid.h
/// Cloth grids of a scene: an nu x nv-vertex grid spanning a parallelogram (origin, u, v in m,
/// world frame), added to a world as a cloth body, and its rows' vertex modes set (a hook).
#ifndef DFM_SCENE_GRID_H
#define DFM_SCENE_GRID_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A generated cloth grid (positions and triangles, owned; free with dfm_scene_grid_free).
/// Vertex (i, j) is j * nu + i: row j runs along u at origin + v * j / (nv - 1).
typedef struct dfm_scene_grid {
    int32_t nu, nv, vertex_count, triangle_count;
    float* positions;
    int32_t* triangles;
} dfm_scene_grid;

/// Generates an nu x nv grid from `origin` spanning `u` and `v` (m) into `out`. Returns DFM_OK,
/// the counts' error, or DFM_ERROR_OUT_OF_HOST_MEMORY (then `out` holds nothing to free).
dfm_result dfm_scene_grid_make(int32_t nu, int32_t nv, const float origin[3], const float u[3], const float v[3],
                               dfm_scene_grid* out);

/// Frees a generated grid's arrays (safe on a zeroed grid).
void dfm_scene_grid_free(dfm_scene_grid* g);

/// `def` with the grid's mesh in it (positions, triangles and their counts).
dfm_cloth_def dfm_scene_grid_cloth_def(const dfm_scene_grid* g, dfm_cloth_def def);

/// Adds the grid as a cloth body with `def`'s other fields; the id into `out`.
dfm_result dfm_scene_add_cloth(dfm_world* w, const dfm_scene_grid* g, dfm_cloth_def def, dfm_body_id* out);

/// Sets the mode of every vertex of row `row` (vertices row * nu .. row * nu + nu - 1) of an
/// nu-wide grid body: DFM_VERTEX_PINNED on the top row (nv - 1) hangs it from a hook.
dfm_result dfm_scene_set_row_mode(dfm_world* w, dfm_body_id body, int32_t nu, int32_t row, dfm_vertex_mode mode);

#ifdef __cplusplus
}
#endif

#endif
