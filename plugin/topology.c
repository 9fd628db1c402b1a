/// @file topology.c
/// Bending edges and per-vertex adjacency (see topology.h).
#include "topology.h"

#include <stdlib.h>
#include <string.h>

/// One half-edge record: the undirected edge (a < b), its triangle and the opposite vertex.
typedef struct half_edge {
    int32_t a, b, tri, opposite;
} half_edge;

static int half_edge_cmp(const void* pa, const void* pb) {
    const half_edge* x = (const half_edge*)pa;
    const half_edge* y = (const half_edge*)pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    if (x->tri != y->tri) return x->tri < y->tri ? -1 : 1;
    return 0;
}

int dfm_topology_bending_edges(const int32_t* tris, int32_t tri_count, int32_t** out_edges, int32_t* out_count,
                               int32_t* out_nonmanifold) {
    size_t n = (size_t)tri_count * 3u;
    half_edge* he = (half_edge*)malloc(n * sizeof(half_edge) + 1);
    if (!he) return -1;
    for (int32_t t = 0; t < tri_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            int32_t p = tris[3 * t + k], q = tris[3 * t + (k + 1) % 3], o = tris[3 * t + (k + 2) % 3];
            half_edge* h = &he[3 * (size_t)t + (size_t)k];
            h->a = p < q ? p : q;
            h->b = p < q ? q : p;
            h->tri = t;
            h->opposite = o;
        }
    }
    qsort(he, n, sizeof(half_edge), half_edge_cmp);
    int32_t interior = 0, nonmanifold = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && he[j].a == he[i].a && he[j].b == he[i].b) ++j;
        if (j - i == 2 && he[i].opposite != he[i + 1].opposite) ++interior;
        else if (j - i != 1) ++nonmanifold;
        i = j;
    }
    int32_t* edges = NULL;
    if (interior > 0) {
        edges = (int32_t*)malloc((size_t)interior * 4u * sizeof(int32_t));
        if (!edges) {
            free(he);
            return -1;
        }
    }
    int32_t e = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && he[j].a == he[i].a && he[j].b == he[i].b) ++j;
        if (j - i == 2 && he[i].opposite != he[i + 1].opposite) {
            edges[4 * e + 0] = he[i].opposite;
            edges[4 * e + 1] = he[i + 1].opposite;
            edges[4 * e + 2] = he[i].a;
            edges[4 * e + 3] = he[i].b;
            ++e;
        }
        i = j;
    }
    free(he);
    *out_edges = edges;
    *out_count = interior;
    if (out_nonmanifold) *out_nonmanifold = nonmanifold;
    return 0;
}

/// Builds one CSR (offsets + (element, corner) pairs) for elements of `corners` vertices.
static int build_csr(int32_t vertex_count, const int32_t* elems, int32_t elem_count, int corners, int32_t** out_offsets,
                     int32_t** out_items) {
    int32_t* offsets = (int32_t*)calloc((size_t)vertex_count + 1u, sizeof(int32_t));
    if (!offsets) return -1;
    for (int32_t e = 0; e < elem_count; ++e)
        for (int k = 0; k < corners; ++k) {
            int32_t v = elems[(size_t)corners * (size_t)e + (size_t)k];
            if (v >= 0) offsets[v + 1]++;
        }
    for (int32_t v = 0; v < vertex_count; ++v) offsets[v + 1] += offsets[v];
    int32_t total = offsets[vertex_count];
    int32_t* items = (int32_t*)malloc((size_t)total * 2u * sizeof(int32_t) + 1);
    int32_t* fill = (int32_t*)malloc((size_t)vertex_count * sizeof(int32_t) + 1);
    if (!items || !fill) {
        free(offsets);
        free(items);
        free(fill);
        return -1;
    }
    memcpy(fill, offsets, (size_t)vertex_count * sizeof(int32_t));
    for (int32_t e = 0; e < elem_count; ++e)
        for (int k = 0; k < corners; ++k) {
            int32_t v = elems[(size_t)corners * (size_t)e + (size_t)k];
            if (v < 0) continue;
            int32_t slot = fill[v]++;
            items[2 * slot + 0] = e;
            items[2 * slot + 1] = k;
        }
    free(fill);
    *out_offsets = offsets;
    *out_items = items;
    return 0;
}

int dfm_adjacency_build(dfm_adjacency* adj, int32_t vertex_count, const int32_t* tris, int32_t tri_count,
                        const int32_t* edges, int32_t edge_count, const int32_t* tets, int32_t tet_count) {
    dfm_adjacency a;
    memset(&a, 0, sizeof(a));
    a.vertex_count = vertex_count;
    if (build_csr(vertex_count, tris, tri_count, 3, &a.tri_offsets, &a.tri_items) != 0 ||
        build_csr(vertex_count, edges, edge_count, 4, &a.edge_offsets, &a.edge_items) != 0 ||
        build_csr(vertex_count, tets, tet_count, 4, &a.tet_offsets, &a.tet_items) != 0) {
        dfm_adjacency_free(&a);
        return -1;
    }
    *adj = a;
    return 0;
}

void dfm_adjacency_free(dfm_adjacency* adj) {
    free(adj->tri_offsets);
    free(adj->tri_items);
    free(adj->edge_offsets);
    free(adj->edge_items);
    free(adj->tet_offsets);
    free(adj->tet_items);
    memset(adj, 0, sizeof(*adj));
}
