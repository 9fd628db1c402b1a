/// @file sdf_features.h
/// Closest approach of a mesh edge or triangle to a shape's signed-distance field (the
/// full-surface edge/face contacts of Macklin et al. 2020). All points are in the shape-local
/// frame. Both optimizers run a fixed number of SDF evaluations (no data-dependent loop
/// bounds), so the kernels that call them stay CUDA-graph capturable and warp-uniform.
/// - Edge: golden-section search of phi((1-u) p + u q) over u in [0, 1]; value-only SDF
///   evaluations, 2 + iters + 1 of them.
/// - Face: Frank-Wolfe over the barycentric simplex from the centroid; each iteration takes one
///   gradient-only evaluation for the direction (the corner minimizing grad . corner) and a
///   value-only golden-section line search of DFM_SDF_LINE_ITERS toward that corner.
///   About 2 + DFM_SDF_FACE_ITERS * (1 + DFM_SDF_LINE_ITERS + 3) evaluations.
/// - Spheres and capsules take neither search (session 14): phi is the distance to a point or a
///   segment minus the radius, smallest where the feature comes closest to it, so the edge's
///   parameter is the clamped projection of the centre (sphere) or of the closest pair of edge
///   and axis (capsule, dfm_dc_edge_edge; closest_points.h) and the face's weights those of the
///   triangle's closest point (dfm_dc_point_triangle; dfm_sdf_capsule_face_min): exact,
///   where the searches stop above the minimum (Frank-Wolfe by up to 6e-3 of the radius on
///   draped triangles, tests/cpu/test_sdf.c), and a few dozen flops instead of ~480 SDF
///   evaluations.
///   Known limits (tests/cpu/test_sdf.c measures them): Frank-Wolfe zig-zags when the minimum lies
///   on an edge or inside the triangle (sublinear convergence) and stalls on the creases of a
///   polyhedral field (inside a box, cylinder or cone, where the direction from one face's
///   gradient is not a descent direction), so on triangles comparable to the shape it can stop
///   well above the minimum.
/// - Face, nested alternative (dfm_sdf_face_min_nested): golden-section search over the slice
///   w2 = v whose objective is the golden-section minimum along that slice; value-only,
///   (2 + DFM_SDF_NESTED_ITERS + 1)^2 evaluations (about the Frank-Wolfe cost). For convex shapes
///   the minimum over a slice is convex in v, so it converges on every analytic shape.
/// For convex shapes (every analytic type) phi is convex along any segment, so the edge search
/// finds the global minimum up to its final bracket (0.618^iters of the edge length); on mesh
/// grids both optimizers find a local minimum.
#ifndef DFM_SDF_FEATURES_H
#define DFM_SDF_FEATURES_H

#include "closest_points.h"
#include "sdf_shapes.h"

/// Golden-section iterations of the edge optimizer (data-independent loop count).
#define DFM_SDF_EDGE_ITERS 24
/// Frank-Wolfe iterations of the face optimizer (data-independent loop count).
#define DFM_SDF_FACE_ITERS 24
/// Golden-section iterations of each face line search (data-independent loop count).
#define DFM_SDF_LINE_ITERS 16
/// Golden-section iterations of both levels of dfm_sdf_face_min_nested (data-independent).
#define DFM_SDF_NESTED_ITERS 19
/// 1 / golden ratio, the bracket shrink factor of the golden-section search.
#define DFM_SDF_INV_GOLDEN 0.6180339887f

/// The point (1 - u) p + u q.
DFM_HD dfm_v3 dfm_sdf_lerp(dfm_v3 p, dfm_v3 q, float u) {
    return dfm_v3_add(dfm_v3_scale(p, 1.0f - u), dfm_v3_scale(q, u));
}

/// The point w0 a + w1 b + w2 c.
DFM_HD dfm_v3 dfm_sdf_bary_point(dfm_v3 a, dfm_v3 b, dfm_v3 c, float w0, float w1, float w2) {
    return dfm_v3_add(dfm_v3_add(dfm_v3_scale(a, w0), dfm_v3_scale(b, w1)), dfm_v3_scale(c, w2));
}

