/// @file contacts_cpu.c
/// CPU loops of the contact pipeline (reference for the CUDA kernels).
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-and-done — the scatter runs per color (the color is the level);
///   the gather is called inside the per-color solve loop.
/// - P2 parallel independent columns (each loop forks only above its threshold in cpu_threads.h,
///   and runs a serial copy outside any OpenMP region below it): detection applies-and-done
///   (from DFM_CPU_DETECT_PARALLEL_MIN candidates; contiguous chunks of the
///   candidates in parallel into scratch records, then concatenated in chunk order: the serial
///   order, so results do not depend on the thread count); guess normals, friction (per color)
///   and reaction passes 1-2 applies-and-done (each item writes only its own outputs); the
///   per-shape wrench sums stay serial (record order fixes the float sums), as do the list build
///   and the penalty ramp (applies-TODO).
/// - P3 loop-invariant hoisting: applies-and-done — candidate lists, features and shape
///   runtime data are built once (per topology change / per advance), not per iteration.
/// - P4 offline memory layout: applies-and-done — candidates are sorted by shape on the host
///   (seed section 2) and records are a compact prefix of the capacity.
#include "contacts_cpu.h"

#include "coarse_friction.h"
#include "vbd_simd.h"

#include "contact_patch_friction.h"
#include "contact_reaction.h"
#include "cpu_threads.h"

#include <string.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

/// Number of records written this advance (count may exceed the capacity).
static int32_t active_count(const dfm_contact_view* c) { return *c->count < c->capacity ? *c->count : c->capacity; }

int64_t dfm_cpu_contacts_detect(const dfm_contact_view* c, const dfm_detect_input* in) {
    return dfm_cpu_contacts_detect_cached(c, in, NULL);
}

void dfm_cpu_detect_cache_fill(const dfm_detect_cache* ch, const dfm_contact_view* c, const dfm_detect_input* in,
                               int32_t particle_count) {
    dfm_xform* pose = (dfm_xform*)ch->pose;
    float* speed = (float*)ch->speed;
    for (int32_t s = 0; s < c->shape_count; ++s) pose[s] = dfm_shape_pose(&c->shapes[s], 0);
    for (int32_t i = 0; i < particle_count; ++i) {
        speed[i] = dfm_v3_len(dfm_v3_load(in->v + 3 * i));
        ch->corner_shape[i] = -1;
    }
}

int64_t dfm_cpu_contacts_detect_cached(const dfm_contact_view* c, const dfm_detect_input* in,
                                       const dfm_detect_cache* ch) {
    *c->count = 0;
    int64_t work = 0;
    for (int kind = 0; kind < DFM_CANDIDATE_KINDS; ++kind)
        for (int32_t k = 0; k < c->cand.count[kind]; ++k) work += dfm_detect_candidate_cached(c, in, ch, kind, k);
    return work;
}

/// Chunks per worker of the parallel detection (load balance: edge/face candidates cost far more
/// than particle ones, and hits cluster by shape). At 8, cloth-lift with 16 environments gave one
/// of 2 workers 338 M of the detection's 404 M instructions (callgrind, 2 steps: the gripped faces,
/// ~33k instructions each, sit in a few chunks); at 64, 202 M and 202 M (docs/perf.md, session 13).
#define DFM_DETECT_CHUNKS_PER_THREAD 64

/// Detects global candidate g (particle, edge and face candidates share one index space); returns
/// its work units (contact_detect.h).
static int detect_one(const dfm_contact_view* c, const dfm_detect_input* in, int64_t g) {
    int kind = dfm_contact_candidates_kind(&c->cand, g);
    return dfm_detect_candidate(c, in, kind, (int32_t)(g - dfm_contact_candidates_first(&c->cand, kind)));
}

/// A view whose records are those of `s` from record `offset` on (room for `room` records).
static dfm_contact_view chunk_view(const dfm_contact_view* c, const dfm_contact_records* s, int64_t offset,
                                   int32_t room, int32_t* count) {
    dfm_contact_view v = *c;
    v.capacity = room;
    v.count = count;
    v.rec = dfm_contact_records_at(*s, offset);
    return v;
}

