/// @file contact_detect.h
/// Detection of one (feature, shape) candidate: particle vs SDF, edge vs SDF (golden-section
/// search along the edge) and face vs SDF (Frank-Wolfe over the barycentric simplex), after a
/// feature-AABB vs shape-AABB early-out that runs before any frame math (planes bypass it).
/// A hit is compacted into the next contact record (Macklin et al. 2020; seed 000 sections 2, 3, 8).
#ifndef DFM_CONTACT_DETECT_H
#define DFM_CONTACT_DETECT_H

#include "contact_view.h"
#include "sdf_features.h"
#include "sdf_shapes.h"

/// Edge and face records are emitted only when their closest point is interior: no barycentric
/// weight below this value (a vertex's own particle record covers points at the vertex).
#define DFM_CONTACT_INTERIOR_EPS 0.01f

/// ... and only when that interior point is closer to the shape than every corner by more than
/// this fraction of the contact radius: the corners' particle records already hold a smooth
/// surface off the shape, so an edge or face record is for a feature that a shape pokes through
/// between its vertices (a thin rod, a box edge). Without it a cloth resting on a sphere gets a
/// record per edge and face whose chord lies L^2/(8R) inside the arc: stiff records that fight
/// the vertices' and, with 10 iterations, reported reactions 34x the cloth's weight.
#define DFM_CONTACT_FEATURE_DEPTH 0.5f

/// True when the shape's SDF is a convex function (the exact SDF of a convex solid, or an infinite
/// plane): then its tangent plane at any point is a lower bound everywhere.
DFM_HD int dfm_shape_sdf_is_convex(const dfm_shape_geom* g) {
    switch (g->type) {
    case DFM_GEOM_SPHERE:
    case DFM_GEOM_BOX:
    case DFM_GEOM_CAPSULE:
    case DFM_GEOM_CYLINDER:
    case DFM_GEOM_CONE: return 1;
    case DFM_GEOM_PLANE: return g->params[0] <= 0.0f && g->params[1] <= 0.0f;
    default: return 0;
    }
}

/// Slack (fraction of the contact radius) of the convex prune below, far above float rounding.
#define DFM_CONTACT_PRUNE_SLACK 1e-3f

/// Inputs of detection besides the view: particle positions at the start of the advance,
/// velocities (for the speculative distance |v| h), contact radii and the substep.
typedef struct dfm_detect_input {
    const float* x;      ///< 3 per particle, m.
    const float* v;      ///< 3 per particle, m/s.
    const float* radius; ///< Per particle, m.
    float h;             ///< Substep, s.
} dfm_detect_input;

/// World pose of a shape's frame at the start (end = 0) or end (end = 1) of the advance.
DFM_HD dfm_xform dfm_shape_pose(const dfm_shape_rt* s, int end) {
    return dfm_xform_mul(end ? s->body_end : s->body_start, s->local);
}

/// Values of one advance that candidates share, computed once instead of per candidate (P3; the
/// CPU's detection, contacts_cpu.c). Every pointer may be NULL, and so may the cache itself (CUDA):
/// the value is then computed per candidate. Cached or not, a value is the same expression of the
/// same inputs, so the records are bitwise the same.
typedef struct dfm_detect_cache {
    const dfm_xform* pose; ///< Per shape: dfm_shape_pose(s, 0).
    const float* speed;    ///< Per particle: |v|, m/s.
    float* corner;         ///< 4 per particle: its shape-local position at the start of the advance and its SDF
                           ///< value (dfm_detect_sdf) under shape corner_shape[p]; written on a miss. Needs a
                           ///< single writer (serial detection).
    int32_t* corner_shape; ///< Per particle: the shape whose values `corner` holds, -1 = none (reset every advance).
} dfm_detect_cache;

/// Shape si's start pose (dfm_shape_pose(s, 0)), from the cache when it holds one.
DFM_HD dfm_xform dfm_detect_pose(const dfm_detect_cache* ch, const dfm_shape_rt* s, int32_t si) {
    return ch && ch->pose ? ch->pose[si] : dfm_shape_pose(s, 0);
}

/// |v| of particle p, from the cache when it holds one.
DFM_HD float dfm_detect_speed(const dfm_detect_input* in, const dfm_detect_cache* ch, int32_t p) {
    return ch && ch->speed ? ch->speed[p] : dfm_v3_len(dfm_v3_load(in->v + 3 * p));
}