/// Minimizes phi((1-u) p + u q) over u in [0,1] by golden-section search (value-only SDF
/// evaluations); returns u, writes phi at u (the point dfm_sdf_lerp(p, q, u)) to *out_phi.
/// The bracket starts as [0, 1] and shrinks by 0.618 per iteration; u is its final midpoint.
/// A sphere takes the exact minimum instead (the centre's projection; `iters` unused).
DFM_HD float dfm_sdf_edge_min(const dfm_shape_geom* s, dfm_v3 p, dfm_v3 q, int iters, float* out_phi) {
    if (s->type == DFM_GEOM_SPHERE || s->type == DFM_GEOM_CAPSULE) {
        float u = 0.5f, t = 0.0f;
        if (s->type == DFM_GEOM_SPHERE)
            u = dfm_dc_point_segment(dfm_v3_zero(), p, q);
        else
            dfm_dc_edge_edge(p, q, dfm_v3_make(0.0f, 0.0f, -s->params[1]), dfm_v3_make(0.0f, 0.0f, s->params[1]), &u,
                             &t);
        *out_phi = dfm_shape_sdf_value(s, dfm_sdf_lerp(p, q, u));
        return u;
    }
    float lo = 0.0f, hi = 1.0f;
    float c = hi - (hi - lo) * DFM_SDF_INV_GOLDEN, d = lo + (hi - lo) * DFM_SDF_INV_GOLDEN;
    float fc = dfm_shape_sdf_value(s, dfm_sdf_lerp(p, q, c));
    float fd = dfm_shape_sdf_value(s, dfm_sdf_lerp(p, q, d));
    for (int i = 0; i < iters; ++i) {
        /* Keep the side of the lower value; one new evaluation per iteration, taken outside the
           branch so a warp evaluates the SDF together. */
        int left = fc < fd;
        float nlo = left ? lo : c, nhi = left ? d : hi;
        float x = left ? nhi - (nhi - nlo) * DFM_SDF_INV_GOLDEN : nlo + (nhi - nlo) * DFM_SDF_INV_GOLDEN;
        float fx = dfm_shape_sdf_value(s, dfm_sdf_lerp(p, q, x));
        float nc = left ? x : d, fnc = left ? fx : fd;
        float nd = left ? c : x, fnd = left ? fc : fx;
        lo = nlo;
        hi = nhi;
        c = nc;
        fc = fnc;
        d = nd;
        fd = fnd;
    }
    float u = 0.5f * (lo + hi);
    *out_phi = dfm_shape_sdf_value(s, dfm_sdf_lerp(p, q, u));
    return u;
}

/// Exact minimum of a capsule's phi (distance to its axis segment z in [-h, h], minus the
/// radius) over triangle abc; writes the weights w[3] of the minimizing point. Where the axis
/// crosses the triangle the minimum (-R) lies at the crossing; else the closest pair of the axis
/// and the triangle has a corner of one on the other or joins two edges, so it is the best of the
/// axis ends' closest triangle points and the three edge-axis closest pairs.
DFM_HD float dfm_sdf_capsule_face_min(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c, float w[3]) {
    const dfm_v3 p0 = dfm_v3_make(0.0f, 0.0f, -s->params[1]), p1 = dfm_v3_make(0.0f, 0.0f, s->params[1]);
    /* the axis against the triangle's plane (Moller-Trumbore over the segment p0 -> p1) */
    const dfm_v3 e1 = dfm_v3_sub(b, a), e2 = dfm_v3_sub(c, a), dir = dfm_v3_sub(p1, p0);
    const dfm_v3 pv = dfm_v3_cross(dir, e2);
    const float det = dfm_v3_dot(e1, pv);
    if (det != 0.0f) {
        const dfm_v3 tv = dfm_v3_sub(p0, a), qv = dfm_v3_cross(tv, e1);
        const float u = dfm_v3_dot(tv, pv) / det, v = dfm_v3_dot(dir, qv) / det, t = dfm_v3_dot(e2, qv) / det;
        if (u >= 0.0f && v >= 0.0f && u + v <= 1.0f && t >= 0.0f && t <= 1.0f) {
            w[0] = 1.0f - u - v;
            w[1] = u;
            w[2] = v;
            return dfm_shape_sdf_value(s, dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]));
        }
    }
    float best = 3.0e38f;
    for (int k = 0; k < 5; ++k) {
        float wk[3] = {0.0f, 0.0f, 0.0f};
        if (k < 2) {
            dfm_dc_point_triangle(k == 0 ? p0 : p1, a, b, c, wk);
        } else { /* edges ab, bc, ca */
            const int i = k - 2, j = (k - 1) % 3;
            const dfm_v3 ei = i == 0 ? a : (i == 1 ? b : c), ej = j == 0 ? a : (j == 1 ? b : c);
            float u, t;
            dfm_dc_edge_edge(ei, ej, p0, p1, &u, &t);
            wk[i] = 1.0f - u;
            wk[j] = u;
        }
        const float phi = dfm_shape_sdf_value(s, dfm_sdf_bary_point(a, b, c, wk[0], wk[1], wk[2]));
        if (phi < best) {
            best = phi;
            w[0] = wk[0];
            w[1] = wk[1];
            w[2] = wk[2];
        }
    }
    return best;
}

