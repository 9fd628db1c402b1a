/// @file dfm_scene_fold.h
/// A cloth folded onto itself (issue 16): the mesh of the `fold` scene of
/// tests/physics/test_physics_deform_contact.c, its GPU parity twin, the SIMD bitwise test and the
/// cloth-fold benchmark workload, and its layer-order check. Positions in m, world frame, z up.
///
/// The cloth is DFM_SCENE_FOLD_WIDTH wide along x (nu columns) and 2 * half rows long: rows
/// 0 .. half - 1 are the lower half, lying flat DFM_SCENE_FOLD_Z0 above the table top (z = 0) and
/// going +y over DFM_SCENE_FOLD_LEN; rows half .. 2 half - 1 are the upper half, running back over
/// it DFM_SCENE_FOLD_GAP higher. The fold is the vertical strip between rows half - 1 and half.
#ifndef DFM_SCENE_FOLD_H
#define DFM_SCENE_FOLD_H

#include "dfm_scene_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DFM_SCENE_FOLD_WIDTH 0.3f ///< The cloth's width along x, m.
#define DFM_SCENE_FOLD_LEN 0.2f   ///< Each half's length along y, m.
#define DFM_SCENE_FOLD_Z0 0.006f  ///< The lower half's height above the table top (z = 0), m.
#define DFM_SCENE_FOLD_GAP 0.02f  ///< The upper half's height above the lower one, m.

/// Generates the folded cloth of nu columns (>= 2) and 2 * half rows (half >= 2), centred on
/// x = ox (m) and y = 0, into `out` (a grid: nu, nv = 2 half; vertex (i, j) is j * nu + i).
/// Triangles: two per cell, (a, b, d) and (a, d, c) with a = (i, j), b = (i + 1, j),
/// c = (i, j + 1), d = (i + 1, j + 1), row after row: the lower half's come first and their
/// normals point up (+z); the upper half's, the same winding run backwards, point down. Returns
/// DFM_OK, DFM_ERROR_INVALID_COUNT or DFM_ERROR_OUT_OF_HOST_MEMORY (then `out` holds nothing to
/// free). Free with dfm_scene_grid_free.
dfm_result dfm_scene_fold_make(int32_t nu, int32_t half, float ox, dfm_scene_grid* out);

/// How many of the folded cloth's first triangles make the lower half: 2 (nu - 1) (half - 1).
int32_t dfm_scene_fold_lower_triangles(const dfm_scene_grid* fold);

/// The layer-order check of the folded cloth at positions `x` (3 floats per vertex of the body):
/// the smallest signed distance (m) of an upper-half vertex away from the fold row (rows
/// half + 1 .. 2 half - 1, whose neighbours are not the fold strip) to the lower half's sheet
/// (dfm_scene_min_signed_distance). >= 0 while no vertex has passed through the lower half; the
/// layers rest about one contact radius apart. O(upper vertices x lower triangles).
double dfm_scene_fold_min_distance(const dfm_scene_grid* fold, const float* x);

/// The folded cloth on the table in a world (the tests' `fold` scene): mesh, ids.
typedef struct dfm_scene_fold {
    dfm_scene_grid mesh;   ///< The cloth's mesh as built (owned: free with dfm_scene_fold_free).
    dfm_body_id id;        ///< The cloth's body.
    dfm_shape_id table_id; ///< The table (dfm_scene_table_def, top face z = 0).
} dfm_scene_fold;

/// Adds the table, then the folded cloth of nu x 2 half vertices centred on x = y = 0
/// (dfm_scene_fold_make) with `def`'s other fields (its self_collision among them), to `w` into
/// `out`. Returns DFM_OK or the failing call's result (the world's last error says why); on
/// failure `out` holds what was made so far (free it all the same).
dfm_result dfm_scene_fold_add(dfm_world* w, int32_t nu, int32_t half, dfm_cloth_def def, dfm_scene_fold* out);

/// Frees the scene's mesh (safe on a zeroed scene; the bodies stay in their world).
void dfm_scene_fold_free(dfm_scene_fold* f);

/// Steps `w` `steps` times by `dt` (s) and takes the layer check (dfm_scene_fold_min_distance)
/// after each step: its smallest value (m) into *min_out (1e30 for no step) and the first step
/// (from 0) that saw it into *step_out (-1 for none). Returns DFM_OK, or the first failing call's
/// result, where it stops.
dfm_result dfm_scene_fold_run(dfm_world* w, const dfm_scene_fold* f, int32_t steps, float dt, double* min_out,
                              int32_t* step_out);

#ifdef __cplusplus
}
#endif

#endif
