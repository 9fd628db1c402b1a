/// @file dfm_test_statics.h
/// The static scenes with analytic references of test_physics_static (issue 13 item 7), shared
/// with the parity tests that compare backends on them: a hanging cloth strip pinned at its top
/// row (elongation under its own weight, rho g L^2 / (2 E)) and a soft tet cube resting on a
/// frictionless floor (shortening, rho g H^2 / (2 E)). Each scene has an `add` (the body, in a
/// world the caller made and steps) and a `measure` (the settled figure and its analytic value).
#ifndef DFM_TEST_STATICS_H
#define DFM_TEST_STATICS_H

#include <math.h>
#include <stdlib.h>

#include "dfm_test.h"
#include "dfm_test_shapes.h"

/// The strip: 5 x 33 vertices, 0.05 m wide, 0.4 m long.
#define DFM_TEST_STRIP_NU 5
#define DFM_TEST_STRIP_NV 33
#define DFM_TEST_STRIP_WIDTH 0.05f
#define DFM_TEST_STRIP_LENGTH 0.4f
/// The cube: 6 vertices per side, 0.06 m high, its bottom at z = 0.
#define DFM_TEST_CUBE_N 6
#define DFM_TEST_CUBE_H 0.06f

/// Adds the strip (default cloth material, into *cd) hanging in the x-z plane, top row at z = 1 m,
/// pinned; *g gets its grid (free with dfm_test_free_grid).
static inline dfm_body_id dfm_test_strip_add(dfm_world* w, dfm_test_grid* g, dfm_cloth_def* cd) {
    const int32_t nu = DFM_TEST_STRIP_NU, nv = DFM_TEST_STRIP_NV;
    const float length = DFM_TEST_STRIP_LENGTH;
    *g = dfm_test_make_grid(nu, nv, DFM_TEST_STRIP_WIDTH, length, 0, 0, 0);
    for (int32_t i = 0; i < g->vertex_count; ++i) { /* top row (v = max) at z = 1 */
        g->positions[3 * i + 2] = 1.0f - (length - g->positions[3 * i + 1]);
        g->positions[3 * i + 1] = 0.0f;
    }
    *cd = dfm_cloth_def_default();
    dfm_body_id id = dfm_test_add_cloth(w, g, *cd);
    int32_t pins[DFM_TEST_STRIP_NU];
    for (int32_t k = 0; k < nu; ++k) pins[k] = (nv - 1) * nu + k;
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, pins, nu, DFM_VERTEX_PINNED));
    return id;
}

/// The strip's elongation (m): each column's arc length less the rest length, averaged over the
/// columns (a swing does not change it); *analytic gets rho g L^2 / (2 E), E the membrane's
/// Young's modulus per width from the cloth's Lame parameters.
static inline double dfm_test_strip_measure(dfm_world* w, dfm_body_id id, const dfm_test_grid* g,
                                            const dfm_cloth_def* cd, double* analytic) {
    const int32_t nu = DFM_TEST_STRIP_NU, nv = DFM_TEST_STRIP_NV;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g->vertex_count);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, g->vertex_count, x, 0));
    double drop = 0.0;
    for (int32_t k = 0; k < nu; ++k)
        for (int32_t j = 0; j + 1 < nv; ++j) {
            const float *a = x + 3 * (j * nu + k), *b = x + 3 * ((j + 1) * nu + k);
            drop += sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
                         (double)(a[2] - b[2]) * (a[2] - b[2]));
        }
    free(x);
    const double L = DFM_TEST_STRIP_LENGTH;
    const double E = 4.0 * cd->stretch_mu * (cd->stretch_mu + cd->stretch_lambda) /
                     (2.0 * cd->stretch_mu + cd->stretch_lambda);
    *analytic = cd->density * 9.81 * L * L / (2.0 * E);
    return drop / nu - L;
}

/// Adds the frictionless floor and the cube (default volume material, into *vd); *box gets its tets
/// (free with dfm_test_free_tets).
static inline dfm_body_id dfm_test_cube_add(dfm_world* w, dfm_test_tets* box, dfm_volume_def* vd) {
    dfm_test_add_frictionless_floor(w);
    const float h = 0.5f * DFM_TEST_CUBE_H;
    const float lo[3] = {-h, -h, 0.0f}, hi[3] = {h, h, DFM_TEST_CUBE_H};
    *box = dfm_test_make_tet_box(DFM_TEST_CUBE_N, lo, hi);
    *vd = dfm_volume_def_default();
    return dfm_test_add_volume(w, box, *vd);
}

/// The cube's shortening (m): its rest height less the distance between its top and bottom faces'
/// mean z; *analytic gets rho g H^2 / (2 E), E Young's modulus from the material's Lame parameters.
static inline double dfm_test_cube_measure(dfm_world* w, dfm_body_id id, const dfm_test_tets* box,
                                           const dfm_volume_def* vd, double* analytic) {
    const float H = DFM_TEST_CUBE_H;
    const int32_t nv = box->vertex_count;
    const float* p = box->positions;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    CHECK_OK(w, dfm_body_get_positions(w, id, 0, nv, x, 0));
    double top = 0.0, bottom = 0.0;
    int ntop = 0, nbottom = 0;
    for (int32_t i = 0; i < nv; ++i) {
        if (p[3 * i + 2] > H - 1e-6f)
            top += x[3 * i + 2], ++ntop;
        else if (p[3 * i + 2] < 1e-6f)
            bottom += x[3 * i + 2], ++nbottom;
    }
    free(x);
    const double E = vd->mu * (3.0 * vd->lambda + 2.0 * vd->mu) / (vd->lambda + vd->mu);
    *analytic = vd->density * 9.81 * (double)H * H / (2.0 * E);
    return H - (top / ntop - bottom / nbottom);
}

#endif