/// Minimizes phi(w0 a + w1 b + w2 c) over the barycentric simplex by Frank-Wolfe from the
/// centroid, with a golden-section line search toward the best corner each iteration
/// (gradient-only SDF evaluation for the direction, value-only in the line search); writes w[3]
/// (>= 0, summing to 1) and returns phi at dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]).
/// The best corner minimizes grad . corner (ties go to a, then b, then c). A step that would
/// not lower phi is not taken, so phi never rises over the iterations. A sphere takes the
/// exact minimum instead (the weights of the triangle's point closest to its centre).
DFM_HD float dfm_sdf_face_min(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c, float w[3]) {
    if (s->type == DFM_GEOM_SPHERE) {
        dfm_dc_point_triangle(dfm_v3_zero(), a, b, c, w);
        return dfm_shape_sdf_value(s, dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]));
    }
    if (s->type == DFM_GEOM_CAPSULE) return dfm_sdf_capsule_face_min(s, a, b, c, w);
    const float third = 1.0f / 3.0f;
    float w0 = third, w1 = third, w2 = third;
    dfm_v3 x = dfm_sdf_bary_point(a, b, c, w0, w1, w2);
    float phi = dfm_shape_sdf_value(s, x);
    for (int it = 0; it < DFM_SDF_FACE_ITERS; ++it) {
        dfm_v3 g = dfm_shape_sdf_grad(s, x);
        float ga = dfm_v3_dot(g, a), gb = dfm_v3_dot(g, b), gc = dfm_v3_dot(g, c);
        int k = 0;
        float gk = ga;
        dfm_v3 corner = a;
        if (gb < gk) {
            k = 1;
            gk = gb;
            corner = b;
        }
        if (gc < gk) {
            k = 2;
            corner = c;
        }
        float phi_ls;
        float gamma = dfm_sdf_edge_min(s, x, corner, DFM_SDF_LINE_ITERS, &phi_ls);
        if (!(phi_ls < phi)) gamma = 0.0f;
        float keep = 1.0f - gamma;
        w0 = w0 * keep + (k == 0 ? gamma : 0.0f);
        w1 = w1 * keep + (k == 1 ? gamma : 0.0f);
        w2 = w2 * keep + (k == 2 ? gamma : 0.0f);
        /* The point is rebuilt from the weights (not taken from the line search) so it stays
           exactly the one the weights describe; phi_ls is its value up to rounding. */
        x = dfm_sdf_bary_point(a, b, c, w0, w1, w2);
        phi = gamma > 0.0f ? phi_ls : phi;
    }
    float sum = w0 + w1 + w2;
    w[0] = w0 / sum;
    w[1] = w1 / sum;
    w[2] = w2 / sum;
    return dfm_shape_sdf_value(s, dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]));
}

/// Minimum of phi over the slice w2 = v of triangle abc: the segment from (1-v) a + v c to
/// (1-v) b + v c, by golden-section search (value-only); writes the parameter t along it.
DFM_HD float dfm_sdf_face_slice_min(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c, float v, float* t) {
    float phi;
    *t = dfm_sdf_edge_min(s, dfm_sdf_lerp(a, c, v), dfm_sdf_lerp(b, c, v), DFM_SDF_NESTED_ITERS, &phi);
    return phi;
}

/// Minimizes phi(w0 a + w1 b + w2 c) over the barycentric simplex by a nested golden-section
/// search: the outer search runs over v = w2 in [0, 1], its objective is the minimum over that
/// slice (dfm_sdf_face_slice_min), so w = ((1-t)(1-v), t(1-v), v). Value-only SDF evaluations,
/// data-independent count. Writes w[3] (>= 0, summing to 1 up to rounding) and returns phi at
/// dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]).
DFM_HD float dfm_sdf_face_min_nested(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c, float w[3]) {
    float lo = 0.0f, hi = 1.0f, t;
    float vc = hi - (hi - lo) * DFM_SDF_INV_GOLDEN, vd = lo + (hi - lo) * DFM_SDF_INV_GOLDEN;
    float fc = dfm_sdf_face_slice_min(s, a, b, c, vc, &t);
    float fd = dfm_sdf_face_slice_min(s, a, b, c, vd, &t);
    for (int i = 0; i < DFM_SDF_NESTED_ITERS; ++i) {
        int left = fc < fd;
        float nlo = left ? lo : vc, nhi = left ? vd : hi;
        float x = left ? nhi - (nhi - nlo) * DFM_SDF_INV_GOLDEN : nlo + (nhi - nlo) * DFM_SDF_INV_GOLDEN;
        float fx = dfm_sdf_face_slice_min(s, a, b, c, x, &t);
        float nc = left ? x : vd, fnc = left ? fx : fd;
        float nd = left ? vc : x, fnd = left ? fc : fx;
        lo = nlo;
        hi = nhi;
        vc = nc;
        fc = fnc;
        vd = nd;
        fd = fnd;
    }
    float v = 0.5f * (lo + hi);
    (void)dfm_sdf_face_slice_min(s, a, b, c, v, &t);
    w[0] = (1.0f - t) * (1.0f - v);
    w[1] = t * (1.0f - v);
    w[2] = v;
    return dfm_shape_sdf_value(s, dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]));
}

#endif
