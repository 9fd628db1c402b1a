/// @file coarse_cpu.c
/// The two-level VBD solve's coarse level on the CPU (coarse_cpu.h): building the per-body grid
/// and prolongation, assembling the Galerkin coarse matrix, and the correction itself.
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-TODO — bodies are independent (disjoint particles, nodes and
///   band storage) and run in sequence; the per-particle force pass is independent per particle
///   and runs serially too. The feature is CPU only and opt-in; cost in docs/physics.md session 12.
/// - P2 independent columns: does-not-apply inside one body's assembly (scatter-adds into one band).
/// - P3 loop-invariant hoisting: applies-and-done — the grid, weights and bandwidth once per model
///   rebuild; the coarse matrix and its factor once per advance (DFM_COARSE_REASSEMBLE 0), the
///   later corrections form only the right side; the element coefficients from the step's table.
/// - P4 memory layout: applies-and-done for the band (rows contiguous) and the slots (CSR per
///   particle); applies-TODO for the positions (xyz per particle in body order, as the sweeps).
#include "coarse_cpu.h"
#include "coarse_friction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact_patch_friction.h"
#include "membrane_psd.h"
#include "tet_hessian.h"
#include "vbd_bending.h"
#include "vbd_cpu.h"
#include "vbd_particle.h"
#include "vbd_simd.h"

/// Trilinear weights below this are dropped (and the particle's others renormalised).
#define COARSE_MIN_WEIGHT 1e-4f
/// Grid nodes whose weights over the body sum below this are dropped (a node touching a body only
/// at its far corners would make the coarse matrix nearly singular; session 9's value).
#define COARSE_MIN_NODE_WEIGHT 0.05f

void dfm_cpu_coarse_free(dfm_cpu_coarse* L) {
    free(L->node_first);
    free(L->band_width);
    free(L->band_first);
    free(L->slot_first);
    free(L->slot_node);
    free(L->slot_weight);
    free(L->band);
    free(L->band_elements);
    free(L->pair_first);
    free(L->pair_other);
    free(L->pair_h);
    free(L->rhs);
    free(L->force);
    free(L->factored);
    free(L->contact_trace);
    free(L->rhs_norm);
    free(L->hp);
    free(L->ktri);
    free(L->ktet);
    free(L->kedge);
    free(L->ftri);
    free(L->ftet);
    free(L->pcg);
    free(L->friction);
    free(L->patch_count);
    free(L->patch_advance);
    free(L->patch_shape);
    free(L->patch_force);
    free(L->patch_slides);
    memset(L, 0, sizeof(*L));
    L->generation = -1;
}

/// Mean length of the edges of the elements incident to particles [p0, p1) (m; 0 when none).
static double mean_edge(const dfm_vbd_view* v, int32_t p0, int32_t p1) {
    double sum = 0.0;
    int64_t count = 0;
    for (int32_t i = p0; i < p1; ++i) {
        const dfm_v3 xi = dfm_v3_load(v->x + 3 * i);
        for (int32_t k = v->v_tri_offsets[i]; k < v->v_tri_offsets[i + 1]; ++k)
            for (int c = 0; c < 3; ++c) {
                const int32_t p = v->tris[3 * v->v_tri_items[2 * k] + c];
                if (p != i) sum += dfm_v3_len(dfm_v3_sub(dfm_v3_load(v->x + 3 * p), xi)), ++count;
            }
        for (int32_t k = v->v_tet_offsets[i]; k < v->v_tet_offsets[i + 1]; ++k)
            for (int c = 0; c < 4; ++c) {
                const int32_t p = v->tets[4 * v->v_tet_items[2 * k] + c];
                if (p != i) sum += dfm_v3_len(dfm_v3_sub(dfm_v3_load(v->x + 3 * p), xi)), ++count;
            }
    }
    return count ? sum / (double)count : 0.0;
}

/// The largest |I - J| over coarse nodes coupled through particle i's slots and particle j's.
static int32_t pair_spread(const dfm_cpu_coarse* L, int32_t i, int32_t j, int32_t spread) {
    for (int32_t s = L->slot_first[i]; s < L->slot_first[i + 1]; ++s)
        for (int32_t u = L->slot_first[j]; u < L->slot_first[j + 1]; ++u) {
            const int32_t d = abs(L->slot_node[s] - L->slot_node[u]);
            if (d > spread) spread = d;
        }
    return spread;
}

/// Builds body b's grid: slots (8 per particle, unused ones weight 0) in `node8`/`w8`, compacted
/// by the caller; returns the body's node count. Nodes are numbered in grid order with the
/// body's largest extent slowest (a narrow band).
static int32_t build_body(const dfm_vbd_view* v, int32_t p0, int32_t p1, int32_t first_node, int32_t* node8,
                          float* w8) {
    for (int32_t i = p0; i < p1; ++i)
        for (int s = 0; s < 8; ++s) node8[8 * i + s] = -1, w8[8 * i + s] = 0.0f;
    const double edge = mean_edge(v, p0, p1);
    if (!(edge > 0.0)) return 0;
    const float cell = (float)(DFM_COARSE_CELL * edge);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = p0; i < p1; ++i)
        for (int q = 0; q < 3; ++q) {
            lo[q] = fminf(lo[q], v->x[3 * i + q]);
            hi[q] = fmaxf(hi[q], v->x[3 * i + q]);
        }
    int dims[3], ord[3] = {0, 1, 2};
    for (int q = 0; q < 3; ++q) dims[q] = (int)floorf((hi[q] - lo[q]) / cell + 1e-4f) + 2;
    for (int a = 0; a < 3; ++a) /* ord: axes by extent, smallest (fastest) first */
        for (int b = a + 1; b < 3; ++b)
            if (dims[ord[b]] < dims[ord[a]]) {
                int t = ord[a];
                ord[a] = ord[b];
                ord[b] = t;
            }
    const int64_t grid = (int64_t)dims[0] * dims[1] * dims[2];
    int32_t* map = (int32_t*)malloc(sizeof(int32_t) * (size_t)grid);
    float* wsum = (float*)calloc((size_t)grid, sizeof(float));
    if (!map || !wsum) {
        free(map);
        free(wsum);
        return -1;
    }
    for (int32_t i = p0; i < p1; ++i) {
        if (v->mode[i] != 0) continue; /* pinned and kinematic particles stay out of the coarse space */
        int ic[3];
        float t[3];
        for (int q = 0; q < 3; ++q) {
            const float u = (v->x[3 * i + q] - lo[q]) / cell;
            ic[q] = (int)floorf(u);
            if (ic[q] > dims[q] - 2) ic[q] = dims[q] - 2;
            if (ic[q] < 0) ic[q] = 0;
            t[q] = u - (float)ic[q];
        }
        int slot = 0;
        for (int c = 0; c < 8; ++c) {
            const int o[3] = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
            float w = 1.0f;
            for (int q = 0; q < 3; ++q) w *= o[q] ? t[q] : 1.0f - t[q];
            if (w < COARSE_MIN_WEIGHT) continue;
            int g[3];
            for (int q = 0; q < 3; ++q) g[q] = ic[q] + o[q];
            const int64_t gi = g[ord[0]] + (int64_t)dims[ord[0]] * (g[ord[1]] + (int64_t)dims[ord[1]] * g[ord[2]]);
            node8[8 * i + slot] = (int32_t)gi;
            w8[8 * i + slot] = w;
            wsum[gi] += w;
            ++slot;
        }
    }
    int32_t used = 0;
    for (int64_t g = 0; g < grid; ++g) map[g] = wsum[g] > COARSE_MIN_NODE_WEIGHT ? used++ : -1;
    for (int32_t i = p0; i < p1; ++i) {
        float total = 0.0f;
        for (int s = 0; s < 8; ++s) {
            const int32_t g = node8[8 * i + s];
            if (g < 0) continue;
            if (map[g] < 0) {
                node8[8 * i + s] = -1;
                w8[8 * i + s] = 0.0f;
            } else {
                node8[8 * i + s] = first_node + map[g];
                total += w8[8 * i + s];
            }
        }
        if (total > 0.0f)
            for (int s = 0; s < 8; ++s) w8[8 * i + s] /= total;
    }
    free(map);
    free(wsum);
    return used;
}

