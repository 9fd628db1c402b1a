/// @file closest_points.h
/// Closest points between points, segments and triangles (Ericson 2005, Real-Time Collision
/// Detection 5.1.5 and 5.1.9), shared by deformable-deformable contact (deform_contact.h: its
/// vertex-triangle and edge-edge pairs, and its lanes twin in kernels/cpu/vbd_simd_lanes.h) and
/// the exact edge and face minima of spheres and capsules (sdf_features.h). Float arithmetic,
/// robust for degenerate segments and triangles; the same code on the CPU and on CUDA.
#ifndef DFM_CLOSEST_POINTS_H
#define DFM_CLOSEST_POINTS_H

#include "vec3.h"

/// Closest point of segment [a, b] to p: its parameter t in [0, 1] (0 for a degenerate segment).
DFM_HD float dfm_dc_point_segment(dfm_v3 p, dfm_v3 a, dfm_v3 b) {
    dfm_v3 ab = dfm_v3_sub(b, a);
    float l2 = dfm_v3_len2(ab);
    if (!(l2 > 0.0f)) return 0.0f;
    float t = dfm_v3_dot(dfm_v3_sub(p, a), ab) / l2;
    return dfm_fminf(dfm_fmaxf(t, 0.0f), 1.0f);
}

/// Closest point of triangle (a, b, c) to p as barycentrics bary[3] (Ericson 2005, Real-Time
/// Collision Detection 5.1.5: Voronoi regions of vertices, edges, face). A degenerate triangle
/// (zero area: the face region's denominator vanishes) falls back to the closest of its three
/// edges, so the result is always a point of the triangle's convex hull.
DFM_HD void dfm_dc_point_triangle(dfm_v3 p, dfm_v3 a, dfm_v3 b, dfm_v3 c, float bary[3]) {
    dfm_v3 ab = dfm_v3_sub(b, a), ac = dfm_v3_sub(c, a), ap = dfm_v3_sub(p, a);
    float d1 = dfm_v3_dot(ab, ap), d2 = dfm_v3_dot(ac, ap);
    float sc = dfm_fmaxf(dfm_v3_len2(ab), dfm_v3_len2(ac));
    float area2 = dfm_v3_len2(dfm_v3_cross(ab, ac));
    if (!(area2 > 1e-12f * sc * sc)) { /* degenerate: best of the three edges */
        dfm_v3 e[3][2] = {{a, b}, {b, c}, {c, a}};
        float best = 3.0e38f;
        bary[0] = 1.0f, bary[1] = 0.0f, bary[2] = 0.0f; /* also for non-finite input */
        for (int k = 0; k < 3; ++k) {
            float t = dfm_dc_point_segment(p, e[k][0], e[k][1]);
            dfm_v3 q = dfm_v3_madd(e[k][0], dfm_v3_sub(e[k][1], e[k][0]), t);
            float d = dfm_v3_len2(dfm_v3_sub(p, q));
            if (d < best) {
                best = d;
                bary[k] = 1.0f - t;
                bary[(k + 1) % 3] = t;
                bary[(k + 2) % 3] = 0.0f;
            }
        }
        return;
    }
    if (d1 <= 0.0f && d2 <= 0.0f) {
        bary[0] = 1.0f, bary[1] = 0.0f, bary[2] = 0.0f;
        return;
    }
    dfm_v3 bp = dfm_v3_sub(p, b);
    float d3 = dfm_v3_dot(ab, bp), d4 = dfm_v3_dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) {
        bary[0] = 0.0f, bary[1] = 1.0f, bary[2] = 0.0f;
        return;
    }
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
        float v = d1 / (d1 - d3);
        bary[0] = 1.0f - v, bary[1] = v, bary[2] = 0.0f;
        return;
    }
    dfm_v3 cp = dfm_v3_sub(p, c);
    float d5 = dfm_v3_dot(ab, cp), d6 = dfm_v3_dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) {
        bary[0] = 0.0f, bary[1] = 0.0f, bary[2] = 1.0f;
        return;
    }
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
        float w = d2 / (d2 - d6);
        bary[0] = 1.0f - w, bary[1] = 0.0f, bary[2] = w;
        return;
    }
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
        float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary[0] = 0.0f, bary[1] = 1.0f - w, bary[2] = w;
        return;
    }
    float denom = 1.0f / (va + vb + vc);
    float v = vb * denom, w = vc * denom;
    bary[0] = 1.0f - v - w, bary[1] = v, bary[2] = w;
}

/// Closest points of segments [p0, p1] and [q0, q1]: parameters s, t in [0, 1] of the points
/// p0 + s (p1 - p0) and q0 + t (q1 - q0) (Ericson 2005, 5.1.9). Degenerate segments (points) and
/// parallel segments (the denominator below 1e-6 of its scale: t then follows from s = 0, then s
/// is re-clamped, which gives one of the closest pairs) are handled.
DFM_HD void dfm_dc_edge_edge(dfm_v3 p0, dfm_v3 p1, dfm_v3 q0, dfm_v3 q1, float* s_out, float* t_out) {
    dfm_v3 d1 = dfm_v3_sub(p1, p0), d2 = dfm_v3_sub(q1, q0), r = dfm_v3_sub(p0, q0);
    float a = dfm_v3_len2(d1), e = dfm_v3_len2(d2), f = dfm_v3_dot(d2, r);
    float s, t;
    if (!(a > 0.0f) && !(e > 0.0f)) {
        s = 0.0f, t = 0.0f;
    } else if (!(a > 0.0f)) {
        s = 0.0f;
        t = dfm_fminf(dfm_fmaxf(f / e, 0.0f), 1.0f);
    } else {
        float c = dfm_v3_dot(d1, r);
        if (!(e > 0.0f)) {
            t = 0.0f;
            s = dfm_fminf(dfm_fmaxf(-c / a, 0.0f), 1.0f);
        } else {
            float b = dfm_v3_dot(d1, d2), denom = a * e - b * b;
            s = denom > 1e-6f * a * e ? dfm_fminf(dfm_fmaxf((b * f - c * e) / denom, 0.0f), 1.0f) : 0.0f;
            t = (b * s + f) / e;
            if (t < 0.0f) {
                t = 0.0f;
                s = dfm_fminf(dfm_fmaxf(-c / a, 0.0f), 1.0f);
            } else if (t > 1.0f) {
                t = 1.0f;
                s = dfm_fminf(dfm_fmaxf((b - c) / a, 0.0f), 1.0f);
            }
        }
    }
    *s_out = s;
    *t_out = t;
}

#endif