/// The parallel detection of dfm_cpu_contacts_detect_parallel over the candidates sel[0 .. total)
/// (sel NULL: every candidate, total = the global index space).
static int64_t detect_parallel(const dfm_contact_view* c, const dfm_detect_input* in,
                               const dfm_contact_records* scratch, int threads, const int32_t* sel, int64_t total) {
    int32_t chunks = threads * DFM_DETECT_CHUNKS_PER_THREAD;
    if (chunks < 1) chunks = 1;
    if (chunks > total) chunks = total > 0 ? (int32_t)total : 1;
    int32_t counts[1024];
    int64_t works[1024];
    if (chunks > 1024) chunks = 1024;
    const int64_t per = (total + chunks - 1) / chunks;
    (void)threads;
#if defined(_OPENMP)
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (int32_t k = 0; k < chunks; ++k) {
        int64_t b = (int64_t)k * per, e = b + per < total ? b + per : total;
        counts[k] = 0;
        works[k] = 0;
        if (b >= e) continue;
        dfm_contact_view v = chunk_view(c, scratch, b, (int32_t)(e - b), &counts[k]);
        int64_t work = 0;
        for (int64_t g = b; g < e; ++g) work += detect_one(&v, in, sel ? sel[g] : g);
        works[k] = work;
    }
    /* Chunks in candidate order: the serial order; the first `capacity` records are kept. */
    int64_t written = 0, emitted = 0, work = 0;
    for (int32_t k = 0; k < chunks; ++k) {
        work += works[k];
        int64_t room = c->capacity - written;
        int32_t n = counts[k] < room ? counts[k] : (int32_t)(room > 0 ? room : 0);
        if (n > 0) dfm_contact_records_copy(c->rec, written, *scratch, (int64_t)k * per, n);
        written += n;
        emitted += counts[k];
    }
    *c->count = (int32_t)emitted;
    return work;
}

int64_t dfm_cpu_contacts_detect_parallel(const dfm_contact_view* c, const dfm_detect_input* in,
                                         const dfm_contact_records* scratch, int threads) {
    return detect_parallel(c, in, scratch, threads, NULL, dfm_contact_candidates_total(&c->cand));
}

int64_t dfm_cpu_contacts_detect_selected(const dfm_contact_view* c, const dfm_detect_input* in, const int32_t* sel,
                                         int64_t n, const dfm_contact_records* scratch, int threads) {
    if (scratch && threads > 1) return detect_parallel(c, in, scratch, threads, sel, n);
    *c->count = 0;
    int64_t work = 0;
    for (int64_t i = 0; i < n; ++i) work += detect_one(c, in, sel[i]);
    return work;
}

void dfm_cpu_contacts_guess_normals(const dfm_contact_view* c, int32_t particle_count, float* guess_normal,
                                    float* guess_gap, int threads) {
    if (dfm_cpu_forks(threads, particle_count, DFM_CPU_PARALLEL_MIN)) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
        for (int32_t i = 0; i < particle_count; ++i) dfm_contact_guess_particle(c, i, guess_normal, guess_gap);
    } else {
        for (int32_t i = 0; i < particle_count; ++i) dfm_contact_guess_particle(c, i, guess_normal, guess_gap);
    }
}

void dfm_cpu_contacts_build_lists(const dfm_contact_view* c, int32_t particle_count) {
    for (int32_t i = 0; i < particle_count; ++i) c->head[i] = -1;
    /* Nodes pushed in reverse so that each list comes out in ascending node (record) order: the
     * order the CUDA backend's deterministic counting sort produces. */
    for (int32_t node = 3 * active_count(c) - 1; node >= 0; --node) {
        int32_t p = c->rec.corners[node];
        if (p < 0) continue;
        c->next[node] = c->head[p];
        c->head[p] = node;
    }
}

void dfm_cpu_contacts_update_penalties(const dfm_contact_view* c, const float* d) {
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k) dfm_contact_update_penalty(c, d, k);
}

void dfm_cpu_contacts_scatter_color(const dfm_cpu_contacts* cc, const float* d, float h, const int32_t* color_particles,
                                    int32_t begin, int32_t end, int32_t color) {
    const dfm_contact_view* c = cc->view;
    for (int32_t k = begin; k < end; ++k) {
        int32_t p = color_particles[k];
        memset(cc->acc_f + 3 * (size_t)p, 0, 3 * sizeof(float));
        memset(cc->acc_H + 9 * (size_t)p, 0, 9 * sizeof(float));
    }
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k) {
        int any = 0;
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->rec.corners[3 * k + j];
            any |= p >= 0 && cc->particle_color[p] == color;
        }
        if (!any) continue;
        dfm_v3 f;
        dfm_m33 H;
        dfm_contact_point_force(c, d, h, k, &f, &H);
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->rec.corners[3 * k + j];
            if (p < 0 || cc->particle_color[p] != color) continue;
            float w = c->rec.bary[3 * k + j];
            float* af = cc->acc_f + 3 * (size_t)p;
            float* aH = cc->acc_H + 9 * (size_t)p;
            af[0] += w * f.x;
            af[1] += w * f.y;
            af[2] += w * f.z;
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) aH[3 * a + b] += w * w * H.m[a][b];
        }
    }
}

