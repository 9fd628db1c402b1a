/// @file vbd_cpu.c
/// CPU loops over the shared per-particle VBD stages (kernels/shared/vbd_particle.h).
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-and-done — colors are the levels; all particles of one color are
///   solved in one parallel loop, colors run in sequence. With deformable contact each color is
///   split into sub-colours without a pair inside (deform_contact_cpu.c), run in sequence, each
///   in the lanes like a color (vbd_simd.h), the last (serial) one scalar. A color forks onto
///   the workers only from DFM_CPU_SOLVE_WORK_MIN of work (cpu_threads.h: a small cloth's ~100-particle colors stay
///   on the calling thread, outside any OpenMP region, so more threads never slow it down).
/// - P2 parallel independent columns: applies-and-done — predict and velocity update are
///   per-particle independent loops.
/// - P3 loop-invariant hoisting: applies-and-done — rest data (D^-1, areas, volumes, rest angles)
///   and adjacency are computed once at body creation, not per iteration; the hinges' start
///   angles once per advance; the per-element material coefficients once per step
///   (vbd_coef_cpu.c).
/// - P4 offline memory layout: applies-and-done for the element data of the per-color solve and
///   the residual pass — a color-ordered, W-wide structure-of-arrays layout filled once per step,
///   solved W particles at a time (vbd_simd.h, vbd_simd_lanes.h; bitwise this file's scalar
///   loops, which stay the reference and run with DFM_CPU_SIMD=scalar); applies-TODO for the
///   positions, still xyz per particle in body order.
#include "vbd_cpu.h"

#include <string.h>

#include "coarse_cpu.h"
#include "contact_reaction.h"
#include "deform_contact_cpu.h"
#include "contact_sheet.h"
#include "host_bodies_cpu.h"
#include "rigid_broad_cpu.h"
#include "vbd_particle.h"
#include "vbd_simd.h"

/// The contact part of particle i's local system: its gathered records, or the legacy scatter's
/// accumulators; zero without contacts.
void dfm_cpu_contact_terms(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, int32_t i, dfm_v3* f, dfm_m33* H) {
    *f = dfm_v3_zero();
    *H = dfm_m33_zero();
    if (cc && cc->gather) {
        dfm_contact_gather(cc->view, view->d, view->h, i, f, H);
    } else if (cc) {
        *f = dfm_v3_load(cc->acc_f + 3 * (size_t)i);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) H->m[a][b] = cc->acc_H[9 * (size_t)i + 3 * (size_t)a + (size_t)b];
    }
}

void dfm_cpu_particle_start(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, int32_t i, dfm_v3* f_out,
                            dfm_m33* H_out) {
    dfm_v3 f;
    dfm_m33 H;
    dfm_cpu_contact_terms(view, cc, i, &f, &H);
    dfm_vbd_particle_base(view, i, f, H, f_out, H_out);
}

float dfm_cpu_particle_start_dc(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, const dfm_cpu_dc* dc, int32_t i,
                                dfm_v3* f_out, dfm_m33* H_out) {
    dfm_v3 f;
    dfm_m33 H;
    dfm_cpu_contact_terms(view, cc, i, &f, &H);
    const float gap = dfm_dc_gather(&dc->view, view->x, view->d, view->h, i, &f, &H);
    dfm_vbd_particle_base(view, i, f, H, f_out, H_out);
    return gap;
}

void dfm_cpu_dc_bound_particle(const dfm_vbd_view* view, const dfm_cpu_dc* dc, int32_t i, dfm_v3 d_old, float gap) {
    const dfm_v3 d_new = dfm_v3_load(view->d + 3 * i);
    const dfm_v3 b = dfm_dc_bound_step(d_old, d_new, gap, dfm_dc_vertex_bound(&dc->view, i));
    if (b.x != d_new.x || b.y != d_new.y || b.z != d_new.z) {
        dfm_v3_store(b, view->d + 3 * i);
        dfm_v3_store(dfm_v3_add(dfm_v3_load(view->x_prev + 3 * i), b), view->x + 3 * i);
    }
}

