/// @file sdf_cache.h
/// Baked mesh SDF grids shared between the shapes of one world that were built from equal inputs
/// (vertices, triangles, cell size and grid margin, compared exactly): a robot gripper mesh added
/// once per environment is baked once, not once per environment. Each grid is reference-counted:
/// every shape holds one reference, and the world's cache list holds one more so that a later
/// equal shape can find it. Entries only the cache still holds are dropped by
/// dfm_sdf_cache_sweep (called when a shape is removed) and by dfm_sdf_cache_free.
#ifndef DFM_SDF_CACHE_H
#define DFM_SDF_CACHE_H

#include <stdint.h>

#include "mesh_sdf.h"

/// One baked grid and the inputs it was baked from.
typedef struct dfm_sdf_entry {
    int32_t refs;       ///< Shapes using it, plus one for the cache list.
    uint64_t hash;      ///< FNV-1a of the inputs (a quick filter before the exact compare).
    float* vertices;    ///< Copy of the input vertices (3 per vertex), m.
    int32_t* triangles; ///< Copy of the input triangles (3 per triangle).
    int32_t vertex_count, triangle_count;
    float cell_request; ///< The requested cell size (0 = automatic), m.
    float margin;       ///< The grid margin asked for, m.
    dfm_mesh_sdf sdf;   ///< The baked grid.
} dfm_sdf_entry;

/// The world's list of live entries.
typedef struct dfm_sdf_cache {
    dfm_sdf_entry** entries;
    int32_t count, capacity;
    int64_t bakes, hits; ///< Grids baked and shapes served from the cache (for the log and tests).
} dfm_sdf_cache;

/// Returns (with a new reference) the grid for these inputs, baking it on a miss. On failure
/// returns a negative DFM_MESH_SDF_* code with `err` filled (empty for out of memory) and *out
/// NULL; *hit says whether the grid came from the cache.
int dfm_sdf_cache_acquire(dfm_sdf_cache* cache, const float* vertices, int32_t vertex_count, const int32_t* triangles,
                          int32_t triangle_count, float cell, float margin, int64_t max_nodes, dfm_sdf_entry** out,
                          int* hit, char* err, size_t err_size);

/// Drops one reference (a shape's); the cache's own is dropped by the sweep.
void dfm_sdf_entry_release(dfm_sdf_entry* entry);

/// Frees the entries that only the cache still references.
void dfm_sdf_cache_sweep(dfm_sdf_cache* cache);

/// Frees every entry and the list (at world destruction, after the shapes released theirs).
void dfm_sdf_cache_free(dfm_sdf_cache* cache);

#endif
