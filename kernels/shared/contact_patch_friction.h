/// @file contact_patch_friction.h
/// Coulomb's stick-or-slip decision per contact patch of a free body, after the iterations and
/// before the per-record projection (docs/friction.md, "The patch decision"; issue 13).
///
/// The per-record projection (dfm_contact_friction_particle) compares a contact point's own
/// tangential motion with the reach mu |f_n| h^2 / m of its own particle: the impulse it needs is
/// the one that stops that particle alone. A stiff body's contact particles carry the load of the
/// whole body above them, so they stick where the body must slide (a cube at tan = 1.2 mu), and
/// Gauss-Seidel sweeps never develop the whole-body motion that would tell them otherwise.
///
/// Here the decision is made for the body's rigid translation, the mode friction has to stop:
/// - a patch is the body's records on one shape. Its normal load N is momentum-consistent: each
///   record's force at the final iterate plus its share (by magnitude) of the body's gap between
///   the forces its motion needs (sum of m/h^2 (d - y) + drag d / h over its particles: elastic
///   forces cancel inside a free body) and what the records applied, as the reactions split it
///   (contact_reaction.h). Normal parts summed per patch, never negative. The penalty forces alone
///   are not usable: unconverged, a resting stiff cube's records push with several times its weight.
/// - its slip U is the load-weighted mean motion of its contact points relative to the shape over
///   the advance, each record's in its own tangent plane (a rim record's motion along its tilted
///   normal is no slip), then projected on the patch's tangent plane (load-weighted mean normal).
/// - the friction forces F_s (one per patch, tangential, |F_s| <= mu_s N_s) that stop the body's
///   slip through a common translation delta = h^2 / M sum F_s (M the body's mass) minimise
///   M / (2 h^2) |delta|^2 + sum_s mu_s N_s |P_s (U_s + delta)|: projected Gauss-Seidel over the
///   patches. A patch within its limit sticks; one at its limit slides with mu N_s.
/// - each record's nodes carry its share (by normal load and corner weight) of its patch's F_s,
///   the force itself: the shares sum to exactly the sum F_s that moved the body, so the
///   reactions' momentum balance has no gap to spread for it (contact_reaction.h);
/// - every particle of the body moves by delta (x and d); particles touching a sliding patch are
///   flagged in `particle_slides`, so the per-record projection leaves their records alone (it
///   would cancel the slide); on a sticking body it then cancels what is left of each contact
///   point's own motion (no creep).
/// Bodies with a pinned or kinematic particle, bodies touching a coupled host shape or more than
/// DFM_PATCH_MAX shapes keep the per-record decision alone.
#ifndef DFM_CONTACT_PATCH_FRICTION_H
#define DFM_CONTACT_PATCH_FRICTION_H

#include "contact_response.h"
#include "vbd_view.h"

/// Shapes one body may touch for the patch decision; beyond it the body keeps the per-record one.
#define DFM_PATCH_MAX 8
/// Smallest |sum n f_n| / sum f_n of a patch (its records' normals within about 25 degrees of
/// their mean): a curved patch has no one tangent plane, and its body keeps the per-record decision.
#define DFM_PATCH_COHERENCE 0.9f
/// Largest |U_contact - U_body| / max(|U_contact|, |U_body|) of a patch: beyond it the body's mean
/// tangential motion relative to the shape is not its contact points' slip (it does not move as a
/// rigid translation over the patch) and the body keeps the per-record decision.
#define DFM_PATCH_RIGID 0.5f
/// Slip (m per advance) below which both motions count as equal (a body at rest).
#define DFM_PATCH_SLIP_FLOOR 1e-9f
/// Projected Gauss-Seidel passes over a body's patches (one patch converges in one).
#define DFM_PATCH_PASSES 16

/// One patch of a body: its records on one shape.
typedef struct dfm_friction_patch {
    int32_t shape; ///< Live shape index.
    float N;       ///< Normal load, N (>= 0).
    dfm_v3 nsum;   ///< Sum of record normals times their normal load (world).
    dfm_v3 Dsum;   ///< Sum of record slips D, each in its record's tangent plane, times their normal load (m N).
    dfm_v3 Bsum;   ///< Sum of the body's mean displacement relative to the shape's surface at each record, in
                   ///< the record's tangent plane, times its normal load (m N).
    dfm_v3 F;      ///< Friction force on the body, N (world).
    int slides;    ///< 1: at its Coulomb limit.
} dfm_friction_patch;

/* ---- the decision's pieces: the serial function below and the CUDA block kernel
 * (kernels/cuda/contacts_cuda.cu, one block per body) run the same ones ---- */

