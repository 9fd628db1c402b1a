/// @file coarse_friction.c
/// Coulomb friction per patch in a body's coarse step (coarse_friction.h).
///
/// Parallelism review (seed 001):
/// - P1 level batching: does-not-apply here — one body, called from the body loop of
///   dfm_cpu_coarse_correct (bodies are independent, see coarse_cpu.c).
/// - P2 independent columns: applies-and-done — the 2 np solves with the factor share one pass
///   over it (dfm_cpu_band_solve_many).
/// - P3 loop-invariant hoisting: applies-TODO — Z = A^-1 C^T is recomputed at every correction;
///   the factor is kept over an advance, C changes with the records' loads and normals.
/// - P4 memory layout: applies-and-done — C and Z are row-major dense rows of m doubles.
#include "coarse_friction.h"

#include <math.h>
#include <string.h>

#include "contact_patch_friction.h"

#define ROWS (2 * DFM_PATCH_MAX)

size_t dfm_cpu_coarse_friction_work(int32_t m) { return (size_t)2 * ROWS * (size_t)(m > 0 ? m : 1); }

/// An orthonormal tangent basis (t1, t2) of the plane with unit normal n.
static void tangent_basis(dfm_v3 n, dfm_v3* t1, dfm_v3* t2) {
    const float ax = fabsf(n.x), ay = fabsf(n.y), az = fabsf(n.z);
    dfm_v3 e = ax <= ay && ax <= az ? dfm_v3_make(1.0f, 0.0f, 0.0f)
               : ay <= az           ? dfm_v3_make(0.0f, 1.0f, 0.0f)
                                    : dfm_v3_make(0.0f, 0.0f, 1.0f);
    *t1 = dfm_v3_normalize(dfm_v3_cross(n, e));
    *t2 = dfm_v3_cross(n, *t1);
}

static double dotm(const double* a, const double* b, int32_t m) {
    double s = 0.0;
    for (int32_t r = 0; r < m; ++r) s += a[r] * b[r];
    return s;
}

/// The body's momentum-consistent load gap per newton of record force, `extra` (the patch decision's
/// (P - R) / S, dfm_patch_record), over its free particles [p0, p1); zero for a body with pinned
/// particles (its pins take the gap: dfm_contact_body_extra). Returns 0 when no record pushes.
static int body_extra(const dfm_vbd_view* v, const dfm_contact_view* c, int32_t p0, int32_t p1, dfm_v3* extra) {
    const float ih2 = 1.0f / (v->h * v->h);
    dfm_patch_sums sum = dfm_patch_sums_zero();
    int pinned = 0;
    for (int32_t i = p0; i < p1; ++i) {
        if (v->mode[i] != 0) {
            pinned = 1;
            continue;
        }
        dfm_patch_add_particle(v, i, ih2, &sum);
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node])
            if (node % 3 == 0) dfm_patch_add_record_force(c, v, node / 3, &sum); /* each record once */
    }
    if (!(sum.S > 0.0f)) return 0;
    *extra = pinned ? dfm_v3_zero() : dfm_v3_scale(dfm_v3_sub(sum.P, sum.R), 1.0f / sum.S);
    return 1;
}