/// Appends to out[*count] the corners >= i of particle i's incident elements of one kind (items /
/// offsets: the view's per-particle incidence, corners: nc per element), with repeats; the caller
/// sized out for every incident corner.
static void pair_candidates(const int32_t* offsets, const int32_t* items, const int32_t* corners, int nc, int32_t i,
                            int32_t* out, int32_t* count) {
    for (int32_t k = offsets[i]; k < offsets[i + 1]; ++k)
        for (int c = 0; c < nc; ++c) {
            const int32_t j = corners[nc * items[2 * k] + c];
            if (j >= i) out[(*count)++] = j;
        }
}

/// Particle i's incident bending edges (hinges) in the view's adjacency (0 without one).
static int32_t hinges_of(const dfm_vbd_view* v, int32_t i) {
    return v->v_edge_offsets ? v->v_edge_offsets[i + 1] - v->v_edge_offsets[i] : 0;
}

static int cmp_i32(const void* a, const void* b) {
    const int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return (x > y) - (x < y);
}

/// The fine pairs (i, j >= i) of the particles sharing an element, with i itself, as rows per
/// particle (sorted): L->pair_first, pair_other, pair_h. Returns 1, 0 when out of memory.
static int build_pairs(dfm_cpu_coarse* L, const dfm_vbd_view* v) {
    const int32_t n = v->particle_count;
    int32_t cap = 1;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t c = 1 + 3 * (v->v_tri_offsets[i + 1] - v->v_tri_offsets[i]) +
                          4 * (v->v_tet_offsets[i + 1] - v->v_tet_offsets[i]) + 4 * hinges_of(v, i);
        if (c > cap) cap = c;
    }
    int32_t* tmp = (int32_t*)malloc(sizeof(int32_t) * (size_t)cap);
    L->pair_first = (int32_t*)malloc(sizeof(int32_t) * ((size_t)n + 1));
    if (!tmp || !L->pair_first) {
        free(tmp);
        return 0;
    }
    int64_t total = 0; /* first pass: counts */
    for (int pass = 0; pass < 2; ++pass) {
        total = 0;
        for (int32_t i = 0; i < n; ++i) {
            int32_t count = 0;
            tmp[count++] = i;
            pair_candidates(v->v_tri_offsets, v->v_tri_items, v->tris, 3, i, tmp, &count);
            pair_candidates(v->v_tet_offsets, v->v_tet_items, v->tets, 4, i, tmp, &count);
            if (DFM_COARSE_BENDING && v->v_edge_offsets)
                pair_candidates(v->v_edge_offsets, v->v_edge_items, v->edges, 4, i, tmp, &count);
            qsort(tmp, (size_t)count, sizeof(int32_t), cmp_i32);
            int32_t u = 0;
            for (int32_t q = 0; q < count; ++q)
                if (q == 0 || tmp[q] != tmp[q - 1]) tmp[u++] = tmp[q];
            if (pass == 0)
                L->pair_first[i] = (int32_t)total;
            else
                memcpy(L->pair_other + L->pair_first[i], tmp, sizeof(int32_t) * (size_t)u);
            total += u;
        }
        if (pass == 0) {
            L->pair_first[n] = (int32_t)total;
            L->pair_other = (int32_t*)malloc(sizeof(int32_t) * ((size_t)total + 1));
            L->pair_h = (double*)calloc(9 * ((size_t)total + 1), sizeof(double));
            if (!L->pair_other || !L->pair_h || total > INT32_MAX) {
                free(tmp);
                return 0;
            }
        }
    }
    free(tmp);
    return 1;
}

/// The fine pair (i, j), i <= j, of build_pairs (a row's linear search: rows are short).
static double* pair_block(const dfm_cpu_coarse* L, int32_t i, int32_t j) {
    for (int32_t k = L->pair_first[i]; k < L->pair_first[i + 1]; ++k)
        if (L->pair_other[k] == j) return L->pair_h + 9 * (size_t)k;
    return NULL;
}

