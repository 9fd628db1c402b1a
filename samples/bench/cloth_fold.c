/// @file cloth_fold.c
/// The cloth-fold workload (workload.h, issue 16): per environment one cloth of res x res
/// vertices, 0.3 m wide, already folded onto itself as the fold test
/// (tests/physics/test_physics_deform_contact.c `fold`) builds it: rows 0..h-1 (h = res / 2) are
/// the lower half lying flat 6 mm above a table box going +y, rows h..2h-1 the upper half running
/// back over it 2 cm higher (the fold is the strip between rows h-1 and h). Every vertex is
/// dynamic: the upper half falls onto the lower one and both come to rest on the table. Deformable
/// contact is on (world deformable_contact_radius 5 mm, the test's radius); the body's
/// self_collision is 1, or 0 with --no-self-collision (the identical scene, for the ratio). The CPU
/// backend by default; --backend cuda runs it on CUDA (issue 16's host-assisted first slice).
#include <dfm_scenes.h>
#include <math.h>
#include <stdlib.h>

#include "workload.h"

#define FOLD_WIDTH 0.3f /* along x, m */
#define FOLD_LEN 0.2f   /* each half along y, m */
#define FOLD_Z0 0.006f  /* the lower half above the table top (z = 0), m */
#define FOLD_GAP 0.02f  /* the upper half above the lower one, m */

dfm_result bench_cloth_fold_add_env(bench_workload* w, int32_t e, float ox, int32_t self_collision) {
    const int32_t nu = w->res, half = w->res / 2, nv = 2 * half;
    const int32_t n = nu * nv, nt = 2 * (nu - 1) * (nv - 1);
    float* pos = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    int32_t* tri = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)nt);
    if (!pos || !tri) {
        free(pos);
        free(tri);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (int32_t j = 0; j < nv; ++j)
        for (int32_t i = 0; i < nu; ++i) {
            float* p = pos + 3 * (j * nu + i);
            int32_t r = j < half ? j : nv - 1 - j; /* the upper half runs back */
            p[0] = ox - 0.5f * FOLD_WIDTH + FOLD_WIDTH * (float)i / (float)(nu - 1);
            p[1] = -0.5f * FOLD_LEN + FOLD_LEN * (float)r / (float)(half - 1);
            p[2] = j < half ? FOLD_Z0 : FOLD_Z0 + FOLD_GAP;
        }
    int32_t k = 0;
    for (int32_t j = 0; j + 1 < nv; ++j)
        for (int32_t i = 0; i + 1 < nu; ++i) {
            int32_t a = j * nu + i, b = a + 1, c = a + nu, d = c + 1;
            /* the lower half's normals point up (the signed distance uses the lower half only) */
            tri[3 * k] = a, tri[3 * k + 1] = b, tri[3 * k + 2] = d, ++k;
            tri[3 * k] = a, tri[3 * k + 1] = d, tri[3 * k + 2] = c, ++k;
        }
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.positions = pos;
    cd.vertex_count = n;
    cd.triangles = tri;
    cd.triangle_count = nt;
    cd.self_collision = self_collision;
    cd.environment = e;
    dfm_result r = dfm_world_add_cloth(w->world, &cd, &w->bodies[e]);
    if (e == 0 && r == DFM_OK) { /* the lower half's triangles, for the physical check */
        w->fold_triangles = tri;
        w->fold_lower_triangles = 2 * (nu - 1) * (half - 1);
        tri = NULL;
    }
    free(pos);
    free(tri);
    if (r != DFM_OK) return r;
    w->contact_radius = cd.contact_radius;
    dfm_shape_def table = dfm_scene_box_def(0.3f, 0.3f, 0.05f);
    table.environment = e;
    table.host_body = (uint64_t)(e + 1);
    r = dfm_world_add_shape(w->world, &table, &w->shapes[e]);
    w->states[e] = dfm_scene_state(ox, 0, -0.05f, NULL);
    return r;
}

dfm_result bench_cloth_fold_min_signed_distance(bench_workload* w, double* out) {
    const int32_t nu = w->res, half = w->res / 2, nv = 2 * half;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)w->vertex_count);
    if (!x) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    dfm_result r = dfm_body_get_positions(w->world, w->bodies[0], 0, w->vertex_count, x, 0);
    double worst = 1e30;
    /* upper-half vertices away from the fold row (whose neighbours are the fold strip) against
     * every lower-half triangle: O(upper vertices x lower triangles), once at the end */
    for (int32_t j = half + 1; r == DFM_OK && j < nv; ++j)
        for (int32_t i = 0; i < nu; ++i) {
            const float* pf = x + 3 * (j * nu + i);
            double p[3] = {pf[0], pf[1], pf[2]};
            double best = dfm_scene_signed_distance_sheet(p, x, w->fold_triangles, w->fold_lower_triangles);
            if (best < worst) worst = best;
        }
    free(x);
    *out = worst;
    return r;
}
