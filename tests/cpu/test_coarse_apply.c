/// The coarse correction's matrix-free product (DFM_COARSE_PCG, kernels/cpu/coarse_cpu.h) against
/// its assembled Galerkin matrix: a 10 x 10 cloth pinned at two corners and a 4^3-vertex soft tet
/// box, stepped once and then deformed at random (up to 1 cm per coordinate, 30% of a cloth edge,
/// so that triangles stretch and compress). For each body, with the element and
/// particle blocks of one assembly, solving the banded factor against dfm_cpu_coarse_apply(p)
/// must give p back for random p, within 1e-4 of |p| (measured 7.5e-6: the band takes each element
/// block pair once, K[a][b] and its mirror, in double; the product both float blocks K[a][b] and
/// K[b][a], which agree to float rounding, in float sums; amplified by the factor's conditioning), and p^T A p > 0. A
/// product without the tets' blocks reads 1.46 on the box (checked by hand).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coarse_cpu.h"
#include "dfm_test.h"
#include "host_view.h"

static double frand(unsigned* s) {
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0 * 2.0 - 1.0;
}

int main(void) {
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    dfm_test_grid g = dfm_test_make_grid(10, 10, 0.3f, 0.3f, 0.0f, 0.0f, 1.0f);
    dfm_body_id cloth = dfm_test_add_cloth(w, &g, dfm_test_grid_cloth_def(&g));
    const int32_t pins[2] = {90, 99};
    CHECK_OK(w, dfm_body_set_vertex_mode(w, cloth, pins, 2, DFM_VERTEX_PINNED));
    const float lo[3] = {0.5f, 0.0f, 0.2f}, hi[3] = {0.6f, 0.1f, 0.3f};
    dfm_test_tets box = dfm_test_make_tet_box(4, lo, hi);
    dfm_volume_def vd = dfm_volume_def_default();
    dfm_test_add_volume(w, &box, vd);
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));

    dfm_vbd_view v = dfm_world_host_view(w, 1.0f / 240.0f);
    unsigned seed = 12345u;
    for (int32_t i = 0; i < v.particle_count; ++i)
        for (int q = 0; q < 3; ++q) v.x[3 * i + q] += (float)(0.01 * frand(&seed));

    dfm_cpu_coarse L;
    memset(&L, 0, sizeof(L));
    L.generation = -1;
    CHECK(dfm_cpu_coarse_prepare(&L, &v, w->model_generation, w->model.body_count, w->model.body_offsets) == 0,
          "coarse level prepared");
    CHECK(w->model.body_count == 2, "two bodies (%d)", (int)w->model.body_count);
    for (int32_t b = 0; b < w->model.body_count; ++b) {
        const int32_t m = 3 * (L.node_first[b + 1] - L.node_first[b]);
        CHECK(m >= 24, "body %d has a coarse space (%d dofs)", (int)b, (int)m);
        if (m < 24) continue;
        CHECK(dfm_cpu_coarse_assemble(&L, &v, NULL, b) == 1, "body %d: coarse matrix SPD", (int)b);
        double* p = (double*)malloc(sizeof(double) * (size_t)m);
        double* q = (double*)malloc(sizeof(double) * (size_t)m);
        double worst = 0.0;
        for (int trial = 0; trial < 5; ++trial) {
            double pmax = 0.0, pq = 0.0;
            for (int32_t r = 0; r < m; ++r) p[r] = frand(&seed), pmax = fmax(pmax, fabs(p[r]));
            CHECK(dfm_cpu_coarse_apply(&L, &v, b, p, q) == 1, "matrix-free product available");
            for (int32_t r = 0; r < m; ++r) pq += p[r] * q[r];
            CHECK(pq > 0.0, "body %d: p^T A p = %g > 0", (int)b, pq);
            dfm_cpu_band_solve(L.band + L.band_first[b], m, L.band_width[b], q);
            for (int32_t r = 0; r < m; ++r) worst = fmax(worst, fabs(q[r] - p[r]) / pmax);
        }
        printf("body %d: %d coarse dofs, half-bandwidth %d: worst |A^-1 (A p) - p| / |p| = %.3g\n", (int)b, (int)m,
               (int)L.band_width[b], worst);
        CHECK(worst < 1e-4, "body %d: the matrix-free product is the assembled matrix (%.3g)", (int)b, worst);
        free(p);
        free(q);
    }
    dfm_cpu_coarse_free(&L);
    dfm_test_free_tets(&box);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_coarse_apply");
}