int dfm_cpu_coarse_prepare(dfm_cpu_coarse* L, const dfm_vbd_view* v, int64_t generation, int32_t nb,
                           const int32_t* boff) {
    const int32_t n = v->particle_count;
    L->body_offsets = boff;
    int32_t dynamic = 0;
    for (int32_t i = 0; i < n; ++i) dynamic += v->mode[i] == 0;
    if (L->generation == generation && L->particle_count == n && L->body_count == nb && L->dynamic_count == dynamic &&
        L->node_first)
        return 0;
    dfm_cpu_coarse_free(L);
    int32_t* node8 = (int32_t*)malloc(sizeof(int32_t) * 8 * ((size_t)n + 1));
    float* w8 = (float*)malloc(sizeof(float) * 8 * ((size_t)n + 1));
    L->node_first = (int32_t*)calloc((size_t)nb + 1, sizeof(int32_t));
    L->band_width = (int32_t*)calloc((size_t)nb + 1, sizeof(int32_t));
    L->band_first = (int64_t*)calloc((size_t)nb + 1, sizeof(int64_t));
    L->slot_first = (int32_t*)calloc((size_t)n + 1, sizeof(int32_t));
    L->factored = (uint8_t*)calloc((size_t)nb + 1, 1);
    L->force = (float*)malloc(sizeof(float) * 3 * ((size_t)n + 1));
    L->contact_trace = (float*)calloc((size_t)n + 1, sizeof(float));
    L->rhs_norm = (double*)calloc((size_t)nb + 1, sizeof(double));
    int ok = node8 && w8 && L->node_first && L->band_width && L->band_first && L->slot_first && L->factored &&
             L->force && L->contact_trace && L->rhs_norm;
    int32_t total = 0;
    for (int32_t b = 0; ok && b < nb; ++b) {
        L->node_first[b] = total;
        const int32_t used = build_body(v, boff[b], boff[b + 1], total, node8, w8);
        if (used < 0)
            ok = 0;
        else
            total += used;
    }
    int32_t slots = 0;
    if (ok) {
        L->node_first[nb] = total;
        for (int32_t i = 0; i < n; ++i) {
            L->slot_first[i] = slots;
            for (int s = 0; s < 8; ++s) slots += node8[8 * i + s] >= 0 && w8[8 * i + s] > 0.0f;
        }
        L->slot_first[n] = slots;
        L->slot_node = (int32_t*)malloc(sizeof(int32_t) * ((size_t)slots + 1));
        L->slot_weight = (float*)malloc(sizeof(float) * ((size_t)slots + 1));
        L->rhs = (double*)malloc(sizeof(double) * 3 * ((size_t)total + 1));
        ok = L->slot_node && L->slot_weight && L->rhs;
    }
    if (ok) {
        for (int32_t i = 0, k = 0; i < n; ++i)
            for (int s = 0; s < 8; ++s)
                if (node8[8 * i + s] >= 0 && w8[8 * i + s] > 0.0f) {
                    L->slot_node[k] = node8[8 * i + s];
                    L->slot_weight[k++] = w8[8 * i + s];
                }
        /* each body's half-bandwidth: the widest node pair coupled by an element or a particle */
        for (int32_t b = 0; b < nb; ++b) {
            int32_t spread = 0;
            for (int32_t i = boff[b]; i < boff[b + 1]; ++i) {
                spread = pair_spread(L, i, i, spread);
                for (int32_t k = v->v_tri_offsets[i]; k < v->v_tri_offsets[i + 1]; ++k)
                    for (int c = 0; c < 3; ++c)
                        spread = pair_spread(L, i, v->tris[3 * v->v_tri_items[2 * k] + c], spread);
                for (int32_t k = v->v_tet_offsets[i]; k < v->v_tet_offsets[i + 1]; ++k)
                    for (int c = 0; c < 4; ++c)
                        spread = pair_spread(L, i, v->tets[4 * v->v_tet_items[2 * k] + c], spread);
                for (int32_t k = 0; DFM_COARSE_BENDING && k < hinges_of(v, i); ++k)
                    for (int c = 0; c < 4; ++c)
                        spread = pair_spread(L, i, v->edges[4 * v->v_edge_items[2 * (v->v_edge_offsets[i] + k)] + c],
                                             spread);
            }
            const int32_t m = 3 * (L->node_first[b + 1] - L->node_first[b]);
            int32_t bw = DFM_COARSE_FULL_BAND ? m - 1 : 3 * spread + 2;
            if (bw > m - 1) bw = m > 0 ? m - 1 : 0;
            L->band_width[b] = bw;
            L->band_first[b + 1] = L->band_first[b] + (int64_t)m * (bw + 1);
        }
        L->band = (double*)malloc(sizeof(double) * ((size_t)L->band_first[nb] + 1));
        L->band_elements = (double*)malloc(sizeof(double) * ((size_t)L->band_first[nb] + 1));
        int32_t widest = 0;
        for (int32_t b = 0; b < nb; ++b)
            if (L->node_first[b + 1] - L->node_first[b] > widest) widest = L->node_first[b + 1] - L->node_first[b];
        L->friction = (double*)malloc(sizeof(double) * dfm_cpu_coarse_friction_work(3 * widest));
        L->patch_count = (int32_t*)calloc((size_t)nb + 1, sizeof(int32_t));
        L->patch_advance = (int64_t*)calloc((size_t)nb + 1, sizeof(int64_t));
        L->patch_shape = (int32_t*)calloc(((size_t)nb + 1) * DFM_PATCH_MAX, sizeof(int32_t));
        L->patch_force = (float*)calloc(((size_t)nb + 1) * DFM_PATCH_MAX * 3, sizeof(float));
        L->patch_slides = (uint8_t*)calloc(((size_t)nb + 1) * DFM_PATCH_MAX, 1);
        ok = L->band && L->band_elements && L->friction && L->patch_count && L->patch_advance && L->patch_shape &&
             L->patch_force && L->patch_slides && build_pairs(L, v);
    }
    if (ok && DFM_COARSE_PCG > 0) {
        int32_t nt = 0, ne = 0;
        for (int32_t i = 0; i < n; ++i) {
            for (int32_t k = v->v_tri_offsets[i]; k < v->v_tri_offsets[i + 1]; ++k)
                if (v->v_tri_items[2 * k] >= nt) nt = v->v_tri_items[2 * k] + 1;
            for (int32_t k = v->v_tet_offsets[i]; k < v->v_tet_offsets[i + 1]; ++k)
                if (v->v_tet_items[2 * k] >= ne) ne = v->v_tet_items[2 * k] + 1;
        }
        L->tri_total = nt;
        L->tet_total = ne;
        L->hp = (float*)malloc(sizeof(float) * 9 * ((size_t)n + 1));
        L->ktri = (float*)malloc(sizeof(float) * 81 * ((size_t)nt + 1));
        L->ktet = (float*)malloc(sizeof(float) * 144 * ((size_t)ne + 1));
        L->kedge = (float*)malloc(sizeof(float) * 144 * ((size_t)v->edge_count + 1));
        L->pcg = (double*)malloc(sizeof(double) * (12 * ((size_t)total + 1) + 6 * ((size_t)n + 1)));
        L->ftri = (float*)malloc(sizeof(float) * 6 * ((size_t)nt + 1));
        L->ftet = (float*)malloc(sizeof(float) * 9 * ((size_t)ne + 1));
        ok = L->hp && L->ktri && L->ktet && L->kedge && L->pcg && L->ftri && L->ftet;
    }
    free(node8);
    free(w8);
    if (!ok) {
        dfm_cpu_coarse_free(L);
        return -1;
    }
    L->node_total = total;
    L->particle_count = n;
    L->body_count = nb;
    L->dynamic_count = dynamic;
    L->body_offsets = boff;
    L->generation = generation;
    return 0;
}

