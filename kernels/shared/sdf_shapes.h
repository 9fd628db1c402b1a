/// @file sdf_shapes.h
/// Signed distance (negative inside) and its unit gradient for every shape type, in the shape's
/// local frame (conventions in shape_geom.h). Three entry points per query, so callers that need
/// only one part do not pay for the other (seed 000 section 8):
/// dfm_shape_sdf (value + gradient), dfm_shape_sdf_value, dfm_shape_sdf_grad.
/// Analytic shapes are exact signed distances; the cone and cylinder use the exact 2-D distance
/// to their (r, z) cross-section; meshes sample a baked grid (sdf_grid.h).
#ifndef DFM_SDF_SHAPES_H
#define DFM_SDF_SHAPES_H

#include "sdf_grid.h"
#include "shape_geom.h"
#include "vec3.h"

/// 2-D closest point on segment a-b to p (components in the (r, z) half plane). When it is the
/// closest so far, also writes the segment's unit normal (ez, -ex) / |e| to (nx, nz) if the
/// projection falls strictly inside the segment (outward for a counter-clockwise polyline), else
/// (0, 0): the normal is then taken from p - closest point.
DFM_HD void dfm_sdf_seg2(float px, float pz, float ax, float az, float bx, float bz, float* best2, float* cx, float* cz,
                         float* nx, float* nz) {
    float ex = bx - ax, ez = bz - az;
    float t = ((px - ax) * ex + (pz - az) * ez) / (ex * ex + ez * ez);
    int interior = t > 0.0f && t < 1.0f;
    t = dfm_fminf(dfm_fmaxf(t, 0.0f), 1.0f);
    float qx = ax + t * ex, qz = az + t * ez;
    float d2 = (px - qx) * (px - qx) + (pz - qz) * (pz - qz);
    if (d2 < *best2) {
        float il = interior ? 1.0f / sqrtf(ex * ex + ez * ez) : 0.0f;
        *best2 = d2;
        *cx = qx;
        *cz = qz;
        *nx = ez * il;
        *nz = -ex * il;
    }
}

/// Signed distance of a solid of revolution about z whose (r, z) cross-section boundary is the
/// polyline (0, z_bottom) - (r_bottom, z_bottom) - (r_top, z_top) - (0, z_top), with r_top >= 0.
/// Writes the unit gradient when grad != NULL.
DFM_HD float dfm_sdf_revolved(dfm_v3 p, float r_bottom, float z_bottom, float r_top, float z_top, dfm_v3* grad) {
    float rho = sqrtf(p.x * p.x + p.y * p.y), z = p.z;
    float best2 = 3.0e38f, cx = 0.0f, cz = 0.0f, nx = 0.0f, nz = 0.0f;
    dfm_sdf_seg2(rho, z, 0.0f, z_bottom, r_bottom, z_bottom, &best2, &cx, &cz, &nx, &nz);
    dfm_sdf_seg2(rho, z, r_bottom, z_bottom, r_top, z_top, &best2, &cx, &cz, &nx, &nz);
    if (r_top > 0.0f) dfm_sdf_seg2(rho, z, r_top, z_top, 0.0f, z_top, &best2, &cx, &cz, &nx, &nz);
    /* Inside: between the caps and left of the slanted side. */
    float side = (r_top - r_bottom) * (z - z_bottom) - (z_top - z_bottom) * (rho - r_bottom);
    int inside = z > z_bottom && z < z_top && side > 0.0f;
    float d = sqrtf(best2);
    float s = inside ? -d : d;
    if (grad) {
        /* Closest point inside a side: its exact outward normal (inside or out). p - c would lose
           all precision within rounding distance of the surface (a point on the side got +-z). */
        float gr = rho - cx, gz = z - cz;
        if (nx != 0.0f || nz != 0.0f) {
            gr = nx;
            gz = nz;
        } else if (inside) {
            gr = -gr;
            gz = -gz;
        }
        float l = sqrtf(gr * gr + gz * gz);
        if (l > 1e-20f) {
            gr /= l;
            gz /= l;
        } else {
            gr = 0.0f;
            gz = z > 0.5f * (z_bottom + z_top) ? 1.0f : -1.0f;
        }
        float ux = 1.0f, uy = 0.0f;
        if (rho > 1e-20f) {
            ux = p.x / rho;
            uy = p.y / rho;
        }
        *grad = dfm_v3_make(gr * ux, gr * uy, gz);
    }
    return s;
}

