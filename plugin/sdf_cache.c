/// @file sdf_cache.c
/// Shared baked mesh SDF grids (see sdf_cache.h).
#include "sdf_cache.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(uint64_t h, const void* data, size_t bytes) {
    const unsigned char* p = (const unsigned char*)data;
    for (size_t i = 0; i < bytes; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t input_hash(const float* v, int32_t nv, const int32_t* t, int32_t nt, float cell, float margin) {
    uint64_t h = 14695981039346656037ull;
    h = fnv1a(h, &nv, sizeof(nv));
    h = fnv1a(h, &nt, sizeof(nt));
    h = fnv1a(h, &cell, sizeof(cell));
    h = fnv1a(h, &margin, sizeof(margin));
    h = fnv1a(h, v, sizeof(float) * 3u * (size_t)nv);
    return fnv1a(h, t, sizeof(int32_t) * 3u * (size_t)nt);
}

static int same_inputs(const dfm_sdf_entry* e, uint64_t hash, const float* v, int32_t nv, const int32_t* t, int32_t nt,
                       float cell, float margin) {
    return e->hash == hash && e->vertex_count == nv && e->triangle_count == nt &&
           memcmp(&e->cell_request, &cell, sizeof(cell)) == 0 && memcmp(&e->margin, &margin, sizeof(margin)) == 0 &&
           memcmp(e->vertices, v, sizeof(float) * 3u * (size_t)nv) == 0 &&
           memcmp(e->triangles, t, sizeof(int32_t) * 3u * (size_t)nt) == 0;
}

static void entry_free(dfm_sdf_entry* e) {
    dfm_mesh_sdf_free(&e->sdf);
    free(e->vertices);
    free(e->triangles);
    free(e);
}

int dfm_sdf_cache_acquire(dfm_sdf_cache* cache, const float* vertices, int32_t vertex_count, const int32_t* triangles,
                          int32_t triangle_count, float cell, float margin, int64_t max_nodes, dfm_sdf_entry** out,
                          int* hit, char* err, size_t err_size) {
    *out = NULL;
    *hit = 0;
    uint64_t hash = input_hash(vertices, vertex_count, triangles, triangle_count, cell, margin);
    for (int32_t k = 0; k < cache->count; ++k) {
        dfm_sdf_entry* e = cache->entries[k];
        if (same_inputs(e, hash, vertices, vertex_count, triangles, triangle_count, cell, margin)) {
            e->refs++;
            cache->hits++;
            *out = e;
            *hit = 1;
            return 0;
        }
    }
    if (cache->count == cache->capacity) {
        int32_t cap = cache->capacity ? 2 * cache->capacity : 8;
        dfm_sdf_entry** grown = (dfm_sdf_entry**)realloc(cache->entries, (size_t)cap * sizeof(*grown));
        if (!grown) {
            if (err && err_size) err[0] = '\0';
            return DFM_MESH_SDF_OUT_OF_MEMORY;
        }
        cache->entries = grown;
        cache->capacity = cap;
    }
    dfm_sdf_entry* e = (dfm_sdf_entry*)calloc(1, sizeof(dfm_sdf_entry));
    if (e) {
        e->vertices = (float*)malloc(sizeof(float) * 3u * (size_t)vertex_count);
        e->triangles = (int32_t*)malloc(sizeof(int32_t) * 3u * (size_t)triangle_count);
    }
    if (!e || !e->vertices || !e->triangles) {
        if (e) entry_free(e);
        if (err && err_size) err[0] = '\0';
        return DFM_MESH_SDF_OUT_OF_MEMORY;
    }
    int rc = dfm_mesh_sdf_bake(vertices, vertex_count, triangles, triangle_count, cell, margin, max_nodes, &e->sdf, err,
                               err_size);
    if (rc != DFM_MESH_SDF_OK) {
        entry_free(e);
        return rc;
    }
    memcpy(e->vertices, vertices, sizeof(float) * 3u * (size_t)vertex_count);
    memcpy(e->triangles, triangles, sizeof(int32_t) * 3u * (size_t)triangle_count);
    e->vertex_count = vertex_count;
    e->triangle_count = triangle_count;
    e->cell_request = cell;
    e->margin = margin;
    e->hash = hash;
    e->refs = 2; /* the caller's shape and the cache list */
    cache->entries[cache->count++] = e;
    cache->bakes++;
    *out = e;
    return 0;
}

void dfm_sdf_entry_release(dfm_sdf_entry* entry) {
    if (entry) entry->refs--;
}

void dfm_sdf_cache_sweep(dfm_sdf_cache* cache) {
    int32_t kept = 0;
    for (int32_t k = 0; k < cache->count; ++k) {
        dfm_sdf_entry* e = cache->entries[k];
        if (e->refs <= 1)
            entry_free(e);
        else
            cache->entries[kept++] = e;
    }
    cache->count = kept;
}

void dfm_sdf_cache_free(dfm_sdf_cache* cache) {
    for (int32_t k = 0; k < cache->count; ++k) entry_free(cache->entries[k]);
    free(cache->entries);
    memset(cache, 0, sizeof(*cache));
}
