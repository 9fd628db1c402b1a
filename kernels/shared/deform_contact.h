/// @file deform_contact.h
/// Narrow phase and response of deformable-deformable contact (issue 16, second slice), shared by
/// both backends: point-triangle and edge-edge closest points (robust for degenerate triangles,
/// points and parallel edges), the contact energy between a vertex and a triangle or two edges
/// with each corner's force and 3x3 Hessian block, IPC-style smoothed friction, and the
/// per-vertex displacement bound that keeps the solve from tunnelling through a thin layer.
///
/// Energy. A pair is a stencil of 4 vertices with weights w (vertex-triangle: p, a, b, c with
/// w = (1, -b0, -b1, -b2), b the barycentrics of the closest point; edge-edge: e0, e1, f0, f1
/// with w = (1 - s, s, -(1 - t), -t)); its gap vector is r = sum w_j x_j, its distance d = |r|
/// and its normal n = r / d. The energy E(d) is the two-stage activation of the offset
/// geometric contact of Chen et al. 2025 ("Offset Geometric Contact", OGC) in the form Newton's
/// VBD self-contact implements (evaluate_self_contact_force_norm; /work/shared/reference/
/// newton_vbd.md section 5.3), with contact radius (offset) r_c and tau = r_c / 2:
///   tau <= d < r_c:  E = k/2 (r_c - d)^2                      (quadratic penalty)
///   d_min < d < tau: E = -k tau^2 ln(d / tau) + k/2 tau^2    (log barrier, C2 at tau)
///   d <= d_min:      quadratic extension, C2 at d_min = DFM_DC_DMIN.
/// Corner j gets f_j = -E'(d) w_j n; its Hessian block, for the solve, is the positive
/// semi-definite Gauss-Newton part E''(d) w_j^2 n n^T (the full block of the energy with the
/// closest-point parameters frozen adds E'(d)/d w_j^2 (I - n n^T), which is negative in contact:
/// dropped, as Newton and OGC do; dfm_dc_pair_hessian_frozen gives it for the tests).
///
/// Friction (Chen et al. 2024, VBD, section 3.6, after IPC, Li et al. 2020): with the normal load
/// lambda = -E'(d) and the normal n evaluated at the current iterate and held constant (lagged)
/// in the derivatives, the tangential relative displacement over the advance
/// u = (I - n n^T) sum w_j dx_j (dx = x - x_prev) feels the smoothed Coulomb force
/// f_j = -mu lambda f1(|u|)/|u| w_j u with f1(x)/x = 1/x above eps = DFM_DC_FRICTION_SPEED h and
/// (2 - x/eps)/eps below, and the Hessian block mu lambda f1(|u|)/|u| w_j^2 (I - n n^T) (IPC's
/// approximation: PSD, and not smaller than the exact block dfm_dc_friction_hessian_exact).
///
/// Displacement bound (after OGC section 4, conservative bound): a vertex's step in one
/// iteration is at most DFM_DC_BOUND_FRACTION (< 1/2) of the smallest gap d over the pairs it
/// belongs to (at the current iterate), and its displacement over the advance at most that
/// fraction of the query radius. Two primitives of a pair each move less than half their gap
/// (the vertices of one colour move together; a triangle's or edge's points move no more than
/// its corners), so no pair the query found can cross in one sweep, and no pair it did not find
/// (farther than the query radius at detection) can close over the advance.
///
/// One contact per feature (session 13): detection drops the pairs that repeat a contact another
/// pair carries (dfm_dc_edge_edge_interior, dfm_dc_vt_covered; kernels/cpu/deform_contact_cpu.c
/// feasible_pairs, which both backends run) and bounds each particle of a dropped pair over the
/// span by DFM_DC_BOUND_FRACTION of that pair's distance (dfm_dc_view.vertex_bound), so that a
/// dropped pair cannot close either.
#ifndef DFM_DEFORM_CONTACT_H
#define DFM_DEFORM_CONTACT_H

#include <stdint.h>

#include "closest_points.h"
#include "mat33.h"