/// Body b's friction decision after the iterations: its coarse steps' (coarse_friction.h) when they
/// carried friction in this advance, else the patch decision.
static void patch_friction_body(dfm_cpu_contacts* cc, const dfm_vbd_view* v, struct dfm_cpu_coarse* coarse, int32_t b) {
    if (coarse &&
        dfm_cpu_coarse_patch_friction_body(coarse, v, cc->view, b, cc->node_body_friction, cc->particle_slides))
        return;
    (void)dfm_patch_friction_body(cc->view, v, cc->body_offsets[b], cc->body_offsets[b + 1], cc->node_body_friction,
                                  cc->particle_slides);
}

void dfm_cpu_contacts_patch_friction(dfm_cpu_contacts* cc, const dfm_vbd_view* v, struct dfm_cpu_coarse* coarse) {
    const dfm_contact_view* c = cc->view;
    if (!cc->node_body_friction || !cc->particle_slides || (c->flags & DFM_DISABLE_STATIC_FRICTION)) return;
    const int32_t nodes = 3 * active_count(c);
    if (nodes > 0) memset(cc->node_body_friction, 0, sizeof(float) * 3 * (size_t)nodes);
    const int nt = cc->threads > 0 ? cc->threads : 1;
    const int32_t nb = cc->body_count;
    if (dfm_cpu_forks(nt, v->particle_count, DFM_CPU_SOLVE_PARALLEL_MIN)) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (int32_t b = 0; b < nb; ++b) patch_friction_body(cc, v, coarse, b);
    } else {
        for (int32_t b = 0; b < nb; ++b) patch_friction_body(cc, v, coarse, b);
    }
}

void dfm_cpu_contacts_patch_friction_attribute(dfm_cpu_contacts* cc) {
    const dfm_contact_view* c = cc->view;
    if (!cc->node_body_friction || !cc->particle_slides || (c->flags & DFM_DISABLE_STATIC_FRICTION)) return;
    const int32_t n = 9 * active_count(c);
    for (int32_t q = 0; q < n; ++q) cc->node_friction[q] += cc->node_body_friction[q];
}

void dfm_cpu_contacts_friction(dfm_cpu_contacts* cc, const uint8_t* mode, float* x, float* d, float h,
                               int32_t color_count, const int32_t* color_offsets, const int32_t* color_particles) {
    const dfm_contact_view* c = cc->view;
    if (c->flags & DFM_DISABLE_STATIC_FRICTION) return;
    const int nt = cc->threads > 0 ? cc->threads : 1;
    for (int32_t col = 0; col < color_count; ++col) {
        const int32_t begin = color_offsets[col], end = color_offsets[col + 1];
        /* particles of one color touch disjoint data: any order gives the same bits */
        if (dfm_cpu_forks(nt, end - begin, DFM_CPU_SOLVE_PARALLEL_MIN)) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
            for (int32_t k = begin; k < end; ++k)
                (void)dfm_contact_friction_particle(c, mode, x, d, h, color_particles[k], cc->node_friction);
        } else {
            for (int32_t k = begin; k < end; ++k)
                (void)dfm_contact_friction_particle(c, mode, x, d, h, color_particles[k], cc->node_friction);
        }
    }
}

/// Finalize pass 1 for record k: its final force, kind count and penetration.
static inline void final_record(const dfm_contact_view* c, const float* d, float h, int32_t k, float* record_force,
                                int32_t* k0, int32_t* k1, int32_t* k2, float* deepest) {
    int kind = dfm_contact_kind_index(c, k);
    *k0 += kind == 0;
    *k1 += kind == 1;
    *k2 += kind == 2;
    float pen = dfm_contact_final_force(c, d, h, k, record_force);
    if (pen > *deepest) *deepest = pen;
}

/// The particles for residual_range.
typedef struct residual_ctx {
    const dfm_vbd_view* v;
    float* residual;
    const float* deform_force; ///< NULL or 3 per particle, subtracted.
} residual_ctx;

