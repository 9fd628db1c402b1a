/// @file dfm_scene_layers.c
/// See dfm_scene_layers.h.
#include "dfm_scene_layers.h"

#include <math.h>

#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])

/// The closest point q of triangle abc to p and its Voronoi region (Ericson 5.1.5): 0 the face,
/// 1..3 vertex a, b, c, 4 edge ab, 5 edge ac, 6 edge bc.
static int closest_point(const double p[3], const double a[3], const double b[3], const double c[3], double q[3]) {
    double ab[3], ac[3], ap[3];
    for (int k = 0; k < 3; ++k) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap), v = 0, w = 0;
    double bp[3], cp[3];
    for (int k = 0; k < 3; ++k) bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    int region = 0;
    if (d1 <= 0 && d2 <= 0)
        v = 0, w = 0, region = 1;
    else if (d3 >= 0 && d4 <= d3)
        v = 1, w = 0, region = 2;
    else if (d6 >= 0 && d5 <= d6)
        v = 0, w = 1, region = 3;
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        v = d1 / (d1 - d3), w = 0, region = 4;
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        v = 0, w = d2 / (d2 - d6), region = 5;
    else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6)), v = 1 - w, region = 6;
    else {
        double den = 1.0 / (va + vb + vc);
        v = vb * den, w = vc * den;
    }
    for (int k = 0; k < 3; ++k) q[k] = a[k] + v * ab[k] + w * ac[k];
    return region;
}

static void normal_of(const double a[3], const double b[3], const double c[3], double n[3]) {
    const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = ab[1] * ac[2] - ab[2] * ac[1];
    n[1] = ab[2] * ac[0] - ab[0] * ac[2];
    n[2] = ab[0] * ac[1] - ab[1] * ac[0];
}

double dfm_scene_signed_distance_triangle(const double p[3], const double a[3], const double b[3], const double c[3]) {
    double q[3], n[3];
    closest_point(p, a, b, c, q);
    normal_of(a, b, c, n);
    double pq[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    double d = sqrt(DOT(pq, pq));
    return DOT(n, pq) >= 0 ? d : -d;
}

double dfm_scene_signed_distance_sheet(const double p[3], const float* x, const int32_t* tris, int32_t tri_count) {
    double best = 1e30;
    for (int32_t t = 0; t < tri_count; ++t) {
        const int32_t* tv = tris + 3 * t;
        double a[3], b[3], c[3];
        for (int q = 0; q < 3; ++q) a[q] = x[3 * tv[0] + q], b[q] = x[3 * tv[1] + q], c[q] = x[3 * tv[2] + q];
        double sd = dfm_scene_signed_distance_triangle(p, a, b, c);
        if (fabs(sd) < fabs(best)) best = sd;
    }
    return best;
}

double dfm_scene_min_signed_distance(const float* points, const int32_t* idx, int32_t point_count, const float* x,
                                     const int32_t* tris, int32_t tri_count) {
    double worst = 1e30;
    for (int32_t k = 0; k < point_count; ++k) {
        const float* pf = points + 3 * (idx ? idx[k] : k);
        const double p[3] = {pf[0], pf[1], pf[2]};
        const double sd = dfm_scene_signed_distance_sheet(p, x, tris, tri_count);
        if (sd < worst) worst = sd;
    }
    return worst;
}

static void load_tri(const float* x, const int32_t* tv, double a[3], double b[3], double c[3]) {
    for (int q = 0; q < 3; ++q) a[q] = x[3 * tv[0] + q], b[q] = x[3 * tv[1] + q], c[q] = x[3 * tv[2] + q];
}

static int has_vertex(const int32_t* tv, int32_t v) { return tv[0] == v || tv[1] == v || tv[2] == v; }

int dfm_scene_layer_distance(const double p[3], const float* x, const int32_t* tris, int32_t tri_count, double* out) {
    double best = 1e30, bq[3] = {0, 0, 0};
    int32_t bt = -1;
    int region = 0;
    for (int32_t t = 0; t < tri_count; ++t) {
        double a[3], b[3], c[3], q[3];
        load_tri(x, tris + 3 * t, a, b, c);
        const int rg = closest_point(p, a, b, c, q);
        const double d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
        if (d2 < best) best = d2, bt = t, region = rg, bq[0] = q[0], bq[1] = q[1], bq[2] = q[2];
    }
    if (bt < 0) return 0;
    /* The feature holding the closest point: the face, an edge (u, v) or a vertex u. */
    const int32_t* tv = tris + 3 * bt;
    int32_t u = -1, v = -1;
    if (region >= 1 && region <= 3) u = tv[region - 1];
    if (region == 4) u = tv[0], v = tv[1];
    if (region == 5) u = tv[0], v = tv[2];
    if (region == 6) u = tv[1], v = tv[2];
    double n[3] = {0, 0, 0};
    int interior = 1;
    if (u < 0) {
        double a[3], b[3], c[3];
        load_tri(x, tv, a, b, c);
        normal_of(a, b, c, n);
    } else {
        /* Pseudo-normal: the sum of the unit normals of the triangles around the feature (Baerentzen
         * and Aanaes 2005 weight a vertex's by angle; a sum suffices for these mildly bent sheets).
         * On the sheet's boundary (an edge of one triangle, a vertex with such an edge) the side is
         * undefined. */
        int32_t edge_v[64], edge_n[64], ne = 0, shared = 0;
        for (int32_t t = 0; t < tri_count; ++t) {
            const int32_t* sv = tris + 3 * t;
            if (!has_vertex(sv, u) || (v >= 0 && !has_vertex(sv, v))) continue;
            double a[3], b[3], c[3], m[3];
            load_tri(x, sv, a, b, c);
            normal_of(a, b, c, m);
            const double len = sqrt(DOT(m, m));
            if (len > 0)
                for (int k = 0; k < 3; ++k) n[k] += m[k] / len;
            ++shared;
            if (v < 0) /* count the triangle's two edges at u */
                for (int k = 0; k < 3; ++k) {
                    const int32_t o = sv[k];
                    if (o == u) continue;
                    int32_t e = 0;
                    while (e < ne && edge_v[e] != o) ++e;
                    if (e == ne && ne < 64) edge_v[ne] = o, edge_n[ne++] = 0;
                    if (e < 64) ++edge_n[e];
                }
        }
        if (v >= 0) interior = shared >= 2;
        for (int32_t e = 0; e < ne; ++e) interior &= edge_n[e] >= 2;
    }
    const double pq[3] = {p[0] - bq[0], p[1] - bq[1], p[2] - bq[2]};
    const double d = sqrt(best);
    *out = DOT(n, pq) >= 0 ? d : -d;
    return interior;
}