/// Distance (m) below which the barrier continues as a quadratic (Newton: 1e-5).
#define DFM_DC_DMIN 1e-5f
/// Speed (m/s) below which the smoothed friction ramps down: eps = this * h (as for shapes).
#define DFM_DC_FRICTION_SPEED 0.01f
/// Fraction of the gap a vertex may move per iteration, and of the query radius per advance.
#define DFM_DC_BOUND_FRACTION 0.45f

/// Pair kinds.
enum { DFM_DC_VERTEX_TRIANGLE = 0, DFM_DC_EDGE_EDGE = 1 };

/// One contact pair: 4 vertices (vertex-triangle: p, a, b, c; edge-edge: e0, e1, f0, f1).
typedef struct dfm_dc_pair {
    int32_t v[4]; ///< Global particle indices.
    int32_t kind; ///< DFM_DC_VERTEX_TRIANGLE or DFM_DC_EDGE_EDGE.
} dfm_dc_pair;

/// Everything a vertex's gather reads (host or device pointers).
typedef struct dfm_dc_view {
    const dfm_dc_pair* pairs; ///< The advance's pairs.
    const int32_t* offsets;   ///< particle_count + 1: CSR of each particle's pair items.
    const int32_t* items;     ///< 4 * pair + corner per entry, in pair order.
    float radius;             ///< Contact radius r_c (offset), m.
    float ke;                 ///< Stiffness k, N/m.
    float mu;                 ///< Friction coefficient.
    float total_bound;        ///< Largest displacement over the advance of a vertex with pairs, m.
    /// Per particle: its own largest displacement over the advance (m, <= total_bound: capped by
    /// the redundant pairs dropped at detection, dfm_dc_vt_covered), or NULL: total_bound for all.
    const float* vertex_bound;
} dfm_dc_view;

/// Particle i's largest displacement over the advance (m): dfm_dc_view.vertex_bound[i], or
/// total_bound without per-particle bounds.
DFM_HD float dfm_dc_vertex_bound(const dfm_dc_view* c, int32_t i) {
    return c->vertex_bound ? c->vertex_bound[i] : c->total_bound;
}

/* ------------------------------------------------------------------ energy */

/// The contact energy E(d) (J) of a pair at distance d (m), radius r (m), stiffness k (N/m).
DFM_HD float dfm_dc_energy(float d, float r, float k) {
    if (!(d < r)) return 0.0f;
    const float tau = 0.5f * r, k2 = k * tau * tau;
    if (d >= tau) return 0.5f * k * (r - d) * (r - d);
    const float e_tau = 0.5f * k * tau * tau;
    if (d > DFM_DC_DMIN) return e_tau - k2 * logf(d / tau);
    const float e_min = e_tau - k2 * logf(DFM_DC_DMIN / tau), s = k2 / (DFM_DC_DMIN * DFM_DC_DMIN);
    /* E' = s (d - 2 dmin), E'' = s: the quadratic through (dmin, e_min) with those derivatives */
    return e_min + s * (0.5f * (d * d - DFM_DC_DMIN * DFM_DC_DMIN) - 2.0f * DFM_DC_DMIN * (d - DFM_DC_DMIN));
}

/// dE/dd (N; <= 0 in contact) and d2E/dd2 (N/m) of dfm_dc_energy.
DFM_HD void dfm_dc_energy_derivs(float d, float r, float k, float* dE, float* d2E) {
    *dE = 0.0f;
    *d2E = 0.0f;
    if (!(d < r)) return;
    const float tau = 0.5f * r, k2 = k * tau * tau;
    if (d >= tau) {
        *dE = -k * (r - d);
        *d2E = k;
    } else if (d > DFM_DC_DMIN) {
        *dE = -k2 / d;
        *d2E = k2 / (d * d);
    } else {
        const float s = k2 / (DFM_DC_DMIN * DFM_DC_DMIN);
        *dE = s * (d - 2.0f * DFM_DC_DMIN);
        *d2E = s;
    }
}