/// Adds w_sI w_uJ H to node block (I, J) of the band of the body with first node nf, for every
/// slot s of particle a and u of particle b, keeping the lower triangle only: a block above the
/// diagonal goes in transposed (it is the mirror of the element's (b, a) block). `pair`: the
/// caller passes each unordered corner pair once, a != b, and this adds H^T at (J, I) as well
/// (both land in the lower triangle); a == b: H itself is symmetric.
static void add_pair_d(const dfm_cpu_coarse* L, double* band, int32_t bw, int32_t nf, int32_t a, int32_t b,
                       const double* H) {
    const int32_t w = bw + 1;
    const int pair = a != b;
    for (int32_t s = L->slot_first[a]; s < L->slot_first[a + 1]; ++s) {
        const int32_t I = L->slot_node[s] - nf;
        const double wa = L->slot_weight[s];
        for (int32_t u = L->slot_first[b]; u < L->slot_first[b + 1]; ++u) {
            const int32_t J = L->slot_node[u] - nf;
            const double ww = wa * L->slot_weight[u];
            if (I > J || (I == J && pair)) {
                /* (I, J) gets H; a pair's (J, I) block H^T sits above the diagonal (not stored), or
                   on it for I == J (added) */
                double* row0 = band + (size_t)(3 * I) * (size_t)w + (size_t)(3 * J - 3 * I + bw);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) {
                        if (I == J && c > r) continue;
                        double v = H[3 * r + c];
                        if (I == J) v += H[3 * c + r];
                        row0[(size_t)r * (size_t)w - (size_t)r + (size_t)c] += ww * v;
                    }
            } else if (I < J && pair) { /* (J, I) gets H^T */
                double* row0 = band + (size_t)(3 * J) * (size_t)w + (size_t)(3 * I - 3 * J + bw);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c)
                        row0[(size_t)r * (size_t)w - (size_t)r + (size_t)c] += ww * H[3 * c + r];
            } else if (I == J) { /* a == b, diagonal node block: lower part */
                double* row0 = band + (size_t)(3 * I) * (size_t)w + (size_t)bw;
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c <= r; ++c)
                        row0[(size_t)r * (size_t)w - (size_t)r + (size_t)c] += ww * H[3 * r + c];
            }
        }
    }
}

/// add_pair_d of a float block.
static void add_pair(const dfm_cpu_coarse* L, double* band, int32_t bw, int32_t nf, int32_t a, int32_t b,
                     const dfm_m33* H) {
    double h[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) h[3 * r + c] = H->m[r][c];
    add_pair_d(L, band, bw, nf, a, b, h);
}

/// Triangle t's PSD-projected exact membrane Hessian blocks (membrane_psd.h) at the iterate;
/// returns 0 for a triangle without stiffness (K untouched).
static int tri_hessian(const dfm_vbd_view* v, int32_t t, dfm_m33 K[3][3]) {
    const float* mat = v->tri_material + 3 * t;
    if (mat[0] <= 0.0f && mat[1] <= 0.0f) return 0;
    dfm_v3 x[3];
    for (int c = 0; c < 3; ++c) x[c] = dfm_v3_load(v->x + 3 * v->tris[3 * t + c]);
    float coef[3];
    if (v->tri_coef)
        for (int c = 0; c < 3; ++c) coef[c] = v->tri_coef[3 * t + c];
    else
        dfm_membrane_coef(v->tri_area[t], mat[0], mat[1], mat[2], v->h, coef);
    dfm_membrane_psd_hessian(x, v->tri_dinv + 4 * t, v->tri_area[t], mat[0], coef[0], coef[1], coef[2], 1, K);
    return 1;
}

/// Triangle t's deformation gradient columns (6 floats) at the iterate into out.
static void tri_F(const dfm_vbd_view* v, int32_t t, float out[6]) {
    dfm_v3 x[3], f0, f1;
    for (int c = 0; c < 3; ++c) x[c] = dfm_v3_load(v->x + 3 * v->tris[3 * t + c]);
    dfm_membrane_F_(x, v->tri_dinv + 4 * t, &f0, &f1);
    dfm_v3_store(f0, out);
    dfm_v3_store(f1, out + 3);
}

/// Tet t's deformation gradient (9 floats, row-major) at the iterate into out.
static void tet_F(const dfm_vbd_view* v, int32_t t, float out[9]) {
    dfm_v3 x[4];
    for (int c = 0; c < 4; ++c) x[c] = dfm_v3_load(v->x + 3 * v->tets[4 * t + c]);
    const dfm_m33 F = dfm_tet_F_(x, v->tet_dminv + 9 * t);
    memcpy(out, &F.m[0][0], sizeof(float) * 9);
}

/// 1 when the deformation gradient `now` (n floats) moved from `kept` by more than
/// DFM_COARSE_ELEMENT_TOL of |kept| (Frobenius); `kept` is then overwritten by `now`.
static int moved(float* kept, const float* now, int n) {
    float d2 = 0.0f, k2 = 0.0f;
    for (int q = 0; q < n; ++q) d2 += (now[q] - kept[q]) * (now[q] - kept[q]), k2 += kept[q] * kept[q];
    if (d2 <= DFM_COARSE_ELEMENT_TOL * DFM_COARSE_ELEMENT_TOL * k2) return 0;
    memcpy(kept, now, sizeof(float) * (size_t)n);
    return 1;
}