/// The body's totals over its particles: mass M (kg), the momentum its motion needs P (sum of
/// m/h^2 (d - y) + drag d / h, N), its records' force sum R (N) and |f| sum S (N).
typedef struct dfm_patch_sums {
    float M;
    dfm_v3 P, R;
    float S;
} dfm_patch_sums;

/// Zero totals.
DFM_HD dfm_patch_sums dfm_patch_sums_zero(void) {
    dfm_patch_sums s;
    s.M = s.S = 0.0f;
    s.P = s.R = dfm_v3_zero();
    return s;
}

/// Adds particle i's mass and needed momentum to s (ih2 = 1 / h^2, 1/s^2).
DFM_HD void dfm_patch_add_particle(const dfm_vbd_view* v, int32_t i, float ih2, dfm_patch_sums* s) {
    const float h = v->h;
    dfm_v3 di = dfm_v3_load(v->d + 3 * i);
    s->M += v->mass[i];
    s->P = dfm_v3_add(s->P, dfm_v3_scale(dfm_v3_sub(di, dfm_v3_load(v->y + 3 * i)), v->mass[i] * ih2));
    s->P = dfm_v3_madd(s->P, di, v->drag[i] / h);
}

/// Adds record k's force at the current iterate to s (R and S).
DFM_HD void dfm_patch_add_record_force(const dfm_contact_view* c, const dfm_vbd_view* v, int32_t k, dfm_patch_sums* s) {
    dfm_v3 f;
    dfm_m33 H;
    dfm_contact_point_force(c, v->d, v->h, k, &f, &H);
    s->R = dfm_v3_add(s->R, f);
    s->S += dfm_v3_len(f);
}

/// An empty patch on shape s.
DFM_HD void dfm_patch_open(dfm_friction_patch* p, int32_t s) {
    p->shape = s;
    p->N = 0.0f;
    p->nsum = p->Dsum = p->Bsum = p->F = dfm_v3_zero();
    p->slides = 0;
}

/// Index of shape s's patch among pt[0, np), np if none.
DFM_HD int dfm_patch_index(const dfm_friction_patch* pt, int np, int32_t s) {
    int q = 0;
    while (q < np && pt[q].shape != s) ++q;
    return q;
}

/// One record's terms of its patch: momentum-consistent normal load fn (N, may be <= 0: then the
/// rest is unset and the record adds nothing), normal n (world), its slip D and the body's mean
/// motion relative to the surface B (m, each in the record's tangent plane).
typedef struct dfm_patch_record_terms {
    float fn;
    dfm_v3 n, D, B;
} dfm_patch_record_terms;

/// Record k's terms, given extra = (P - R) / S (the body's force gap per newton of |f|, unitless)
/// and dbar, the body's mass-weighted mean displacement over the advance (m).
DFM_HD dfm_patch_record_terms dfm_patch_record(const dfm_contact_view* c, const dfm_vbd_view* v, int32_t k,
                                               dfm_v3 extra, dfm_v3 dbar) {
    dfm_patch_record_terms t;
    dfm_v3 f;
    dfm_m33 H;
    dfm_contact_point_force(c, v->d, v->h, k, &f, &H);
    dfm_contact_geom g = dfm_contact_geometry(c, v->d, k);
    t.fn = dfm_v3_dot(g.n, dfm_v3_madd(f, extra, dfm_v3_len(f)));
    t.n = g.n;
    t.D = t.B = dfm_v3_zero();
    if (!(t.fn > 0.0f)) return t;
    /* Each record's slip in its own tangent plane: a record at a rim, whose normal is tilted
     * from the patch's, would otherwise read the body's motion along its normal (a cloth
     * settling onto a table's edge) as slip along the patch, and the patch decision would
     * push the body sideways with friction nothing resists. */
    t.D = dfm_v3_madd(g.D, g.n, -dfm_v3_dot(g.D, g.n));
    dfm_v3 dc = dfm_v3_zero(); /* the contact point's displacement; dc - D is the surface's */
    for (int j = 0; j < 3; ++j) {
        int32_t p = c->rec.corners[3 * k + j];
        if (p >= 0) dc = dfm_v3_madd(dc, dfm_v3_load(v->d + 3 * p), c->rec.bary[3 * k + j]);
    }
    /* the body's mean motion relative to the surface */
    const dfm_v3 ub = dfm_v3_sub(dbar, dfm_v3_sub(dc, g.D));
    t.B = dfm_v3_madd(ub, g.n, -dfm_v3_dot(ub, g.n));
    return t;
}

