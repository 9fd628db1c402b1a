/// @file coloring.c
/// Greedy particle coloring with balancing (see coloring.h).
#include "coloring.h"

#include <stdlib.h>
#include <string.h>

/// Undirected particle graph in CSR form (unique neighbours, sorted).
typedef struct particle_graph {
    int32_t* offsets;
    int32_t* neighbors;
} particle_graph;

static int cmp_pair(const void* pa, const void* pb) {
    const int32_t* a = (const int32_t*)pa;
    const int32_t* b = (const int32_t*)pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    if (a[1] != b[1]) return a[1] < b[1] ? -1 : 1;
    return 0;
}

/// Appends every ordered pair (a, b), a != b, among the non-negative corners of an element.
static size_t push_pairs(int32_t* pairs, size_t at, const int32_t* corners, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (i == j || corners[i] < 0 || corners[j] < 0 || corners[i] == corners[j]) continue;
            pairs[2 * at + 0] = corners[i];
            pairs[2 * at + 1] = corners[j];
            ++at;
        }
    return at;
}

static int graph_build(particle_graph* g, int32_t n, const int32_t* tris, int32_t tri_count, const int32_t* edges,
                       int32_t edge_count, const int32_t* tets, int32_t tet_count) {
    size_t max_pairs = (size_t)tri_count * 6u + (size_t)edge_count * 12u + (size_t)tet_count * 12u;
    int32_t* pairs = (int32_t*)malloc(max_pairs * 2u * sizeof(int32_t) + 1);
    int32_t* offsets = (int32_t*)calloc((size_t)n + 1u, sizeof(int32_t));
    if (!pairs || !offsets) {
        free(pairs);
        free(offsets);
        return -1;
    }
    size_t m = 0;
    for (int32_t t = 0; t < tri_count; ++t) m = push_pairs(pairs, m, tris + 3 * (size_t)t, 3);
    for (int32_t e = 0; e < edge_count; ++e) m = push_pairs(pairs, m, edges + 4 * (size_t)e, 4);
    for (int32_t t = 0; t < tet_count; ++t) m = push_pairs(pairs, m, tets + 4 * (size_t)t, 4);
    qsort(pairs, m, 2 * sizeof(int32_t), cmp_pair);
    size_t u = 0;
    for (size_t i = 0; i < m; ++i) {
        if (u > 0 && pairs[2 * (u - 1)] == pairs[2 * i] && pairs[2 * (u - 1) + 1] == pairs[2 * i + 1]) continue;
        pairs[2 * u] = pairs[2 * i];
        pairs[2 * u + 1] = pairs[2 * i + 1];
        ++u;
    }
    int32_t* neighbors = (int32_t*)malloc(u * sizeof(int32_t) + 1);
    if (!neighbors) {
        free(pairs);
        free(offsets);
        return -1;
    }
    for (size_t i = 0; i < u; ++i) {
        offsets[pairs[2 * i] + 1]++;
        neighbors[i] = pairs[2 * i + 1];
    }
    for (int32_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
    free(pairs);
    g->offsets = offsets;
    g->neighbors = neighbors;
    return 0;
}

/// Sort key for greedy order: decreasing degree, then increasing index.
typedef struct order_key {
    int32_t degree, vertex;
} order_key;

static int cmp_order(const void* pa, const void* pb) {
    const order_key* a = (const order_key*)pa;
    const order_key* b = (const order_key*)pb;
    if (a->degree != b->degree) return a->degree > b->degree ? -1 : 1;
    return a->vertex < b->vertex ? -1 : (a->vertex > b->vertex);
}

/// True when no neighbour of v has color c.
static int color_is_free(const particle_graph* g, const int32_t* color, int32_t v, int32_t c) {
    for (int32_t k = g->offsets[v]; k < g->offsets[v + 1]; ++k)
        if (color[g->neighbors[k]] == c) return 0;
    return 1;
}

/// Moves particles from the largest to the smallest color while allowed (see coloring.h).
static void balance(const particle_graph* g, int32_t n, int32_t* color, int32_t color_count, int32_t* sizes) {
    if (color_count < 2) return;
    for (int32_t guard = 0; guard < n; ++guard) {
        int32_t big = 0, small = 0;
        for (int32_t c = 1; c < color_count; ++c) {
            if (sizes[c] > sizes[big]) big = c;
            if (sizes[c] < sizes[small]) small = c;
        }
        if (sizes[big] - sizes[small] <= 2 || (double)sizes[big] <= 1.1 * (double)sizes[small]) return;
        int32_t moved = -1;
        for (int32_t v = 0; v < n && moved < 0; ++v)
            if (color[v] == big && color_is_free(g, color, v, small)) moved = v;
        if (moved < 0) return;
        color[moved] = small;
        sizes[big]--;
        sizes[small]++;
    }
}

int dfm_coloring_compute(dfm_coloring* out, int32_t n, const int32_t* tris, int32_t tri_count, const int32_t* edges,
                         int32_t edge_count, const int32_t* tets, int32_t tet_count) {
    particle_graph g;
    if (graph_build(&g, n, tris, tri_count, edges, edge_count, tets, tet_count) != 0) return -1;
    int32_t* color = (int32_t*)malloc((size_t)n * sizeof(int32_t) + 1);
    order_key* order = (order_key*)malloc((size_t)n * sizeof(order_key) + 1);
    int32_t max_degree = 0;
    for (int32_t v = 0; v < n; ++v) {
        int32_t d = g.offsets[v + 1] - g.offsets[v];
        if (d > max_degree) max_degree = d;
    }
    int32_t* sizes = (int32_t*)calloc((size_t)max_degree + 2u, sizeof(int32_t));
    uint8_t* used = (uint8_t*)calloc((size_t)max_degree + 2u, 1);
    if (!color || !order || !sizes || !used) {
        free(color);
        free(order);
        free(sizes);
        free(used);
        free(g.offsets);
        free(g.neighbors);
        return -1;
    }
    for (int32_t v = 0; v < n; ++v) {
        color[v] = -1;
        order[v].degree = g.offsets[v + 1] - g.offsets[v];
        order[v].vertex = v;
    }
    qsort(order, (size_t)n, sizeof(order_key), cmp_order);
    int32_t color_count = 0;
    for (int32_t i = 0; i < n; ++i) {
        int32_t v = order[i].vertex;
        for (int32_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
            int32_t c = color[g.neighbors[k]];
            if (c >= 0) used[c] = 1;
        }
        int32_t c = 0;
        while (used[c]) ++c; /* at most degree colors are used, so c <= max_degree */
        color[v] = c;
        sizes[c]++;
        if (c + 1 > color_count) color_count = c + 1;
        for (int32_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
            int32_t cn = color[g.neighbors[k]];
            if (cn >= 0) used[cn] = 0;
        }
    }
    balance(&g, n, color, color_count, sizes);
    free(order);
    free(sizes);
    free(used);
    free(g.offsets);
    free(g.neighbors);
    out->vertex_count = n;
    out->color_count = color_count;
    out->color = color;
    return 0;
}

/// Returns 1 when two non-negative corners of one element share a color.
static int element_conflicts(const int32_t* color, const int32_t* corners, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (corners[i] >= 0 && corners[j] >= 0 && corners[i] != corners[j] &&
                color[corners[i]] == color[corners[j]])
                return 1;
    return 0;
}

int32_t dfm_coloring_first_conflict(const dfm_coloring* c, const int32_t* tris, int32_t tri_count, const int32_t* edges,
                                    int32_t edge_count, const int32_t* tets, int32_t tet_count) {
    for (int32_t t = 0; t < tri_count; ++t)
        if (element_conflicts(c->color, tris + 3 * (size_t)t, 3)) return t;
    for (int32_t e = 0; e < edge_count; ++e)
        if (element_conflicts(c->color, edges + 4 * (size_t)e, 4)) return tri_count + e;
    for (int32_t t = 0; t < tet_count; ++t)
        if (element_conflicts(c->color, tets + 4 * (size_t)t, 4)) return tri_count + edge_count + t;
    return -1;
}

void dfm_coloring_free(dfm_coloring* c) {
    free(c->color);
    memset(c, 0, sizeof(*c));
}