void dfm_cpu_solve_one(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, const dfm_cpu_dc* dc, int32_t i) {
    if (view->mode[i] != 0) return;
    dfm_v3 f;
    dfm_m33 H;
    if (!dc || !dc->surface[i]) {
        dfm_cpu_particle_start(view, cc, i, &f, &H);
        dfm_vbd_accumulate_elements(view, i, &f, &H);
        dfm_vbd_particle_newton(view, i, f, H);
        return;
    }
    const float gap = dfm_cpu_particle_start_dc(view, cc, dc, i, &f, &H);
    const dfm_v3 d_old = dfm_v3_load(view->d + 3 * i);
    dfm_vbd_accumulate_elements(view, i, &f, &H);
    if (dfm_vbd_particle_newton(view, i, f, H)) dfm_cpu_dc_bound_particle(view, dc, i, d_old, gap);
}

/// A color's particles for solve_range.
typedef struct solve_ctx {
    const dfm_vbd_view* view;
    const dfm_cpu_contacts* cc;
    const dfm_cpu_dc* dc;
    const int32_t* particles; ///< The color's particles.
} solve_ctx;

/// Solves the color's particles [begin, end).
static void solve_range(void* p, int32_t begin, int32_t end) {
    const solve_ctx* s = (const solve_ctx*)p;
    for (int32_t k = begin; k < end; ++k) dfm_cpu_solve_one(s->view, s->cc, s->dc, s->particles[k]);
}

/// Entries of the advance's memo of color_nt (colours, or colours x DFM_DC_SUBCOLOR_SLOTS with
/// deformable contact); keys beyond it are summed every sweep.
#define DFM_CPU_COLOR_MEMO 1024

/// The workers for the particles [begin, end) of colour (or sub-colour) `key`: nt when their work
/// reaches DFM_CPU_SOLVE_WORK_MIN, else 1 (fork by work, not by particle count, cpu_threads.h: the
/// split is contiguous either way, so no bit depends on it). memo[key]: 0 unknown, else workers.
static int color_nt(int8_t* memo, int32_t key, const dfm_vbd_view* view, const int32_t* particles, int32_t begin,
                    int32_t end, int nt) {
    if (nt <= 1) return 1;
    if (key >= 0 && key < DFM_CPU_COLOR_MEMO && memo[key]) return memo[key] > 1 ? nt : 1;
    const int fork = dfm_cpu_solve_work(particles + begin, end - begin, view->v_tri_offsets, view->v_edge_offsets,
                                        view->v_tet_offsets) >= DFM_CPU_SOLVE_WORK_MIN;
    if (key >= 0 && key < DFM_CPU_COLOR_MEMO) memo[key] = (int8_t)(fork ? 2 : 1);
    return fork ? nt : 1;
}

/// Solves the particles [begin, end) of one color, with their contact force/Hessian, on `nt`
/// workers (color_nt decides: 1 below DFM_CPU_SOLVE_WORK_MIN of work). With deformable contact, [begin, end) is
/// sub-colour `sub` of colour c (dc->sub_particles): in the lanes when there are lanes and the
/// sub-colour is not the serial one (its particles are independent, like a colour's).
static void solve_color(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, const dfm_cpu_dc* dc,
                        const int32_t* color_particles, int32_t begin, int32_t end, int nt, const dfm_cpu_simd* simd,
                        int32_t c, int sub) {
    if (simd && !dc) {
        dfm_cpu_simd_solve_color(simd, view, cc, c, nt);
        return;
    }
    if (simd && sub < DFM_DC_SUBCOLORS) {
        dfm_cpu_simd_solve_color_dc(simd, view, cc, dc, c, sub, end - begin, nt);
        return;
    }
    solve_ctx s = {view, cc, dc, color_particles + begin};
    dfm_cpu_run(nt > 1, nt, end - begin, solve_range, &s);
}