/// True when the box [lo - grow, hi + grow] overlaps the shape's AABB (always for planes).
DFM_HD int dfm_shape_aabb_hit(const dfm_shape_rt* s, const float lo[3], const float hi[3], float grow) {
    if (s->is_plane) return 1;
    for (int a = 0; a < 3; ++a)
        if (lo[a] - grow > s->aabb_max[a] || hi[a] + grow < s->aabb_min[a]) return 0;
    return 1;
}

/// Writes a record into the next slot (counted even when it does not fit the capacity).
DFM_HD void dfm_contact_emit(const dfm_contact_view* c, int32_t cand, int32_t shape, int32_t c0, int32_t c1, int32_t c2,
                             float w0, float w1, float w2, dfm_v3 n_world, dfm_v3 body_point, float radius,
                             float pen0) {
    int32_t k = DFM_COUNTER_BUMP(c->count);
    if (c->cand_record) c->cand_record[cand] = k;
    if (k >= c->capacity) return;
    c->rec.corners[3 * k + 0] = c0;
    c->rec.corners[3 * k + 1] = c1;
    c->rec.corners[3 * k + 2] = c2;
    c->rec.bary[3 * k + 0] = w0;
    c->rec.bary[3 * k + 1] = w1;
    c->rec.bary[3 * k + 2] = w2;
    c->rec.shape[k] = shape;
    c->rec.candidate[k] = cand;
    dfm_v3_store(n_world, c->rec.normal + 3 * k);
    dfm_v3_store(body_point, c->rec.body_point + 3 * k);
    c->rec.radius[k] = radius;
    c->rec.pen0[k] = pen0;
    float ke = c->shapes[shape].ke;
    c->rec.penalty[k] = c->penalty_beta > 0.0f ? dfm_fminf(c->penalty_start, ke) : ke;
}

/// Signed distance (and gradient if asked) honouring the split-evaluator switch.
DFM_HD float dfm_detect_sdf(const dfm_contact_view* c, const dfm_shape_geom* g, dfm_v3 p, dfm_v3* grad) {
    if (!grad && !(c->flags & DFM_DISABLE_SPLIT_SDF)) return dfm_shape_sdf_value(g, p);
    return dfm_shape_sdf(g, p, grad);
}

/// dfm_detect_sdf at p, with the unit gradient into *grad when `convex` (dfm_shape_sdf_is_convex):
/// for every convex type the value does not depend on whether the gradient is asked
/// (sdf_shapes.h), so one evaluation serves a cull on the value and a prune on the tangent plane.
DFM_HD float dfm_detect_sdf_at(const dfm_contact_view* c, const dfm_shape_geom* g, dfm_v3 p, int convex, dfm_v3* grad) {
    return convex ? dfm_shape_sdf(g, p, grad) : dfm_detect_sdf(c, g, p, (dfm_v3*)0);
}

/// Particle p's shape-local position under shape si (start pose `pose`); with a corner cache, read
/// from it or, on a miss, computed and stored together with its SDF value.
DFM_HD dfm_v3 dfm_detect_local(const dfm_contact_view* c, const dfm_detect_input* in, const dfm_detect_cache* ch,
                               const dfm_shape_rt* s, int32_t si, dfm_xform pose, int32_t p) {
    if (ch && ch->corner && ch->corner_shape[p] == si)
        return dfm_v3_make(ch->corner[4 * p], ch->corner[4 * p + 1], ch->corner[4 * p + 2]);
    dfm_v3 q = dfm_xform_point_inv(pose, dfm_v3_load(in->x + 3 * p));
    if (ch && ch->corner) {
        float* e = ch->corner + 4 * p;
        e[0] = q.x, e[1] = q.y, e[2] = q.z;
        e[3] = dfm_detect_sdf(c, &s->geom, q, (dfm_v3*)0);
        ch->corner_shape[p] = si;
    }
    return q;
}

/// The SDF value (dfm_detect_sdf) at particle p's shape-local position q under shape si (q from
/// dfm_detect_local), from the corner cache when it holds it.
DFM_HD float dfm_detect_corner_phi(const dfm_contact_view* c, const dfm_detect_cache* ch, const dfm_shape_rt* s,
                                   int32_t si, int32_t p, dfm_v3 q) {
    if (ch && ch->corner && ch->corner_shape[p] == si) return ch->corner[4 * p + 3];
    return dfm_detect_sdf(c, &s->geom, q, (dfm_v3*)0);
}

