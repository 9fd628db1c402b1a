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
DFM_HD float dfm_sdf_edge_min(const dfm_shape_geom* s, dfm_v3 p, dfm_v3 q, int iters, float* out_phi) {
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

/// Minimizes phi(w0 a + w1 b + w2 c) over the barycentric simplex by Frank-Wolfe from the
/// centroid, with a golden-section line search toward the best corner each iteration
/// (gradient-only SDF evaluation for the direction, value-only in the line search); writes w[3]
/// (>= 0, summing to 1) and returns phi at dfm_sdf_bary_point(a, b, c, w[0], w[1], w[2]).
/// The best corner minimizes grad . corner (ties go to a, then b, then c). A step that would
/// not lower phi is not taken, so phi never rises over the iterations.
DFM_HD float dfm_sdf_face_min(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c, float w[3]) {
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
