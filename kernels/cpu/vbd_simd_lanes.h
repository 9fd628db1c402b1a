/// @file vbd_simd_lanes.h
/// The lane kernels of the CPU per-color solve for one width W (DFM_SIMD_W = 4 or 8), included
/// once by each width's translation unit (vbd_simd_sse2.c, vbd_simd_avx2.c) with DFM_SIMD_W and
/// DFM_SIMD_NAME(x) defined. GCC/Clang vector extensions; the element math is the scalar
/// functions of kernels/shared (vbd_membrane.h, vbd_bending.h, vbd_tet.h) written over lanes with
/// exactly their operations in their order, so every lane's bits are the scalar path's
/// (tests/cpu/test_cpu_simd_bitwise.c checks it). Branches become per-lane selects (a lane that
/// the scalar code skips keeps its accumulators' bits, not even +0 is added), the hinge angle is
/// dfm_atan2f's body over lanes (kernels/shared/dfm_atan2_body.h, the scalar path's operations),
/// and sqrt and division are the correctly rounded vector instructions. With deformable contact
/// (issue 16) a colour runs sub-colour by sub-colour over its groups (the other particles inactive
/// lanes), and each lane particle's pairs are evaluated W items at a time (lane_pairs: closest
/// points, energy, friction of kernels/shared/deform_contact.h over lanes), their products added
/// to the particle's accumulators item by item in list order, as the scalar gather adds them.
///
/// Layout (P4), filled once per step by fill(): per color, its particles ordered by degree
/// (order_color: groups of nearly equal degree, so slots are mostly full) in lane groups of W
/// (the last one padded with inactive lanes); per group, slot s of its triangle list holds each
/// lane particle's s-th incident triangle (an inactive lane where a particle has fewer), then the
/// hinges, then the tets, each slot one block of per-lane arrays: the vertices' float offsets for
/// the position gathers, the rest data, this step's coefficients (vbd_coef.h) and the
/// corner-dependent factors (membrane a, b; tet m), so the sweep reads contiguous W-wide rows.
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-and-done — the colors are the levels; a color's particles are
///   independent, so W of them run in the lanes and the lane groups fork over workers for large
///   colors (vbd_simd.c), the colors in sequence.
/// - P2 parallel independent columns: applies-and-done — the W lanes are independent particles;
///   within a lane the element sums keep the scalar order (bitwise results).
/// - P3 loop-invariant hoisting: applies-and-done — the per-element coefficients and the
///   corner-dependent factors are packed once per step, not per visit; the hinges' step-start
///   angles once per advance (vbd_particle.h).
/// - P4 offline memory layout: applies-and-done for the element data (color order, W-wide rows,
///   padded per group); applies-TODO for the positions: they stay in particle order (xyz per
///   particle, the scalar path's and the ABI's layout), so each vertex costs three gathers.
#ifndef DFM_SIMD_W
#error "define DFM_SIMD_W (4 or 8) and DFM_SIMD_NAME before including vbd_simd_lanes.h"
#endif

#include <float.h>
#include <immintrin.h>
#include <string.h>

#include "contacts_cpu.h"
#include "vbd_cpu.h"
#include "vbd_particle.h"
#include "vbd_simd.h"

#define W DFM_SIMD_W

typedef float vf __attribute__((vector_size(4 * W)));
typedef int32_t vi __attribute__((vector_size(4 * W)));

/// A 3-vector over lanes.
typedef struct v3 {
    vf x, y, z;
} v3;
/// A row-major 3x3 matrix over lanes.
typedef struct m3 {
    vf m[3][3];
} m3;

static inline vf vld(const float* p) {
    vf r;
    memcpy(&r, p, sizeof r);
    return r;
}
static inline vi vldi(const int32_t* p) {
    vi r;
    memcpy(&r, p, sizeof r);
    return r;
}
static inline void vst(float* p, vf a) { memcpy(p, &a, sizeof a); }
static inline vf vsplat(float s) { return (vf){0} + s; }
/// m ? a : b per lane (m: all ones or zeros).
static inline vf vsel(vi m, vf a, vf b) {
#if W == 8
    return (vf)_mm256_blendv_ps((__m256)b, (__m256)a, (__m256)m); /* by the sign bit: m is all ones or zeros */
#else
    return (vf)(((vi)a & m) | ((vi)b & ~m));
#endif
}
static inline vf vsqrt(vf a) {
#if W == 8
    return (vf)_mm256_sqrt_ps((__m256)a);
#else
    return (vf)_mm_sqrt_ps((__m128)a);
#endif
}
/// dfm_fmaxf per lane: a when a > b or b is NaN, else b.
static inline vf vmax(vf a, vf b) { return vsel((a > b) | (b != b), a, b); }
/// dfm_fmaxf per lane where b is never NaN (a constant), or where a NaN operand leaves the lane
/// inactive whatever the result (argued at each use): then it is a > b ? a : b, which is the
/// maxps instruction (it returns its second operand when either is NaN and for equal operands).
static inline vf vmaxn(vf a, vf b) {
#if W == 8
    return (vf)_mm256_max_ps((__m256)a, (__m256)b);
#else
    return (vf)_mm_max_ps((__m128)a, (__m128)b);
#endif
}
/// isfinite per lane.
static inline vi vfinite(vf a) { return (vf)((vi)a & 0x7fffffff) <= FLT_MAX; }
/// The lanes' mask bits (bit l set when lane l is on).
static inline int vmask(vi m) {
#if W == 8
    return _mm256_movemask_ps((__m256)m);
#else
    return _mm_movemask_ps((__m128)m);
#endif
}
static inline int vany(vi m) {
#if W == 8
    return _mm256_movemask_ps((__m256)m) != 0;
#else
    return _mm_movemask_ps((__m128)m) != 0;
#endif
}
/// True when every lane of m is on.
static inline int vall(vi m) { return vmask(m) == (1 << W) - 1; }
/// base[idx[l]] per lane (idx: float offsets).
static inline vf vgather(const float* base, vi idx) {
#if W == 8
    return (vf)_mm256_i32gather_ps(base, (__m256i)idx, 4);
#else
    vf r;
    for (int l = 0; l < W; ++l) r[l] = base[idx[l]];
    return r;
#endif
}
static inline v3 v3_gather(const float* base, vi idx) {
    v3 r = {vgather(base, idx), vgather(base + 1, idx), vgather(base + 2, idx)};
    return r;
}

/// fabsf per lane.
static inline vf vabs(vf a) { return (vf)((vi)a & 0x7fffffff); }
/// Lanes whose sign bit is set (the mask of dfm_signbit_).
static inline vi vsignbit(vf a) { return (vi)a < 0; }
/// copysignf per lane.
static inline vf vcopysign(vf a, vf b) { return (vf)(((vi)a & 0x7fffffff) | ((vi)b & INT32_MIN)); }
/* dfm_atan2f over lanes: the same body as the scalar function (dfm_atan2.h), so bitwise its values. */
#define DFM_ATAN2_FN vatan2
#define DFM_ATAN2_DECL static inline
#define DFM_ATAN2_T vf
#define DFM_ATAN2_SEL(m, a, b) vsel((m), (a), (b))
#define DFM_ATAN2_SPLAT(c) vsplat(c)
#define DFM_ATAN2_ABS(a) vabs(a)
#define DFM_ATAN2_NEG(a) vsignbit(a)
#define DFM_ATAN2_COPYSIGN(a, b) vcopysign((a), (b))
#include "dfm_atan2_body.h"

static inline v3 v3_add(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline v3 v3_sub(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline v3 v3_scale(v3 a, vf s) { return (v3){a.x * s, a.y * s, a.z * s}; }
/// a + b * s (dfm_v3_madd).
static inline v3 v3_madd(v3 a, v3 b, vf s) { return (v3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static inline v3 v3_neg(v3 a) { return (v3){-a.x, -a.y, -a.z}; }
static inline vf v3_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 v3_cross(v3 a, v3 b) {
    return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline v3 v3_sel(vi m, v3 a, v3 b) { return (v3){vsel(m, a.x, b.x), vsel(m, a.y, b.y), vsel(m, a.z, b.z)}; }
static inline vf v3_get(v3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }

static inline m3 m3_zero(void) {
    m3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = vsplat(0.0f);
    return r;
}
static inline m3 m3_diag(vf s) {
    m3 r = m3_zero();
    r.m[0][0] = r.m[1][1] = r.m[2][2] = s;
    return r;
}
static inline m3 m3_add(m3 a, m3 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += b.m[i][j];
    return a;
}
static inline m3 m3_scale(m3 a, vf s) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] *= s;
    return a;
}
/// a + s * (u v^T), as dfm_m33_add_outer: a_ij += (s u_i) v_j.
static inline m3 m3_add_outer(m3 a, v3 u, v3 v, vf s) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] += s * v3_get(u, i) * v3_get(v, j);
    return a;
}
static inline m3 m3_sel(vi m, m3 a, m3 b) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.m[i][j] = vsel(m, a.m[i][j], b.m[i][j]);
    return a;
}
/// *f, *H = fn, Hn on the lanes in `on`, kept elsewhere; no blend when every lane is on (the
/// same bits: a select with an all-ones mask is its first operand).
static inline __attribute__((always_inline)) void acc_sel(vi on, v3 fn, m3 Hn, v3* f, m3* H) {
    if (vall(on)) {
        *f = fn;
        *H = Hn;
    } else {
        *f = v3_sel(on, fn, *f);
        *H = m3_sel(on, Hn, *H);
    }
}
static inline v3 m3_col(m3 a, int j) { return (v3){a.m[0][j], a.m[1][j], a.m[2][j]}; }
static inline vf m3_det(m3 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
static inline m3 m3_cofactor(m3 a) {
    m3 c;
    c.m[0][0] = a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1];
    c.m[0][1] = a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2];
    c.m[0][2] = a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0];
    c.m[1][0] = a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2];
    c.m[1][1] = a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0];
    c.m[1][2] = a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1];
    c.m[2][0] = a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1];
    c.m[2][1] = a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2];
    c.m[2][2] = a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0];
    return c;
}

