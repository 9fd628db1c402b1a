/// @file mesh_sdf.c
/// Baking a closed triangle mesh into a signed-distance grid (see mesh_sdf.h). Steps:
/// validate (indices, coordinates, areas) -> check closedness/orientation on sorted half-edges ->
/// check the enclosed volume -> fit the grid -> exact unsigned distance in the band (per
/// triangle over its grown AABB, rows clipped to its slab and ball) -> winding number along x
/// lines (sign) -> the same two passes on the cell centres -> error estimate at the centres and
/// on the surface. Geometry runs in double from the float input; no threads (deterministic).
#include "mesh_sdf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdf_grid.h"

/// Default resolution: nodes across the largest AABB extent when the cell is automatic.
#define MESH_SDF_AUTO_DIVISIONS 48.0
/// Minimum margin and minimum band, in cells.
#define MESH_SDF_MIN_MARGIN_CELLS 2.0
#define MESH_SDF_MIN_BAND_CELLS 3.0
/// A triangle whose doubled area is below this fraction of its longest edge squared has zero area.
#define MESH_SDF_SLIVER 1e-12
/// A mesh whose |volume| is below this fraction of its largest extent cubed encloses nothing.
#define MESH_SDF_FLAT 1e-9

/// Writes a formatted message into err when there is room for one.
static void set_err(char* err, size_t err_size, const char* fmt, ...) {
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------------------------
 * Validation: closedness and orientation on sorted half-edges.
 * ------------------------------------------------------------------------------------------- */

/// One directed edge of a triangle, keyed by its undirected vertex pair (lo < hi).
typedef struct mesh_half_edge {
    int32_t lo, hi;  ///< Vertex pair, lo < hi.
    int32_t tri;     ///< Triangle that owns it.
    int32_t forward; ///< 1 when the triangle traverses lo -> hi, 0 for hi -> lo.
} mesh_half_edge;

static int half_edge_cmp(const void* pa, const void* pb) {
    const mesh_half_edge* x = (const mesh_half_edge*)pa;
    const mesh_half_edge* y = (const mesh_half_edge*)pb;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    if (x->tri != y->tri) return x->tri < y->tri ? -1 : 1;
    return x->forward - y->forward;
}

/// Checks that every undirected edge is used by exactly two triangles in opposite directions.
/// Returns 0, DFM_MESH_SDF_NOT_CLOSED with a message about the bad edge whose lowest triangle
/// index is smallest, or DFM_MESH_SDF_OUT_OF_MEMORY.
static int check_closed(const int32_t* tris, int32_t tri_count, char* err, size_t err_size) {
    size_t n = 3u * (size_t)tri_count;
    mesh_half_edge* he = (mesh_half_edge*)malloc(n * sizeof(mesh_half_edge));
    uint8_t* conflicts = (uint8_t*)calloc((size_t)tri_count, 1);
    if (!he || !conflicts) {
        free(he);
        free(conflicts);
        set_err(err, err_size, "out of memory checking %d triangles", (int)tri_count);
        return DFM_MESH_SDF_OUT_OF_MEMORY;
    }
    for (int32_t t = 0; t < tri_count; ++t) {
        for (int c = 0; c < 3; ++c) {
            int32_t from = tris[3 * t + c], to = tris[3 * t + (c + 1) % 3];
            mesh_half_edge* h = &he[3 * (size_t)t + (size_t)c];
            h->lo = from < to ? from : to;
            h->hi = from < to ? to : from;
            h->tri = t;
            h->forward = from < to;
        }
    }
    qsort(he, n, sizeof(mesh_half_edge), half_edge_cmp);
    /* Pass 1: same-direction conflicts per triangle (a triangle with three is flipped). */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
        if (j - i == 2 && he[i].forward == he[i + 1].forward) {
            ++conflicts[he[i].tri];
            ++conflicts[he[i + 1].tri];
        }
        i = j;
    }
    /* Pass 2: the bad group whose first (lowest) triangle is smallest. */
    size_t bad = n, bad_end = n;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
        int ok = j - i == 2 && he[i].forward != he[i + 1].forward;
        if (!ok && (bad == n || he[i].tri < he[bad].tri)) {
            bad = i;
            bad_end = j;
        }
        i = j;
    }
    int rc = 0;
    if (bad < n) {
        const mesh_half_edge* h = &he[bad];
        size_t count = bad_end - bad;
        rc = DFM_MESH_SDF_NOT_CLOSED;
        if (count == 1) {
            set_err(err, err_size, "mesh is not closed: edge (%d, %d) of triangle %d belongs to no other triangle",
                    (int)h->lo, (int)h->hi, (int)h->tri);
        } else if (count == 2) {
            int32_t from = h->forward ? h->lo : h->hi, to = h->forward ? h->hi : h->lo;
            int32_t t0 = h[0].tri, t1 = h[1].tri;
            int32_t flipped = conflicts[t0] == 3 && conflicts[t1] != 3   ? t0
                              : conflicts[t1] == 3 && conflicts[t0] != 3 ? t1
                                                                         : -1;
            if (flipped >= 0)
                set_err(err, err_size,
                        "mesh is not consistently oriented: triangles %d and %d both traverse edge %d -> %d; "
                        "triangle %d is flipped (all three of its edges disagree with their neighbours)",
                        (int)t0, (int)t1, (int)from, (int)to, (int)flipped);
            else
                set_err(err, err_size,
                        "mesh is not consistently oriented: triangles %d and %d both traverse edge %d -> %d", (int)t0,
                        (int)t1, (int)from, (int)to);
        } else {
            set_err(err, err_size, "mesh is not manifold: edge (%d, %d) is shared by %d triangles (%d, %d, %d%s)",
                    (int)h->lo, (int)h->hi, (int)count, (int)h[0].tri, (int)h[1].tri, (int)h[2].tri,
                    count > 3 ? ", ..." : "");
        }
    }
    free(he);
    free(conflicts);
    return rc;
}