/// An element's n x n Hessian blocks K (row-major, K[a * n + c]) into the band, each unordered
/// pair of free corners once (add_pair); with `kept` not NULL the blocks are also copied there
/// (9 floats per block, zeros for an element without stiffness) for the later corrections'
/// coarse_apply (DFM_COARSE_PCG). stiff = 0: K is not read.
static void assemble_blocks(const dfm_cpu_coarse* L, const dfm_vbd_view* v, const int32_t* corners, int n,
                            const dfm_m33* K, int stiff, float* kept, double* band, int32_t bw, int32_t nf) {
    if (kept) {
        if (!stiff) memset(kept, 0, sizeof(float) * 9 * (size_t)(n * n));
        for (int q = 0; stiff && q < n * n; ++q) memcpy(kept + 9 * q, &K[q].m[0][0], sizeof(float) * 9);
    }
    if (!stiff) return;
    for (int a = 0; a < n; ++a) {
        const int32_t pa = corners[a];
        if (v->mode[pa] != 0) continue;
        for (int b = a; b < n; ++b) {
            const int32_t pb = corners[b];
            if (v->mode[pb] != 0) continue;
            /* into the fine pair (min, max) (flush_pairs projects each once); K[a][b] is the block of
             * row pa, column pb, so the pair (pb, pa) takes its transpose */
            double* h = pair_block(L, pa < pb ? pa : pb, pa < pb ? pb : pa);
            if (!h) { /* not an element pair (cannot happen for the level's own mesh): directly */
                add_pair(L, band, bw, nf, pa, pb, &K[a * n + b]);
                continue;
            }
            const dfm_m33* B = &K[a * n + b];
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) h[3 * r + c] += pa <= pb ? B->m[r][c] : B->m[c][r];
        }
    }
}

/// Projects the fine pairs of particles [p0, p1) (build_pairs, summed by assemble_blocks) into the
/// band once each (add_pair), and zeroes them: an element-shared pair costs one projection instead
/// of one per element (session 15: 56% of a soft body's coarse instructions were add_pair).
static void flush_pairs(const dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t p0, int32_t p1, double* band,
                        int32_t bw, int32_t nf) {
    for (int32_t i = p0; i < p1; ++i) {
        if (v->mode[i] != 0) continue;
        for (int32_t k = L->pair_first[i]; k < L->pair_first[i + 1]; ++k) {
            const int32_t j = L->pair_other[k];
            double* h = L->pair_h + 9 * (size_t)k;
            if (v->mode[j] == 0) add_pair_d(L, band, bw, nf, i, j, h);
            memset(h, 0, sizeof(double) * 9);
        }
    }
}

/// Triangle t's PSD-projected exact membrane Hessian (tri_hessian) into the band.
static void assemble_tri(const dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t t, double* band, int32_t bw,
                         int32_t nf) {
    dfm_m33 K[3][3];
    const int stiff = tri_hessian(v, t, K);
    if (L->ktri) tri_F(v, t, L->ftri + 6 * (size_t)t);
    assemble_blocks(L, v, v->tris + 3 * t, 3, &K[0][0], stiff, L->ktri ? L->ktri + 81 * (size_t)t : NULL, band, bw, nf);
}

/// Tet t's elastic Hessian blocks at the iterate (tet_hessian.h: exact where positive definite,
/// else Gauss-Newton); returns 0 for a tet without stiffness (K untouched).
static int tet_hessian(const dfm_vbd_view* v, int32_t t, dfm_m33 K[4][4]) {
    const float* mat = v->tet_material + 3 * t;
    dfm_v3 x[4];
    for (int c = 0; c < 4; ++c) x[c] = dfm_v3_load(v->x + 3 * v->tets[4 * t + c]);
    const int kind = dfm_tet_hessian_blocks(x, v->tet_dminv + 9 * t, v->tet_volume[t], mat[0], mat[1], K);
    return kind != 0;
}

/// Hinge e's bending Hessian blocks at the iterate, the sweeps' Gauss-Newton form as a whole 12x12:
/// K[a][b] = (k + kd L0 / h) g_a g_b^T, g the angle gradient (vbd_bending.h; the damping term where
/// the sweeps add it: a hinge not degenerate at the advance's start); returns 0 for a degenerate
/// hinge or one without stiffness (K untouched).
static int hinge_hessian(const dfm_vbd_view* v, int32_t e, dfm_m33 K[4][4]) {
    const float* mat = v->edge_material + 2 * e;
    float coef[2];
    if (v->edge_coef)
        coef[0] = v->edge_coef[2 * e], coef[1] = v->edge_coef[2 * e + 1];
    else
        dfm_bending_coef(v->edge_rest_length[e], mat[0], mat[1], v->h, coef);
    float hc = coef[0];
    if (coef[1] != 0.0f && !(v->edge_start_angle && isnan(v->edge_start_angle[e]))) hc += coef[1];
    if (!(hc > 0.0f)) return 0;
    dfm_v3 x[4], g[4];
    for (int c = 0; c < 4; ++c) x[c] = dfm_v3_load(v->x + 3 * v->edges[4 * e + c]);
    float th;
    if (!dfm_bending_geom_(x, &th, g)) return 0;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) K[a][b] = dfm_m33_add_outer(dfm_m33_zero(), g[a], g[b], hc);
    return 1;
}

/// Hinge e's Hessian (hinge_hessian) into the band (DFM_COARSE_BENDING).
static void assemble_hinge(const dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t e, double* band, int32_t bw,
                           int32_t nf) {
    dfm_m33 K[4][4];
    const int stiff = hinge_hessian(v, e, K);
    assemble_blocks(L, v, v->edges + 4 * e, 4, &K[0][0], stiff, L->kedge ? L->kedge + 144 * (size_t)e : NULL, band, bw,
                    nf);
}

/// Tet t's Hessian (tet_hessian) into the band.
static void assemble_tet(const dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t t, double* band, int32_t bw,
                         int32_t nf) {
    dfm_m33 K[4][4];
    const int stiff = tet_hessian(v, t, K);
    if (L->ktet) tet_F(v, t, L->ftet + 9 * (size_t)t);
    assemble_blocks(L, v, v->tets + 4 * t, 4, &K[0][0], stiff, L->ktet ? L->ktet + 144 * (size_t)t : NULL, band, bw,
                    nf);
}