/* ---- the layout ------------------------------------------------------------------------------ */

/// One lane group: its particles (-1 = padding) and its slot counts.
typedef struct group {
    int32_t p[W];
    int32_t ps[W];             ///< p with every inactive lane (padding, not dynamic) repeating an active one's.
    int32_t tris, edges, tets; ///< Slots of each kind.
    int32_t dyn;               ///< Bit l set: lane l holds a dynamic particle (mode 0; the mode is fixed in a step).
    int64_t off;               ///< Byte offset of its first block from the layout's start.
} group;

/// Slot of a triangle per lane (dfm_membrane_force_hessian_coef's inputs).
typedef struct tri_blk {
    int32_t on[W];    ///< -1: the scalar path visits this triangle (active material, corner 0..2).
    int32_t i[3][W];  ///< 3 * vertex index (float offsets into x, x_prev).
    float dinv[4][W]; ///< D^-1 row-major.
    float area[W], mu[W], lam[W], alpha[W], k[W];
    float a[W], b[W]; ///< dF/dx_vi = [a I, b I].
} tri_blk;

/// Slot of a hinge per lane (dfm_bending_force_hessian_coef's inputs).
typedef struct edge_blk {
    int32_t on[W];
    int32_t i[4][W];
    int32_t e[W]; ///< Edge index (its step-start angle is read per advance).
    int32_t corner[W];
    float rest[W], k[W], kdl[W];
} edge_blk;

/// Slot of a tet per lane (dfm_tet_force_hessian_coef's inputs).
typedef struct tet_blk {
    int32_t on[W];
    int32_t i[4][W];
    float dminv[9][W];
    float vol[W], mu[W], lam[W], alpha[W], k[W];
    float m[3][W]; ///< dF/dx_vi = I (x) m^T.
} tet_blk;

/// Layout header: color_count, group_count, the groups' byte offset; then color_count + 1 group
/// offsets, the ordered particles of the colors and their sort's scratch, then the groups.
typedef struct header {
    int32_t color_count, group_count;
    int64_t groups_at; ///< Byte offset of the groups (after the ordered particles, order_color).
} header;

static inline const int32_t* color_groups(const void* layout) { return (const int32_t*)((const header*)layout + 1); }
static inline size_t groups_offset(int32_t color_count) {
    size_t b = sizeof(header) + ((size_t)color_count + 1u) * sizeof(int32_t);
    return (b + 63u) & ~(size_t)63u;
}

static inline int32_t deg(const int32_t* offsets, int32_t p) { return offsets ? offsets[p + 1] - offsets[p] : 0; }

/// Radix buckets of order_color's sort: degrees 0 .. DEG_BUCKETS - 2, larger ones share the last.
#define DEG_BUCKETS 64

/// One stable counting pass: src[0, n) into dst by key(deg of its particle), largest degree first.
static void order_pass(const int32_t* offsets, const int32_t* src, int32_t* dst, int32_t n) {
    int32_t start[DEG_BUCKETS + 1] = {0};
    for (int32_t k = 0; k < n; ++k) {
        const int32_t d = deg(offsets, src[k]);
        ++start[DEG_BUCKETS - 1 - (d < DEG_BUCKETS - 1 ? d : DEG_BUCKETS - 1) + 1];
    }
    for (int b = 0; b < DEG_BUCKETS; ++b) start[b + 1] += start[b];
    for (int32_t k = 0; k < n; ++k) {
        const int32_t d = deg(offsets, src[k]);
        dst[start[DEG_BUCKETS - 1 - (d < DEG_BUCKETS - 1 ? d : DEG_BUCKETS - 1)]++] = src[k];
    }
}

/// A color's particles ordered by hinge degree, then triangle degree, then tet degree (largest first;
/// stable: ties keep the color's order) into out, tmp the same size: lane groups cut from this order
/// have slots of nearly equal fill. Only which particles share a group changes (a color's particles
/// are independent, each one's elements keep their order), so no bit of the solve does.
static void order_color(const dfm_vbd_view* v, const int32_t* particles, int32_t n, int32_t* out, int32_t* tmp) {
    order_pass(v->v_tet_offsets, particles, tmp, n); /* least significant key first */
    order_pass(v->v_tri_offsets, tmp, out, n);
    memcpy(tmp, out, (size_t)n * sizeof(int32_t));
    order_pass(v->v_edge_offsets, tmp, out, n);
}

/// Slot counts of the group of particles p[0, n): the largest degree of each kind.
static void group_slots(const dfm_vbd_view* v, const int32_t* p, int32_t n, int32_t* nt, int32_t* ne, int32_t* nk) {
    *nt = *ne = *nk = 0;
    for (int32_t l = 0; l < n; ++l) {
        if (deg(v->v_tri_offsets, p[l]) > *nt) *nt = deg(v->v_tri_offsets, p[l]);
        if (deg(v->v_edge_offsets, p[l]) > *ne) *ne = deg(v->v_edge_offsets, p[l]);
        if (deg(v->v_tet_offsets, p[l]) > *nk) *nk = deg(v->v_tet_offsets, p[l]);
    }
}

