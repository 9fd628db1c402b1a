/// @file dfm_scene_fold.c
/// See dfm_scene_fold.h.
#include "dfm_scene_fold.h"

#include <stdlib.h>
#include <string.h>

#include "dfm_scene_layers.h"
#include "dfm_scene_shape.h"

dfm_result dfm_scene_fold_make(int32_t nu, int32_t half, float ox, dfm_scene_grid* out) {
    memset(out, 0, sizeof(*out));
    if (nu < 2 || half < 2 || (int64_t)nu * half > INT32_MAX / 12) return DFM_ERROR_INVALID_COUNT;
    const int32_t nv = 2 * half, n = nu * nv, nt = 2 * (nu - 1) * (nv - 1);
    out->nu = nu;
    out->nv = nv;
    out->vertex_count = n;
    out->triangle_count = nt;
    out->positions = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    out->triangles = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)nt);
    if (!out->positions || !out->triangles) {
        dfm_scene_grid_free(out);
        return DFM_ERROR_OUT_OF_HOST_MEMORY;
    }
    const float width = DFM_SCENE_FOLD_WIDTH, len = DFM_SCENE_FOLD_LEN, z0 = DFM_SCENE_FOLD_Z0;
    for (int32_t j = 0; j < nv; ++j)
        for (int32_t i = 0; i < nu; ++i) {
            float* p = out->positions + 3 * (j * nu + i);
            const int32_t r = j < half ? j : nv - 1 - j; /* the upper half runs back */
            /* ox - w/2 first: the order the tests' scenes were tuned with (ox = 0 gives -w/2 exactly) */
            p[0] = ox - 0.5f * width + width * (float)i / (float)(nu - 1);
            p[1] = -0.5f * len + len * (float)r / (float)(half - 1);
            p[2] = j < half ? z0 : z0 + DFM_SCENE_FOLD_GAP;
        }
    int32_t* tri = out->triangles;
    int32_t k = 0;
    for (int32_t j = 0; j + 1 < nv; ++j)
        for (int32_t i = 0; i + 1 < nu; ++i) {
            const int32_t a = j * nu + i, b = a + 1, c = a + nu, d = c + 1;
            tri[3 * k] = a, tri[3 * k + 1] = b, tri[3 * k + 2] = d, ++k;
            tri[3 * k] = a, tri[3 * k + 1] = d, tri[3 * k + 2] = c, ++k;
        }
    return DFM_OK;
}

int32_t dfm_scene_fold_lower_triangles(const dfm_scene_grid* fold) { return 2 * (fold->nu - 1) * (fold->nv / 2 - 1); }

double dfm_scene_fold_min_distance(const dfm_scene_grid* fold, const float* x) {
    const int32_t nu = fold->nu, half = fold->nv / 2;
    /* rows half + 1 .. nv - 1 are vertices (half + 1) nu .. nv nu - 1, in the order of the old loops */
    return dfm_scene_min_signed_distance(x + 3 * (size_t)((half + 1) * nu), NULL, (fold->nv - half - 1) * nu, x,
                                         fold->triangles, dfm_scene_fold_lower_triangles(fold));
}

dfm_result dfm_scene_fold_add(dfm_world* w, int32_t nu, int32_t half, dfm_cloth_def def, dfm_scene_fold* out) {
    memset(out, 0, sizeof(*out)); /* zero ids are the null ids */
    const dfm_shape_def table = dfm_scene_table_def();
    dfm_result r = dfm_scene_add_shape(w, &table, 0, 0, DFM_SCENE_TABLE_Z, NULL, &out->table_id);
    if (r == DFM_OK) r = dfm_scene_fold_make(nu, half, 0.0f, &out->mesh);
    if (r == DFM_OK) r = dfm_scene_add_cloth(w, &out->mesh, def, &out->id);
    return r;
}

void dfm_scene_fold_free(dfm_scene_fold* f) { dfm_scene_grid_free(&f->mesh); }

dfm_result dfm_scene_fold_run(dfm_world* w, const dfm_scene_fold* f, int32_t steps, float dt, double* min_out,
                              int32_t* step_out) {
    *min_out = 1e30;
    *step_out = -1;
    const int32_t n = f->mesh.vertex_count;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    if (!x) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    dfm_result r = DFM_OK;
    for (int32_t s = 0; s < steps && r == DFM_OK; ++s) {
        r = dfm_world_step(w, dt);
        if (r == DFM_OK) r = dfm_body_get_positions(w, f->id, 0, n, x, 0);
        if (r != DFM_OK) break;
        const double sd = dfm_scene_fold_min_distance(&f->mesh, x);
        if (sd < *min_out) *min_out = sd, *step_out = s;
    }
    free(x);
    return r;
}