/// Adds a record's terms (fn > 0) to its patch: N, and nsum, Dsum, Bsum weighted by fn.
DFM_HD void dfm_patch_add_terms(dfm_friction_patch* p, const dfm_patch_record_terms* t) {
    p->N += t->fn;
    p->nsum = dfm_v3_madd(p->nsum, t->n, t->fn);
    p->Dsum = dfm_v3_madd(p->Dsum, t->D, t->fn);
    p->Bsum = dfm_v3_madd(p->Bsum, t->B, t->fn);
}

/// 1 when every patch of pt[0, np) (N, nsum, Dsum, Bsum summed) has one tangent plane and its
/// body's mean motion relative to the shape is its contact points' slip (the rigid translation is
/// the body's mode); 0: the body keeps the per-record decision. The rigid translation is the
/// body's mode only when (a) the patch has one tangent plane (not a cloth around a sphere) and (b)
/// the body's mean motion relative to the shape is its contact points' slip (not a towel sliding
/// around a rod, nor a pinched cloth swinging about the pinch).
DFM_HD int dfm_patch_coherent(const dfm_friction_patch* pt, int np) {
    int coherent = 1;
    for (int q = 0; q < np; ++q) {
        if (!(pt[q].N > 0.0f)) continue;
        float nl = dfm_v3_len(pt[q].nsum);
        if (nl < DFM_PATCH_COHERENCE * pt[q].N) coherent = 0;
        if (!(nl > 0.0f)) continue;
        const dfm_v3 nq = dfm_v3_scale(pt[q].nsum, 1.0f / nl);
        dfm_v3 uc = dfm_v3_scale(pt[q].Dsum, 1.0f / pt[q].N);
        dfm_v3 ub = dfm_v3_scale(pt[q].Bsum, 1.0f / pt[q].N);
        uc = dfm_v3_madd(uc, nq, -dfm_v3_dot(uc, nq));
        ub = dfm_v3_madd(ub, nq, -dfm_v3_dot(ub, nq));
        const float big = dfm_fmaxf(dfm_v3_len(uc), dfm_v3_len(ub));
        if (dfm_v3_len(dfm_v3_sub(uc, ub)) > DFM_PATCH_RIGID * big + DFM_PATCH_SLIP_FLOOR) coherent = 0;
    }
    return coherent;
}

/// Projected Gauss-Seidel over the patches pt[0, np) on the body's common translation (h the
/// advance, s; M the body's mass, kg): sets each patch's F (N) and slides; returns the translation
/// delta = h^2 / M sum F (m, world).
DFM_HD dfm_v3 dfm_patch_solve(const dfm_contact_view* c, dfm_friction_patch* pt, int np, float h, float M) {
    dfm_v3 U[DFM_PATCH_MAX], n[DFM_PATCH_MAX], total = dfm_v3_zero();
    float limit[DFM_PATCH_MAX];
    for (int q = 0; q < np; ++q) {
        float nl = dfm_v3_len(pt[q].nsum);
        n[q] = nl > 0.0f ? dfm_v3_scale(pt[q].nsum, 1.0f / nl) : dfm_v3_zero();
        U[q] = pt[q].N > 0.0f ? dfm_v3_scale(pt[q].Dsum, 1.0f / pt[q].N) : dfm_v3_zero();
        limit[q] = c->shapes[pt[q].shape].mu * pt[q].N;
    }
    const float compliance = h * h / M; /* translation per newton over the advance */
    for (int pass = 0; pass < DFM_PATCH_PASSES; ++pass)
        for (int q = 0; q < np; ++q) {
            if (!(limit[q] > 0.0f)) continue;
            dfm_v3 others = dfm_v3_sub(total, pt[q].F);
            dfm_v3 slip = dfm_v3_madd(U[q], others, compliance);
            slip = dfm_v3_madd(slip, n[q], -dfm_v3_dot(slip, n[q]));
            dfm_v3 F = dfm_v3_scale(slip, -1.0f / compliance);
            float fl = dfm_v3_len(F);
            pt[q].slides = fl > limit[q];
            if (pt[q].slides) F = dfm_v3_scale(F, limit[q] / fl);
            pt[q].F = F;
            total = dfm_v3_add(others, F);
        }
    return dfm_v3_scale(total, compliance);
}

/// Moves particle i by delta (x and d; m, world).
DFM_HD void dfm_patch_translate(const dfm_vbd_view* v, int32_t i, dfm_v3 delta) {
    dfm_v3_store(dfm_v3_add(dfm_v3_load(v->x + 3 * i), delta), v->x + 3 * i);
    dfm_v3_store(dfm_v3_add(dfm_v3_load(v->d + 3 * i), delta), v->d + 3 * i);
}