size_t DFM_SIMD_NAME(fill)(const dfm_vbd_view* v, int32_t color_count, const int32_t* color_offsets,
                           const int32_t* color_particles, void* buf, size_t cap) {
    if (!v->tri_coef || !v->edge_coef || !v->tet_coef || (v->edge_count > 0 && !v->edge_start_angle)) return 0;
    /* Sizes: groups, the ordered particles (and their sort's scratch), blocks. */
    int32_t ng = 0;
    for (int32_t c = 0; c < color_count; ++c) ng += (color_offsets[c + 1] - color_offsets[c] + W - 1) / W;
    const int32_t np = color_offsets[color_count];
    const size_t ooff = groups_offset(color_count);
    const size_t goff = (ooff + 2u * (size_t)np * sizeof(int32_t) + 63u) & ~(size_t)63u;
    const size_t boff = goff + (size_t)ng * sizeof(group);
    size_t blocks = 0;
    if (!buf || cap < boff) { /* no room to order the particles: an upper bound (each color's largest degrees) */
        for (int32_t c = 0; c < color_count; ++c) {
            const int32_t n = color_offsets[c + 1] - color_offsets[c];
            int32_t nt, ne, nk;
            group_slots(v, color_particles + color_offsets[c], n, &nt, &ne, &nk);
            blocks += (size_t)((n + W - 1) / W) *
                      ((size_t)nt * sizeof(tri_blk) + (size_t)ne * sizeof(edge_blk) + (size_t)nk * sizeof(tet_blk));
        }
        return boff + blocks;
    }
    char* base = (char*)buf;
    int32_t* order = (int32_t*)(base + ooff);
    for (int32_t c = 0; c < color_count; ++c)
        order_color(v, color_particles + color_offsets[c], color_offsets[c + 1] - color_offsets[c],
                    order + color_offsets[c], order + np + color_offsets[c]);
    for (int32_t c = 0; c < color_count; ++c)
        for (int32_t k = color_offsets[c]; k < color_offsets[c + 1]; k += W) {
            const int32_t n = color_offsets[c + 1] - k < W ? color_offsets[c + 1] - k : W;
            int32_t nt, ne, nk;
            group_slots(v, order + k, n, &nt, &ne, &nk);
            blocks += (size_t)nt * sizeof(tri_blk) + (size_t)ne * sizeof(edge_blk) + (size_t)nk * sizeof(tet_blk);
        }
    const size_t need = boff + blocks;
    if (need > cap) return need;
    color_particles = order; /* the groups are cut from the ordered particles */

    memset(base, 0, ooff);
    memset(base + goff, 0, need - goff);
    header* hd = (header*)buf;
    hd->color_count = color_count;
    hd->group_count = ng;
    hd->groups_at = (int64_t)goff;
    int32_t* cg = (int32_t*)(hd + 1);
    group* groups = (group*)(base + goff);
    size_t at = boff;
    int32_t g = 0;
    for (int32_t c = 0; c < color_count; ++c) {
        cg[c] = g;
        for (int32_t k = color_offsets[c]; k < color_offsets[c + 1]; k += W, ++g) {
            group* gr = &groups[g];
            for (int32_t l = 0; l < W; ++l) gr->p[l] = k + l < color_offsets[c + 1] ? color_particles[k + l] : -1;
            int32_t safe = gr->p[0];
            for (int32_t l = 0; l < W; ++l)
                if (gr->p[l] >= 0 && v->mode[gr->p[l]] == 0) gr->dyn |= 1 << l, safe = gr->p[l];
            for (int32_t l = 0; l < W; ++l) gr->ps[l] = (gr->dyn >> l) & 1 ? gr->p[l] : safe;
            for (int32_t l = 0; l < W; ++l) {
                const int32_t p = gr->p[l];
                if (p < 0) continue;
                if (deg(v->v_tri_offsets, p) > gr->tris) gr->tris = deg(v->v_tri_offsets, p);
                if (deg(v->v_edge_offsets, p) > gr->edges) gr->edges = deg(v->v_edge_offsets, p);
                if (deg(v->v_tet_offsets, p) > gr->tets) gr->tets = deg(v->v_tet_offsets, p);
            }
            gr->off = (int64_t)at;
            tri_blk* tb = (tri_blk*)(base + at);
            for (int32_t s = 0; s < gr->tris; ++s)
                for (int32_t l = 0; l < W; ++l) {
                    const int32_t p = gr->p[l];
                    if (p < 0 || s >= deg(v->v_tri_offsets, p)) continue;
                    const int32_t q = v->v_tri_offsets[p] + s;
                    const int32_t t = v->v_tri_items[2 * q], corner = v->v_tri_items[2 * q + 1];
                    const float* mat = v->tri_material + 3 * t;
                    const float* dinv = v->tri_dinv + 4 * t;
                    if ((mat[0] <= 0.0f && mat[1] <= 0.0f) || corner < 0 || corner > 2) continue;
                    tri_blk* b = &tb[s];
                    b->on[l] = -1;
                    for (int j = 0; j < 3; ++j) b->i[j][l] = 3 * v->tris[3 * t + j];
                    for (int j = 0; j < 4; ++j) b->dinv[j][l] = dinv[j];
                    b->area[l] = v->tri_area[t];
                    b->mu[l] = mat[0];
                    b->lam[l] = v->tri_coef[3 * t];
                    b->alpha[l] = v->tri_coef[3 * t + 1];
                    b->k[l] = v->tri_coef[3 * t + 2];
                    /* dfm_membrane_force_hessian_coef's a, b (the same expressions). */
                    if (corner == 0) {
                        b->a[l] = -(dinv[0] + dinv[2]);
                        b->b[l] = -(dinv[1] + dinv[3]);
                    } else if (corner == 1) {
                        b->a[l] = dinv[0];
                        b->b[l] = dinv[1];
                    } else {
                        b->a[l] = dinv[2];
                        b->b[l] = dinv[3];
                    }
                }
            at += (size_t)gr->tris * sizeof(tri_blk);
            edge_blk* eb = (edge_blk*)(base + at);
            for (int32_t s = 0; s < gr->edges; ++s)
                for (int32_t l = 0; l < W; ++l) {
                    const int32_t p = gr->p[l];
                    if (p < 0 || s >= deg(v->v_edge_offsets, p)) continue;
                    const int32_t q = v->v_edge_offsets[p] + s;
                    const int32_t e = v->v_edge_items[2 * q], corner = v->v_edge_items[2 * q + 1];
                    const float* mat = v->edge_material + 2 * e;
                    if (mat[0] <= 0.0f || corner < 0 || corner > 3) continue;
                    edge_blk* b = &eb[s];
                    b->on[l] = -1;
                    for (int j = 0; j < 4; ++j) b->i[j][l] = 3 * v->edges[4 * e + j];
                    b->e[l] = e;
                    b->corner[l] = corner;
                    b->rest[l] = v->edge_rest_angle[e];
                    b->k[l] = v->edge_coef[2 * e];
                    b->kdl[l] = v->edge_coef[2 * e + 1];
                }
            at += (size_t)gr->edges * sizeof(edge_blk);
            tet_blk* kb = (tet_blk*)(base + at);
            for (int32_t s = 0; s < gr->tets; ++s)
                for (int32_t l = 0; l < W; ++l) {
                    const int32_t p = gr->p[l];
                    if (p < 0 || s >= deg(v->v_tet_offsets, p)) continue;
                    const int32_t q = v->v_tet_offsets[p] + s;
                    const int32_t t = v->v_tet_items[2 * q], corner = v->v_tet_items[2 * q + 1];
                    const float* mat = v->tet_material + 3 * t;
                    const float* dm = v->tet_dminv + 9 * t;
                    if ((mat[0] <= 0.0f && mat[1] <= 0.0f) || corner < 0 || corner > 3) continue;
                    tet_blk* b = &kb[s];
                    b->on[l] = -1;
                    for (int j = 0; j < 4; ++j) b->i[j][l] = 3 * v->tets[4 * t + j];
                    for (int j = 0; j < 9; ++j) b->dminv[j][l] = dm[j];
                    b->vol[l] = v->tet_volume[t];
                    b->mu[l] = mat[0];
                    b->lam[l] = v->tet_coef[3 * t];
                    b->alpha[l] = v->tet_coef[3 * t + 1];
                    b->k[l] = v->tet_coef[3 * t + 2];
                    /* dfm_tet_force_hessian_coef's m (the same expressions). */
                    for (int j = 0; j < 3; ++j)
                        b->m[j][l] = corner == 0 ? -(dm[j] + dm[3 + j] + dm[6 + j]) : dm[3 * (corner - 1) + j];
                }
            at += (size_t)gr->tets * sizeof(tet_blk);
        }
    }
    cg[color_count] = g;
    return need;
}

int32_t DFM_SIMD_NAME(groups)(const void* layout, int32_t c, int32_t* g0, int32_t* g1) {
    const int32_t* cg = color_groups(layout);
    const group* groups = (const group*)((const char*)layout + ((const header*)layout)->groups_at);
    *g0 = cg[c];
    *g1 = cg[c + 1];
    int32_t n = 0;
    for (int32_t g = cg[c]; g < cg[c + 1]; ++g)
        for (int l = 0; l < W; ++l) n += groups[g].p[l] >= 0;
    return n;
}

/* ---- the element kernels (each the scalar function over lanes) ------------------------------ */

/// dfm_membrane_force_hessian_coef over lanes.
static inline __attribute__((always_inline)) void lane_tri(const tri_blk* b, const float* x_, const float* xn_, v3* f,
                                                           m3* H) {
    const vi on = vldi(b->on);
    const vf a = vld(b->a), bb = vld(b->b);
    const vf d0 = vld(b->dinv[0]), d1_ = vld(b->dinv[1]), d2_ = vld(b->dinv[2]), d3 = vld(b->dinv[3]);
    const vf area = vld(b->area), mu = vld(b->mu), lam = vld(b->lam), alpha = vld(b->alpha), k = vld(b->k);
    v3 x[3];
    for (int c = 0; c < 3; ++c) x[c] = v3_gather(x_, vldi(b->i[c]));
    v3 d1 = v3_sub(x[1], x[0]);
    v3 d2 = v3_sub(x[2], x[0]);
    v3 f0 = v3_add(v3_scale(d1, d0), v3_scale(d2, d2_));
    v3 f1 = v3_add(v3_scale(d1, d1_), v3_scale(d2, d3));

    v3 c = v3_cross(f0, f1);
    vf j = vsqrt(vmaxn(v3_dot(c, c), vsplat(1e-20f)));
    vf inv_j = 1.0f / j;
    v3 g0 = v3_scale(v3_cross(f1, c), inv_j);
    v3 g1 = v3_scale(v3_cross(c, f0), inv_j);
    vf s = lam * (j - alpha);
    v3 p0 = v3_add(v3_scale(f0, mu), v3_scale(g0, s));
    v3 p1 = v3_add(v3_scale(f1, mu), v3_scale(g1, s));
    v3 grad = v3_add(v3_scale(p0, a), v3_scale(p1, bb));
    v3 fe = v3_madd(*f, grad, -area);

    v3 dj = v3_add(v3_scale(g0, a), v3_scale(g1, bb));
    v3 w = v3_sub(v3_scale(f1, a), v3_scale(f0, bb));
    vf r = vmaxn(s, vsplat(0.0f)) * inv_j;
    m3 He = m3_diag(mu * (a * a + bb * bb) + r * v3_dot(w, w));
    He = m3_add_outer(He, dj, dj, lam - r);
    He = m3_add_outer(He, w, w, -r);
    m3 Hs = m3_add(*H, m3_scale(He, area));

    const vi damp = on & (k != 0.0f);
    if (vany(damp)) {
        v3 xn[3];
        for (int q = 0; q < 3; ++q) xn[q] = v3_gather(xn_, vldi(b->i[q]));
        v3 u1 = v3_sub(v3_sub(x[1], xn[1]), v3_sub(x[0], xn[0]));
        v3 u2 = v3_sub(v3_sub(x[2], xn[2]), v3_sub(x[0], xn[0]));
        v3 u0c = v3_add(v3_scale(u1, d0), v3_scale(u2, d2_));
        v3 u1c = v3_add(v3_scale(u1, d1_), v3_scale(u2, d3));
        v3 fn0 = v3_sub(f0, u0c);
        v3 fn1 = v3_sub(f1, u1c);
        vf dc00 = v3_dot(u0c, v3_add(f0, fn0));
        vf dc11 = v3_dot(u1c, v3_add(f1, fn1));
        vf dc01 = v3_dot(u0c, f1) + v3_dot(fn0, u1c);
        v3 q00 = v3_scale(f0, 2.0f * a);
        v3 q11 = v3_scale(f1, 2.0f * bb);
        v3 q01 = v3_add(v3_scale(f1, a), v3_scale(f0, bb));
        v3 gd = v3_scale(q00, dc00);
        gd = v3_madd(gd, q01, 2.0f * dc01);
        gd = v3_madd(gd, q11, dc11);
        v3 fd = v3_madd(fe, gd, -k);
        m3 Hd = m3_zero();
        Hd = m3_add_outer(Hd, q00, q00, k);
        Hd = m3_add_outer(Hd, q01, q01, 2.0f * k);
        Hd = m3_add_outer(Hd, q11, q11, k);
        if (vall(damp | ~on)) { /* every active lane damped: no blend (acc_sel drops the inactive ones) */
            fe = fd;
            Hs = m3_add(Hs, Hd);
        } else {
            fe = v3_sel(damp, fd, fe);
            Hs = m3_sel(damp, m3_add(Hs, Hd), Hs);
        }
    }
    acc_sel(on, fe, Hs, f, H);
}