/// A pair's stencil at positions x (3 floats per particle): its 4 weights w and the gap vector
/// r = sum w_j x_j (m). The closest-point parameters come from these positions.
DFM_HD dfm_v3 dfm_dc_pair_stencil(const dfm_dc_pair* pr, const float* x, float w[4]) {
    dfm_v3 p[4];
    for (int j = 0; j < 4; ++j) p[j] = dfm_v3_load(x + 3 * (int64_t)pr->v[j]);
    if (pr->kind == DFM_DC_VERTEX_TRIANGLE) {
        float b[3];
        dfm_dc_point_triangle(p[0], p[1], p[2], p[3], b);
        w[0] = 1.0f, w[1] = -b[0], w[2] = -b[1], w[3] = -b[2];
    } else {
        float s, t;
        dfm_dc_edge_edge(p[0], p[1], p[2], p[3], &s, &t);
        w[0] = 1.0f - s, w[1] = s, w[2] = -(1.0f - t), w[3] = -t;
    }
    dfm_v3 r = dfm_v3_zero();
    for (int j = 0; j < 4; ++j) r = dfm_v3_madd(r, p[j], w[j]);
    return r;
}

/// The normal of gap vector r (unit; a zero gap, which the displacement bound keeps from
/// happening, gives +z so that the force stays finite).
DFM_HD dfm_v3 dfm_dc_normal(dfm_v3 r, float d) {
    return d > 0.0f ? dfm_v3_scale(r, 1.0f / d) : dfm_v3_make(0.0f, 0.0f, 1.0f);
}

/// Force (N) and solve Hessian block (N/m) on corner `corner` of pair pr at positions x, with
/// friction on the displacements dx over the advance (3 floats per particle; NULL or mu = 0: none),
/// h the substep (s). Adds to *f and *H; returns the pair's distance d (m).
DFM_HD float dfm_dc_pair_force(const dfm_dc_pair* pr, const float* x, const float* dx, float radius, float k, float mu,
                               float h, int corner, dfm_v3* f, dfm_m33* H) {
    float w[4];
    dfm_v3 r = dfm_dc_pair_stencil(pr, x, w);
    float d = dfm_v3_len(r);
    if (!(d < radius)) return d;
    float dE, d2E;
    dfm_dc_energy_derivs(d, radius, k, &dE, &d2E);
    dfm_v3 n = dfm_dc_normal(r, d);
    float wc = w[corner];
    *f = dfm_v3_madd(*f, n, -dE * wc);
    *H = dfm_m33_add_outer(*H, n, n, d2E * wc * wc);
    if (dx && mu > 0.0f) {
        dfm_v3 D = dfm_v3_zero();
        for (int j = 0; j < 4; ++j) D = dfm_v3_madd(D, dfm_v3_load(dx + 3 * (int64_t)pr->v[j]), w[j]);
        dfm_v3 u = dfm_v3_madd(D, n, -dfm_v3_dot(D, n));
        float ul = dfm_v3_len(u), eps = DFM_DC_FRICTION_SPEED * h;
        float phi = ul > eps ? 1.0f / ul : (2.0f - ul / eps) / eps; /* f1(|u|) / |u| */
        float c = mu * (-dE) * phi;
        *f = dfm_v3_madd(*f, u, -c * wc);
        dfm_m33 P = dfm_m33_add_outer(dfm_m33_diag(1.0f), n, n, -1.0f);
        *H = dfm_m33_add(*H, dfm_m33_scale(P, c * wc * wc));
    }
    return d;
}

/// For the tests: the full Hessian block of the normal energy on `corner` with the closest-point
/// parameters frozen at x: w_j^2 (E'' n n^T + E'/d (I - n n^T)).
DFM_HD dfm_m33 dfm_dc_pair_hessian_frozen(const dfm_dc_pair* pr, const float* x, float radius, float k, int corner) {
    float w[4];
    dfm_v3 r = dfm_dc_pair_stencil(pr, x, w);
    float d = dfm_v3_len(r), dE, d2E;
    dfm_dc_energy_derivs(d, radius, k, &dE, &d2E);
    dfm_v3 n = dfm_dc_normal(r, d);
    float w2 = w[corner] * w[corner];
    dfm_m33 Hm = dfm_m33_scale(dfm_m33_add_outer(dfm_m33_diag(1.0f), n, n, -1.0f), d > 0.0f ? w2 * dE / d : 0.0f);
    return dfm_m33_add_outer(Hm, n, n, w2 * d2E);
}

