/// @file bvh_cpu.c
/// CPU twin of the deformable broad phase (reference for kernels/cuda/bvh_cuda.cu), and the
/// brute-force all-pairs check the tests compare it with.
///
/// Parallelism review (seed 001):
/// - P1 level batching: does-not-apply to the build (Karras 2012 builds every internal node
///   independently, no levels); the refit walks leaves to the root serially here (the CUDA twin
///   runs the leaves concurrently with arrival flags; applies-TODO on the CPU: OpenMP over
///   leaves with atomic flags).
/// - P2 parallel independent columns: the per-node build and the per-query traversal are
///   independent items; serial here (applies-TODO: the count and emit passes parallelise over
///   queries with no change to the output, whose slots come from the scan).
/// - P3 loop-invariant hoisting: applies-and-done: the query box is inflated once per query, not
///   per node; the sorted leaf order is kept for the refit.
/// - P4 offline memory layout: applies-and-done: leaves in Morton order, so that neighbouring
///   queries visit neighbouring nodes.
#include "bvh_cpu.h"

#include <dfm/dfm_base.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_morton.h"

static int check_prims(const dfm_bvh_prim* p, int32_t count, const char* what, const dfm_bvh_input* in, char* err,
                       size_t n) {
    for (int32_t i = 0; i < count; ++i) {
        int corners = dfm_bvh_prim_corners(p + i);
        for (int c = 0; c < 3; ++c) {
            int32_t v = p[i].v[c];
            if (c < corners ? (v < 0 || v >= in->vertex_count) : v != -1) {
                snprintf(err, n, "%s[%d].v[%d] is %d; must be 0..%d (unused corners -1, after the used ones)", what,
                         (int)i, c, (int)v, (int)in->vertex_count - 1);
                return DFM_ERROR_INDEX_OUT_OF_RANGE;
            }
        }
        if (p[i].body < 0 || p[i].body >= in->body_count) {
            snprintf(err, n, "%s[%d].body is %d; must be 0..%d", what, (int)i, (int)p[i].body, (int)in->body_count - 1);
            return DFM_ERROR_INDEX_OUT_OF_RANGE;
        }
    }
    return DFM_OK;
}

int dfm_bvh_validate(const dfm_bvh_input* in, char* err, size_t n) {
    if (!in) {
        snprintf(err, n, "bvh input is NULL");
        return DFM_ERROR_NULL_POINTER;
    }
    if (in->tree_count < 1 || in->query_count < 0 || in->body_count < 1 || in->vertex_count < 1) {
        snprintf(err, n, "bvh input counts: tree %d, query %d, body %d, vertex %d; must be >= 1, >= 0, >= 1, >= 1",
                 (int)in->tree_count, (int)in->query_count, (int)in->body_count, (int)in->vertex_count);
        return DFM_ERROR_INVALID_COUNT;
    }
    if (!in->x || !in->tree_prims || !in->filter || (in->query_count > 0 && !in->query_prims)) {
        snprintf(err, n, "bvh input: x, tree_prims, filter or query_prims is NULL");
        return DFM_ERROR_NULL_POINTER;
    }
    if (!(in->radius >= 0.0f) || !isfinite(in->radius)) {
        snprintf(err, n, "bvh input radius is %g; must be finite and >= 0 m", (double)in->radius);
        return DFM_ERROR_INVALID_VALUE;
    }
    if (in->self_set && (in->query_prims != in->tree_prims || in->query_count != in->tree_count)) {
        snprintf(err, n, "bvh input self_set is 1 but query_prims (%d) are not tree_prims (%d)", (int)in->query_count,
                 (int)in->tree_count);
        return DFM_ERROR_INVALID_VALUE;
    }
    for (int64_t i = 0; i < 3 * (int64_t)in->vertex_count; ++i)
        if (!isfinite(in->x[i])) {
            snprintf(err, n, "bvh input x of vertex %lld is not finite", (long long)(i / 3));
            return DFM_ERROR_NON_FINITE;
        }
    int r = check_prims(in->tree_prims, in->tree_count, "tree_prims", in, err, n);
    if (r == DFM_OK) r = check_prims(in->query_prims, in->query_count, "query_prims", in, err, n);
    return r;
}