/// The vectors of dfm_bending_hinge_ over lanes that the angle gradient needs.
typedef struct hinge_lanes {
    v3 e, a0, b1, n1h, n2h;
    vf le2, le, ln1, ln2;
} hinge_lanes;

/// dfm_bending_hinge_ over lanes at the hinges' vertex positions x: the angle *th (dfm_atan2f over
/// lanes), the vectors the gradient needs, and the lanes `on` that stay non-degenerate (the angle's
/// finiteness is the caller's test, as in the scalar code).
static inline __attribute__((always_inline)) vi lane_hinge(const v3 x[4], vi on, hinge_lanes* g, vf* th) {
    v3 e = v3_sub(x[3], x[2]);
    v3 a0 = v3_sub(x[2], x[0]);
    v3 b0 = v3_sub(x[3], x[0]);
    v3 a1 = v3_sub(x[3], x[1]);
    v3 b1 = v3_sub(x[2], x[1]);
    vf le2 = v3_dot(e, e);
    /* vmaxn: the operands are sums of squares (+0 .. +inf, never -0) or NaN. A NaN one means a NaN
       component of e, a0, b0, a1 or b1, which makes le2, ln1 or ln2 NaN below (a component of a0 or b0
       enters two of n1's, multiplied), so the lane goes off whatever s2 is; without NaN the maximum is
       the same either way. */
    vf s2 = vmaxn(vmaxn(le2, v3_dot(a0, a0)), vmaxn(vmaxn(v3_dot(b0, b0), v3_dot(a1, a1)), v3_dot(b1, b1)));
    on &= vfinite(s2) & (s2 > 0.0f);
    v3 n1 = v3_cross(a0, b0);
    v3 n2 = v3_cross(a1, b1);
    vf ln1 = vsqrt(v3_dot(n1, n1));
    vf ln2 = vsqrt(v3_dot(n2, n2));
    vf tol = 1e-6f * s2;
    on &= (ln1 > tol) & (ln2 > tol) & (le2 > 1e-12f * s2);
    vf le = vsqrt(le2);
    v3 n1h = v3_scale(n1, 1.0f / ln1);
    v3 n2h = v3_scale(n2, 1.0f / ln2);
    v3 eh = v3_scale(e, 1.0f / le);
    *th = vatan2(v3_dot(v3_cross(n1h, n2h), eh), v3_dot(n1h, n2h));
    *g = (hinge_lanes){e, a0, b1, n1h, n2h, le2, le, ln1, ln2};
    return on;
}

/// The geometry of dfm_bending_hinge_ and dfm_bending_grad_vertex_ over lanes for one slot: the
/// visited corner's angle gradient *g, the angle *th (dfm_atan2f over lanes) and the lanes still on.
static inline __attribute__((always_inline)) vi lane_hinge_geom(const edge_blk* b, const float* x_, v3* g, vf* th) {
    v3 x[4];
    for (int c = 0; c < 4; ++c) x[c] = v3_gather(x_, vldi(b->i[c]));
    hinge_lanes h;
    const vi on = lane_hinge(x, vldi(b->on), &h, th);
    /* The visited corner's gradient: every branch of dfm_bending_grad_vertex_, picked per lane. */
    const vi corner = vldi(b->corner);
    v3 g0 = v3_scale(h.n1h, -h.le / h.ln1);
    v3 g1 = v3_scale(h.n2h, -h.le / h.ln2);
    vf t0 = -v3_dot(h.a0, h.e) / h.le2;
    vf t1 = -v3_dot(h.b1, h.e) / h.le2;
    /* corner 2: -(g0 (1 - t0) + g1 (1 - t1)); corner 3: -(g0 t0 + g1 t1): one expression, weights picked first */
    const vi c2 = corner == 2;
    const vf wa = vsel(c2, 1.0f - t0, t0), wb = vsel(c2, 1.0f - t1, t1);
    v3 g23 = v3_neg(v3_add(v3_scale(g0, wa), v3_scale(g1, wb)));
    *g = v3_sel(corner == 0, g0, v3_sel(corner == 1, g1, g23));
    return on;
}

void DFM_SIMD_NAME(start_angles)(const dfm_vbd_view* v, int32_t e0, int32_t e1) {
    for (int32_t e = e0; e < e1; e += W) {
        const int n = e1 - e < W ? e1 - e : W;
        int32_t idx[4][W];
        for (int l = 0; l < W; ++l) /* padding lanes repeat the last hinge; not stored */
            for (int c = 0; c < 4; ++c) idx[c][l] = 3 * v->edges[4 * (e + (l < n ? l : n - 1)) + c];
        v3 x[4];
        for (int c = 0; c < 4; ++c) x[c] = v3_gather(v->x_prev, vldi(idx[c]));
        hinge_lanes h;
        vf th;
        const vi on = lane_hinge(x, vsplat(0.0f) == 0.0f, &h, &th) & vfinite(th);
        float out[W];
        vst(out, vsel(on, th, vsplat(NAN))); /* dfm_bending_start_angle: NaN when degenerate */
        memcpy(v->edge_start_angle + e, out, (size_t)n * sizeof(float));
    }
}

/// dfm_bending_force_hessian_coef over lanes for a group's hinge slots [0, n), in slot order. The
/// angle has no libm call any more (slice 3), so each slot runs geometry, angle and accumulation
/// in one pass (slice 2's three phases per chunk kept vector state out of the atan2f calls).
static inline __attribute__((always_inline)) void lane_edges(const edge_blk* eb, int32_t n, const float* x_,
                                                             const float* start_angle, v3* f, m3* H) {
    for (int32_t s = 0; s < n; ++s) {
        const edge_blk* b = &eb[s];
        v3 g;
        vf th;
        const vi on0 = lane_hinge_geom(b, x_, &g, &th);
        const vf thn = vgather(start_angle, vldi(b->e));
        const vi on = on0 & vfinite(th);
        const vf k = vld(b->k), kdl = vld(b->kdl);
        vf c = k * (th - vld(b->rest));
        vf hc = k;
        const vi damp = (kdl != 0.0f) & (thn == thn);
        const float pi = 3.14159265358979f;
        vf d = th - thn;
        d = vsel(d > pi, d - 2.0f * pi, vsel(d <= -pi, d + 2.0f * pi, d));
        c = vsel(damp, c + kdl * d, c);
        hc = vsel(damp, hc + kdl, hc);
        acc_sel(on, v3_madd(*f, g, -c), m3_add_outer(*H, g, g, hc), f, H);
    }
}

/// dfm_tet_F_ over lanes: [x1 - x0, x2 - x0, x3 - x0] Dm^-1.
static inline m3 lane_tet_F(const v3 x[4], const vf di[9]) {
    v3 c0 = v3_sub(x[1], x[0]), c1 = v3_sub(x[2], x[0]), c2 = v3_sub(x[3], x[0]);
    m3 ds;
    for (int r = 0; r < 3; ++r) {
        ds.m[r][0] = v3_get(c0, r);
        ds.m[r][1] = v3_get(c1, r);
        ds.m[r][2] = v3_get(c2, r);
    }
    m3 F;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) F.m[i][j] = ds.m[i][0] * di[j] + ds.m[i][1] * di[3 + j] + ds.m[i][2] * di[6 + j];
    return F;
}