/// The world's particles for residual_range.
typedef struct residual_ctx {
    const dfm_vbd_view* view;
    const dfm_cpu_contacts* cc;
    float* norms; ///< Output, one per particle.
} residual_ctx;

/// The residual norms of particles [begin, end) (see dfm_cpu_convergence).
static void residual_range(void* p, int32_t begin, int32_t end) {
    const residual_ctx* s = (const residual_ctx*)p;
    const dfm_cpu_contacts* cc = s->cc;
    float* norms = s->norms;
    for (int32_t i = begin; i < end; ++i)
        norms[i] = cc ? dfm_contact_local_residual(cc->view, s->view, cc->record_force, cc->residual, cc->node_friction,
                                                   i)
                      : dfm_v3_len(dfm_vbd_particle_need(s->view, i));
}

/// Fills `conv` at the end of an advance (after friction and finalize, before the velocity
/// update): norms in parallel, the max and the sum serially in particle order.
static void measure_convergence(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, dfm_cpu_convergence* conv,
                                int nt) {
    const int32_t n = view->particle_count;
    residual_ctx s = {view, cc, conv->norms};
    dfm_cpu_run(dfm_cpu_forks(nt, n, DFM_CPU_SOLVE_PARALLEL_MIN), nt, n, residual_range, &s);
    float worst = 0.0f;
    double sum = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        if (conv->norms[i] > worst) worst = conv->norms[i];
        sum += conv->norms[i];
    }
    conv->max = worst;
    conv->sum = sum;
}

/// Each body's first record in the body-level solve's scratch: a serial prefix over the bodies'
/// record counts, once per advance (the lists do not change during its sweeps; CUDA:
/// body_count_kernel and a scan).
static void body_record_offsets(const dfm_contact_view* c, const dfm_cpu_body_solve* bs) {
    bs->record_offsets[0] = 0;
    for (int32_t b = 0; b < bs->body_count; ++b)
        bs->record_offsets[b + 1] =
            bs->record_offsets[b] +
            (c ? dfm_body_gather_records(c, NULL, bs->body_offsets[b], bs->body_offsets[b + 1], NULL) : 0);
}

/// The body-level pass after a sweep, for body b: if free, its records gathered at the current iterate
/// into its range of the scratch (offsets from body_record_offsets), its
/// translation solved and applied. Bodies are independent (disjoint particles and records).
static inline void translate_body(const dfm_vbd_view* view, const dfm_contact_view* c, const dfm_cpu_body_solve* bs,
                                  int32_t b) {
    const int32_t first = bs->body_offsets[b], end = bs->body_offsets[b + 1];
    if (!dfm_body_is_free(view, first, end)) return;
    dfm_body_record* rec = bs->records + bs->record_offsets[b];
    const int32_t count = c ? dfm_body_gather_records(c, view->d, first, end, rec) : 0;
    dfm_v3 g0;
    float M;
    dfm_body_inertia(view, first, end, &g0, &M);
    int slides = 0;
    dfm_v3 dl = dfm_body_translation(rec, count, view->h, g0, M, &slides);
    memset(bs->particle_slides + first, slides, (size_t)(end - first));
    dfm_body_apply_translation(view, first, end, dl);
}

/// translate_body for every body; forked over the bodies only for large worlds.
static void translate_bodies(const dfm_vbd_view* view, const dfm_cpu_contacts* cc, const dfm_cpu_body_solve* bs,
                             int nt) {
    const int32_t nb = bs->body_count;
    const dfm_contact_view* c = cc ? cc->view : NULL;
    if (nb > 1 && dfm_cpu_forks(nt, view->particle_count, DFM_CPU_PARALLEL_MIN)) {
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (int32_t b = 0; b < nb; ++b) translate_body(view, c, bs, b);
    } else {
        for (int32_t b = 0; b < nb; ++b) translate_body(view, c, bs, b);
    }
}