/// Finalize pass 2 for particles [begin, end): their residual force (less the deformable-contact
/// force, when there is one).
static void residual_range(void* p, int32_t begin, int32_t end) {
    const residual_ctx* r = (const residual_ctx*)p;
    for (int32_t i = begin; i < end; ++i) {
        dfm_contact_particle_residual(r->v, i, r->residual);
        if (r->deform_force && r->v->mode[i] == 0)
            dfm_v3_store(dfm_v3_sub(dfm_v3_load(r->residual + 3 * i), dfm_v3_load(r->deform_force + 3 * i)),
                         r->residual + 3 * i);
    }
}

/// Finalize: body b's extra force.
static inline void body_extra(const dfm_cpu_contacts* cc, const dfm_vbd_view* v, int32_t b) {
    dfm_contact_body_extra(cc->view, v, cc->record_force, cc->node_friction, cc->residual, cc->body_offsets[b],
                           cc->body_offsets[b + 1], cc->body_extra + 3 * b);
}

/// Finalize: particle i's reaction parts.
static inline void reaction_particle(const dfm_cpu_contacts* cc, const dfm_vbd_view* v, int32_t i) {
    dfm_contact_reaction_particle(cc->view, v, cc->record_force, cc->node_friction,
                                  cc->body_extra + 3 * cc->particle_body[i], cc->node_part, i);
}

void dfm_cpu_contacts_finalize(dfm_cpu_contacts* cc, const dfm_vbd_view* v) {
    const dfm_contact_view* c = cc->view;
    const float h = v->h;
    int32_t n = active_count(c);
    const int nt = cc->threads > 0 ? cc->threads : 1;
    int32_t k0 = 0, k1 = 0, k2 = 0;
    float deepest = 0.0f;
    /* Passes 1 and 2 write only their own record / their own particle's nodes; the integer counts
     * and the max are exact reductions, so the thread count changes no bit. */
    if (dfm_cpu_forks(nt, n, DFM_CPU_PARALLEL_MIN)) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : k0, k1, k2) reduction(max : deepest)
#endif
        for (int32_t k = 0; k < n; ++k) final_record(c, v->d, h, k, cc->record_force, &k0, &k1, &k2, &deepest);
    } else {
        for (int32_t k = 0; k < n; ++k) final_record(c, v->d, h, k, cc->record_force, &k0, &k1, &k2, &deepest);
    }
    cc->kind_counts[0] = k0;
    cc->kind_counts[1] = k1;
    cc->kind_counts[2] = k2;
    cc->max_penetration = deepest;
    const int32_t np = v->particle_count;
    const int light = dfm_cpu_forks(nt, np, DFM_CPU_PARALLEL_MIN);
    residual_ctx rc = {v, cc->residual, cc->deform_force}; /* every incident element per particle: heavy */
    if (cc->simd) {
        dfm_cpu_simd_need(cc->simd, v, cc->residual, nt); /* the same figures, W particles at a time */
        if (cc->deform_force)
            for (int32_t i = 0; i < np; ++i)
                if (v->mode[i] == 0)
                    dfm_v3_store(dfm_v3_sub(dfm_v3_load(cc->residual + 3 * i), dfm_v3_load(cc->deform_force + 3 * i)),
                                 cc->residual + 3 * i);
    } else
        dfm_cpu_run(dfm_cpu_forks(nt, np, DFM_CPU_SOLVE_PARALLEL_MIN), nt, np, residual_range, &rc);
    const int32_t nb = cc->body_count;
    if (light) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
        for (int32_t b = 0; b < nb; ++b) body_extra(cc, v, b);
    } else {
        for (int32_t b = 0; b < nb; ++b) body_extra(cc, v, b);
    }
    if (light) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
        for (int32_t i = 0; i < np; ++i) reaction_particle(cc, v, i);
    } else {
        for (int32_t i = 0; i < np; ++i) reaction_particle(cc, v, i);
    }
    for (int32_t k = 0; k < n; ++k) {
        dfm_v3 fp, fr, tr;
        dfm_contact_record_wrench(c, v->d, cc->node_part, k, &fp, &fr, &tr);
        cc->particle_impulse[0] += (double)fp.x * h;
        cc->particle_impulse[1] += (double)fp.y * h;
        cc->particle_impulse[2] += (double)fp.z * h;
        double* imp = cc->shape_impulse + 6 * (size_t)c->rec.shape[k];
        imp[0] += (double)fr.x * h;
        imp[1] += (double)fr.y * h;
        imp[2] += (double)fr.z * h;
        imp[3] += (double)tr.x * h;
        imp[4] += (double)tr.y * h;
        imp[5] += (double)tr.z * h;
    }
}
