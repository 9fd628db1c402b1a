/// @file mesh_gen.c
/// Cloth-grid and tet-box generators (see dfm_mesh.h).
#include <dfm/dfm_mesh.h>

#include <math.h>

#include "error.h" /* dfm_fail: messages go to dfm_world_last_error(NULL) */

dfm_result dfm_cloth_grid_counts(int32_t nu, int32_t nv, int32_t* nvert, int32_t* ntri) {
    if (!nvert || !ntri)
        return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "dfm_cloth_grid_counts: an output pointer is NULL");
    if (nu < 2 || nv < 2 || (int64_t)nu * nv > INT32_MAX / 6)
        return dfm_fail(NULL, DFM_ERROR_INVALID_COUNT,
                        "cloth grid of %d x %d vertices: each side needs >= 2 and nu * nv <= %d", nu, nv,
                        INT32_MAX / 6);
    *nvert = nu * nv;
    *ntri = 2 * (nu - 1) * (nv - 1);
    return DFM_OK;
}

dfm_result dfm_cloth_grid_generate(int32_t nu, int32_t nv, const float origin[3], const float au[3], const float av[3],
                                   float* pos, int32_t* tris) {
    int32_t n, t;
    if (!origin || !au || !av || !pos || !tris)
        return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "dfm_cloth_grid_generate: origin, au, av, pos or tris is NULL");
    dfm_result r = dfm_cloth_grid_counts(nu, nv, &n, &t);
    if (r != DFM_OK) return r;
    for (int k = 0; k < 3; ++k)
        if (!isfinite(origin[k]) || !isfinite(au[k]) || !isfinite(av[k]))
            return dfm_fail(NULL, DFM_ERROR_NON_FINITE, "dfm_cloth_grid_generate: origin, au or av [%d] is not finite",
                            k);
    for (int32_t j = 0; j < nv; ++j)
        for (int32_t i = 0; i < nu; ++i) {
            float s = (float)i / (float)(nu - 1), q = (float)j / (float)(nv - 1);
            for (int k = 0; k < 3; ++k) pos[3 * (i + j * nu) + k] = origin[k] + s * au[k] + q * av[k];
        }
    int32_t w = 0;
    for (int32_t j = 0; j + 1 < nv; ++j)
        for (int32_t i = 0; i + 1 < nu; ++i) {
            int32_t a = i + j * nu, b = a + 1, c = a + 1 + nu, d = a + nu;
            if ((i + j) % 2 == 0) {
                int32_t q[6] = {a, b, c, a, c, d};
                for (int k = 0; k < 6; ++k) tris[w++] = q[k];
            } else {
                int32_t q[6] = {a, b, d, b, c, d};
                for (int k = 0; k < 6; ++k) tris[w++] = q[k];
            }
        }
    return DFM_OK;
}

dfm_result dfm_tet_box_counts(int32_t nx, int32_t ny, int32_t nz, int32_t* nvert, int32_t* ntet) {
    if (!nvert || !ntet) return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "dfm_tet_box_counts: an output pointer is NULL");
    /* each factor is < 2^31, so the first product fits in int64; the second is checked by division
     * (2^21 x 2^21 x 2^22 wrapped to 0 and passed) */
    const int64_t limit = INT32_MAX / 20;
    if (nx < 2 || ny < 2 || nz < 2)
        return dfm_fail(NULL, DFM_ERROR_INVALID_COUNT, "tet box of %d x %d x %d vertices: each side needs >= 2", nx, ny,
                        nz);
    const int64_t nxy = (int64_t)nx * ny;
    if (nxy > limit || nz > limit / nxy)
        return dfm_fail(NULL, DFM_ERROR_INVALID_COUNT, "tet box of %d x %d x %d vertices: more than %lld vertices", nx,
                        ny, nz, (long long)limit);
    *nvert = nx * ny * nz;
    *ntet = 5 * (nx - 1) * (ny - 1) * (nz - 1);
    return DFM_OK;
}

/// Signed volume * 6 of a tet.
static float tet_vol6(const float* p, const int32_t* c) {
    float a[3], b[3], d[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = p[3 * c[1] + k] - p[3 * c[0] + k];
        b[k] = p[3 * c[2] + k] - p[3 * c[0] + k];
        d[k] = p[3 * c[3] + k] - p[3 * c[0] + k];
    }
    return a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) + a[2] * (b[0] * d[1] - b[1] * d[0]);
}

dfm_result dfm_tet_box_generate(int32_t nx, int32_t ny, int32_t nz, const float lo[3], const float hi[3], float* pos,
                                int32_t* tets) {
    int32_t n, t;
    if (!lo || !hi || !pos || !tets)
        return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "dfm_tet_box_generate: lo, hi, pos or tets is NULL");
    dfm_result r = dfm_tet_box_counts(nx, ny, nz, &n, &t);
    if (r != DFM_OK) return r;
    for (int k = 0; k < 3; ++k) {
        if (!isfinite(lo[k]) || !isfinite(hi[k]))
            return dfm_fail(NULL, DFM_ERROR_NON_FINITE, "dfm_tet_box_generate: lo or hi [%d] is not finite", k);
        if (!(hi[k] > lo[k]))
            return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "dfm_tet_box_generate: hi[%d] = %g is not above lo[%d] = %g",
                            k, (double)hi[k], k, (double)lo[k]);
    }
    const int32_t dims[3] = {nx, ny, nz};
    for (int32_t k = 0; k < nz; ++k)
        for (int32_t j = 0; j < ny; ++j)
            for (int32_t i = 0; i < nx; ++i) {
                int32_t idx[3] = {i, j, k};
                for (int a = 0; a < 3; ++a)
                    pos[3 * (i + nx * (j + ny * k)) + a] = lo[a] +
                                                           (hi[a] - lo[a]) * (float)idx[a] / (float)(dims[a] - 1);
            }
    /* Corner c = bx + 2 by + 4 bz. Even cells use central tet {1,2,4,7}, odd cells {0,3,5,6}. */
    static const int even[5][4] = {{1, 2, 4, 7}, {0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}};
    static const int odd[5][4] = {{0, 3, 5, 6}, {1, 0, 3, 5}, {2, 0, 3, 6}, {4, 0, 5, 6}, {7, 3, 5, 6}};
    int32_t w = 0;
    for (int32_t k = 0; k + 1 < nz; ++k)
        for (int32_t j = 0; j + 1 < ny; ++j)
            for (int32_t i = 0; i + 1 < nx; ++i) {
                int32_t corner[8];
                for (int c = 0; c < 8; ++c)
                    corner[c] = (i + (c & 1)) + nx * ((j + ((c >> 1) & 1)) + ny * (k + ((c >> 2) & 1)));
                const int(*pattern)[4] = ((i + j + k) % 2 == 0) ? even : odd;
                for (int e = 0; e < 5; ++e) {
                    int32_t* q = tets + 4 * w;
                    for (int c = 0; c < 4; ++c) q[c] = corner[pattern[e][c]];
                    if (tet_vol6(pos, q) < 0.0f) {
                        int32_t tmp = q[2];
                        q[2] = q[3];
                        q[3] = tmp;
                    }
                    ++w;
                }
            }
    return DFM_OK;
}