/// Emits the record of a hit at shape-local point `q` (on the feature) with distance phi and
/// local gradient gl.
DFM_HD void dfm_detect_hit(const dfm_contact_view* c, const dfm_shape_rt* s, int32_t cand, int32_t shape,
                           dfm_xform pose, dfm_v3 q, float phi, dfm_v3 gl, int32_t c0, int32_t c1, int32_t c2, float w0,
                           float w1, float w2, float radius) {
    dfm_v3 surf_shape = dfm_v3_madd(q, gl, -phi);
    dfm_v3 body_point = dfm_xform_point(s->local, surf_shape);
    dfm_v3 n_world = dfm_quat_rotate(pose.q, gl);
    dfm_contact_emit(c, cand, shape, c0, c1, c2, w0, w1, w2, n_world, body_point, radius, radius + s->margin - phi);
}

/// Work units of one candidate's detection (the CPU's fork by work, kernels/cpu/cpu_threads.h):
/// one for the candidate (loads, AABB test) plus one per SDF evaluation it ran, the optimizers'
/// fixed counts (sdf_features.h) counted in full. A count, not a cost model: an evaluation of a
/// box and of a mesh grid both count one.
#define DFM_DETECT_WORK_EDGE_SEARCH (2 + DFM_SDF_EDGE_ITERS + 1)
/// Evaluations of dfm_sdf_face_min (see DFM_DETECT_WORK_EDGE_SEARCH).
#define DFM_DETECT_WORK_FACE_SEARCH (2 + DFM_SDF_FACE_ITERS * (1 + DFM_SDF_LINE_ITERS + 3))

/// Particle candidate k (pair k of the particle list); ch: NULL or the advance's shared values.
/// Returns the work units spent (DFM_DETECT_WORK_EDGE_SEARCH): 1 if culled by the AABB, else 2.
DFM_HD int dfm_detect_particle(const dfm_contact_view* c, const dfm_detect_input* in, const dfm_detect_cache* ch,
                               int32_t k) {
    const int32_t* pairs = c->cand.pairs[DFM_CANDIDATE_PARTICLE];
    int32_t p = c->feat_particles[pairs[2 * k]], si = pairs[2 * k + 1];
    const dfm_shape_rt* s = &c->shapes[si];
    dfm_v3 x = dfm_v3_load(in->x + 3 * p);
    float r = in->radius[p];
    float thr = r + s->margin + s->gap + dfm_detect_speed(in, ch, p) * in->h;
    if (!(c->flags & DFM_DISABLE_AABB_CULL)) {
        float lo[3] = {x.x, x.y, x.z};
        if (!dfm_shape_aabb_hit(s, lo, lo, thr)) return 1;
    }
    dfm_xform pose = dfm_detect_pose(ch, s, si);
    dfm_v3 q = dfm_detect_local(c, in, ch, s, si, pose, p);
    dfm_v3 gl;
    float phi = dfm_shape_sdf(&s->geom, q, &gl);
    if (!(phi < thr)) return 2;
    dfm_detect_hit(c, s, k, si, pose, q, phi, gl, p, -1, -1, 1.0f, 0.0f, 0.0f, r);
    return 2;
}