/// dfm_tet_force_hessian_coef over lanes.
static inline __attribute__((always_inline)) void lane_tet(const tet_blk* b, const float* x_, const float* xn_, v3* f,
                                                           m3* H) {
    const vi on = vldi(b->on);
    vf di[9], m[3];
    for (int q = 0; q < 9; ++q) di[q] = vld(b->dminv[q]);
    for (int q = 0; q < 3; ++q) m[q] = vld(b->m[q]);
    const vf vol = vld(b->vol), mu = vld(b->mu), lam = vld(b->lam), alpha = vld(b->alpha), k = vld(b->k);
    v3 x[4];
    for (int c = 0; c < 4; ++c) x[c] = v3_gather(x_, vldi(b->i[c]));
    m3 F = lane_tet_F(x, di);
    m3 cof = m3_cofactor(F);
    vf j = m3_det(F);
    vf s = lam * (j - alpha);
    v3 zero = {vsplat(0.0f), vsplat(0.0f), vsplat(0.0f)};
    v3 fm = zero, gj = zero;
    for (int c = 0; c < 3; ++c) {
        fm = v3_madd(fm, m3_col(F, c), m[c]);
        gj = v3_madd(gj, m3_col(cof, c), m[c]);
    }
    v3 grad = v3_add(v3_scale(fm, mu), v3_scale(gj, s));
    v3 fe = v3_madd(*f, grad, -vol);
    vf mm = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    m3 He = m3_add_outer(m3_diag(mu * mm), gj, gj, lam);
    m3 Hs = m3_add(*H, m3_scale(He, vol));

    const vi damp = on & (k != 0.0f);
    if (vany(damp)) {
        v3 xd[4];
        for (int q = 0; q < 4; ++q) xd[q] = v3_sub(x[q], v3_gather(xn_, vldi(b->i[q])));
        m3 U = lane_tet_F(xd, di);
        v3 fc[3], uc[3], nc[3];
        for (int c = 0; c < 3; ++c) {
            fc[c] = m3_col(F, c);
            uc[c] = m3_col(U, c);
            nc[c] = v3_sub(fc[c], uc[c]);
        }
        v3 gd = zero;
        m3 Hd = m3_zero();
        for (int a = 0; a < 3; ++a) {
            for (int bb = a; bb < 3; ++bb) {
                vf dc = v3_dot(uc[a], fc[bb]) + v3_dot(nc[a], uc[bb]);
                v3 q = v3_add(v3_scale(fc[bb], m[a]), v3_scale(fc[a], m[bb]));
                float wgt = a == bb ? 1.0f : 2.0f;
                gd = v3_madd(gd, q, wgt * dc);
                Hd = m3_add_outer(Hd, q, q, wgt * k);
            }
        }
        if (vall(damp | ~on)) { /* as lane_tri */
            fe = v3_madd(fe, gd, -k);
            Hs = m3_add(Hs, Hd);
        } else {
            fe = v3_sel(damp, v3_madd(fe, gd, -k), fe);
            Hs = m3_sel(damp, m3_add(Hs, Hd), Hs);
        }
    }
    acc_sel(on, fe, Hs, f, H);
}

/// Adds the elements of group gr's lane particles to f, H in the scalar order (triangles, hinges, tets).
static inline __attribute__((always_inline)) void lane_elements(const char* base, const group* gr,
                                                                const dfm_vbd_view* view, v3* f, m3* H) {
    const char* at = base + gr->off;
    const tri_blk* tb = (const tri_blk*)at;
    for (int32_t s = 0; s < gr->tris; ++s) lane_tri(&tb[s], view->x, view->x_prev, f, H);
    at += (size_t)gr->tris * sizeof(tri_blk);
    const edge_blk* eb = (const edge_blk*)at;
    lane_edges(eb, gr->edges, view->x, view->edge_start_angle, f, H);
    at += (size_t)gr->edges * sizeof(edge_blk);
    const tet_blk* kb = (const tet_blk*)at;
    for (int32_t s = 0; s < gr->tets; ++s) lane_tet(&kb[s], view->x, view->x_prev, f, H);
}

static inline const group* layout_groups(const void* layout) {
    return (const group*)((const char*)layout + ((const header*)layout)->groups_at);
}

/* ---- deformable contact pairs over lanes (kernels/shared/deform_contact.h) ------------------- */

/// dfm_fminf per lane: a when a < b or b is NaN, else b.
static inline vf vmin(vf a, vf b) { return vsel((a < b) | (b != b), a, b); }
/// dfm_fminf(dfm_fmaxf(t, 0), 1) per lane.
static inline vf vclamp01(vf t) { return vmin(vmaxn(t, vsplat(0.0f)), vsplat(1.0f)); }

/// dfm_dc_point_segment over lanes.
static inline vf lane_point_segment(v3 p, v3 a, v3 b) {
    v3 ab = v3_sub(b, a);
    vf l2 = v3_dot(ab, ab);
    vf t = v3_dot(v3_sub(p, a), ab) / l2;
    return vsel(l2 > 0.0f, vclamp01(t), vsplat(0.0f));
}

/// dfm_dc_point_triangle over lanes: every region computed, the first one the scalar code returns
/// from picked per lane (the same expressions, so the same bits).
static inline void lane_point_triangle(v3 p, v3 a, v3 b, v3 c, vf bary[3]) {
    v3 ab = v3_sub(b, a), ac = v3_sub(c, a), ap = v3_sub(p, a);
    vf d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    vf sc = vmax(v3_dot(ab, ab), v3_dot(ac, ac));
    v3 cr = v3_cross(ab, ac);
    vf area2 = v3_dot(cr, cr);
    const vf zero = vsplat(0.0f), one = vsplat(1.0f);
    vi done = ~(area2 > 1e-12f * sc * sc); /* degenerate: best of the three edges */
    vf b0 = one, b1 = zero, b2 = zero;
    if (vany(done)) {
        v3 e[3][2] = {{a, b}, {b, c}, {c, a}};
        vf best = vsplat(3.0e38f), bb[3] = {one, zero, zero};
        for (int k = 0; k < 3; ++k) {
            vf t = lane_point_segment(p, e[k][0], e[k][1]);
            v3 q = v3_madd(e[k][0], v3_sub(e[k][1], e[k][0]), t);
            v3 pq = v3_sub(p, q);
            vf d = v3_dot(pq, pq);
            vi better = d < best;
            best = vsel(better, d, best);
            bb[k] = vsel(better, 1.0f - t, bb[k]);
            bb[(k + 1) % 3] = vsel(better, t, bb[(k + 1) % 3]);
            bb[(k + 2) % 3] = vsel(better, zero, bb[(k + 2) % 3]);
        }
        b0 = vsel(done, bb[0], b0);
        b1 = vsel(done, bb[1], b1);
        b2 = vsel(done, bb[2], b2);
    }
    vi r = ~done & (d1 <= 0.0f) & (d2 <= 0.0f); /* vertex a: (1, 0, 0), already there */
    done |= r;
    v3 bp = v3_sub(p, b);
    vf d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    r = ~done & (d3 >= 0.0f) & (d4 <= d3);
    b0 = vsel(r, zero, b0), b1 = vsel(r, one, b1), b2 = vsel(r, zero, b2);
    done |= r;
    vf vc = d1 * d4 - d3 * d2;
    r = ~done & (vc <= 0.0f) & (d1 >= 0.0f) & (d3 <= 0.0f);
    vf v = d1 / (d1 - d3);
    b0 = vsel(r, 1.0f - v, b0), b1 = vsel(r, v, b1), b2 = vsel(r, zero, b2);
    done |= r;
    v3 cp = v3_sub(p, c);
    vf d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    r = ~done & (d6 >= 0.0f) & (d5 <= d6);
    b0 = vsel(r, zero, b0), b1 = vsel(r, zero, b1), b2 = vsel(r, one, b2);
    done |= r;
    vf vb = d5 * d2 - d1 * d6;
    r = ~done & (vb <= 0.0f) & (d2 >= 0.0f) & (d6 <= 0.0f);
    vf w = d2 / (d2 - d6);
    b0 = vsel(r, 1.0f - w, b0), b1 = vsel(r, zero, b1), b2 = vsel(r, w, b2);
    done |= r;
    vf va = d3 * d6 - d5 * d4;
    r = ~done & (va <= 0.0f) & ((d4 - d3) >= 0.0f) & ((d5 - d6) >= 0.0f);
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    b0 = vsel(r, zero, b0), b1 = vsel(r, 1.0f - w, b1), b2 = vsel(r, w, b2);
    done |= r;
    vf denom = 1.0f / (va + vb + vc);
    v = vb * denom, w = vc * denom;
    b0 = vsel(done, b0, 1.0f - v - w), b1 = vsel(done, b1, v), b2 = vsel(done, b2, w);
    bary[0] = b0, bary[1] = b1, bary[2] = b2;
}

/// dfm_dc_edge_edge over lanes (every case computed, the scalar one picked per lane).
static inline void lane_edge_edge(v3 p0, v3 p1, v3 q0, v3 q1, vf* s_out, vf* t_out) {
    v3 d1 = v3_sub(p1, p0), d2 = v3_sub(q1, q0), r = v3_sub(p0, q0);
    vf a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
    const vf zero = vsplat(0.0f), one = vsplat(1.0f);
    vi ap = a > 0.0f, ep = e > 0.0f;
    vf c = v3_dot(d1, r);
    /* both positive */
    vf b = v3_dot(d1, d2), denom = a * e - b * b;
    vf s = vsel(denom > 1e-6f * a * e, vclamp01((b * f - c * e) / denom), zero);
    vf t = (b * s + f) / e;
    vi lo = t < 0.0f, hi = ~lo & (t > 1.0f);
    s = vsel(lo, vclamp01(-c / a), vsel(hi, vclamp01((b - c) / a), s));
    t = vsel(lo, zero, vsel(hi, one, t));
    /* a > 0, e not: t = 0; a not, e > 0: s = 0; neither: 0, 0 */
    s = vsel(ap & ~ep, vclamp01(-c / a), s);
    t = vsel(ap & ~ep, zero, t);
    s = vsel(~ap & ep, zero, s);
    t = vsel(~ap & ep, vclamp01(f / e), t);
    s = vsel(~ap & ~ep, zero, s);
    t = vsel(~ap & ~ep, zero, t);
    *s_out = s;
    *t_out = t;
}