/// The smoothed friction potential mu lambda f0(|u|) (J) of tangential displacement length ul (m),
/// eps (m): f0(x) = x^2/eps - x^3/(3 eps^2) below eps, x - eps/3 above (f0' = f1).
DFM_HD float dfm_dc_friction_potential(float ul, float eps, float mu_lambda) {
    float f0 = ul < eps ? ul * ul / eps - ul * ul * ul / (3.0f * eps * eps) : ul - eps / 3.0f;
    return mu_lambda * f0;
}

/// For the tests: the exact Hessian of the friction potential in the relative displacement D
/// (normal n and load frozen): mu lambda P [f1'(|u|) uh uh^T + f1(|u|)/|u| (I - uh uh^T)] P, times
/// w_j^2 for a corner of weight w_j.
DFM_HD dfm_m33 dfm_dc_friction_hessian_exact(dfm_v3 D, dfm_v3 n, float eps, float mu_lambda) {
    dfm_v3 u = dfm_v3_madd(D, n, -dfm_v3_dot(D, n));
    float ul = dfm_v3_len(u);
    float phi = ul > eps ? 1.0f / ul : (2.0f - ul / eps) / eps;
    float f1p = ul > eps ? 0.0f : 2.0f / eps - 2.0f * ul / (eps * eps);
    dfm_m33 P = dfm_m33_add_outer(dfm_m33_diag(1.0f), n, n, -1.0f);
    dfm_m33 Hm = dfm_m33_scale(P, phi);
    if (ul > 0.0f) {
        dfm_v3 uh = dfm_v3_scale(u, 1.0f / ul);
        Hm = dfm_m33_add_outer(Hm, uh, uh, f1p - phi);
    }
    return dfm_m33_scale(Hm, mu_lambda);
}

/* ------------------------------------------------------------------ one contact per feature */

/// Distance margin, as a fraction of the contact radius, by which a pair must be farther than
/// another one on the same feature to count as covered by it (dfm_dc_vt_covered): far above the
/// rounding of one closest point computed from two triangles (~1e-7 m), so that the closest pair of
/// a vertex is never dropped.
#define DFM_DC_COVER_TOL 1e-3f

/// Whether an edge-edge pair's closest points at x are interior to both edges (0 < s < 1 and
/// 0 < t < 1; parallel edges read s = 0: not interior). A pair whose closest point is an end of an
/// edge is a vertex-edge or vertex-vertex contact, which the vertex-triangle pairs of that end
/// against the triangles holding the other edge carry (at a distance no larger: the triangle
/// contains the edge), so detection drops it (OGC's edge-edge contacts are those between edge
/// interiors; Chen et al. 2025, section 4).
DFM_HD int dfm_dc_edge_edge_interior(const dfm_dc_pair* pr, const float* x) {
    float s, t;
    dfm_dc_edge_edge(dfm_v3_load(x + 3 * (int64_t)pr->v[0]), dfm_v3_load(x + 3 * (int64_t)pr->v[1]),
                     dfm_v3_load(x + 3 * (int64_t)pr->v[2]), dfm_v3_load(x + 3 * (int64_t)pr->v[3]), &s, &t);
    return s > 0.0f && s < 1.0f && t > 0.0f && t < 1.0f;
}

/// The feature of a vertex-triangle pair's triangle that holds the closest point at x: bit j - 1
/// set for each corner v[j] (j = 1..3) of positive barycentric weight (one bit: a vertex, two: an
/// edge, all three: the face interior).
DFM_HD uint32_t dfm_dc_vt_feature(const dfm_dc_pair* pr, const float* x) {
    float b[3];
    dfm_dc_point_triangle(dfm_v3_load(x + 3 * (int64_t)pr->v[0]), dfm_v3_load(x + 3 * (int64_t)pr->v[1]),
                          dfm_v3_load(x + 3 * (int64_t)pr->v[2]), dfm_v3_load(x + 3 * (int64_t)pr->v[3]), b);
    return (b[0] > 0.0f ? 1u : 0u) | (b[1] > 0.0f ? 2u : 0u) | (b[2] > 0.0f ? 4u : 0u);
}

