/// @file sdf_grid.h
/// Trilinear sampling of a signed-distance grid (mesh shapes), value and gradient.
/// Inside the grid box the value is the trilinear interpolation of the node distances and the
/// gradient its analytic derivative (normalized). Outside, the query is clamped to the box and
/// the distance to the box is added, which over-estimates the true distance by at most the
/// distance to the box: the grid is baked with a margin so contacts are always inside it.
#ifndef DFM_SDF_GRID_H
#define DFM_SDF_GRID_H

#include "shape_geom.h"
#include "vec3.h"

/// Node value (i, j, k) of a grid.
DFM_HD float dfm_sdf_grid_node(const dfm_sdf_grid_view* g, int32_t i, int32_t j, int32_t k) {
    return g->values[i + g->dims[0] * (j + g->dims[1] * k)];
}

/// Samples the grid at shape-local point p. Writes the unit gradient to *grad when grad != NULL.
DFM_HD float dfm_sdf_grid_sample(const dfm_sdf_grid_view* g, dfm_v3 p, dfm_v3* grad) {
    float q[3] = {p.x, p.y, p.z}, c[3], t[3];
    int32_t i0[3];
    float outside2 = 0.0f;
    float out[3] = {0.0f, 0.0f, 0.0f};
    for (int a = 0; a < 3; ++a) {
        float lo = g->origin[a], hi = g->origin[a] + g->cell * (float)(g->dims[a] - 1);
        c[a] = dfm_fminf(dfm_fmaxf(q[a], lo), hi);
        out[a] = q[a] - c[a];
        outside2 += out[a] * out[a];
        float u = (c[a] - lo) / g->cell;
        int32_t i = (int32_t)floorf(u);
        if (i > g->dims[a] - 2) i = g->dims[a] - 2;
        if (i < 0) i = 0;
        i0[a] = i;
        t[a] = u - (float)i;
    }
    float v000 = dfm_sdf_grid_node(g, i0[0], i0[1], i0[2]), v100 = dfm_sdf_grid_node(g, i0[0] + 1, i0[1], i0[2]);
    float v010 = dfm_sdf_grid_node(g, i0[0], i0[1] + 1, i0[2]),
          v110 = dfm_sdf_grid_node(g, i0[0] + 1, i0[1] + 1, i0[2]);
    float v001 = dfm_sdf_grid_node(g, i0[0], i0[1], i0[2] + 1),
          v101 = dfm_sdf_grid_node(g, i0[0] + 1, i0[1], i0[2] + 1);
    float v011 = dfm_sdf_grid_node(g, i0[0], i0[1] + 1, i0[2] + 1);
    float v111 = dfm_sdf_grid_node(g, i0[0] + 1, i0[1] + 1, i0[2] + 1);
    float x0 = v000 + (v100 - v000) * t[0], x1 = v010 + (v110 - v010) * t[0];
    float x2 = v001 + (v101 - v001) * t[0], x3 = v011 + (v111 - v011) * t[0];
    float y0 = x0 + (x1 - x0) * t[1], y1 = x2 + (x3 - x2) * t[1];
    float value = y0 + (y1 - y0) * t[2];
    float outside = sqrtf(outside2);
    if (grad) {
        if (outside > 0.0f) {
            *grad = dfm_v3_scale(dfm_v3_make(out[0], out[1], out[2]), 1.0f / outside);
        } else {
            float dx0 = (v100 - v000) + ((v110 - v010) - (v100 - v000)) * t[1];
            float dx1 = (v101 - v001) + ((v111 - v011) - (v101 - v001)) * t[1];
            float gx = dx0 + (dx1 - dx0) * t[2];
            float gy = (x1 - x0) + ((x3 - x2) - (x1 - x0)) * t[2];
            float gz = y1 - y0;
            *grad = dfm_v3_normalize(dfm_v3_make(gx, gy, gz));
        }
    }
    return value + outside;
}

#endif