/// Checks indices, coordinates and areas triangle by triangle (first bad one reported) and
/// computes the AABB of the referenced vertices and the enclosed volume.
static int check_triangles(const float* v, int32_t vertex_count, const int32_t* tris, int32_t tri_count, double lo[3],
                           double hi[3], double* volume, char* err, size_t err_size) {
    for (int a = 0; a < 3; ++a) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (int32_t t = 0; t < tri_count; ++t) {
        const int32_t* c = tris + 3 * t;
        for (int k = 0; k < 3; ++k) {
            if (c[k] < 0 || c[k] >= vertex_count) {
                set_err(err, err_size, "triangle %d: vertex index %d is out of range [0, %d)", (int)t, (int)c[k],
                        (int)vertex_count);
                return DFM_MESH_SDF_DEGENERATE;
            }
        }
        if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0]) {
            set_err(err, err_size, "triangle %d repeats a vertex (%d, %d, %d)", (int)t, (int)c[0], (int)c[1],
                    (int)c[2]);
            return DFM_MESH_SDF_DEGENERATE;
        }
        for (int k = 0; k < 3; ++k) {
            const float* p = v + 3 * (size_t)c[k];
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
                set_err(err, err_size, "triangle %d: vertex %d has a non-finite coordinate", (int)t, (int)c[k]);
                return DFM_MESH_SDF_DEGENERATE;
            }
        }
    }
    /* Volume relative to the AABB centre keeps the sum well conditioned. */
    for (int32_t t = 0; t < 3 * tri_count; ++t) {
        const float* p = v + 3 * (size_t)tris[t];
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], (double)p[a]);
            hi[a] = fmax(hi[a], (double)p[a]);
        }
    }
    double mid[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
    double vol6 = 0.0;
    for (int32_t t = 0; t < tri_count; ++t) {
        double q[3][3];
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) q[k][a] = (double)v[3 * (size_t)tris[3 * t + k] + (size_t)a] - mid[a];
        double e1[3], e2[3], e3[3], n[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = q[1][a] - q[0][a];
            e2[a] = q[2][a] - q[0][a];
            e3[a] = q[2][a] - q[1][a];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double area2 = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
        double l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
        double l3 = e3[0] * e3[0] + e3[1] * e3[1] + e3[2] * e3[2];
        double longest2 = fmax(l1, fmax(l2, l3));
        if (!(area2 > MESH_SDF_SLIVER * longest2)) {
            set_err(err, err_size, "triangle %d (%d, %d, %d) has zero area", (int)t, (int)tris[3 * t],
                    (int)tris[3 * t + 1], (int)tris[3 * t + 2]);
            return DFM_MESH_SDF_DEGENERATE;
        }
        vol6 += q[0][0] * n[0] + q[0][1] * n[1] + q[0][2] * n[2];
    }
    *volume = vol6 / 6.0;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Exact unsigned distance.
 * ------------------------------------------------------------------------------------------- */

/// A triangle prepared for point queries: vertex a, edges, Gram matrix inverse and normal.
typedef struct mesh_tri {
    double a[3], b[3]; ///< Vertices a and b (c = a + ac).
    double ab[3], ac[3], bc[3];
    double inv_ab2, inv_ac2, inv_bc2; ///< 1 / squared edge lengths.
    double d00, d01, d11, inv_det;    ///< Gram matrix of (ab, ac) and 1 / its determinant.
    double n[3], inv_n2;              ///< Unnormalized normal ab x ac and 1 / |n|^2.
} mesh_tri;

static double dot3(const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; }
/// Minimum of two non-NaN doubles (a plain compare: libm's fmin is a call in the hot loop).
static double min_d(double x, double y) { return x < y ? x : y; }

static void tri_prepare(mesh_tri* t, const float* p0, const float* p1, const float* p2) {
    for (int a = 0; a < 3; ++a) {
        t->a[a] = p0[a];
        t->b[a] = p1[a];
        t->ab[a] = (double)p1[a] - (double)p0[a];
        t->ac[a] = (double)p2[a] - (double)p0[a];
        t->bc[a] = (double)p2[a] - (double)p1[a];
    }
    t->inv_ab2 = 1.0 / dot3(t->ab, t->ab);
    t->inv_ac2 = 1.0 / dot3(t->ac, t->ac);
    t->inv_bc2 = 1.0 / dot3(t->bc, t->bc);
    t->d00 = dot3(t->ab, t->ab);
    t->d01 = dot3(t->ab, t->ac);
    t->d11 = dot3(t->ac, t->ac);
    t->inv_det = 1.0 / (t->d00 * t->d11 - t->d01 * t->d01);
    t->n[0] = t->ab[1] * t->ac[2] - t->ab[2] * t->ac[1];
    t->n[1] = t->ab[2] * t->ac[0] - t->ab[0] * t->ac[2];
    t->n[2] = t->ab[0] * t->ac[1] - t->ab[1] * t->ac[0];
    t->inv_n2 = 1.0 / dot3(t->n, t->n);
}

/// Squared distance from the point o + w to the segment o + s e, s in [0, 1] (1/|e|^2 given).
static double segment_dist2(const double* w, const double* e, double inv_e2) {
    double s = dot3(w, e) * inv_e2;
    s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    double d[3] = {w[0] - s * e[0], w[1] - s * e[1], w[2] - s * e[2]};
    return dot3(d, d);
}

/// Squared distance from p to the triangle, or `bound` (unchanged) when it cannot be below it.
/// The projection of p on the plane has barycentric coordinates (u, v, w) for (a, b, c); when
/// all are >= 0 the closest point is that projection. Otherwise it is on the boundary, on an edge
/// whose supporting line separates the projection from the triangle: one with a negative
/// coordinate at its opposite vertex (convexity); those one or two edges are measured.
static double tri_dist2(const mesh_tri* t, const double* p, double bound) {
    double ap[3] = {p[0] - t->a[0], p[1] - t->a[1], p[2] - t->a[2]};
    double h = dot3(ap, t->n);
    double plane2 = h * h * t->inv_n2;
    if (plane2 >= bound) return bound;
    double e0 = dot3(ap, t->ab), e1 = dot3(ap, t->ac);
    double bv = (t->d11 * e0 - t->d01 * e1) * t->inv_det;
    double bw = (t->d00 * e1 - t->d01 * e0) * t->inv_det;
    double bu = 1.0 - bv - bw;
    if (bu >= 0.0 && bv >= 0.0 && bw >= 0.0) return plane2;
    double best = INFINITY;
    if (bw < 0.0) best = min_d(best, segment_dist2(ap, t->ab, t->inv_ab2));
    if (bv < 0.0) best = min_d(best, segment_dist2(ap, t->ac, t->inv_ac2));
    if (bu < 0.0) {
        double bp[3] = {p[0] - t->b[0], p[1] - t->b[1], p[2] - t->b[2]};
        best = min_d(best, segment_dist2(bp, t->bc, t->inv_bc2));
    }
    return best;
}

/// The lattice a pass runs over: points origin + (i + off) * cell for i in [0, n) per axis.
typedef struct mesh_lattice {
    double origin[3], cell, off;
    int32_t n[3];
} mesh_lattice;

/// Index range [*i0, *i1] of lattice points along axis `a` within [lo, hi] (possibly empty).
static inline void lattice_range(const mesh_lattice* L, int a, double lo, double hi, int32_t* i0, int32_t* i1) {
    double u0 = ceil((lo - L->origin[a]) / L->cell - L->off);
    double u1 = floor((hi - L->origin[a]) / L->cell - L->off);
    u0 = fmax(u0, 0.0);
    u1 = fmin(u1, (double)(L->n[a] - 1));
    *i0 = (int32_t)u0;
    *i1 = u1 < u0 ? (int32_t)u0 - 1 : (int32_t)u1;
}

/// Lowers d2[point] to the squared distance to each triangle, for the points in the triangle's
/// AABB grown by `band`. d2 must start at band^2 (so farther points stay clamped there).
static void distance_pass(const float* v, const int32_t* tris, int32_t tri_count, const mesh_lattice* L, double band,
                          float* d2) {
    size_t sx = (size_t)L->n[0], sxy = (size_t)L->n[0] * (size_t)L->n[1];
    for (int32_t t = 0; t < tri_count; ++t) {
        const float* p0 = v + 3 * (size_t)tris[3 * t];
        const float* p1 = v + 3 * (size_t)tris[3 * t + 1];
        const float* p2 = v + 3 * (size_t)tris[3 * t + 2];
        mesh_tri tri;
        tri_prepare(&tri, p0, p1, p2);
        int32_t r0[3], r1[3];
        int empty = 0;
        for (int a = 0; a < 3; ++a) {
            double lo = fmin((double)p0[a], fmin((double)p1[a], (double)p2[a])) - band;
            double hi = fmax((double)p0[a], fmax((double)p1[a], (double)p2[a])) + band;
            lattice_range(L, a, lo, hi, &r0[a], &r1[a]);
            empty |= r1[a] < r0[a];
        }
        if (empty) continue;
        /* A point within `band` of the triangle lies in the slab |plane distance| < band and in
           the ball of radius rs + band around the centroid (rs: farthest vertex). Each row visits
           only the x interval where both hold, not the whole grown AABB: about 2x fewer points
           for small triangles, far fewer for large slanted ones. */
        double n_len = sqrt(1.0 / tri.inv_n2), slab = band * n_len;
        int use_slab = fabs(tri.n[0]) > 1e-3 * n_len;
        double centre[3], rs2 = 0.0;
        for (int a = 0; a < 3; ++a) centre[a] = ((double)p0[a] + (double)p1[a] + (double)p2[a]) / 3.0;
        for (int c = 0; c < 3; ++c) {
            const float* q = c == 0 ? p0 : (c == 1 ? p1 : p2);
            double e[3] = {(double)q[0] - centre[0], (double)q[1] - centre[1], (double)q[2] - centre[2]};
            rs2 = fmax(rs2, dot3(e, e));
        }
        double reach = sqrt(rs2) + band, reach2 = reach * reach, slack = 1e-6 * L->cell;
        for (int32_t k = r0[2]; k <= r1[2]; ++k) {
            double p[3];
            p[2] = L->origin[2] + ((double)k + L->off) * L->cell;
            double dz = p[2] - centre[2];
            for (int32_t j = r0[1]; j <= r1[1]; ++j) {
                p[1] = L->origin[1] + ((double)j + L->off) * L->cell;
                double dy = p[1] - centre[1], h2 = reach2 - dy * dy - dz * dz;
                if (h2 <= 0.0) continue;
                double h = sqrt(h2), xa = centre[0] - h, xb = centre[0] + h;
                if (use_slab) {
                    double rest = tri.n[1] * (p[1] - tri.a[1]) + tri.n[2] * (p[2] - tri.a[2]);
                    double sa = tri.a[0] + (-slab - rest) / tri.n[0], sb = tri.a[0] + (slab - rest) / tri.n[0];
                    if (sa > sb) {
                        double x = sa;
                        sa = sb;
                        sb = x;
                    }
                    xa = xa > sa ? xa : sa;
                    xb = xb < sb ? xb : sb;
                }
                int32_t i0, i1;
                lattice_range(L, 0, xa - slack, xb + slack, &i0, &i1);
                if (i0 < r0[0]) i0 = r0[0];
                if (i1 > r1[0]) i1 = r1[0];
                float* row = d2 + (size_t)k * sxy + (size_t)j * sx;
                for (int32_t i = i0; i <= i1; ++i) {
                    p[0] = L->origin[0] + ((double)i + L->off) * L->cell;
                    double cur = (double)row[i];
                    double d = tri_dist2(&tri, p, cur);
                    if (d < cur) row[i] = (float)d;
                }
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Sign: winding number along lines parallel to x.
 * ------------------------------------------------------------------------------------------- */

/// Edge function of the projected directed edge a -> b at q (cross((b - a), (q - a)) in the (y, z)
/// plane) and its sign under the symbolic perturbation q + (eps, eps^2). The function is computed
/// with the endpoints in a canonical (lexicographic) order and negated for the other direction,
/// so the two triangles sharing an edge always get exactly opposite values and signs. Returns 0
/// only for an edge that projects to a point.
static int edge_sign(double ay, double az, double by, double bz, double qy, double qz, double* value) {
    int flip = by < ay || (by == ay && bz < az);
    if (flip) {
        double ty = ay, tz = az;
        ay = by;
        az = bz;
        by = ty;
        bz = tz;
    }
    double dy = by - ay, dz = bz - az; /* dy >= 0, and dz >= 0 when dy == 0 */
    double e = dy * (qz - az) - dz * (qy - ay);
    /* e(q + (eps, eps^2)) = e - dz eps + dy eps^2 */
    int s = e > 0.0 ? 1 : e < 0.0 ? -1 : dz != 0.0 ? -1 : dy != 0.0 ? 1 : 0;
    if (flip) {
        e = -e;
        s = -s;
    }
    *value = e;
    return s;
}

/// Adds, for every line (j, k) of the lattice and every triangle crossing it, the crossing's
/// orientation (+1 when the triangle's normal has positive x) to w at the last point before the
/// crossing; a suffix sum per line then turns w into the winding number at each point.
static void winding_pass(const float* v, const int32_t* tris, int32_t tri_count, const mesh_lattice* L, int32_t* w) {
    size_t nx = (size_t)L->n[0], count = nx * (size_t)L->n[1] * (size_t)L->n[2];
    memset(w, 0, count * sizeof(int32_t));
    for (int32_t t = 0; t < tri_count; ++t) {
        const float* p[3] = {v + 3 * (size_t)tris[3 * t], v + 3 * (size_t)tris[3 * t + 1],
                             v + 3 * (size_t)tris[3 * t + 2]};
        int32_t r0[3], r1[3];
        int empty = 0;
        /* One line of slack each side: the exact test below decides. */
        for (int a = 1; a < 3; ++a) {
            double lo = fmin((double)p[0][a], fmin((double)p[1][a], (double)p[2][a])) - L->cell;
            double hi = fmax((double)p[0][a], fmax((double)p[1][a], (double)p[2][a])) + L->cell;
            lattice_range(L, a, lo, hi, &r0[a], &r1[a]);
            empty |= r1[a] < r0[a];
        }
        if (empty) continue;
        for (int32_t k = r0[2]; k <= r1[2]; ++k) {
            double qz = L->origin[2] + ((double)k + L->off) * L->cell;
            for (int32_t j = r0[1]; j <= r1[1]; ++j) {
                double qy = L->origin[1] + ((double)j + L->off) * L->cell;
                double e[3];
                int s0 = edge_sign(p[1][1], p[1][2], p[2][1], p[2][2], qy, qz, &e[0]); /* opposite vertex 0 */
                int s1 = edge_sign(p[2][1], p[2][2], p[0][1], p[0][2], qy, qz, &e[1]); /* opposite vertex 1 */
                int s2 = edge_sign(p[0][1], p[0][2], p[1][1], p[1][2], qy, qz, &e[2]); /* opposite vertex 2 */
                if (s0 == 0 || s0 != s1 || s1 != s2) continue;
                /* All weights share one sign (zeros allowed, not all zero): a convex combination. */
                double sum = e[0] + e[1] + e[2];
                double x = (e[0] * (double)p[0][0] + e[1] * (double)p[1][0] + e[2] * (double)p[2][0]) / sum;
                double u = (x - L->origin[0]) / L->cell - L->off;
                double last = ceil(u) - 1.0; /* the last point strictly before the crossing */
                if (last < 0.0) continue;
                if (last > (double)(nx - 1)) last = (double)(nx - 1);
                w[((size_t)k * (size_t)L->n[1] + (size_t)j) * nx + (size_t)last] += s0;
            }
        }
    }
    for (size_t line = 0; line < count; line += nx) {
        int32_t acc = 0;
        for (size_t i = nx; i-- > 0;) {
            acc += w[line + i];
            w[line + i] = acc;
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Grid fitting and the bake.
 * ------------------------------------------------------------------------------------------- */

/// Fits a grid of spacing `cell` centred on [lo, hi] grown by max(margin, 2 cells). Returns the
/// node count (as a double, so huge grids do not overflow) and fills dims/origin/margin.
static double fit_grid(const double lo[3], const double hi[3], double cell, double margin, int32_t dims[3],
                       double origin[3], double* margin_used) {
    double m = fmax(margin, MESH_SDF_MIN_MARGIN_CELLS * cell);
    double nodes = 1.0;
    for (int a = 0; a < 3; ++a) {
        double span = hi[a] - lo[a] + 2.0 * m;
        double n = ceil(span / cell) + 1.0;
        dims[a] = n > 2147483647.0 ? 2147483647 : (int32_t)n;
        nodes *= n;
        origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * cell * (n - 1.0);
    }
    *margin_used = m;
    return nodes;
}

int dfm_mesh_sdf_bake(const float* vertices, int32_t vertex_count, const int32_t* triangles, int32_t triangle_count,
                      float cell, float margin, int64_t max_nodes, dfm_mesh_sdf* out, char* err, size_t err_size) {
    if (err && err_size) err[0] = '\0';
    if (!out) {
        set_err(err, err_size, "no output grid given");
        return DFM_MESH_SDF_DEGENERATE;
    }
    memset(out, 0, sizeof(*out));
    if (!vertices || !triangles || vertex_count < 3 || triangle_count < 1) {
        set_err(err, err_size, "a mesh needs vertices (>= 3) and triangles (>= 1) (got %d and %d)", (int)vertex_count,
                (int)triangle_count);
        return DFM_MESH_SDF_DEGENERATE;
    }
    if (!isfinite(cell) || !isfinite(margin)) {
        set_err(err, err_size, "cell (%g) and margin (%g) must be finite", (double)cell, (double)margin);
        return DFM_MESH_SDF_DEGENERATE;
    }
    if (triangle_count > INT32_MAX / 3) {
        set_err(err, err_size, "too many triangles (%d)", (int)triangle_count);
        return DFM_MESH_SDF_DEGENERATE;
    }
    double lo[3], hi[3], volume = 0.0;
    int rc = check_triangles(vertices, vertex_count, triangles, triangle_count, lo, hi, &volume, err, err_size);
    if (rc) return rc;
    rc = check_closed(triangles, triangle_count, err, err_size);
    if (rc) return rc;
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(fabs(volume) > MESH_SDF_FLAT * extent * extent * extent)) {
        set_err(err, err_size, "mesh encloses no volume (%g m^3 within a %g m box)", volume, extent);
        return DFM_MESH_SDF_DEGENERATE;
    }

    /* Grid. */
    double limit = max_nodes > 0 && max_nodes < INT32_MAX ? (double)max_nodes : (double)INT32_MAX;
    double origin[3], margin_used = 0.0, h;
    double m_in = margin > 0.0f ? (double)margin : 0.0;
    int32_t dims[3];
    double nodes;
    if (cell > 0.0f) {
        h = (double)cell;
        nodes = fit_grid(lo, hi, h, m_in, dims, origin, &margin_used);
        if (nodes > limit) {
            set_err(err, err_size, "a %dx%dx%d grid (%.0f nodes) at cell %g m exceeds the limit of %.0f nodes",
                    (int)dims[0], (int)dims[1], (int)dims[2], nodes, h, limit);
            return DFM_MESH_SDF_TOO_MANY_NODES;
        }
    } else {
        h = extent / MESH_SDF_AUTO_DIVISIONS;
        nodes = fit_grid(lo, hi, h, m_in, dims, origin, &margin_used);
        for (int it = 0; nodes > limit && it < 200; ++it) {
            h *= fmax(cbrt(nodes / limit), 1.0) * 1.001;
            nodes = fit_grid(lo, hi, h, m_in, dims, origin, &margin_used);
        }
        if (nodes > limit) {
            set_err(err, err_size, "no grid with a margin of 2 cells fits in %.0f nodes", limit);
            return DFM_MESH_SDF_TOO_MANY_NODES;
        }
    }
    /* The grid must be representable in the floats it is stored and sampled in: a finite but huge
     * cell (3e38 m) or mesh (half size 3e38 m) made the origin or the band infinite, and the
     * lattice loops then ran over the whole int range or cast infinities to int. */
    {
        double band_d = fmax(MESH_SDF_MIN_BAND_CELLS * h, margin_used), reach = band_d;
        for (int a = 0; a < 3; ++a) reach = fmax(reach, fmax(fabs(origin[a]), fabs(origin[a] + h * (dims[a] - 1))));
        if (!(reach <= DFM_MESH_SDF_MAX_COORD)) {
            set_err(err, err_size,
                    "the grid (cell %g m, %dx%dx%d nodes, band %g m) reaches %g m from the origin; dfm handles "
                    "meshes and cells within %g m",
                    h, (int)dims[0], (int)dims[1], (int)dims[2], band_d, reach, (double)DFM_MESH_SDF_MAX_COORD);
            return DFM_MESH_SDF_OUT_OF_RANGE;
        }
    }
    for (int a = 0; a < 3; ++a) out->origin[a] = (float)origin[a];
    out->cell = (float)h;
    memcpy(out->dims, dims, sizeof(dims));
    double band = fmax(MESH_SDF_MIN_BAND_CELLS * (double)out->cell, margin_used);
    out->band = (float)band;
    float band_f = out->band, band2_f = band_f * band_f;

    /* The lattices of the nodes and of the cell centres, from the stored float origin and cell. */
    mesh_lattice nodes_l, centres_l;
    for (int a = 0; a < 3; ++a) {
        nodes_l.origin[a] = centres_l.origin[a] = (double)out->origin[a];
        nodes_l.n[a] = dims[a];
        centres_l.n[a] = dims[a] - 1;
    }
    nodes_l.cell = centres_l.cell = (double)out->cell;
    nodes_l.off = 0.0;
    centres_l.off = 0.5;
    size_t node_count = (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2];
    size_t cell_count = (size_t)(dims[0] - 1) * (size_t)(dims[1] - 1) * (size_t)(dims[2] - 1);

    float* values = (float*)malloc(node_count * sizeof(float));
    int32_t* wind = (int32_t*)malloc(node_count * sizeof(int32_t));
    float* centre_d2 = (float*)malloc(cell_count * sizeof(float));
    if (!values || !wind || !centre_d2) {
        free(values);
        free(wind);
        free(centre_d2);
        memset(out, 0, sizeof(*out));
        set_err(err, err_size, "out of memory for a %dx%dx%d grid", (int)dims[0], (int)dims[1], (int)dims[2]);
        return DFM_MESH_SDF_OUT_OF_MEMORY;
    }

    /* Nodes: distance, then sign. Clamped nodes hold exactly +-band. */
    for (size_t i = 0; i < node_count; ++i) values[i] = band2_f;
    distance_pass(vertices, triangles, triangle_count, &nodes_l, band, values);
    winding_pass(vertices, triangles, triangle_count, &nodes_l, wind);
    for (size_t i = 0; i < node_count; ++i) {
        float d = values[i] < band2_f ? fminf(sqrtf(values[i]), band_f) : band_f;
        values[i] = wind[i] != 0 ? -d : d;
    }

    /* Probes: the centres of cells whose corners and centre are all within the band. */
    for (size_t i = 0; i < cell_count; ++i) centre_d2[i] = band2_f;
    distance_pass(vertices, triangles, triangle_count, &centres_l, band, centre_d2);
    winding_pass(vertices, triangles, triangle_count, &centres_l, wind);
    dfm_sdf_grid_view view;
    memcpy(view.origin, out->origin, sizeof(view.origin));
    view.cell = out->cell;
    memcpy(view.dims, dims, sizeof(view.dims));
    view.values = values;
    float max_err = 0.0f;
    size_t cx = (size_t)dims[0] - 1, cy = (size_t)dims[1] - 1, cz = (size_t)dims[2] - 1;
    size_t nx = (size_t)dims[0], nxy = (size_t)dims[0] * (size_t)dims[1];
    for (size_t k = 0; k < cz; ++k) {
        for (size_t j = 0; j < cy; ++j) {
            for (size_t i = 0; i < cx; ++i) {
                size_t c = (k * cy + j) * cx + i;
                if (!(centre_d2[c] < band2_f)) continue;
                const float* v0 = values + k * nxy + j * nx + i;
                int inside_band = 1;
                for (int corner = 0; corner < 8 && inside_band; ++corner) {
                    size_t o = (corner & 1 ? 1u : 0u) + (corner & 2 ? nx : 0u) + (corner & 4 ? nxy : 0u);
                    inside_band = fabsf(v0[o]) < band_f;
                }
                if (!inside_band) continue;
                float d = sqrtf(centre_d2[c]);
                float exact = wind[c] != 0 ? -d : d;
                dfm_v3 p = dfm_v3_make(out->origin[0] + ((float)i + 0.5f) * out->cell,
                                       out->origin[1] + ((float)j + 0.5f) * out->cell,
                                       out->origin[2] + ((float)k + 0.5f) * out->cell);
                float e = fabsf(dfm_sdf_grid_sample(&view, p, NULL) - exact);
                if (e > max_err) max_err = e;
            }
        }
    }
    /* Surface probes, where the exact distance is 0 and sharp features put the largest errors:
       every vertex and points at most half a cell apart along every edge. */
    for (int32_t t = 0; t < triangle_count; ++t) {
        for (int c = 0; c < 3; ++c) {
            int32_t ia = triangles[3 * t + c], ib = triangles[3 * t + (c + 1) % 3];
            if (ia > ib) continue; /* each edge of a closed mesh once */
            const float* pa = vertices + 3 * (size_t)ia;
            const float* pb = vertices + 3 * (size_t)ib;
            float len = sqrtf((pb[0] - pa[0]) * (pb[0] - pa[0]) + (pb[1] - pa[1]) * (pb[1] - pa[1]) +
                              (pb[2] - pa[2]) * (pb[2] - pa[2]));
            int32_t steps = (int32_t)fminf(ceilf(2.0f * len / out->cell), 1.0e6f);
            if (steps < 1) steps = 1;
            for (int32_t q = 0; q <= steps; ++q) {
                float u = (float)q / (float)steps;
                dfm_v3 p = dfm_v3_make(pa[0] + u * (pb[0] - pa[0]), pa[1] + u * (pb[1] - pa[1]),
                                       pa[2] + u * (pb[2] - pa[2]));
                float e = fabsf(dfm_sdf_grid_sample(&view, p, NULL));
                if (e > max_err) max_err = e;
            }
        }
    }
    free(wind);
    free(centre_d2);
    out->values = values;
    out->max_error_estimate = max_err;
    return DFM_MESH_SDF_OK;
}

void dfm_mesh_sdf_free(dfm_mesh_sdf* sdf) {
    if (!sdf) return;
    free(sdf->values);
    memset(sdf, 0, sizeof(*sdf));
}