/// Whether vertex-triangle pair k (feature fk, distance dk, m) is covered by pair j of the same
/// vertex (fj, dj), one contact per feature after OGC's feasible regions (Chen et al. 2025,
/// section 4: a vertex's contact with an edge or vertex of a triangle is feasible only where that
/// edge or vertex is the closest feature of the whole surface): k's closest point is an edge or a
/// vertex of its triangle (not the face interior), j's triangle also holds that edge or vertex, and
/// either j is closer by more than tol (m; the vertex is over j's side of the feature, where k's
/// contact is not feasible) or j's closest point is the same feature and j comes first (the same
/// contact found through two triangles: kept once). The closest pair of a vertex is never covered
/// (a pair within tol of it on the same feature comes first, or it is itself the first).
DFM_HD int dfm_dc_vt_covered(const dfm_dc_pair* k, uint32_t fk, float dk, const dfm_dc_pair* j, uint32_t fj, float dj,
                             int j_first, float tol) {
    if (fk == 7u || fk == 0u) return 0;
    int nk = 0, nj = 0, same = 1;
    for (int a = 0; a < 3; ++a) {
        if (!((fk >> a) & 1u)) continue;
        ++nk;
        const int32_t q = k->v[1 + a];
        if (q != j->v[1] && q != j->v[2] && q != j->v[3]) return 0; /* j's triangle lacks k's feature */
    }
    for (int a = 0; a < 3; ++a) {
        if (!((fj >> a) & 1u)) continue;
        ++nj;
        const int32_t q = j->v[1 + a];
        int in = 0;
        for (int b = 0; b < 3; ++b) in |= ((fk >> b) & 1u) && k->v[1 + b] == q;
        same &= in;
    }
    if (dj < dk - tol) return 1;
    return same && nj == nk && j_first;
}

/* ------------------------------------------------------------------ per vertex */

/// Contact force and Hessian on particle i from all its pairs at the iterate x (displacements dx
/// over the advance for friction), added to *f and *H. Returns the smallest gap over i's pairs
/// (m; 3e38 when it has none): the displacement bound's input.
DFM_HD float dfm_dc_gather(const dfm_dc_view* c, const float* x, const float* dx, float h, int32_t i, dfm_v3* f,
                           dfm_m33* H) {
    float gap = 3.0e38f;
    for (int32_t k = c->offsets[i]; k < c->offsets[i + 1]; ++k) {
        int32_t item = c->items[k], p = item >> 2, corner = item & 3;
        float d = dfm_dc_pair_force(c->pairs + p, x, dx, c->radius, c->ke, c->mu, h, corner, f, H);
        gap = dfm_fminf(gap, d);
    }
    return gap;
}

/// The displacement bound: moves d_new (particle's displacement over the advance after its step
/// from d_old) back so that |d_new - d_old| <= fraction * gap and |d_new| <= total_bound (a
/// projection on each ball in turn: the second cannot undo the first, since |d_old| <=
/// total_bound already and projecting on a ball is non-expansive). Returns the bounded value.
DFM_HD dfm_v3 dfm_dc_bound_step(dfm_v3 d_old, dfm_v3 d_new, float gap, float total_bound) {
    dfm_v3 step = dfm_v3_sub(d_new, d_old);
    float sl = dfm_v3_len(step), lim = DFM_DC_BOUND_FRACTION * gap;
    if (sl > lim) d_new = dfm_v3_madd(d_old, step, lim / sl);
    float dl = dfm_v3_len(d_new);
    if (dl > total_bound) d_new = dfm_v3_scale(d_new, total_bound / dl);
    return d_new;
}

#endif
