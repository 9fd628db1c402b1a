/// @file bvh_query.h
/// The broad-phase query of issue 16: every (query primitive, tree primitive) pair whose boxes
/// overlap once the query box is inflated by the contact radius, and that passes the filters
/// (dfm_bvh_pair_allowed). A small-stack depth-first traversal of the linear BVH of bvh_build.h
/// (Karras 2012), one query per thread on CUDA. Host and device.
///
/// Pairs come out in a fixed order: by query, then in traversal order (right child pushed first,
/// so the left subtree is visited first). The backends run a count pass, an exclusive scan and an
/// emit pass, so the list is the same on both, run to run, whatever the thread count.
#ifndef DFM_BVH_QUERY_H
#define DFM_BVH_QUERY_H

#include "bvh_box.h"
#include "bvh_build.h"

/// Traversal stack entries. The tree depth is at most 30 (code bits) + 32 (index tie break)
/// + 1 = 63 levels, and the stack holds at most one pending sibling per level.
#define DFM_BVH_STACK 64

/// Per-body filter data of the broad phase.
typedef struct dfm_bvh_filter {
    int32_t env;            ///< Environment of the body; bodies of different environments never pair.
    uint32_t group;         ///< Collision-group bits of the body (its categories). Default 1.
    uint32_t mask;          ///< Groups the body collides with. Two bodies pair when each one's group
                            ///< meets the other's mask. Default all bits.
    int32_t self_collision; ///< 1: the body's own primitives pair with each other; 0: never.
} dfm_bvh_filter;

/// One candidate pair: query primitive a and tree primitive b (indices into their arrays).
typedef struct dfm_bvh_pair {
    int32_t a; ///< Query primitive index.
    int32_t b; ///< Tree primitive index.
} dfm_bvh_pair;

/// A built tree for the query (device or host pointers, as the caller runs).
typedef struct dfm_bvh_view {
    int32_t leaf_count;           ///< Leaves n (>= 1).
    const int32_t* left;          ///< n-1: left child node of each internal node.
    const int32_t* right;         ///< n-1: right child node.
    const dfm_bvh_box* boxes;     ///< 2n-1: node boxes (not inflated), world frame, m.
    const int32_t* leaf_prim;     ///< n: tree primitive of each sorted leaf.
    const dfm_bvh_prim* prims;    ///< Tree primitives.
    const dfm_bvh_filter* filter; ///< Per body.
} dfm_bvh_view;

/// Whether primitives a and b may pair: same environment; within one body only with
/// self-collision on; across bodies only when the group masks agree both ways; and never when
/// they share a vertex (a vertex against its own incident triangles, adjacent edges).
DFM_HD int dfm_bvh_pair_allowed(const dfm_bvh_prim* a, const dfm_bvh_prim* b, const dfm_bvh_filter* filter) {
    const dfm_bvh_filter* fa = filter + a->body;
    const dfm_bvh_filter* fb = filter + b->body;
    if (fa->env != fb->env) return 0;
    if (a->body == b->body) {
        if (!fa->self_collision) return 0;
    } else if (!(fa->group & fb->mask) || !(fb->group & fa->mask)) {
        return 0;
    }
    for (int i = 0; i < 3; ++i) {
        if (a->v[i] < 0) break;
        for (int j = 0; j < 3; ++j)
            if (b->v[j] == a->v[i]) return 0;
    }
    return 1;
}

/// Whether (query qi, tree ti) is reported: the filters, and with self_set (queries and tree are
/// the same primitives, e.g. edge-edge) only once per unordered pair (qi < ti).
DFM_HD int dfm_bvh_pair_reported(int32_t qi, const dfm_bvh_prim* q, int32_t ti, const dfm_bvh_prim* t, int self_set,
                                 const dfm_bvh_filter* filter) {
    if (self_set && !(qi < ti)) return 0;
    return dfm_bvh_pair_allowed(q, t, filter);
}

/// Traverses the tree for query qi (primitive q, box qbox already inflated by the radius). Writes
/// pair k of this query to out[k] while k < room (out may be NULL with room 0: the count pass),
/// and returns the number of pairs; sets *stack_overflow to 1 if the stack ran out (which the
/// depth bound above rules out; reported, never ignored).
DFM_HD int32_t dfm_bvh_query_one(const dfm_bvh_view* t, int32_t qi, const dfm_bvh_prim* q, const dfm_bvh_box* qbox,
                                 int self_set, dfm_bvh_pair* out, int64_t room, int32_t* stack_overflow) {
    int32_t n = t->leaf_count, found = 0;
    int32_t stack[DFM_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        int32_t node = stack[--top];
        if (!dfm_bvh_box_overlap(qbox, t->boxes + node)) continue;
        if (node >= n - 1) {
            int32_t ti = t->leaf_prim[node - (n - 1)];
            if (dfm_bvh_pair_reported(qi, q, ti, t->prims + ti, self_set, t->filter)) {
                if (found < room) {
                    out[found].a = qi;
                    out[found].b = ti;
                }
                ++found;
            }
            continue;
        }
        if (top + 2 > DFM_BVH_STACK) {
            *stack_overflow = 1;
            continue;
        }
        stack[top++] = t->right[node];
        stack[top++] = t->left[node];
    }
    return found;
}

/// Everything one broad-phase build and query reads (host pointers; the CUDA module uploads them).
typedef struct dfm_bvh_input {
    const float* x;                  ///< 3 per vertex: positions, world frame, m.
    int32_t vertex_count;            ///< Vertices in x.
    const dfm_bvh_prim* tree_prims;  ///< Primitives the tree is built over (triangles or edges).
    int32_t tree_count;              ///< >= 1.
    const dfm_bvh_prim* query_prims; ///< Primitives queried against the tree (points or edges).
    int32_t query_count;             ///< >= 0.
    const dfm_bvh_filter* filter;    ///< Per body.
    int32_t body_count;              ///< >= 1.
    float radius;                    ///< Contact radius: query boxes grow by it on every side, m (>= 0).
    int self_set;                    ///< 1: query_prims is tree_prims (edge-edge): each unordered pair once.
} dfm_bvh_input;

#endif