void dfm_cpu_vbd_advance(const dfm_vbd_view* view, dfm_cpu_contacts* cc, int32_t color_count,
                         const int32_t* color_offsets, const int32_t* color_particles, int32_t iterations, float alpha,
                         int32_t threads, dfm_cpu_convergence* conv, const dfm_cpu_body_solve* bodies,
                         const struct dfm_cpu_simd* simd, dfm_cpu_dc* dc, struct dfm_cpu_coarse* coarse) {
    const int nt = dfm_cpu_thread_count(threads);
    const int32_t n = view->particle_count;
    if (cc) {
        dfm_detect_input in;
        in.x = view->x;
        in.v = view->v;
        in.radius = view->radius;
        in.h = view->h;
        const int64_t candidates = dfm_contact_candidates_total(&cc->view->cand);
        dfm_cpu_rigid_broad* broad = cc->broad;
        const int64_t last_work = cc->detect_work ? *cc->detect_work : 0;
        int64_t work = 0;
        int forked = 0;
        if (broad) broad->threads = nt; /* its per-feature queries fork by feature count */
        if (broad &&
            dfm_cpu_rigid_broad_select(broad, cc->view, &in, cc->particle_env, cc->env_count, cc->generation) == 0) {
            forked = cc->scratch && dfm_cpu_detect_forks(nt, last_work, broad->selected_count, cc->detect_work_min);
            work = dfm_cpu_contacts_detect_selected(cc->view, &in, broad->selected, broad->selected_count,
                                                    forked ? cc->scratch : NULL, nt);
        } else if (cc->scratch && dfm_cpu_detect_forks(nt, last_work, candidates, cc->detect_work_min)) {
            forked = 1;
            work = dfm_cpu_contacts_detect_parallel(cc->view, &in, cc->scratch, nt);
        } else if (cc->detect.corner) {
            dfm_cpu_detect_cache_fill(&cc->detect, cc->view, &in, n);
            work = dfm_cpu_contacts_detect_cached(cc->view, &in, &cc->detect);
        } else
            work = dfm_cpu_contacts_detect(cc->view, &in);
        if (cc->detect_work) *cc->detect_work = work; /* the same for any thread count: decides the next fork */
        if (cc->detect_forks) *cc->detect_forks += forked;
        if (cc->view->flags & DFM_CONTACT_SHEET_NORMALS) { /* thin-shell normals (contact_sheet.h) */
            const int32_t na = *cc->view->count < cc->view->capacity ? *cc->view->count : cc->view->capacity;
            for (int32_t k = 0; k < na; ++k) dfm_contact_sheet_record(cc->view, view, k);
        }
        dfm_cpu_contacts_build_lists(cc->view, n); /* gather path and reactions */
        dfm_cpu_contacts_guess_normals(cc->view, n, cc->guess_normal, cc->guess_gap, nt);
    }
    dfm_vbd_view with_guess = *view;
    with_guess.guess_normal = cc ? cc->guess_normal : NULL;
    with_guess.guess_gap = cc ? cc->guess_gap : NULL;
    view = &with_guess;
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (n >= DFM_CPU_PARALLEL_MIN)
#endif
    for (int32_t i = 0; i < n; ++i) dfm_vbd_predict(view, i, alpha);
    if (view->edge_start_angle && simd) {
        dfm_cpu_simd_start_angles(simd, view, nt); /* the same angles, W hinges at a time */
    } else if (view->edge_start_angle) {
        const int32_t ne = view->edge_count;
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (ne >= DFM_CPU_PARALLEL_MIN)
#endif
        for (int32_t e = 0; e < ne; ++e) dfm_vbd_edge_start_angle(view, e);
    }
    if (dc) dc->simd = simd;  /* the pair batches of detection and final forces */
    if (dc) dc->threads = nt; /* the detection's parallel passes (bitwise the same for any count) */
    if (dc)                   /* pairs at x_prev, sub-colours; bounds the initial guess */
        dfm_cpu_dc_detect(dc, view, color_count, color_offsets, color_particles, dc->particle_color);

    if (bodies) body_record_offsets(cc ? cc->view : NULL, bodies);
    /* each (sub-)colour's fork by work, summed in the first sweep only (the adjacency does not
       change within an advance): 576 particles x 40 sweeps of CSR sums were 0.8% of a game-cloth
       step on 2 threads (callgrind) */
    int8_t color_nt_memo[DFM_CPU_COLOR_MEMO];
    memset(color_nt_memo, 0, sizeof(color_nt_memo));
    for (int32_t it = 0; it < iterations; ++it) {
        if (cc && cc->view->penalty_beta > 0.0f) dfm_cpu_contacts_update_penalties(cc->view, view->d);
        for (int32_t c = 0; c < color_count; ++c) {
            const int32_t begin = color_offsets[c], end = color_offsets[c + 1];
            if (cc && !cc->gather) dfm_cpu_contacts_scatter_color(cc, view->d, view->h, color_particles, begin, end, c);
            if (!dc) {
                solve_color(view, cc, NULL, color_particles, begin, end,
                            color_nt(color_nt_memo, c, view, color_particles, begin, end, nt), simd, c, 0);
                continue;
            }
            /* sub-colour after sub-colour: no pair inside one; the last one (partners held every
               free sub-colour) serially on the scalar path, the others in the lanes (which gather
               the pairs in their per-lane scalar start) */
            const int32_t* off = dc->sub_offsets + (size_t)c * DFM_DC_SUBCOLOR_SLOTS;
            for (int sub = 0; sub < DFM_DC_SUBCOLOR_SLOTS; ++sub)
                if (off[sub + 1] > off[sub])
                    solve_color(view, cc, dc, dc->sub_particles, off[sub], off[sub + 1],
                                sub == DFM_DC_SUBCOLORS ? 1
                                                        : color_nt(color_nt_memo, c * DFM_DC_SUBCOLOR_SLOTS + sub, view,
                                                                   dc->sub_particles, off[sub], off[sub + 1], nt),
                                simd, c, sub);
        }
        if (bodies) translate_bodies(view, cc, bodies, nt);
        if (coarse && it < iterations - 1)
            dfm_cpu_coarse_correct(coarse, view, cc, simd, nt, it == 0); /* coarse_cpu.h */
        if (cc && cc->hosts) dfm_cpu_solve_host_bodies(cc->hosts, cc->view, view->d, view->h);
    }
    if (cc) {
        cc->simd = simd;
        const int patch = !dc && !(cc->view->flags & DFM_CONTACT_BODY_SOLVE); /* contact_patch_friction.h */
        if (patch) dfm_cpu_contacts_patch_friction(cc, view, coarse);
        dfm_cpu_contacts_friction(cc, view->mode, view->x, view->d, view->h, color_count, color_offsets,
                                  color_particles);
        if (patch) dfm_cpu_contacts_patch_friction_attribute(cc);
        if (dc) {
            const float* need = NULL; /* the lanes' dfm_vbd_particle_need (bitwise), when there are pairs */
            if (simd && dc->need && dc->pair_count > 0) {
                dfm_cpu_simd_need(simd, view, dc->need, nt);
                need = dc->need;
            }
            dfm_cpu_dc_final_forces(dc, view, cc->view, cc->node_friction, cc->particle_body, cc->body_offsets,
                                    cc->body_count, need);
        }
        cc->deform_force = dc ? dc->final_force : NULL;
        dfm_cpu_contacts_finalize(cc, view);
    }
    if (conv) measure_convergence(view, cc, conv, nt);
#if defined(_OPENMP)
#pragma omp parallel for num_threads(nt) schedule(static) if (n >= DFM_CPU_PARALLEL_MIN)
#endif
    for (int32_t i = 0; i < n; ++i) dfm_vbd_update_velocity(view, i);
}