/// Box signed distance with gradient (grad may be NULL).
DFM_HD float dfm_sdf_box(dfm_v3 p, const float he[3], dfm_v3* grad) {
    float q[3] = {fabsf(p.x) - he[0], fabsf(p.y) - he[1], fabsf(p.z) - he[2]};
    float sgn[3] = {p.x < 0.0f ? -1.0f : 1.0f, p.y < 0.0f ? -1.0f : 1.0f, p.z < 0.0f ? -1.0f : 1.0f};
    float o[3] = {dfm_fmaxf(q[0], 0.0f), dfm_fmaxf(q[1], 0.0f), dfm_fmaxf(q[2], 0.0f)};
    float outside = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    if (outside > 0.0f) {
        if (grad) *grad = dfm_v3_make(sgn[0] * o[0] / outside, sgn[1] * o[1] / outside, sgn[2] * o[2] / outside);
        return outside;
    }
    int a = 0;
    if (q[1] > q[a]) a = 1;
    if (q[2] > q[a]) a = 2;
    if (grad) {
        float g[3] = {0.0f, 0.0f, 0.0f};
        g[a] = sgn[a];
        *grad = dfm_v3_make(g[0], g[1], g[2]);
    }
    return q[a];
}

/// Plane z = 0 (infinite when both half extents are 0, else the finite rectangle).
DFM_HD float dfm_sdf_plane(dfm_v3 p, float hx, float hy, dfm_v3* grad) {
    if (hx <= 0.0f && hy <= 0.0f) {
        if (grad) *grad = dfm_v3_make(0.0f, 0.0f, 1.0f);
        return p.z;
    }
    float dx = dfm_fmaxf(fabsf(p.x) - hx, 0.0f), dy = dfm_fmaxf(fabsf(p.y) - hy, 0.0f);
    if (dx == 0.0f && dy == 0.0f) {
        if (grad) *grad = dfm_v3_make(0.0f, 0.0f, 1.0f);
        return p.z;
    }
    /* Beside the rectangle: distance to its rim (positive: there is no inside there). */
    float dz = p.z;
    float d = sqrtf(dx * dx + dy * dy + dz * dz);
    if (grad) {
        float gx = (p.x < 0.0f ? -dx : dx), gy = (p.y < 0.0f ? -dy : dy);
        *grad = dfm_v3_scale(dfm_v3_make(gx, gy, dz), 1.0f / d);
    }
    return d;
}

/// Signed distance and unit gradient at shape-local point p (grad may be NULL).
DFM_HD float dfm_shape_sdf(const dfm_shape_geom* s, dfm_v3 p, dfm_v3* grad) {
    switch (s->type) {
    case DFM_GEOM_SPHERE: {
        float l = dfm_v3_len(p);
        if (grad) *grad = l > 1e-20f ? dfm_v3_scale(p, 1.0f / l) : dfm_v3_make(0.0f, 0.0f, 1.0f);
        return l - s->params[0];
    }
    case DFM_GEOM_BOX: return dfm_sdf_box(p, s->params, grad);
    case DFM_GEOM_CAPSULE: {
        float h = s->params[1];
        dfm_v3 c = dfm_v3_make(0.0f, 0.0f, dfm_fminf(dfm_fmaxf(p.z, -h), h));
        dfm_v3 d = dfm_v3_sub(p, c);
        float l = dfm_v3_len(d);
        if (grad) *grad = l > 1e-20f ? dfm_v3_scale(d, 1.0f / l) : dfm_v3_make(1.0f, 0.0f, 0.0f);
        return l - s->params[0];
    }
    case DFM_GEOM_CYLINDER: return dfm_sdf_revolved(p, s->params[0], -s->params[1], s->params[0], s->params[1], grad);
    case DFM_GEOM_CONE: return dfm_sdf_revolved(p, s->params[0], -s->params[1], 0.0f, s->params[1], grad);
    case DFM_GEOM_PLANE: return dfm_sdf_plane(p, s->params[0], s->params[1], grad);
    case DFM_GEOM_MESH: return dfm_sdf_grid_sample(&s->grid, p, grad);
    default:
        if (grad) *grad = dfm_v3_make(0.0f, 0.0f, 1.0f);
        return 3.0e38f;
    }
}

/// Signed distance only (cheaper where no normal is needed, e.g. culls and line searches).
DFM_HD float dfm_shape_sdf_value(const dfm_shape_geom* s, dfm_v3 p) {
    switch (s->type) {
    case DFM_GEOM_SPHERE: return dfm_v3_len(p) - s->params[0];
    case DFM_GEOM_PLANE:
        if (s->params[0] <= 0.0f && s->params[1] <= 0.0f) return p.z;
        return dfm_sdf_plane(p, s->params[0], s->params[1], (dfm_v3*)0);
    default: return dfm_shape_sdf(s, p, (dfm_v3*)0);
    }
}

/// Unit gradient only (the outward normal direction at p).
DFM_HD dfm_v3 dfm_shape_sdf_grad(const dfm_shape_geom* s, dfm_v3 p) {
    dfm_v3 g;
    (void)dfm_shape_sdf(s, p, &g);
    return g;
}

#endif
