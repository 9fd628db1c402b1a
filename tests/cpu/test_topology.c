/// Topology: bending edges with opposite vertices, non-manifold handling, adjacency CSR.
#include "dfm_test.h"
#include "topology.h"

int main(void) {
    /* Two triangles sharing edge 1-2: (0,1,2) and (2,1,3). */
    int32_t quad[6] = {0, 1, 2, 2, 1, 3};
    int32_t *edges = NULL, count = 0, nonmanifold = 0;
    CHECK(dfm_topology_bending_edges(quad, 2, &edges, &count, &nonmanifold) == 0, "oom");
    CHECK(count == 1 && nonmanifold == 0, "count %d nonmanifold %d", count, nonmanifold);
    if (count == 1)
        CHECK(edges[0] == 0 && edges[1] == 3 && edges[2] == 1 && edges[3] == 2, "edge row %d %d %d %d", edges[0],
              edges[1], edges[2], edges[3]);
    free(edges);

    /* A fan of three triangles on one edge: non-manifold, no bending. */
    int32_t fan[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    CHECK(dfm_topology_bending_edges(fan, 3, &edges, &count, &nonmanifold) == 0, "oom");
    CHECK(count == 0 && nonmanifold == 1, "fan: count %d nonmanifold %d", count, nonmanifold);
    free(edges);

    /* Grid: interior edges = 3(n-1)^2 - 2(n-1) for an n x n grid of 2(n-1)^2 triangles. */
    dfm_test_grid g = dfm_test_make_grid(6, 6, 1, 1, 0, 0, 0);
    CHECK(dfm_topology_bending_edges(g.triangles, g.triangle_count, &edges, &count, &nonmanifold) == 0, "oom");
    int32_t all_edges = 2 * 6 * 5 + 25; /* grid lines + one diagonal per cell */
    int32_t boundary = 4 * 5;
    CHECK(count == all_edges - boundary, "grid interior edges %d, want %d", count, all_edges - boundary);
    for (int32_t e = 0; e < count; ++e) {
        int32_t* r = edges + 4 * e;
        CHECK(r[0] != r[1] && r[0] != r[2] && r[0] != r[3] && r[1] != r[2] && r[1] != r[3] && r[2] < r[3],
              "edge %d row %d %d %d %d", e, r[0], r[1], r[2], r[3]);
    }

    dfm_adjacency adj;
    CHECK(dfm_adjacency_build(&adj, g.vertex_count, g.triangles, g.triangle_count, edges, count, NULL, 0) == 0, "oom");
    int32_t incidences = 0;
    for (int32_t v = 0; v < g.vertex_count; ++v) {
        for (int32_t k = adj.tri_offsets[v]; k < adj.tri_offsets[v + 1]; ++k) {
            int32_t t = adj.tri_items[2 * k], c = adj.tri_items[2 * k + 1];
            CHECK(g.triangles[3 * t + c] == v, "tri adjacency of %d wrong", v);
            ++incidences;
        }
        for (int32_t k = adj.edge_offsets[v]; k < adj.edge_offsets[v + 1]; ++k) {
            int32_t e = adj.edge_items[2 * k], c = adj.edge_items[2 * k + 1];
            CHECK(edges[4 * e + c] == v, "edge adjacency of %d wrong", v);
        }
    }
    CHECK(incidences == 3 * g.triangle_count, "tri incidences %d", incidences);
    CHECK(adj.edge_offsets[g.vertex_count] == 4 * count, "edge incidences %d", adj.edge_offsets[g.vertex_count]);
    dfm_adjacency_free(&adj);
    free(edges);
    dfm_test_free_grid(&g);
    return dfm_test_finish("test_topology");
}