/// Edge candidate k (pair k of the edge list); ch: NULL or the advance's shared values.
/// Returns the work units spent (DFM_DETECT_WORK_EDGE_SEARCH): 1 culled by the AABB, 2 by the
/// midpoint's Lipschitz bound, 4 by the convex bound, 5 + the search otherwise.
DFM_HD int dfm_detect_edge(const dfm_contact_view* c, const dfm_detect_input* in, const dfm_detect_cache* ch,
                           int32_t k) {
    const int32_t* pairs = c->cand.pairs[DFM_CANDIDATE_EDGE];
    int32_t e = pairs[2 * k], si = pairs[2 * k + 1];
    int32_t p0 = c->feat_edges[2 * e], p1 = c->feat_edges[2 * e + 1];
    const dfm_shape_rt* s = &c->shapes[si];
    dfm_v3 a = dfm_v3_load(in->x + 3 * p0), b = dfm_v3_load(in->x + 3 * p1);
    float r = dfm_fmaxf(in->radius[p0], in->radius[p1]);
    float speed = dfm_fmaxf(dfm_detect_speed(in, ch, p0), dfm_detect_speed(in, ch, p1));
    float thr = r + s->margin + s->gap + speed * in->h;
    if (!(c->flags & DFM_DISABLE_AABB_CULL)) {
        float lo[3] = {dfm_fminf(a.x, b.x), dfm_fminf(a.y, b.y), dfm_fminf(a.z, b.z)};
        float hi[3] = {dfm_fmaxf(a.x, b.x), dfm_fmaxf(a.y, b.y), dfm_fmaxf(a.z, b.z)};
        if (!dfm_shape_aabb_hit(s, lo, hi, thr)) return 1;
    }
    dfm_xform pose = dfm_detect_pose(ch, s, si);
    dfm_v3 la = dfm_detect_local(c, in, ch, s, si, pose, p0), lb = dfm_detect_local(c, in, ch, s, si, pose, p1);
    /* Lipschitz cull: the SDF changes at most 1 per metre, so nothing on the edge is closer
     * than phi(mid) - |b - a| / 2. */
    dfm_v3 mid = dfm_v3_scale(dfm_v3_add(la, lb), 0.5f);
    const int convex = dfm_shape_sdf_is_convex(&s->geom);
    dfm_v3 gm = dfm_v3_zero();
    const float pm = dfm_detect_sdf_at(c, &s->geom, mid, convex, &gm);
    if (pm > thr + 0.5f * dfm_v3_len(dfm_v3_sub(lb, la))) return 2;
    float corner_phi = dfm_fminf(dfm_detect_corner_phi(c, ch, s, si, p0, la),
                                 dfm_detect_corner_phi(c, ch, s, si, p1, lb));
    if (convex) {
        /* Convex SDF: the tangent plane at the midpoint bounds phi on the edge from below. If even
         * that bound cannot get deeper than the corners by the feature depth, the record would be
         * rejected below: skip the 27-evaluation search (a cloth lying on a box or plane). */
        float lower = pm - 0.5f * fabsf(dfm_v3_dot(gm, dfm_v3_sub(lb, la)));
        if (lower > corner_phi - (DFM_CONTACT_FEATURE_DEPTH - DFM_CONTACT_PRUNE_SLACK) * r) return 4;
    }
    const int work = 5 + DFM_DETECT_WORK_EDGE_SEARCH;
    float phi_u;
    float u = dfm_sdf_edge_min(&s->geom, la, lb, DFM_SDF_EDGE_ITERS, &phi_u);
    if (!(phi_u < thr) || u < DFM_CONTACT_INTERIOR_EPS || u > 1.0f - DFM_CONTACT_INTERIOR_EPS) return work;
    if (!(phi_u < corner_phi - DFM_CONTACT_FEATURE_DEPTH * r)) return work;
    dfm_v3 q = dfm_v3_madd(la, dfm_v3_sub(lb, la), u);
    dfm_v3 gl;
    float phi = dfm_shape_sdf(&s->geom, q, &gl);
    int32_t g = dfm_contact_candidates_first(&c->cand, DFM_CANDIDATE_EDGE) + k;
    dfm_detect_hit(c, s, g, si, pose, q, phi, gl, p0, p1, -1, 1.0f - u, u, 0.0f, r);
    return work;
}