/// Writes record k's share of its patch p's force on each of its nodes (3 floats at
/// node_body_friction + 3 * node, N) by its normal load fn (N, as in the solve) and the corner's
/// weight, and flags its corners' particles in particle_slides when p slides with mu > 0.
DFM_HD void dfm_patch_attribute(const dfm_contact_view* c, const dfm_friction_patch* p, int32_t k, float fn,
                                float* node_body_friction, uint8_t* particle_slides) {
    float share = fn > 0.0f && p->N > 0.0f ? fn / p->N : 0.0f;
    /* the patch's force itself, not its part in the record's tangent plane: the shares then
     * sum to exactly the F_s that moved the body (delta), so the reactions' momentum balance
     * (contact_reaction.h) finds no gap to hand out for it */
    for (int j = 0; j < 3; ++j) {
        int32_t pp = c->rec.corners[3 * k + j];
        if (pp < 0) continue;
        dfm_v3_store(dfm_v3_scale(p->F, share * c->rec.bary[3 * k + j]), node_body_friction + 3 * (3 * k + j));
        if (p->slides && c->shapes[p->shape].mu > 0.0f) particle_slides[pp] = 1;
    }
}

/// Patch decision for the body whose particles are [first, end) (see the file comment), serial:
/// the CPU's (and the CUDA fallback DFM_CUDA_PATCH_SERIAL=1's). Moves every particle of the body
/// by the translation the patches' friction gives (x and d), writes particle_slides for the body's
/// particles and, for every node of the body's records (3 floats at node_body_friction + 3 * node),
/// the share of its patch's friction force on that node's particle (by the record's normal load
/// and the corner's weight; N). Returns 1 when it decided, 0 when the body keeps the per-record
/// decision alone (nothing written but particle_slides = 0). Patches are in the order of their
/// shapes' first record (particles in order, each one's list in order).
DFM_HD int dfm_patch_friction_body(const dfm_contact_view* c, const dfm_vbd_view* v, int32_t first, int32_t end,
                                   float* node_body_friction, uint8_t* particle_slides) {
    const float h = v->h, ih2 = 1.0f / (h * h);
    for (int32_t i = first; i < end; ++i) particle_slides[i] = 0;
    dfm_patch_sums sum = dfm_patch_sums_zero();
    dfm_friction_patch pt[DFM_PATCH_MAX];
    int np = 0;
    for (int32_t i = first; i < end; ++i) {
        if (v->mode[i] != 0) return 0;
        dfm_patch_add_particle(v, i, ih2, &sum);
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue; /* each record once, at its corner 0 */
            int32_t k = node / 3, s = c->rec.shape[k];
            if (c->shapes[s].coupled) return 0;
            if (dfm_patch_index(pt, np, s) == np) {
                if (np == DFM_PATCH_MAX) return 0;
                dfm_patch_open(&pt[np++], s);
            }
            dfm_patch_add_record_force(c, v, k, &sum);
        }
    }
    const float M = sum.M;
    if (np == 0 || !(sum.S > 0.0f) || !(M > 0.0f)) return 0;
    const dfm_v3 extra = dfm_v3_scale(dfm_v3_sub(sum.P, sum.R), 1.0f / sum.S);
    dfm_v3 dbar = dfm_v3_zero(); /* the body's mean displacement over the advance */
    for (int32_t i = first; i < end; ++i) dbar = dfm_v3_madd(dbar, dfm_v3_load(v->d + 3 * i), v->mass[i] / M);
    /* the records' normal loads (momentum-consistent) and their slips, per patch */
    for (int32_t i = first; i < end; ++i)
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue;
            int32_t k = node / 3;
            dfm_patch_record_terms t = dfm_patch_record(c, v, k, extra, dbar);
            node_body_friction[3 * node] = t.fn > 0.0f ? t.fn : 0.0f; /* kept for the attribution below */
            if (t.fn > 0.0f) dfm_patch_add_terms(&pt[dfm_patch_index(pt, np, c->rec.shape[k])], &t);
        }
    if (!dfm_patch_coherent(pt, np)) {
        for (int32_t i = first; i < end; ++i)
            for (int32_t node = c->head[i]; node >= 0; node = c->next[node])
                if (node % 3 == 0) node_body_friction[3 * node] = 0.0f;
        return 0;
    }
    const dfm_v3 delta = dfm_patch_solve(c, pt, np, h, M);
    for (int32_t i = first; i < end; ++i) dfm_patch_translate(v, i, delta);
    /* attribution to the records' nodes, and the sliding patches' particles */
    for (int32_t i = first; i < end; ++i)
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue;
            int32_t k = node / 3;
            /* the record's normal load in the solve above */
            dfm_patch_attribute(c, &pt[dfm_patch_index(pt, np, c->rec.shape[k])], k, node_body_friction[3 * node],
                                node_body_friction, particle_slides);
        }
    return 1;
}

#endif