/// Body b's coarse matrix: with `elements`, every element once (from its corner 0) into its
/// element band (kept for the advance); then the element band plus the inertia, drag and contact
/// Hessians per particle into its band, factored. Returns 1 when SPD. A contact refresh passes
/// elements 0: only the particles' blocks changed (measured on game-cloth: the element assembly
/// was 58% of the instructions when every contact change re-assembled it).
static int assemble_body(dfm_cpu_coarse* L, const dfm_vbd_view* v, const dfm_cpu_contacts* cc, int32_t b,
                         int elements) {
    const int32_t p0 = L->body_offsets[b], p1 = L->body_offsets[b + 1], nf = L->node_first[b];
    const int32_t m = 3 * (L->node_first[b + 1] - nf), bw = L->band_width[b];
    const size_t size = (size_t)(L->band_first[b + 1] - L->band_first[b]);
    double* band = L->band + L->band_first[b];
    double* el = L->band_elements + L->band_first[b];
    if (elements) {
        memset(el, 0, sizeof(double) * size);
        for (int32_t i = p0; i < p1; ++i) {
            for (int32_t k = v->v_tri_offsets[i]; k < v->v_tri_offsets[i + 1]; ++k)
                if (v->v_tri_items[2 * k + 1] == 0) assemble_tri(L, v, v->v_tri_items[2 * k], el, bw, nf);
            for (int32_t k = v->v_tet_offsets[i]; k < v->v_tet_offsets[i + 1]; ++k)
                if (v->v_tet_items[2 * k + 1] == 0) assemble_tet(L, v, v->v_tet_items[2 * k], el, bw, nf);
            for (int32_t k = 0; DFM_COARSE_BENDING && k < hinges_of(v, i); ++k) {
                const int32_t q = v->v_edge_offsets[i] + k;
                if (v->v_edge_items[2 * q + 1] == 0) assemble_hinge(L, v, v->v_edge_items[2 * q], el, bw, nf);
            }
        }
        flush_pairs(L, v, p0, p1, el, bw, nf);
    }
    ++L->factorizations;
    for (int attempt = 0; attempt < 2; ++attempt) {
        memcpy(band, el, sizeof(double) * size);
        for (int32_t i = p0; i < p1; ++i) {
            if (v->mode[i] != 0) continue;
            dfm_v3 fc;
            dfm_m33 Hc, Hp;
            if (cc && cc->gather)
                dfm_cpu_contact_terms(v, cc, i, &fc, &Hc);
            else
                fc = dfm_v3_zero(), Hc = dfm_m33_zero();
            L->contact_trace[i] = dfm_m33_trace(Hc);
            dfm_vbd_particle_base(v, i, fc, Hc, &fc, &Hp);
            if (L->hp) memcpy(L->hp + 9 * (size_t)i, &Hp.m[0][0], sizeof(float) * 9); /* coarse_apply */
            add_pair(L, band, bw, nf, i, i, &Hp);
        }
        if (attempt == 1) { /* the retry: shifted by DFM_COARSE_NULL_SHIFT of the largest diagonal entry */
            double top = 0.0;
            for (int32_t r = 0; r < m; ++r) top = fmax(top, band[(size_t)r * (size_t)(bw + 1) + (size_t)bw]);
            for (int32_t r = 0; r < m; ++r)
                band[(size_t)r * (size_t)(bw + 1) + (size_t)bw] += DFM_COARSE_NULL_SHIFT * top;
            ++L->shifted;
        }
        if (dfm_cpu_band_cholesky(band, m, bw)) return 1;
    }
    ++L->failed;
    return 0;
}

/// Body b's element Hessians (tri_hessian, tet_hessian) into L->ktri / L->ktet, each element once
/// (from its corner 0), re-evaluated only for the elements whose deformation gradient moved by
/// more than DFM_COARSE_ELEMENT_TOL since their blocks were evaluated (the blocks are a function
/// of it); an element without stiffness gets zero blocks. Returns the elements re-evaluated.
static int64_t store_element_hessians(dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t b) {
    int64_t redone = 0;
    for (int32_t i = L->body_offsets[b]; i < L->body_offsets[b + 1]; ++i) {
        for (int32_t k = v->v_tri_offsets[i]; k < v->v_tri_offsets[i + 1]; ++k) {
            if (v->v_tri_items[2 * k + 1] != 0) continue;
            const int32_t t = v->v_tri_items[2 * k];
            float F[6];
            tri_F(v, t, F);
            if (!moved(L->ftri + 6 * (size_t)t, F, 6)) continue;
            ++redone;
            dfm_m33 K[3][3];
            float* out = L->ktri + 81 * (size_t)t;
            if (!tri_hessian(v, t, K)) {
                memset(out, 0, sizeof(float) * 81);
                continue;
            }
            for (int a = 0; a < 3; ++a)
                for (int c = 0; c < 3; ++c) memcpy(out + 9 * (3 * a + c), &K[a][c].m[0][0], sizeof(float) * 9);
        }
        for (int32_t k = v->v_tet_offsets[i]; k < v->v_tet_offsets[i + 1]; ++k) {
            if (v->v_tet_items[2 * k + 1] != 0) continue;
            const int32_t t = v->v_tet_items[2 * k];
            float F[9];
            tet_F(v, t, F);
            if (!moved(L->ftet + 9 * (size_t)t, F, 9)) continue;
            ++redone;
            dfm_m33 K[4][4];
            float* out = L->ktet + 144 * (size_t)t;
            if (!tet_hessian(v, t, K)) {
                memset(out, 0, sizeof(float) * 144);
                continue;
            }
            for (int a = 0; a < 4; ++a)
                for (int c = 0; c < 4; ++c) memcpy(out + 9 * (4 * a + c), &K[a][c].m[0][0], sizeof(float) * 9);
        }
        for (int32_t k = 0; DFM_COARSE_BENDING && k < hinges_of(v, i); ++k) {
            const int32_t q = v->v_edge_offsets[i] + k;
            if (v->v_edge_items[2 * q + 1] != 0) continue;
            const int32_t e = v->v_edge_items[2 * q];
            dfm_m33 K[4][4];
            float* out = L->kedge + 144 * (size_t)e;
            if (!hinge_hessian(v, e, K)) { /* rank one and cheap: every hinge, no moved() test */
                memset(out, 0, sizeof(float) * 144);
                continue;
            }
            for (int a = 0; a < 4; ++a)
                for (int c = 0; c < 4; ++c) memcpy(out + 9 * (4 * a + c), &K[a][c].m[0][0], sizeof(float) * 9);
        }
    }
    return redone;
}

/// y += K u for one 3x3 block K (row-major), u and y 3 floats.
static inline void block_madd(const float* K, const float* u, float* y) {
    y[0] += K[0] * u[0] + K[1] * u[1] + K[2] * u[2];
    y[1] += K[3] * u[0] + K[4] * u[1] + K[5] * u[2];
    y[2] += K[6] * u[0] + K[7] * u[1] + K[8] * u[2];
}

/// y_a += sum_c K[a][c] u_c over an element's `nc` corners `corner` (K: nc x nc blocks, row-major
/// floats; pinned corners have u = 0 and take nothing).
static inline void element_apply(const dfm_vbd_view* v, const int32_t* corner, int nc, const float* K, float* work,
                                 int32_t p0) {
    float u[4][3];
    for (int c = 0; c < nc; ++c) memcpy(u[c], work + 6 * (size_t)(corner[c] - p0), sizeof(float) * 3);
    for (int a = 0; a < nc; ++a) {
        if (v->mode[corner[a]] != 0) continue;
        float y[3] = {0.0f, 0.0f, 0.0f};
        for (int c = 0; c < nc; ++c) block_madd(K + 9 * (nc * a + c), u[c], y);
        float* ya = work + 6 * (size_t)(corner[a] - p0) + 3;
        ya[0] += y[0], ya[1] += y[1], ya[2] += y[2];
    }
}

