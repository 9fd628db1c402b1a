/// @file bvh_build.h
/// Linear BVH hierarchy from sorted Morton codes and its bottom-up refit (issue 16), after
/// Karras 2012, "Maximizing parallelism in the construction of BVHs, octrees, and k-d trees"
/// (HPG 2012, sec. 3-4): every internal node is built independently of the others (one thread
/// each on CUDA), and equal codes are told apart by their sorted index (the paper's sec. 4 tie
/// break), so the tree is defined for any input. Host and device.
///
/// Node numbering for n leaves: internal nodes 0..n-2 (0 is the root), leaf k (the k-th primitive
/// in code order) is node n-1+k. With one leaf the root is that leaf (node 0).
#ifndef DFM_BVH_BUILD_H
#define DFM_BVH_BUILD_H

#include "bvh_box.h"

/// Count of leading zero bits of a nonzero 32-bit value.
DFM_HD int dfm_bvh_clz(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __clz((int)v);
#else
    return __builtin_clz(v);
#endif
}

/// Karras's delta(i, j): the length of the common prefix of the keys (code, index) of sorted
/// leaves i and j, or -1 when j is outside 0..n-1.
DFM_HD int dfm_bvh_delta(const uint32_t* codes, int32_t n, int32_t i, int32_t j) {
    if (j < 0 || j >= n) return -1;
    uint32_t a = codes[i], b = codes[j];
    if (a == b) return 32 + dfm_bvh_clz((uint32_t)i ^ (uint32_t)j);
    return dfm_bvh_clz(a ^ b);
}

/// Builds internal node i (0 <= i <= n-2, n >= 2) from the n sorted codes: writes its children
/// (node numbers) to left[i], right[i] and itself as their parent. Karras 2012, Fig. 4.
DFM_HD void dfm_bvh_build_node(const uint32_t* codes, int32_t n, int32_t i, int32_t* left, int32_t* right,
                               int32_t* parent) {
    /* direction of the range: towards the neighbour with the longer common prefix */
    int d = dfm_bvh_delta(codes, n, i, i + 1) - dfm_bvh_delta(codes, n, i, i - 1) >= 0 ? 1 : -1;
    int dmin = dfm_bvh_delta(codes, n, i, i - d);
    int64_t lmax = 2;
    while (dfm_bvh_delta(codes, n, i, (int32_t)(i + lmax * d)) > dmin) lmax *= 2;
    int64_t l = 0;
    for (int64_t t = lmax / 2; t >= 1; t /= 2)
        if (dfm_bvh_delta(codes, n, i, (int32_t)(i + (l + t) * d)) > dmin) l += t;
    int32_t j = (int32_t)(i + l * d);
    /* split: the highest differing bit inside the range [min(i,j), max(i,j)] */
    int dnode = dfm_bvh_delta(codes, n, i, j);
    int64_t s = 0;
    for (int64_t div = 2;; div *= 2) {
        int64_t t = (l + div - 1) / div;
        if (dfm_bvh_delta(codes, n, i, (int32_t)(i + (s + t) * d)) > dnode) s += t;
        if (t <= 1) break;
    }
    int32_t gamma = (int32_t)(i + s * d + (d < 0 ? d : 0));
    int32_t lo = i < j ? i : j, hi = i < j ? j : i;
    int32_t a = lo == gamma ? n - 1 + gamma : gamma;
    int32_t b = hi == gamma + 1 ? n - 1 + gamma + 1 : gamma + 1;
    left[i] = a;
    right[i] = b;
    parent[a] = i;
    parent[b] = i;
    if (i == 0) parent[0] = -1;
}

/// Reads box `node` of the tree for the refit: on the device through L2 (ld.cg), so that boxes
/// written by other threads before their flag update are seen.
DFM_HD dfm_bvh_box dfm_bvh_load_box(const dfm_bvh_box* boxes, int32_t node) {
#if defined(__CUDA_ARCH__)
    dfm_bvh_box b;
    const float* p = (const float*)(boxes + node);
    for (int k = 0; k < 3; ++k) {
        b.lo[k] = __ldcg(p + k);
        b.hi[k] = __ldcg(p + 3 + k);
    }
    return b;
#else
    return boxes[node];
#endif
}

/// Refit from leaf k (sorted index) of an n-leaf tree: stores the leaf's box `leaf_box` and walks
/// up; at each internal node the first arriving child stops (flag 0 -> 1) and the second one
/// merges both children's boxes and goes on (Karras 2012, sec. 4: one atomic flag per internal
/// node, zeroed before the refit). Run once per leaf, in any order or concurrently: min/max
/// merges are exact, so every order gives the same boxes.
DFM_HD void dfm_bvh_refit_leaf(int32_t n, int32_t k, dfm_bvh_box leaf_box, const int32_t* left, const int32_t* right,
                               const int32_t* parent, int32_t* flag, dfm_bvh_box* boxes) {
    int32_t node = n - 1 + k;
    boxes[node] = leaf_box;
    int32_t p = n > 1 ? parent[node] : -1;
    while (p >= 0) {
#if defined(__CUDA_ARCH__)
        __threadfence(); /* this thread's box writes before its flag */
#endif
        if (DFM_COUNTER_BUMP(flag + p) == 0) return;
        boxes[p] = dfm_bvh_box_merge(dfm_bvh_load_box(boxes, left[p]), dfm_bvh_load_box(boxes, right[p]));
        p = parent[p];
    }
}

#endif