int dfm_cpu_coarse_friction(dfm_cpu_coarse* L, const dfm_vbd_view* v, const dfm_contact_view* c, int32_t b,
                            double* step, double* work) {
    const int32_t p0 = L->body_offsets[b], p1 = L->body_offsets[b + 1], nf = L->node_first[b];
    const int32_t m = 3 * (L->node_first[b + 1] - nf), bw = L->band_width[b];
    L->patch_count[b] = 0;
    /* the body's patches: records on shapes with friction, not coupled to a host body */
    dfm_friction_patch pt[DFM_PATCH_MAX];
    int np = 0;
    for (int32_t i = p0; i < p1; ++i)
        for (int32_t node = c->head[i]; v->mode[i] == 0 && node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue; /* each record once, at its corner 0 */
            const int32_t s = c->rec.shape[node / 3];
            if (c->shapes[s].coupled || !(c->shapes[s].mu > 0.0f) || dfm_patch_index(pt, np, s) < np) continue;
            if (np == DFM_PATCH_MAX) return -1;
            dfm_patch_open(&pt[np++], s);
        }
    dfm_v3 extra;
    if (np == 0 || !body_extra(v, c, p0, p1, &extra)) return 0;
    for (int32_t i = p0; i < p1; ++i)
        for (int32_t node = c->head[i]; v->mode[i] == 0 && node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue;
            const int32_t k = node / 3;
            const int q = dfm_patch_index(pt, np, c->rec.shape[k]);
            if (q == np) continue;
            dfm_patch_record_terms t = dfm_patch_record(c, v, k, extra, dfm_v3_zero());
            if (t.fn > 0.0f) dfm_patch_add_terms(&pt[q], &t);
        }
    /* each patch's tangent basis, limit, current slip u and rows C (2 per patch) */
    double* C = work;
    double* Z = work + (size_t)ROWS * (size_t)m;
    dfm_v3 t1[DFM_PATCH_MAX], t2[DFM_PATCH_MAX];
    double limit[DFM_PATCH_MAX], u[ROWS];
    int any = 0;
    memset(C, 0, sizeof(double) * (size_t)(2 * np) * (size_t)m);
    for (int q = 0; q < np; ++q) {
        const float nl = dfm_v3_len(pt[q].nsum);
        limit[q] = 0.0;
        u[2 * q] = u[2 * q + 1] = 0.0;
        t1[q] = t2[q] = dfm_v3_zero();
        if (!(pt[q].N > 0.0f) || !(nl > 0.0f)) continue;
        tangent_basis(dfm_v3_scale(pt[q].nsum, 1.0f / nl), &t1[q], &t2[q]);
        limit[q] = (double)c->shapes[pt[q].shape].mu * (double)pt[q].N;
        const dfm_v3 U = dfm_v3_scale(pt[q].Dsum, 1.0f / pt[q].N);
        u[2 * q] = dfm_v3_dot(t1[q], U);
        u[2 * q + 1] = dfm_v3_dot(t2[q], U);
        any = 1;
    }
    if (!any) return 0;
    for (int32_t i = p0; i < p1; ++i)
        for (int32_t node = c->head[i]; v->mode[i] == 0 && node >= 0; node = c->next[node]) {
            if (node % 3 != 0) continue;
            const int32_t k = node / 3;
            const int q = dfm_patch_index(pt, np, c->rec.shape[k]);
            if (q == np || !(limit[q] > 0.0)) continue;
            dfm_patch_record_terms t = dfm_patch_record(c, v, k, extra, dfm_v3_zero());
            if (!(t.fn > 0.0f)) continue;
            /* t_a^T (I - n n^T): the record's tangential motion along the patch's basis */
            const dfm_v3 g1 = dfm_v3_madd(t1[q], t.n, -dfm_v3_dot(t1[q], t.n));
            const dfm_v3 g2 = dfm_v3_madd(t2[q], t.n, -dfm_v3_dot(t2[q], t.n));
            const double share = (double)t.fn / (double)pt[q].N;
            for (int j = 0; j < 3; ++j) {
                const int32_t pp = c->rec.corners[3 * k + j];
                if (pp < 0 || v->mode[pp] != 0) continue;
                const double wj = share * (double)c->rec.bary[3 * k + j];
                for (int32_t s = L->slot_first[pp]; s < L->slot_first[pp + 1]; ++s) {
                    const double w = wj * (double)L->slot_weight[s];
                    double* r1 = C + (size_t)(2 * q) * (size_t)m + 3 * (size_t)(L->slot_node[s] - nf);
                    double* r2 = r1 + m;
                    r1[0] += w * g1.x, r1[1] += w * g1.y, r1[2] += w * g1.z;
                    r2[0] += w * g2.x, r2[1] += w * g2.y, r2[2] += w * g2.z;
                }
            }
        }
    /* Z = A^-1 C^T, W = C Z, s0 = u + C step */
    const int rows = 2 * np;
    const double* band = L->band + L->band_first[b];
    double W[ROWS][ROWS], s0[ROWS], lam[ROWS];
    memcpy(Z, C, sizeof(double) * (size_t)rows * (size_t)m);
    dfm_cpu_band_solve_many(band, m, bw, Z, rows); /* one pass over the factor for all rows */
    for (int r = 0; r < rows; ++r) {
        s0[r] = u[r] + dotm(C + (size_t)r * (size_t)m, step, m);
        lam[r] = 0.0;
    }
    for (int r = 0; r < rows; ++r)
        for (int r2 = 0; r2 <= r; ++r2)
            W[r][r2] = W[r2][r] = dotm(C + (size_t)r * (size_t)m, Z + (size_t)r2 * (size_t)m, m);
    /* Coulomb over the patches: projected block Gauss-Seidel on W, each patch sticks (s_p = 0)
       within mu N or takes mu N against its slip. A patch that still slips at its limit is
       flagged: the friction after the iterations then leaves it alone (dfm_cpu_coarse_patch_friction),
       so its kinetic friction is applied once, here. */
    for (int pass = 0; pass < DFM_COARSE_FRICTION_PASSES; ++pass)
        for (int q = 0; q < np; ++q) {
            if (!(limit[q] > 0.0)) continue;
            const int a = 2 * q;
            double s1 = s0[a], s2 = s0[a + 1];
            for (int r = 0; r < rows; ++r) s1 += W[a][r] * lam[r], s2 += W[a + 1][r] * lam[r];
            /* the 2 x 2 block, regularised by a millionth of its trace */
            const double eps = 1e-6 * (W[a][a] + W[a + 1][a + 1]) + 1e-300;
            const double w11 = W[a][a] + eps, w12 = W[a][a + 1], w22 = W[a + 1][a + 1] + eps;
            const double det = w11 * w22 - w12 * w12;
            if (!(det > 0.0)) continue;
            double l1 = lam[a] - (w22 * s1 - w12 * s2) / det;
            double l2 = lam[a + 1] - (w11 * s2 - w12 * s1) / det;
            const double ll = sqrt(l1 * l1 + l2 * l2);
            if (ll > limit[q]) l1 *= limit[q] / ll, l2 *= limit[q] / ll;
            lam[a] = l1, lam[a + 1] = l2;
        }
    double big = 0.0;
    for (int q = 0; q < np; ++q)
        if (limit[q] > 0.0) big = fmax(big, hypot(s0[2 * q], s0[2 * q + 1]));
    const double tol = 1e-3 * big + 1e-15;
    int slides = 0;
    int32_t* shape_out = L->patch_shape + (size_t)b * DFM_PATCH_MAX;
    float* force_out = L->patch_force + 3 * (size_t)b * DFM_PATCH_MAX;
    uint8_t* slides_out = L->patch_slides + (size_t)b * DFM_PATCH_MAX;
    for (int q = 0; q < np; ++q) {
        const int a = 2 * q;
        double s1 = s0[a], s2 = s0[a + 1];
        for (int r = 0; r < rows; ++r) s1 += W[a][r] * lam[r], s2 += W[a + 1][r] * lam[r];
        slides_out[q] = (uint8_t)(limit[q] > 0.0 && hypot(s1, s2) > tol);
        slides += slides_out[q];
        shape_out[q] = pt[q].shape;
        const dfm_v3 F = dfm_v3_add(dfm_v3_scale(t1[q], (float)lam[a]), dfm_v3_scale(t2[q], (float)lam[a + 1]));
        dfm_v3_store(F, force_out + 3 * q);
    }
    L->patch_count[b] = np;
    L->patch_advance[b] = L->advances;
    for (int r = 0; r < rows; ++r) {
        if (lam[r] == 0.0 || !(lam[r] == lam[r])) continue;
        const double* z = Z + (size_t)r * (size_t)m;
        for (int32_t j = 0; j < m; ++j) step[j] += lam[r] * z[j];
    }
    L->friction_patches += np;
    L->friction_slides += slides;
    return slides;
}