int dfm_bvh_overflow(int64_t count, int64_t capacity, char* err, size_t n) {
    snprintf(err, n, "bvh pair list: %lld pairs found, capacity %lld; the first %lld are kept", (long long)count,
             (long long)capacity, (long long)capacity);
    return DFM_ERROR_CAPACITY;
}

void dfm_cpu_bvh_free(dfm_cpu_bvh* b) {
    if (!b) return;
    free(b->keys);
    free(b->codes);
    free(b->leaf_prim);
    free(b->left);
    free(b->right);
    free(b->parent);
    free(b->flag);
    free(b->boxes);
    memset(b, 0, sizeof(*b));
}

int dfm_cpu_bvh_init(dfm_cpu_bvh* b, int32_t capacity, char* err, size_t n) {
    memset(b, 0, sizeof(*b));
    if (capacity < 1) {
        snprintf(err, n, "bvh capacity is %d; must be >= 1", (int)capacity);
        return DFM_ERROR_INVALID_COUNT;
    }
    size_t c = (size_t)capacity;
    b->keys = (uint64_t*)malloc(c * sizeof(uint64_t));
    b->codes = (uint32_t*)malloc(c * sizeof(uint32_t));
    b->leaf_prim = (int32_t*)malloc(c * sizeof(int32_t));
    b->left = (int32_t*)malloc(c * sizeof(int32_t));
    b->right = (int32_t*)malloc(c * sizeof(int32_t));
    b->parent = (int32_t*)malloc(2 * c * sizeof(int32_t));
    b->flag = (int32_t*)malloc(c * sizeof(int32_t));
    b->boxes = (dfm_bvh_box*)malloc(2 * c * sizeof(dfm_bvh_box));
    if (!b->keys || !b->codes || !b->leaf_prim || !b->left || !b->right || !b->parent || !b->flag || !b->boxes) {
        dfm_cpu_bvh_free(b);
        snprintf(err, n, "bvh: out of host memory for %d leaves", (int)capacity);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    b->capacity = capacity;
    return DFM_OK;
}

static int cmp_key(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

int dfm_cpu_bvh_build(dfm_cpu_bvh* b, const dfm_bvh_input* in, char* err, size_t n) {
    int r = dfm_bvh_validate(in, err, n);
    if (r != DFM_OK) return r;
    if (in->tree_count > b->capacity) {
        snprintf(err, n, "bvh tree_count is %d; the tree holds %d leaves", (int)in->tree_count, (int)b->capacity);
        return DFM_ERROR_CAPACITY;
    }
    int32_t count = in->tree_count;
    dfm_bvh_box scene = dfm_bvh_box_empty();
    for (int32_t i = 0; i < count; ++i)
        scene = dfm_bvh_box_merge(scene, dfm_bvh_box_centroid(dfm_bvh_prim_box(in->tree_prims + i, in->x, 0.0f)));
    /* (code, index) keys: the order of CUB's stable radix sort of codes with index values */
    for (int32_t i = 0; i < count; ++i) {
        uint32_t code = dfm_bvh_morton(dfm_bvh_prim_box(in->tree_prims + i, in->x, 0.0f), &scene);
        b->keys[i] = ((uint64_t)code << 32) | (uint32_t)i;
    }
    qsort(b->keys, (size_t)count, sizeof(uint64_t), cmp_key);
    for (int32_t k = 0; k < count; ++k) {
        b->codes[k] = (uint32_t)(b->keys[k] >> 32);
        b->leaf_prim[k] = (int32_t)(b->keys[k] & 0xFFFFFFFFu);
    }
    b->leaf_count = count;
    b->scene = scene;
    b->prims = in->tree_prims;
    b->filter = in->filter;
    b->parent[0] = -1;
    for (int32_t i = 0; i + 1 < count; ++i) dfm_bvh_build_node(b->codes, count, i, b->left, b->right, b->parent);
    return dfm_cpu_bvh_refit(b, in, err, n);
}

int dfm_cpu_bvh_refit(dfm_cpu_bvh* b, const dfm_bvh_input* in, char* err, size_t n) {
    if (b->leaf_count < 1 || in->tree_prims != b->prims || in->tree_count != b->leaf_count) {
        snprintf(err, n, "bvh refit: tree_prims (%d) are not those of the last build (%d leaves)", (int)in->tree_count,
                 (int)b->leaf_count);
        return DFM_ERROR_INVALID_STATE;
    }
    int32_t count = b->leaf_count;
    if (count > 1) memset(b->flag, 0, sizeof(int32_t) * (size_t)(count - 1));
    for (int32_t k = 0; k < count; ++k)
        dfm_bvh_refit_leaf(count, k, dfm_bvh_prim_box(b->prims + b->leaf_prim[k], in->x, 0.0f), b->left, b->right,
                           b->parent, b->flag, b->boxes);
    return DFM_OK;
}

int dfm_cpu_bvh_query(const dfm_cpu_bvh* b, const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity,
                      int64_t* out_count, char* err, size_t n) {
    *out_count = 0;
    if (b->leaf_count < 1 || in->tree_prims != b->prims || in->filter != b->filter) {
        snprintf(err, n, "bvh query: the tree was not built over this input's tree_prims and filter");
        return DFM_ERROR_INVALID_STATE;
    }
    if (capacity < 0 || (capacity > 0 && !pairs)) {
        snprintf(err, n, "bvh query: pair capacity %lld with %s pairs", (long long)capacity,
                 pairs ? "non-NULL" : "NULL");
        return DFM_ERROR_INVALID_VALUE;
    }
    dfm_bvh_view v = {b->leaf_count, b->left, b->right, b->boxes, b->leaf_prim, b->prims, b->filter};
    int64_t total = 0;
    int32_t overflow = 0;
    /* serial, so the count and emit passes of the CUDA twin collapse into one: each query writes
       from the running total, which is the exclusive scan of the counts */
    for (int32_t q = 0; q < in->query_count; ++q) {
        dfm_bvh_box qb = dfm_bvh_prim_box(in->query_prims + q, in->x, in->radius);
        int64_t room = capacity - total > 0 ? capacity - total : 0;
        total += dfm_bvh_query_one(&v, q, in->query_prims + q, &qb, in->self_set, room > 0 ? pairs + total : NULL, room,
                                   &overflow);
    }
    *out_count = total;
    if (overflow) {
        snprintf(err, n, "bvh query: the traversal stack (%d) overflowed", DFM_BVH_STACK);
        return DFM_ERROR_CAPACITY;
    }
    return total > capacity ? dfm_bvh_overflow(total, capacity, err, n) : DFM_OK;
}

int dfm_cpu_bvh_brute(const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity, int64_t* out_count, char* err,
                      size_t n) {
    *out_count = 0;
    int r = dfm_bvh_validate(in, err, n);
    if (r != DFM_OK) return r;
    /* the tree boxes once, so that the inner loop is the overlap test and the filters */
    dfm_bvh_box* tb = (dfm_bvh_box*)malloc(sizeof(dfm_bvh_box) * (size_t)in->tree_count);
    if (!tb) {
        snprintf(err, n, "bvh brute force: out of host memory for %d boxes", (int)in->tree_count);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (int32_t t = 0; t < in->tree_count; ++t) tb[t] = dfm_bvh_prim_box(in->tree_prims + t, in->x, 0.0f);
    int64_t total = 0;
    for (int32_t q = 0; q < in->query_count; ++q) {
        dfm_bvh_box qb = dfm_bvh_prim_box(in->query_prims + q, in->x, in->radius);
        for (int32_t t = in->self_set ? q + 1 : 0; t < in->tree_count; ++t) {
            if (!dfm_bvh_box_overlap(&qb, tb + t)) continue;
            if (!dfm_bvh_pair_reported(q, in->query_prims + q, t, in->tree_prims + t, in->self_set, in->filter))
                continue;
            if (total < capacity) {
                pairs[total].a = q;
                pairs[total].b = t;
            }
            ++total;
        }
    }
    free(tb);
    *out_count = total;
    return total > capacity ? dfm_bvh_overflow(total, capacity, err, n) : DFM_OK;
}
