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
        if (j - i == 2 && he[i].opposite != he[i + 1].opposite)
            ++interior;
        else if (j - i != 1)
            ++nonmanifold;
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

static int cmp_int2(const void* pa, const void* pb) {
    const int32_t* a = (const int32_t*)pa;
    const int32_t* b = (const int32_t*)pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : (a[1] > b[1]);
}

int dfm_topology_unique_edges(const int32_t* tris, int32_t tri_count, int32_t** out_edges, int32_t* out_count) {
    size_t n = (size_t)tri_count * 3u;
    int32_t* e = (int32_t*)malloc(n * 2u * sizeof(int32_t) + 1);
    if (!e) return -1;
    for (int32_t t = 0; t < tri_count; ++t)
        for (int k = 0; k < 3; ++k) {
            int32_t p = tris[3 * t + k], q = tris[3 * t + (k + 1) % 3];
            e[2 * (3 * (size_t)t + (size_t)k)] = p < q ? p : q;
            e[2 * (3 * (size_t)t + (size_t)k) + 1] = p < q ? q : p;
        }
    qsort(e, n, 2 * sizeof(int32_t), cmp_int2);
    size_t u = 0;
    for (size_t i = 0; i < n; ++i) {
        if (u > 0 && e[2 * (u - 1)] == e[2 * i] && e[2 * (u - 1) + 1] == e[2 * i + 1]) continue;
        e[2 * u] = e[2 * i];
        e[2 * u + 1] = e[2 * i + 1];
        ++u;
    }
    *out_edges = e;
    *out_count = (int32_t)u;
    return 0;
}

/// A tet face: sorted key, original corners and the tet's fourth vertex.
typedef struct tet_face {
    int32_t key[3], v[3], opposite, order;
} tet_face;

static int cmp_tet_face(const void* pa, const void* pb) {
    const tet_face* a = (const tet_face*)pa;
    const tet_face* b = (const tet_face*)pb;
    for (int k = 0; k < 3; ++k)
        if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
    return a->order < b->order ? -1 : (a->order > b->order);
}

static int cmp_tet_face_order(const void* pa, const void* pb) {
    const tet_face* a = (const tet_face*)pa;
    const tet_face* b = (const tet_face*)pb;
    return a->order < b->order ? -1 : (a->order > b->order);
}

int dfm_topology_tet_boundary(const int32_t* tets, int32_t tet_count, const float* x, int32_t** out_faces,
                              int32_t* out_count) {
    static const int fv[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
    size_t n = (size_t)tet_count * 4u;
    tet_face* f = (tet_face*)malloc(n * sizeof(tet_face) + 1);
    if (!f) return -1;
    for (int32_t t = 0; t < tet_count; ++t)
        for (int k = 0; k < 4; ++k) {
            tet_face* q = &f[4 * (size_t)t + (size_t)k];
            for (int j = 0; j < 3; ++j) q->v[j] = q->key[j] = tets[4 * t + fv[k][j]];
            q->opposite = tets[4 * t + fv[k][3]];
            q->order = 4 * t + k;
            for (int a = 0; a < 2; ++a) /* sort the key */
                for (int b = 0; b < 2 - a; ++b)
                    if (q->key[b] > q->key[b + 1]) {
                        int32_t tmp = q->key[b];
                        q->key[b] = q->key[b + 1];
                        q->key[b + 1] = tmp;
                    }
        }
    qsort(f, n, sizeof(tet_face), cmp_tet_face);
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && f[j].key[0] == f[i].key[0] && f[j].key[1] == f[i].key[1] && f[j].key[2] == f[i].key[2]) ++j;
        if (j - i == 1) f[m++] = f[i];
        i = j;
    }
    qsort(f, m, sizeof(tet_face), cmp_tet_face_order);
    int32_t* out = (int32_t*)malloc(m * 3u * sizeof(int32_t) + 1);
    if (!out) {
        free(f);
        return -1;
    }
    for (size_t i = 0; i < m; ++i) {
        const float *a = x + 3 * f[i].v[0], *b = x + 3 * f[i].v[1], *c = x + 3 * f[i].v[2], *o = x + 3 * f[i].opposite;
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        float to_o = nrm[0] * (o[0] - a[0]) + nrm[1] * (o[1] - a[1]) + nrm[2] * (o[2] - a[2]);
        out[3 * i] = f[i].v[0];
        out[3 * i + 1] = to_o > 0.0f ? f[i].v[2] : f[i].v[1];
        out[3 * i + 2] = to_o > 0.0f ? f[i].v[1] : f[i].v[2];
    }
    free(f);
    *out_faces = out;
    *out_count = (int32_t)m;
    return 0;
}

int dfm_topology_unique_vertices(const int32_t* elems, int32_t count, int corners, int32_t vertex_count,
                                 int32_t** out_vertices, int32_t* out_count) {
    uint8_t* used = (uint8_t*)calloc((size_t)vertex_count + 1u, 1);
    if (!used) return -1;
    int32_t n = 0;
    for (size_t i = 0; i < (size_t)count * (size_t)corners; ++i)
        if (!used[elems[i]]) {
            used[elems[i]] = 1;
            ++n;
        }
    int32_t* v = (int32_t*)malloc((size_t)n * sizeof(int32_t) + 1);
    if (!v) {
        free(used);
        return -1;
    }
    n = 0;
    for (int32_t i = 0; i < vertex_count; ++i)
        if (used[i]) v[n++] = i;
    free(used);
    *out_vertices = v;
    *out_count = n;
    return 0;
}