/// dfm_dc_pair_stencil over lanes: the W pairs' vertices (float offsets idx, kinds), their
/// positions p, weights w and gap vector r.
static inline void lane_stencil(const float* x_, int32_t idx[4][W], const int32_t kind[W], v3 p[4], vf w[4],
                                v3* r_out) {
    for (int j = 0; j < 4; ++j) p[j] = v3_gather(x_, vldi(idx[j]));
    const vi vt = vldi(kind) == DFM_DC_VERTEX_TRIANGLE;
    const vf zero = vsplat(0.0f), one = vsplat(1.0f);
    w[0] = one, w[1] = zero, w[2] = zero, w[3] = zero;
    if (vany(vt)) {
        vf bary[3];
        lane_point_triangle(p[0], p[1], p[2], p[3], bary);
        w[1] = -bary[0], w[2] = -bary[1], w[3] = -bary[2];
    }
    if (vany(~vt)) {
        vf es, et;
        lane_edge_edge(p[0], p[1], p[2], p[3], &es, &et);
        w[0] = vsel(vt, w[0], 1.0f - es);
        w[1] = vsel(vt, w[1], es);
        w[2] = vsel(vt, w[2], -(1.0f - et));
        w[3] = vsel(vt, w[3], -et);
    }
    v3 r = {zero, zero, zero};
    for (int j = 0; j < 4; ++j) r = v3_madd(r, p[j], w[j]);
    *r_out = r;
}

/// Particle i's pairs (dfm_dc_gather at the live iterate) added to *f, *H, W items at a time: each
/// item's terms in the lanes (dfm_dc_pair_force's expressions up to its products), then added to
/// the accumulators item after item in list order, so the sums are the scalar ones bit for bit.
/// Returns the smallest gap.
static inline float lane_pairs(const dfm_vbd_view* view, const dfm_dc_view* c, int32_t i, dfm_v3* f, dfm_m33* H) {
    float gap = 3.0e38f;
    const float* x_ = view->x;
    const float* dx_ = view->d;
    const float radius = c->radius, k = c->ke, mu = c->mu;
    const int fric = dx_ && mu > 0.0f;
    const float tau = 0.5f * radius, k2 = k * tau * tau;
    const float smin = k2 / (DFM_DC_DMIN * DFM_DC_DMIN);
    const float eps = DFM_DC_FRICTION_SPEED * view->h;
    for (int32_t k0 = c->offsets[i]; k0 < c->offsets[i + 1]; k0 += W) {
        const int32_t m = c->offsets[i + 1] - k0 < W ? c->offsets[i + 1] - k0 : W;
        int32_t idx[4][W], corner[W], kind[W];
        for (int l = 0; l < W; ++l) {
            const int32_t item = c->items[k0 + (l < m ? l : 0)];
            const dfm_dc_pair* pr = c->pairs + (item >> 2);
            for (int j = 0; j < 4; ++j) idx[j][l] = 3 * pr->v[j];
            corner[l] = item & 3;
            kind[l] = pr->kind;
        }
        v3 p[4], r;
        vf w[4];
        lane_stencil(x_, idx, kind, p, w, &r);
        const vf zero = vsplat(0.0f), one = vsplat(1.0f);
        const vf d = vsqrt(v3_dot(r, r));
        const vi on = d < radius;
        /* dfm_dc_energy_derivs */
        const vi r1 = d >= tau, r2 = ~r1 & (d > DFM_DC_DMIN);
        const vf dE = vsel(r1, -k * (radius - d), vsel(r2, -k2 / d, smin * (d - 2.0f * DFM_DC_DMIN)));
        const vf d2E = vsel(r1, vsplat(k), vsel(r2, k2 / (d * d), vsplat(smin)));
        /* dfm_dc_normal */
        const vf inv = 1.0f / d;
        const vi pos = d > 0.0f;
        const v3 n = {vsel(pos, r.x * inv, zero), vsel(pos, r.y * inv, zero), vsel(pos, r.z * inv, one)};
        vf wc = w[0];
        const vi cv = vldi(corner);
        wc = vsel(cv == 1, w[1], wc);
        wc = vsel(cv == 2, w[2], wc);
        wc = vsel(cv == 3, w[3], wc);
        const vf s1 = -dE * wc, s2 = d2E * wc * wc;
        const v3 fa = v3_scale(n, s1);
        const vf nn[3] = {n.x, n.y, n.z};
        vf ha[3][3];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) ha[a][b] = s2 * nn[a] * nn[b];
        v3 fb = {zero, zero, zero};
        vf hb[3][3];
        if (fric) {
            v3 D = {zero, zero, zero};
            for (int j = 0; j < 4; ++j) D = v3_madd(D, v3_gather(dx_, vldi(idx[j])), w[j]);
            const v3 u = v3_madd(D, n, -v3_dot(D, n));
            const vf ul = vsqrt(v3_dot(u, u));
            const vf phi = vsel(ul > eps, 1.0f / ul, (2.0f - ul / eps) / eps);
            const vf cf = mu * (-dE) * phi;
            fb = v3_scale(u, -cf * wc);
            const vf s3 = cf * wc * wc;
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) hb[a][b] = ((a == b ? 1.0f : 0.0f) + -1.0f * nn[a] * nn[b]) * s3;
        }
        float dl[W], fal[3][W], fbl[3][W], hal[9][W], hbl[9][W];
        vst(dl, d);
        vst(fal[0], fa.x), vst(fal[1], fa.y), vst(fal[2], fa.z);
        for (int q = 0; q < 9; ++q) vst(hal[q], ha[q / 3][q % 3]);
        if (fric) {
            vst(fbl[0], fb.x), vst(fbl[1], fb.y), vst(fbl[2], fb.z);
            for (int q = 0; q < 9; ++q) vst(hbl[q], hb[q / 3][q % 3]);
        }
        const int onm = vmask(on);
        for (int l = 0; l < m; ++l) {
            if ((onm >> l) & 1) {
                f->x += fal[0][l], f->y += fal[1][l], f->z += fal[2][l];
                for (int q = 0; q < 9; ++q) H->m[q / 3][q % 3] += hal[q][l];
                if (fric) {
                    f->x += fbl[0][l], f->y += fbl[1][l], f->z += fbl[2][l];
                    for (int q = 0; q < 9; ++q) H->m[q / 3][q % 3] += hbl[q][l];
                }
            }
            gap = dfm_fminf(gap, dl[l]);
        }
    }
    return gap;
}

void DFM_SIMD_NAME(pair_eval)(const dfm_dc_pair* pairs, int32_t count, const float* x_, const float* dx_, float radius,
                              float k, float mu, float h, float* dist, dfm_cpu_dc_terms* terms) {
    const int fric = dx_ && mu > 0.0f;
    const float tau = 0.5f * radius, k2 = k * tau * tau;
    const float smin = k2 / (DFM_DC_DMIN * DFM_DC_DMIN);
    const float eps = DFM_DC_FRICTION_SPEED * h;
    for (int32_t k0 = 0; k0 < count; k0 += W) {
        const int32_t m = count - k0 < W ? count - k0 : W;
        int32_t idx[4][W], kind[W];
        for (int l = 0; l < W; ++l) {
            const dfm_dc_pair* pr = pairs + k0 + (l < m ? l : 0);
            for (int j = 0; j < 4; ++j) idx[j][l] = 3 * pr->v[j];
            kind[l] = pr->kind;
        }
        v3 p[4], r;
        vf w[4];
        lane_stencil(x_, idx, kind, p, w, &r);
        const vf d = vsqrt(v3_dot(r, r));
        float dl[W];
        vst(dl, d);
        if (dist)
            for (int l = 0; l < m; ++l) dist[k0 + l] = dl[l];
        if (!terms) continue;
        const vf zero = vsplat(0.0f), one = vsplat(1.0f);
        const vi r1 = d >= tau, r2 = ~r1 & (d > DFM_DC_DMIN);
        const vf dE = vsel(r1, -k * (radius - d), vsel(r2, -k2 / d, smin * (d - 2.0f * DFM_DC_DMIN)));
        const vf inv = 1.0f / d;
        const vi pos = d > 0.0f;
        const v3 n = {vsel(pos, r.x * inv, zero), vsel(pos, r.y * inv, zero), vsel(pos, r.z * inv, one)};
        v3 u = {zero, zero, zero};
        vf cf = zero;
        if (fric) {
            v3 D = {zero, zero, zero};
            for (int j = 0; j < 4; ++j) D = v3_madd(D, v3_gather(dx_, vldi(idx[j])), w[j]);
            u = v3_madd(D, n, -v3_dot(D, n));
            const vf ul = vsqrt(v3_dot(u, u));
            const vf phi = vsel(ul > eps, 1.0f / ul, (2.0f - ul / eps) / eps);
            cf = mu * (-dE) * phi;
        }
        float nl[3][W], ulw[3][W], wl[4][W], mdl[W], cl[W];
        vst(nl[0], n.x), vst(nl[1], n.y), vst(nl[2], n.z);
        vst(ulw[0], u.x), vst(ulw[1], u.y), vst(ulw[2], u.z);
        for (int j = 0; j < 4; ++j) vst(wl[j], w[j]);
        vst(mdl, -dE);
        vst(cl, cf);
        for (int l = 0; l < m; ++l) {
            dfm_cpu_dc_terms* t = terms + k0 + l;
            for (int j = 0; j < 4; ++j) t->w[j] = wl[j][l];
            t->on = 0;
            if (!(dl[l] < radius)) continue;
            t->n = dfm_v3_make(nl[0][l], nl[1][l], nl[2][l]);
            t->m_dE = mdl[l];
            t->on = 1;
            if (fric) {
                t->u = dfm_v3_make(ulw[0][l], ulw[1][l], ulw[2][l]);
                t->c = cl[l];
                t->on = 2;
            }
        }
    }
}