/// q = P^T H P p for body b's coarse vector p (3 per node, from the body's first node): H is the
/// particles' L->hp blocks plus the stored element blocks, applied on the particles in float (u =
/// P p, y = H u per particle in `work`, 6 floats per particle: u then y; pinned ones u = 0).
static void coarse_apply(const dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t b, const double* p, double* q,
                         double* work_d) {
    const int32_t p0 = L->body_offsets[b], p1 = L->body_offsets[b + 1], nf = L->node_first[b];
    const int32_t m = 3 * (L->node_first[b + 1] - nf);
    float* work = (float*)work_d;
    for (int32_t i = p0; i < p1; ++i) {
        float* u = work + 6 * (size_t)(i - p0);
        u[0] = u[1] = u[2] = u[3] = u[4] = u[5] = 0.0f;
        if (v->mode[i] != 0) continue;
        double d[3] = {0.0, 0.0, 0.0};
        for (int32_t s = L->slot_first[i]; s < L->slot_first[i + 1]; ++s) {
            const double* r = p + 3 * (size_t)(L->slot_node[s] - nf);
            const double w = L->slot_weight[s];
            d[0] += w * r[0], d[1] += w * r[1], d[2] += w * r[2];
        }
        u[0] = (float)d[0], u[1] = (float)d[1], u[2] = (float)d[2];
        block_madd(L->hp + 9 * (size_t)i, u, u + 3);
    }
    for (int32_t i = p0; i < p1; ++i) {
        for (int32_t k = v->v_tri_offsets[i]; k < v->v_tri_offsets[i + 1]; ++k)
            if (v->v_tri_items[2 * k + 1] == 0) {
                const int32_t t = v->v_tri_items[2 * k];
                element_apply(v, v->tris + 3 * (size_t)t, 3, L->ktri + 81 * (size_t)t, work, p0);
            }
        for (int32_t k = v->v_tet_offsets[i]; k < v->v_tet_offsets[i + 1]; ++k)
            if (v->v_tet_items[2 * k + 1] == 0) {
                const int32_t t = v->v_tet_items[2 * k];
                element_apply(v, v->tets + 4 * (size_t)t, 4, L->ktet + 144 * (size_t)t, work, p0);
            }
        for (int32_t k = 0; DFM_COARSE_BENDING && k < hinges_of(v, i); ++k) {
            const int32_t it = v->v_edge_offsets[i] + k;
            if (v->v_edge_items[2 * it + 1] != 0) continue;
            const int32_t e = v->v_edge_items[2 * it];
            element_apply(v, v->edges + 4 * (size_t)e, 4, L->kedge + 144 * (size_t)e, work, p0);
        }
    }
    memset(q, 0, sizeof(double) * (size_t)m);
    for (int32_t i = p0; i < p1; ++i) {
        if (v->mode[i] != 0) continue;
        const float* y = work + 6 * (size_t)(i - p0) + 3;
        for (int32_t s = L->slot_first[i]; s < L->slot_first[i + 1]; ++s) {
            double* r = q + 3 * (size_t)(L->slot_node[s] - nf);
            const double w = L->slot_weight[s];
            r[0] += w * y[0], r[1] += w * y[1], r[2] += w * y[2];
        }
    }
}

static double dot(const double* a, const double* b, int32_t m) {
    double s = 0.0;
    for (int32_t r = 0; r < m; ++r) s += a[r] * b[r];
    return s;
}

/// DFM_COARSE_PCG iterations of conjugate gradients on body b's current coarse system (coarse_apply)
/// with right side `rhs` (overwritten by the step), preconditioned by the body's factor of this
/// advance. Returns 0 when a curvature is not positive or not finite (rhs then holds no step).
static int coarse_pcg(dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t b, double* rhs) {
    const int32_t nf = L->node_first[b], m = 3 * (L->node_first[b + 1] - nf), bw = L->band_width[b];
    const double* band = L->band + L->band_first[b];
    double* x = L->pcg;
    double* r = x + m;
    double* z = r + m;
    double* q = z + m;
    double* work = L->pcg + 12 * ((size_t)L->node_total + 1);
    double* p = rhs; /* the search direction lives in rhs until the end */
    memcpy(r, rhs, sizeof(double) * (size_t)m);
    memset(x, 0, sizeof(double) * (size_t)m);
    memcpy(z, r, sizeof(double) * (size_t)m);
    dfm_cpu_band_solve(band, m, bw, z);
    memcpy(p, z, sizeof(double) * (size_t)m);
    double rz = dot(r, z, m);
    int ok = 1;
    for (int k = 0; k < DFM_COARSE_PCG; ++k) {
        coarse_apply(L, v, b, p, q, work);
        ++L->pcg_iterations;
        const double pq = dot(p, q, m);
        if (!(pq > 0.0) || !(rz == rz)) {
            ok = k > 0; /* keep the iterate of the iterations before */
            break;
        }
        const double alpha = rz / pq;
        for (int32_t j = 0; j < m; ++j) x[j] += alpha * p[j], r[j] -= alpha * q[j];
        if (k + 1 == DFM_COARSE_PCG) break;
        memcpy(z, r, sizeof(double) * (size_t)m);
        dfm_cpu_band_solve(band, m, bw, z);
        const double rz1 = dot(r, z, m);
        const double beta = rz > 0.0 ? rz1 / rz : 0.0;
        rz = rz1;
        for (int32_t j = 0; j < m; ++j) p[j] = z[j] + beta * p[j];
    }
    memcpy(rhs, x, sizeof(double) * (size_t)m);
    return ok;
}

