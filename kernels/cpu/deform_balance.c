/// @file deform_balance.c
/// The balance of deformable-contact pair forces over the body graph (deform_balance.h), moved
/// out of deform_contact_cpu.c so that the CPU and CUDA backends run the same code: the body pairs'
/// keys, the union-find components, the Laplacian and its conjugate-gradient solve, the no-pull
/// rounds and the body pairs' changes.
///
/// Parallelism review (seed 001):
/// - P1 level batching: does-not-apply: no recursion.
/// - P2 parallel independent columns: does-not-apply: one small system per world (bodies, not
///   particles), solved serially in a fixed order so that thread counts and backends change no
///   bit of it; the per-particle gathers around it are the backends' (parallel on CUDA).
/// - P3 loop-invariant hoisting: applies-and-done: the Jacobi preconditioner once per solve, the
///   conductances and components once per advance.
/// - P4 offline memory layout: does-not-apply: a few doubles per body and body pair.
#include "deform_balance.h"

#include <stdlib.h>
#include <string.h>

/// Orders body pairs (lo, hi) lexicographically.
static int cmp_body_pair(const void* x, const void* y) {
    const dfm_bvh_pair *p = (const dfm_bvh_pair*)x, *q = (const dfm_bvh_pair*)y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

int32_t dfm_dc_balance_edges(const dfm_dc_pair* pairs, int32_t pair_count, const int32_t* particle_body,
                             dfm_bvh_pair* keys, dfm_cpu_dc_edge* edges) {
    int32_t ne = 0;
    for (int32_t p = 0; p < pair_count; ++p) {
        int32_t a, b;
        dfm_dc_pair_bodies(pairs + p, particle_body, &a, &b);
        if (a == b) continue;
        keys[ne].a = a < b ? a : b;
        keys[ne].b = a < b ? b : a;
        ++ne;
    }
    qsort(keys, (size_t)ne, sizeof(*keys), cmp_body_pair);
    int32_t u = 0;
    for (int32_t k = 0; k < ne; ++k)
        if (u == 0 || cmp_body_pair(keys + k, keys + u - 1) != 0) keys[u++] = keys[k];
    ne = u;
    for (int32_t e = 0; e < ne; ++e) {
        memset(edges + e, 0, sizeof(*edges));
        edges[e].lo = keys[e].a;
        edges[e].hi = keys[e].b;
    }
    return ne;
}

int32_t dfm_dc_balance_edge_index(const dfm_bvh_pair* keys, int32_t count, int32_t a, int32_t b) {
    const int32_t lo = a < b ? a : b, hi = a < b ? b : a;
    int32_t l = 0, r = count - 1;
    while (l < r) {
        const int32_t m = l + (r - l) / 2;
        if (keys[m].a < lo || (keys[m].a == lo && keys[m].b < hi))
            l = m + 1;
        else
            r = m;
    }
    return l;
}

/// Union-find root of body i (path halving).
static int32_t body_root(dfm_cpu_dc_body* B, int32_t i) {
    while (B[i].root != i) {
        B[i].root = B[B[i].root].root;
        i = B[i].root;
    }
    return i;
}

/// out = L u over the solved bodies (u and out: 3 per body), L the conductance-weighted Laplacian
/// of the body graph with the unsolved bodies' potentials held at zero, plus each body's shape
/// contact magnitude sum S on its diagonal (its shapes: a neighbour at zero).
static void laplacian(const dfm_cpu_dc_edge* edges, const dfm_cpu_dc_body* B, int32_t body_count, int32_t edge_count,
                      const double* u, double* out) {
    for (int32_t b = 0; b < 3 * body_count; ++b) out[b] = 0.0;
    for (int32_t e = 0; e < edge_count; ++e) {
        const dfm_cpu_dc_edge* E = edges + e;
        if (!(E->c > 0.0)) continue;
        const int32_t lo = E->lo, hi = E->hi;
        for (int k = 0; k < 3; ++k) {
            const double ul = B[lo].solved ? u[3 * lo + k] : 0.0, uh = B[hi].solved ? u[3 * hi + k] : 0.0;
            out[3 * lo + k] += E->c * (ul - uh);
            out[3 * hi + k] += E->c * (uh - ul);
        }
    }
    for (int32_t b = 0; b < body_count; ++b)
        for (int k = 0; k < 3; ++k)
            out[3 * b + k] = B[b].solved ? out[3 * b + k] + (B[b].shape_on ? B[b].shape_sum : 0.0) * u[3 * b + k] : 0.0;
}

/// Conjugate gradients for L lambda = need - raw - R over the solved bodies (see
/// dfm_dc_balance_solve); lambda into work (3 per body).
static void solve_potentials(const dfm_cpu_dc_edge* edges, double* work, const dfm_cpu_dc_body* B, int32_t body_count,
                             int32_t ne, int32_t solved) {
    double* lam = work;
    double* r = lam + 3 * body_count;
    double* z = r + 3 * body_count;
    double* q = z + 3 * body_count;
    double* Aq = q + 3 * body_count;
    double* dinv = Aq + 3 * body_count; /* 1 per body */
    for (int32_t b = 0; b < body_count; ++b) dinv[b] = B[b].shape_on ? B[b].shape_sum : 0.0;
    for (int32_t e = 0; e < ne; ++e) {
        const dfm_cpu_dc_edge* E = edges + e;
        if (!(E->c > 0.0)) continue;
        dinv[E->lo] += E->c;
        dinv[E->hi] += E->c;
    }
    for (int32_t b = 0; b < body_count; ++b) {
        dinv[b] = B[b].solved && dinv[b] > 0.0 ? 1.0 / dinv[b] : 0.0;
        for (int k = 0; k < 3; ++k) {
            lam[3 * b + k] = 0.0;
            r[3 * b + k] = B[b].solved ? B[b].need[k] - B[b].raw[k] - B[b].shape_force[k] : 0.0;
            z[3 * b + k] = dinv[b] * r[3 * b + k];
            q[3 * b + k] = z[3 * b + k];
        }
    }
    double rz[3], rr0[3];
    for (int k = 0; k < 3; ++k) {
        rz[k] = rr0[k] = 0.0;
        for (int32_t b = 0; b < body_count; ++b) {
            rz[k] += r[3 * b + k] * z[3 * b + k];
            rr0[k] += r[3 * b + k] * r[3 * b + k];
        }
    }
    for (int32_t it = 0; it < solved + 8; ++it) {
        laplacian(edges, B, body_count, ne, q, Aq);
        int active = 0;
        for (int k = 0; k < 3; ++k) {
            double qAq = 0.0, rr = 0.0, rz1 = 0.0;
            for (int32_t b = 0; b < body_count; ++b) qAq += q[3 * b + k] * Aq[3 * b + k];
            if (!(qAq > 0.0) || !(rz[k] > 0.0)) continue;
            const double alpha = rz[k] / qAq;
            for (int32_t b = 0; b < body_count; ++b) {
                lam[3 * b + k] += alpha * q[3 * b + k];
                r[3 * b + k] -= alpha * Aq[3 * b + k];
                z[3 * b + k] = dinv[b] * r[3 * b + k];
                rr += r[3 * b + k] * r[3 * b + k];
                rz1 += r[3 * b + k] * z[3 * b + k];
            }
            if (rr <= 1e-24 * rr0[k]) {
                rz[k] = 0.0;
                continue;
            }
            for (int32_t b = 0; b < body_count; ++b) q[3 * b + k] = z[3 * b + k] + (rz1 / rz[k]) * q[3 * b + k];
            rz[k] = rz1;
            active = 1;
        }
        if (!active) break;
    }
}

int32_t dfm_dc_balance_solve(dfm_cpu_dc_body* B, int32_t body_count, dfm_cpu_dc_edge* E, int32_t ne, double* work,
                             dfm_dc_pull_fn pull, void* ctx) {
    /* 4. conductances and the components of the graph of touching body pairs; a component is
       grounded when one of its bodies is pinned or touches a shape (S > 0), and its unpinned
       bodies are solved */
    for (int32_t b = 0; b < body_count; ++b) B[b].root = b;
    for (int32_t e = 0; e < ne; ++e) {
        dfm_cpu_dc_edge* Ee = E + e;
        Ee->c = 0.5 * (Ee->s_lo + Ee->s_hi);
        if (!(Ee->c > 0.0)) continue;
        const int32_t ra = body_root(B, Ee->lo), rb = body_root(B, Ee->hi);
        if (ra != rb) B[ra > rb ? ra : rb].root = ra < rb ? ra : rb;
    }
    for (int32_t b = 0; b < body_count; ++b) {
        B[b].root = body_root(B, b);
        B[b].shape_on = (uint8_t)(B[b].shape_sum > 0.0);
    }
    /* 5. L lambda = need - raw - R on the solved bodies (the pinned ones held at lambda = 0), L
       the Laplacian of the body graph with conductances c_e plus S on the diagonal (each body's
       shapes are one more neighbour, held at 0): the least change sum |delta_e|^2 / c_e +
       sum_b |S_b lambda_b|^2 / S_b of the body pairs' and the shape contacts' forces that balances
       every solved body. Jacobi-preconditioned conjugate gradients per axis, in double: exact in
       at most `solved` steps. Then a body whose shape share S_b lambda_b would turn one of its
       shape contacts into a pull (dfm_contact_reaction_particle cuts those, and the sum would no
       longer be the balance: a cloth on two cubes that also lies on the floor) drops its shapes
       from L (they read their own forces, R) while its component keeps another support, and the
       system is solved again (at most 4 rounds). The backend tests every candidate of a round at
       once (one round trip on CUDA); whether a body pulls depends only on its own share, so the
       drops, taken in body order as before, are the same as testing one body at a time. */
    double* lam = work;
    int32_t solved = 0;
    for (int round = 0; round < 4; ++round) {
        for (int32_t b = 0; b < body_count; ++b) B[b].grounded = 0;
        for (int32_t b = 0; b < body_count; ++b)
            if (B[b].pinned || B[b].shape_on) B[B[b].root].grounded++;
        solved = 0;
        for (int32_t b = 0; b < body_count; ++b) {
            B[b].solved = (uint8_t)(!B[b].pinned && B[B[b].root].grounded > 0);
            solved += B[b].solved;
        }
        if (solved == 0) return 0; /* every pair keeps its raw force */
        solve_potentials(E, work, B, body_count, ne, solved);
        if (round == 3) break; /* the last solve stands */
        int tests = 0;
        for (int32_t b = 0; b < body_count; ++b) {
            B[b].pull_test = (uint8_t)(B[b].solved && B[b].shape_on && B[B[b].root].grounded >= 2);
            B[b].pulls = 0;
            tests += B[b].pull_test;
        }
        if (tests == 0) break;
        const int rc = pull(ctx, B, body_count, lam);
        if (rc != 0) return rc;
        int dropped = 0;
        for (int32_t b = 0; b < body_count; ++b) {
            if (!B[b].solved || !B[b].shape_on || B[B[b].root].grounded < 2) continue;
            if (!B[b].pulls) continue;
            B[b].shape_on = 0;
            B[B[b].root].grounded--;
            dropped = 1;
        }
        if (!dropped) break;
    }
    /* 6a. each body pair's change delta_e = c_e (lambda_hi - lambda_lo) (on hi; -delta_e on lo) */
    for (int32_t e = 0; e < ne; ++e) {
        dfm_cpu_dc_edge* Ee = E + e;
        for (int k = 0; k < 3; ++k) {
            const double lh = B[Ee->hi].solved ? lam[3 * Ee->hi + k] : 0.0;
            const double ll = B[Ee->lo].solved ? lam[3 * Ee->lo + k] : 0.0;
            Ee->delta[k] = Ee->c > 0.0 ? Ee->c * (lh - ll) : 0.0;
        }
    }
    return solved;
}