/// Fewest lanes of a group in the sub-colour for the lane kernels to run it (vbd_simd.h); with
/// fewer, its particles take the scalar solve (the same bits, and cheaper: a lane group costs
/// about two scalar particle solves, measured, docs/perf.md issue 16).
#define DC_LANES_MIN 2

/* ---- the rigid-contact gather over lanes (kernels/shared/contact_response.h) ------------------ */

/// A rotation over lanes: the vector part u and the scalar w.
typedef struct q4 {
    v3 u;
    vf w;
} q4;

/// dfm_quat_rotate over lanes.
static inline v3 q4_rotate(q4 q, v3 v) {
    v3 t = v3_scale(v3_cross(q.u, v), vsplat(2.0f));
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(q.u, t));
}

/// The shape data a record's force reads, per lane: shape si[l]'s (one splat when all lanes share it).
typedef struct shape_lanes {
    v3 ts, te; ///< body_start.t, body_end.t.
    q4 qs, qe; ///< body_start.q, body_end.q.
    vf kd;
} shape_lanes;

/// Shape sh's values as 15 floats: body_start.t, body_end.t, body_start.q, body_end.q, kd.
static inline void shape_row(const dfm_shape_rt* sh, float v[15]) {
    const float r[15] = {
        sh->body_start.t.x, sh->body_start.t.y, sh->body_start.t.z, sh->body_end.t.x,   sh->body_end.t.y,
        sh->body_end.t.z,   sh->body_start.q.x, sh->body_start.q.y, sh->body_start.q.z, sh->body_start.q.w,
        sh->body_end.q.x,   sh->body_end.q.y,   sh->body_end.q.z,   sh->body_end.q.w,   sh->kd};
    memcpy(v, r, sizeof r);
}

static inline shape_lanes lane_shapes(const dfm_shape_rt* shapes, const int32_t si[W]) {
    int same = 1;
    for (int l = 1; l < W; ++l) same &= si[l] == si[0];
    vf a[15];
    if (same) { /* the common case: one shape under all lanes (a cloth on a table) */
        float v[15];
        shape_row(&shapes[si[0]], v);
        for (int q = 0; q < 15; ++q) a[q] = vsplat(v[q]);
    } else {
        float t[15][W];
        for (int l = 0; l < W; ++l) {
            float v[15];
            shape_row(&shapes[si[l]], v);
            for (int q = 0; q < 15; ++q) t[q][l] = v[q];
        }
        for (int q = 0; q < 15; ++q) a[q] = vld(t[q]);
    }
    const shape_lanes r = {
        {a[0], a[1], a[2]}, {a[3], a[4], a[5]}, {{a[6], a[7], a[8]}, a[9]}, {{a[10], a[11], a[12]}, a[13]}, a[14]};
    return r;
}

/// base[idx[l]] per lane (idx: int32 offsets).
static inline vi vgatheri(const int32_t* base, vi idx) {
#if W == 8
    return (vi)_mm256_i32gather_epi32((const int*)base, (__m256i)idx, 4);
#else
    vi r;
    for (int l = 0; l < W; ++l) r[l] = base[idx[l]];
    return r;
#endif
}
/// m ? a : b per lane for integers.
static inline vi vseli(vi m, vi a, vi b) { return (a & m) | (b & ~m); }
/// n / 3 per lane, exact for 0 <= n < 2^24: the float quotient truncated is within one of it (n is
/// exact in float, the quotient off by at most half an ulp < 1), then corrected by the remainder.
static inline vi vdiv3(vi n) {
    vi k = __builtin_convertvector(__builtin_convertvector(n, vf) / 3.0f, vi);
    const vi r = n - 3 * k;
    k -= r >= 3; /* a comparison is -1 where true */
    k += r < 0;
    return k;
}

/// dfm_contact_gather over lanes for the lane particles pi with lane bits actm (the others get
/// zeros): each lane's list walked in its order, one record per lane per round, its
/// dfm_contact_geometry and dfm_contact_point_force (penalty and damping; the caller keeps the
/// scalar path when friction is in the solve) with the scalar operations, added with its weight as
/// the scalar gather adds it. The lists' bookkeeping (nodes, record and corner indices) is in the
/// lanes too; an inactive lane reads a live lane's record (never used).
static inline void lane_contact_gather(const dfm_contact_view* c, const float* d_, float h, vi pi, int actm, v3* f_out,
                                       m3* H_out) {
    vi lb;
    for (int l = 0; l < W; ++l) lb[l] = 1 << l;
    vi node = vseli((vsplat(0.0f) == 0.0f) & ((lb & actm) != 0), vgatheri(c->head, pi), (vi){0} - 1);
    const vf zero = vsplat(0.0f);
    v3 fs = {zero, zero, zero};
    m3 Hs = m3_zero();
    for (;;) {
        const vi on = node >= 0;
        const int onm = vmask(on);
        if (!onm) break;
        const vi nd = vseli(on, node, (vi){0} + node[31 - __builtin_clz((unsigned)onm)]);
        vi kr;
        if (vany(nd >= (1 << 24)))
            for (int l = 0; l < W; ++l) kr[l] = nd[l] / 3;
        else
            kr = vdiv3(nd);
        const vi kv = 3 * kr;
        int32_t si[W];
        const vi siv = vgatheri(c->rec.shape, kr);
        memcpy(si, &siv, sizeof si);
        /* dfm_contact_geometry */
        v3 dc = {zero, zero, zero};
        for (int j = 0; j < 3; ++j) {
            const vi cj = vgatheri(c->rec.corners, kv + j);
            const vi valid = cj >= 0;
            const v3 dj = v3_gather(d_, (3 * cj) & valid); /* an invalid corner reads offset 0 (unused) */
            const vf bj = vgather(c->rec.bary, kv + j);
            dc = v3_sel(valid, v3_madd(dc, dj, bj), dc);
        }
        const shape_lanes sh = lane_shapes(c->shapes, si);
        const v3 bp = v3_gather(c->rec.body_point, kv);
        const v3 db = v3_add(v3_sub(sh.te, sh.ts), v3_sub(q4_rotate(sh.qe, bp), q4_rotate(sh.qs, bp)));
        const v3 D = v3_sub(dc, db);
        const v3 n = v3_gather(c->rec.normal, kv);
        const vf pen = vgather(c->rec.pen0, kr) - v3_dot(n, D);
        /* dfm_contact_point_force */
        const vi in = pen > 0.0f;
        const vf kp = vgather(c->rec.penalty, kr);
        const vf fn = kp * pen;
        v3 f = v3_scale(n, fn);
        m3 H = m3_add_outer(m3_zero(), n, n, kp);
        const vf dn = v3_dot(n, D);
        const vi damp = (dn < 0.0f) & (sh.kd > 0.0f);
        const vf kdh = sh.kd / h;
        f = v3_sel(damp, v3_madd(f, n, -kdh * dn), f);
        H = m3_sel(damp, m3_add_outer(H, n, n, kdh), H);
        f = v3_sel(in, f, (v3){zero, zero, zero});
        H = m3_sel(in, H, m3_zero());
        /* dfm_contact_gather's sums */
        const vf w = vgather(c->rec.bary, nd);
        fs = v3_sel(on, v3_madd(fs, f, w), fs);
        Hs = m3_sel(on, m3_add(Hs, m3_scale(H, w * w)), Hs);
        node = vseli(on, vgatheri(c->next, nd), node);
    }
    *f_out = fs;
    *H_out = Hs;
}

/// dfm_vbd_particle_base over lanes: inertia and drag added to the contact terms fc, Hc (the
/// scalar operations in the scalar order; the off-diagonal zeros are added too, as dfm_m33_add
/// adds them). `o`: 3 p per lane, `pi`: p per lane (an inactive lane repeats an active one's).
static inline __attribute__((always_inline)) void lane_base(const dfm_vbd_view* v, vi o, vi pi, v3 fc, m3 Hc, v3* f_out,
                                                            m3* H_out) {
    const vf m_h2 = vgather(v->mass, pi) / vsplat(v->h * v->h);
    const v3 d = v3_gather(v->d, o);
    const v3 f = v3_add(fc, v3_scale(v3_sub(v3_gather(v->y, o), d), m_h2));
    const vf c_h = vgather(v->drag, pi) / vsplat(v->h);
    *f_out = v3_madd(f, d, -c_h);
    *H_out = m3_add(Hc, m3_diag(m_h2 + c_h));
}