int dfm_cpu_coarse_patch_friction_body(dfm_cpu_coarse* L, const dfm_vbd_view* v, const dfm_contact_view* c, int32_t b,
                                       float* node_body_friction, uint8_t* particle_slides) {
    const int32_t p0 = L->body_offsets[b], p1 = L->body_offsets[b + 1];
    for (int32_t i = p0; i < p1; ++i) particle_slides[i] = 0;
    if (!L->patch_count || L->patch_count[b] <= 0 || L->patch_advance[b] != L->advances) return 0;
    const int np = L->patch_count[b];
    L->patch_count[b] = 0; /* consumed: an advance without a coarse correction must not reuse it */
    const int32_t* shape = L->patch_shape + (size_t)b * DFM_PATCH_MAX;
    const float* force = L->patch_force + 3 * (size_t)b * DFM_PATCH_MAX;
    const uint8_t* slides = L->patch_slides + (size_t)b * DFM_PATCH_MAX;
    /* the records' normal loads at the final iterate, as in the coarse solve, for the shares */
    dfm_v3 extra;
    if (!body_extra(v, c, p0, p1, &extra)) return 0;
    float N[DFM_PATCH_MAX] = {0};
    for (int pass = 0; pass < 2; ++pass)
        for (int32_t i = p0; i < p1; ++i)
            for (int32_t node = c->head[i]; v->mode[i] == 0 && node >= 0; node = c->next[node]) {
                if (node % 3 != 0) continue;
                const int32_t k = node / 3;
                int q = 0;
                while (q < np && shape[q] != c->rec.shape[k]) ++q;
                if (q == np) continue;
                const dfm_patch_record_terms t = dfm_patch_record(c, v, k, extra, dfm_v3_zero());
                if (!(t.fn > 0.0f)) continue;
                if (pass == 0) {
                    N[q] += t.fn;
                    continue;
                }
                const float share = t.fn / N[q];
                for (int j = 0; j < 3; ++j) {
                    const int32_t pp = c->rec.corners[3 * k + j];
                    if (pp < 0) continue;
                    dfm_v3_store(dfm_v3_scale(dfm_v3_load(force + 3 * q), share * c->rec.bary[3 * k + j]),
                                 node_body_friction + 3 * (3 * k + j));
                    if (slides[q]) particle_slides[pp] = 1;
                }
            }
    return 1;
}