/// Face candidate k (pair k of the face list); ch: NULL or the advance's shared values.
/// Returns the work units spent (DFM_DETECT_WORK_EDGE_SEARCH): 1 culled by the AABB, 2 by the
/// centroid's Lipschitz bound, 5 by the convex bound, 6 + the search otherwise.
DFM_HD int dfm_detect_face(const dfm_contact_view* c, const dfm_detect_input* in, const dfm_detect_cache* ch,
                           int32_t k) {
    const int32_t* pairs = c->cand.pairs[DFM_CANDIDATE_FACE];
    int32_t f = pairs[2 * k], si = pairs[2 * k + 1];
    int32_t p0 = c->feat_faces[3 * f], p1 = c->feat_faces[3 * f + 1], p2 = c->feat_faces[3 * f + 2];
    const dfm_shape_rt* s = &c->shapes[si];
    dfm_v3 a = dfm_v3_load(in->x + 3 * p0), b = dfm_v3_load(in->x + 3 * p1), d = dfm_v3_load(in->x + 3 * p2);
    float r = dfm_fmaxf(in->radius[p0], dfm_fmaxf(in->radius[p1], in->radius[p2]));
    float speed = dfm_fmaxf(dfm_detect_speed(in, ch, p0),
                            dfm_fmaxf(dfm_detect_speed(in, ch, p1), dfm_detect_speed(in, ch, p2)));
    float thr = r + s->margin + s->gap + speed * in->h;
    if (!(c->flags & DFM_DISABLE_AABB_CULL)) {
        float lo[3] = {dfm_fminf(a.x, dfm_fminf(b.x, d.x)), dfm_fminf(a.y, dfm_fminf(b.y, d.y)),
                       dfm_fminf(a.z, dfm_fminf(b.z, d.z))};
        float hi[3] = {dfm_fmaxf(a.x, dfm_fmaxf(b.x, d.x)), dfm_fmaxf(a.y, dfm_fmaxf(b.y, d.y)),
                       dfm_fmaxf(a.z, dfm_fmaxf(b.z, d.z))};
        if (!dfm_shape_aabb_hit(s, lo, hi, thr)) return 1;
    }
    dfm_xform pose = dfm_detect_pose(ch, s, si);
    dfm_v3 la = dfm_detect_local(c, in, ch, s, si, pose, p0), lb = dfm_detect_local(c, in, ch, s, si, pose, p1),
           ld = dfm_detect_local(c, in, ch, s, si, pose, p2);
    dfm_v3 cen = dfm_v3_scale(dfm_v3_add(dfm_v3_add(la, lb), ld), 1.0f / 3.0f);
    float reach = dfm_fmaxf(dfm_v3_len(dfm_v3_sub(la, cen)),
                            dfm_fmaxf(dfm_v3_len(dfm_v3_sub(lb, cen)), dfm_v3_len(dfm_v3_sub(ld, cen))));
    const int convex = dfm_shape_sdf_is_convex(&s->geom);
    dfm_v3 gc = dfm_v3_zero();
    const float pc = dfm_detect_sdf_at(c, &s->geom, cen, convex, &gc);
    if (pc > thr + reach) return 2;
    float corner_phi = dfm_fminf(
        dfm_detect_corner_phi(c, ch, s, si, p0, la),
        dfm_fminf(dfm_detect_corner_phi(c, ch, s, si, p1, lb), dfm_detect_corner_phi(c, ch, s, si, p2, ld)));
    if (convex) {
        /* Convex SDF: the tangent plane at the centroid bounds phi on the face from below (its
         * minimum over the triangle is at a corner). Skip the ~480-evaluation Frank-Wolfe search
         * when even that bound cannot pass the feature-depth test below. */
        float lower = pc +
                      dfm_fminf(dfm_v3_dot(gc, dfm_v3_sub(la, cen)),
                                dfm_fminf(dfm_v3_dot(gc, dfm_v3_sub(lb, cen)), dfm_v3_dot(gc, dfm_v3_sub(ld, cen))));
        if (lower > corner_phi - (DFM_CONTACT_FEATURE_DEPTH - DFM_CONTACT_PRUNE_SLACK) * r) return 5;
    }
    const int work = 6 + DFM_DETECT_WORK_FACE_SEARCH;
    float w[3];
    float phi_w = dfm_sdf_face_min(&s->geom, la, lb, ld, w);
    if (!(phi_w < thr) || w[0] < DFM_CONTACT_INTERIOR_EPS || w[1] < DFM_CONTACT_INTERIOR_EPS ||
        w[2] < DFM_CONTACT_INTERIOR_EPS)
        return work;
    if (!(phi_w < corner_phi - DFM_CONTACT_FEATURE_DEPTH * r)) return work;
    dfm_v3 q = dfm_v3_add(dfm_v3_add(dfm_v3_scale(la, w[0]), dfm_v3_scale(lb, w[1])), dfm_v3_scale(ld, w[2]));
    dfm_v3 gl;
    float phi = dfm_shape_sdf(&s->geom, q, &gl);
    int32_t g = dfm_contact_candidates_first(&c->cand, DFM_CANDIDATE_FACE) + k;
    dfm_detect_hit(c, s, g, si, pose, q, phi, gl, p0, p1, p2, w[0], w[1], w[2], r);
    return work;
}

/// Candidate k of list `kind` (pair k of that list; its global index is
/// dfm_contact_candidates_first(kind) + k); ch: NULL or the advance's shared values. Returns the
/// work units spent (DFM_DETECT_WORK_EDGE_SEARCH; CUDA ignores them).
DFM_HD int dfm_detect_candidate_cached(const dfm_contact_view* c, const dfm_detect_input* in,
                                       const dfm_detect_cache* ch, int kind, int32_t k) {
    switch (kind) {
    case DFM_CANDIDATE_PARTICLE: return dfm_detect_particle(c, in, ch, k);
    case DFM_CANDIDATE_EDGE: return dfm_detect_edge(c, in, ch, k);
    default: return dfm_detect_face(c, in, ch, k);
    }
}

/// dfm_detect_candidate_cached without shared values (CUDA: one thread per candidate).
DFM_HD int dfm_detect_candidate(const dfm_contact_view* c, const dfm_detect_input* in, int kind, int32_t k) {
    return dfm_detect_candidate_cached(c, in, (const dfm_detect_cache*)0, kind, k);
}

#endif