/// dfm_vbd_particle_newton over lanes for the lanes in `act`: d += H^-1 f where |det H| passes the
/// relative safeguard and the step is finite (dfm_m33_inverse, dfm_m33_mul_v3 and
/// dfm_v3_isfinite with the scalar operations), d and x = x_prev + d stored for the moved lanes.
static inline __attribute__((always_inline)) void lane_newton(const dfm_vbd_view* v, const int32_t p[W], int actm, vi o,
                                                              v3 f, m3 H) {
    /* vmaxn: a NaN diagonal entry makes det NaN (each one is a factor of a term), so the lane does not
       move whatever s is; otherwise the operands are >= +0 and the maximum is the same. */
    const vf s = vmaxn(vabs(H.m[0][0]), vmaxn(vabs(H.m[1][1]), vabs(H.m[2][2])));
    const vf det = m3_det(H);
    vi ok = vabs(det) > DFM_VBD_DET_EPS * s * s * s;
    if (!(vmask(ok) & actm)) return;
    const m3 cof = m3_cofactor(H);
    const vf inv = 1.0f / det;
    m3 Hinv; /* transpose(cofactor) * (1 / det) */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Hinv.m[i][j] = cof.m[j][i] * inv;
    const v3 dx = {Hinv.m[0][0] * f.x + Hinv.m[0][1] * f.y + Hinv.m[0][2] * f.z,
                   Hinv.m[1][0] * f.x + Hinv.m[1][1] * f.y + Hinv.m[1][2] * f.z,
                   Hinv.m[2][0] * f.x + Hinv.m[2][1] * f.y + Hinv.m[2][2] * f.z};
    ok &= vfinite(dx.x) & vfinite(dx.y) & vfinite(dx.z);
    const int moved = vmask(ok) & actm;
    if (!moved) return;
    const v3 d = v3_add(v3_gather(v->d, o), dx);
    const v3 x = v3_add(v3_gather(v->x_prev, o), d);
    float dl[3][W], xl[3][W];
    vst(dl[0], d.x), vst(dl[1], d.y), vst(dl[2], d.z);
    vst(xl[0], x.x), vst(xl[1], x.y), vst(xl[2], x.z);
    for (int l = 0; l < W; ++l)
        if ((moved >> l) & 1) {
            float* dp = v->d + 3 * p[l];
            float* xp = v->x + 3 * p[l];
            dp[0] = dl[0][l], dp[1] = dl[1][l], dp[2] = dl[2][l];
            xp[0] = xl[0][l], xp[1] = xl[1][l], xp[2] = xl[2][l];
        }
}

/// Solves lane groups [g0, g1): every dynamic lane particle, or with deformable contact (dc not
/// NULL) those of sub-colour `sub` (the others are inactive lanes: nothing of theirs is written).
static inline __attribute__((always_inline)) void solve_groups(const void* layout, const dfm_vbd_view* view,
                                                               const struct dfm_cpu_contacts* cc, const dfm_cpu_dc* dc,
                                                               int sub, int32_t g0, int32_t g1) {
    const char* base = (const char*)layout;
    const group* groups = layout_groups(layout);
    for (int32_t g = g0; g < g1; ++g) {
        const group* gr = &groups[g];
        if (!dc) { /* no deformable contact: start and Newton step in the lanes too */
            const int actm = gr->dyn;
            if (!actm) continue;
            const vi pi = vldi(gr->ps), o = pi * 3;
            v3 cf;
            m3 cH;
            /* A world with coupled host bodies has friction in the solve on their records (contact_response.h
               dfm_contact_friction_in_solve): the scalar terms, like the flags' friction in the solve. */
            if (cc && cc->gather && !cc->hosts &&
                !(cc->view->flags & (DFM_DISABLE_STATIC_FRICTION | DFM_CONTACT_BODY_SOLVE)))
                lane_contact_gather(cc->view, view->d, view->h, pi, actm, &cf, &cH);
            else { /* the scalar contact terms per lane (the scatter path, friction in the solve) */
                float cfl[3][W], cHl[9][W];
                for (int l = 0; l < W; ++l) {
                    dfm_v3 fc = dfm_v3_zero();
                    dfm_m33 Hc = dfm_m33_zero();
                    if ((actm >> l) & 1) dfm_cpu_contact_terms(view, cc, gr->p[l], &fc, &Hc);
                    cfl[0][l] = fc.x, cfl[1][l] = fc.y, cfl[2][l] = fc.z;
                    for (int q = 0; q < 9; ++q) cHl[q][l] = Hc.m[q / 3][q % 3];
                }
                cf = (v3){vld(cfl[0]), vld(cfl[1]), vld(cfl[2])};
                for (int q = 0; q < 9; ++q) cH.m[q / 3][q % 3] = vld(cHl[q]);
            }
            v3 f;
            m3 H;
            lane_base(view, o, pi, cf, cH, &f, &H);
            lane_elements(base, gr, view, &f, &H);
            lane_newton(view, gr->p, actm, o, f, H);
            continue;
        }
        int act[W], count = 0;
        for (int l = 0; l < W; ++l) {
            const int32_t p = gr->p[l];
            act[l] = p >= 0 && view->mode[p] == 0 && (!dc || dc->sub_of[p] == sub);
            count += act[l];
        }
        if (!count) continue;
        if (dc && count < DC_LANES_MIN) {
            for (int l = 0; l < W; ++l)
                if (act[l]) dfm_cpu_solve_one(view, cc, dc, gr->p[l]);
            continue;
        }
        /* Per lane, the scalar start: contact force/Hessian (and the deformable pairs' of a surface
           particle, with their smallest gap), inertia and drag (dfm_vbd_particle_base). */
        float fl[3][W], Hl[9][W], gap[W];
        for (int l = 0; l < W; ++l) {
            const int32_t p = gr->p[l];
            dfm_v3 fs = dfm_v3_zero();
            dfm_m33 Hm = dfm_m33_zero();
            gap[l] = 0.0f;
            if (act[l] && dc && dc->surface[p]) { /* dfm_cpu_particle_start_dc with the pairs in lanes */
                dfm_v3 fc;
                dfm_m33 Hc;
                dfm_cpu_contact_terms(view, cc, p, &fc, &Hc);
                gap[l] = lane_pairs(view, &dc->view, p, &fc, &Hc);
                dfm_vbd_particle_base(view, p, fc, Hc, &fs, &Hm);
            } else if (act[l])
                dfm_cpu_particle_start(view, cc, p, &fs, &Hm);
            fl[0][l] = fs.x;
            fl[1][l] = fs.y;
            fl[2][l] = fs.z;
            for (int q = 0; q < 9; ++q) Hl[q][l] = Hm.m[q / 3][q % 3];
        }
        v3 f = {vld(fl[0]), vld(fl[1]), vld(fl[2])};
        m3 H;
        for (int q = 0; q < 9; ++q) H.m[q / 3][q % 3] = vld(Hl[q]);
        lane_elements(base, gr, view, &f, &H);
        /* Per lane, the scalar Newton step (dfm_vbd_particle_newton), then the displacement bound. */
        vst(fl[0], f.x);
        vst(fl[1], f.y);
        vst(fl[2], f.z);
        for (int q = 0; q < 9; ++q) vst(Hl[q], H.m[q / 3][q % 3]);
        for (int l = 0; l < W; ++l) {
            const int32_t p = gr->p[l];
            if (!act[l]) continue;
            dfm_m33 Hm;
            for (int q = 0; q < 9; ++q) Hm.m[q / 3][q % 3] = Hl[q][l];
            const dfm_v3 d_old = dfm_v3_load(view->d + 3 * p);
            if (dfm_vbd_particle_newton(view, p, dfm_v3_make(fl[0][l], fl[1][l], fl[2][l]), Hm) && dc && dc->surface[p])
                dfm_cpu_dc_bound_particle(view, dc, p, d_old, gap[l]);
        }
    }
}

void DFM_SIMD_NAME(solve)(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc, int32_t g0,
                          int32_t g1) {
    solve_groups(layout, view, cc, NULL, 0, g0, g1);
}

void DFM_SIMD_NAME(solve_dc)(const void* layout, const dfm_vbd_view* view, const struct dfm_cpu_contacts* cc,
                             const dfm_cpu_dc* dc, int sub, int32_t g0, int32_t g1) {
    solve_groups(layout, view, cc, dc, sub, g0, g1);
}

void DFM_SIMD_NAME(need)(const void* layout, const dfm_vbd_view* view, int32_t g0, int32_t g1, float* out) {
    const char* base = (const char*)layout;
    const group* groups = layout_groups(layout);
    const float h = view->h;
    for (int32_t g = g0; g < g1; ++g) {
        const group* gr = &groups[g];
        /* dfm_vbd_particle_need: the elements from zero (the Hessian is not used: compiled out). */
        v3 f = {vsplat(0.0f), vsplat(0.0f), vsplat(0.0f)};
        m3 H = m3_zero();
        lane_elements(base, gr, view, &f, &H);
        float fl[3][W];
        vst(fl[0], f.x);
        vst(fl[1], f.y);
        vst(fl[2], f.z);
        for (int l = 0; l < W; ++l) {
            const int32_t p = gr->p[l];
            if (p < 0) continue;
            dfm_v3 r = dfm_v3_zero();
            if (view->mode[p] == 0) {
                dfm_v3 fel = dfm_v3_make(fl[0][l], fl[1][l], fl[2][l]);
                dfm_v3 d = dfm_v3_load(view->d + 3 * p);
                dfm_v3 need = dfm_v3_sub(
                    dfm_v3_scale(dfm_v3_sub(d, dfm_v3_load(view->y + 3 * p)), view->mass[p] / (h * h)), fel);
                r = dfm_v3_madd(need, d, view->drag[p] / h);
            }
            dfm_v3_store(r, out + 3 * p);
        }
    }
}

#undef W