void dfm_cpu_coarse_correct(dfm_cpu_coarse* L, const dfm_vbd_view* v, const dfm_cpu_contacts* cc,
                            const struct dfm_cpu_simd* simd, int nt, int first) {
    if (!L->node_first || L->particle_count != v->particle_count) return;
    /* every particle's force less contacts, -dfm_vbd_particle_need, in the lanes (measured: the
       scalar per-particle pass with its Hessians was 57% of a corrected swing's instructions) */
    const int use_pcg = DFM_COARSE_PCG > 0 && L->pcg; /* coarse_cpu.h */
    if (first) ++L->advances, L->advance_call = 0;
    if (L->advance_call++ % DFM_COARSE_EVERY != 0) return; /* coarse_cpu.h */
    if (simd) dfm_cpu_simd_need(simd, v, L->force, nt);
    /* with the PCG, the factor is renewed at the first correction of every
       DFM_COARSE_REFACTOR_ADVANCES-th advance only */
    const int renew = first && (!use_pcg || (L->advances - 1) % DFM_COARSE_REFACTOR_ADVANCES == 0);
    const float h2 = v->h * v->h;
    for (int32_t b = 0; b < L->body_count; ++b) {
        const int32_t p0 = L->body_offsets[b], p1 = L->body_offsets[b + 1], nf = L->node_first[b];
        const int32_t m = 3 * (L->node_first[b + 1] - nf);
        if (m == 0) continue;
        const int assemble = renew || DFM_COARSE_REASSEMBLE || (first && !L->factored[b]);
        const int pcg = use_pcg && !assemble;
        /* each particle's local force at the iterate (the sweeps' f); a contact Hessian that changed
           since the assembly asks for a new coarse matrix (coarse_cpu.h) */
        int changed = 0;
        for (int32_t i = p0; i < p1; ++i) {
            if (v->mode[i] != 0) continue;
            dfm_v3 f;
            dfm_m33 H;
            if (cc && cc->gather)
                dfm_cpu_contact_terms(v, cc, i, &f, &H);
            else
                f = dfm_v3_zero(), H = dfm_m33_zero();
            const float dtr = fabsf(dfm_m33_trace(H) - L->contact_trace[i]);
            if (!assemble && dtr > DFM_COARSE_CONTACT_REFRESH * L->contact_trace[i] + 1e-3f * v->mass[i] / h2)
                changed = 1;
            if (pcg) { /* the particle's inertia, drag and contact Hessian for coarse_apply */
                dfm_v3 fp;
                dfm_m33 Hp;
                dfm_vbd_particle_base(v, i, dfm_v3_zero(), H, &fp, &Hp);
                memcpy(L->hp + 9 * (size_t)i, &Hp.m[0][0], sizeof(float) * 9);
            }
            /* contact - need, in the same order on both paths (the lanes' need is bitwise
               dfm_vbd_particle_need): the scalar path added inertia to the contact force first, so
               the lanes and the scalar path differed in the last bits with the feature */
            f = dfm_v3_sub(f, simd ? dfm_v3_load(L->force + 3 * i) : dfm_vbd_particle_need(v, i));
            dfm_v3_store(f, L->force + 3 * i);
        }
        double* rhs = L->rhs + 3 * (size_t)nf; /* P^T f */
        memset(rhs, 0, sizeof(double) * (size_t)m);
        for (int32_t i = p0; i < p1; ++i) {
            if (v->mode[i] != 0) continue;
            const float* f = L->force + 3 * i;
            for (int32_t s = L->slot_first[i]; s < L->slot_first[i + 1]; ++s) {
                double* r = rhs + 3 * (size_t)(L->slot_node[s] - nf);
                const double w = L->slot_weight[s];
                r[0] += w * f[0];
                r[1] += w * f[1];
                r[2] += w * f[2];
            }
        }
        double norm = 0.0;
        for (int32_t r = 0; r < m; ++r) norm += rhs[r] * rhs[r];
        const int grew = !assemble && norm > L->rhs_norm[b];
        L->rhs_norm[b] = norm;
        if (pcg) {
            if (!L->factored[b]) continue;
            if (DFM_COARSE_PCG_ELEMENTS || (grew && DFM_COARSE_REFRESH_ON_GROWTH)) {
                L->element_refresh += store_element_hessians(L, v, b);
                if (grew) ++L->residual_refresh;
            }
            if (!coarse_pcg(L, v, b, rhs)) continue;
        } else if (assemble || changed || (grew && DFM_COARSE_REFRESH_ON_GROWTH)) {
            const int elements = assemble || (grew && DFM_COARSE_REFRESH_ON_GROWTH);
            L->factored[b] = (uint8_t)assemble_body(L, v, cc, b, elements);
            if (changed)
                ++L->contact_refresh;
            else if (grew && DFM_COARSE_REFRESH_ON_GROWTH)
                ++L->residual_refresh;
        }
        if (!L->factored[b]) continue;
        if (!pcg) dfm_cpu_band_solve(L->band + L->band_first[b], m, L->band_width[b], rhs);
        if (DFM_COARSE_FRICTION && cc && cc->gather && cc->view && cc->coarse_friction &&
            dfm_cpu_coarse_friction(L, v, cc->view, b, rhs, L->friction) < 0)
            ++L->friction_skipped;
        for (int32_t i = p0; i < p1; ++i) {
            if (v->mode[i] != 0 || L->slot_first[i] == L->slot_first[i + 1]) continue;
            double dd[3] = {0.0, 0.0, 0.0};
            for (int32_t s = L->slot_first[i]; s < L->slot_first[i + 1]; ++s) {
                const double* r = rhs + 3 * (size_t)(L->slot_node[s] - nf);
                const double w = L->slot_weight[s];
                dd[0] += w * r[0], dd[1] += w * r[1], dd[2] += w * r[2];
            }
            const dfm_v3 d = dfm_v3_add(dfm_v3_load(v->d + 3 * i),
                                        dfm_v3_make((float)dd[0], (float)dd[1], (float)dd[2]));
            if (!dfm_v3_isfinite(d)) continue;
            dfm_v3_store(d, v->d + 3 * i);
            dfm_v3_store(dfm_v3_add(dfm_v3_load(v->x_prev + 3 * i), d), v->x + 3 * i);
        }
        ++L->corrections;
    }
}

int dfm_cpu_coarse_assemble(dfm_cpu_coarse* L, const dfm_vbd_view* v, const dfm_cpu_contacts* cc, int32_t b) {
    if (!L->node_first || b < 0 || b >= L->body_count || L->node_first[b + 1] == L->node_first[b]) return 0;
    L->factored[b] = (uint8_t)assemble_body(L, v, cc, b, 1);
    return L->factored[b];
}

int dfm_cpu_coarse_apply(const dfm_cpu_coarse* L, const dfm_vbd_view* v, int32_t b, const double* p, double* q) {
    if (!L->pcg || b < 0 || b >= L->body_count) return 0;
    coarse_apply(L, v, b, p, q, L->pcg + 12 * ((size_t)L->node_total + 1));
    return 1;
}
