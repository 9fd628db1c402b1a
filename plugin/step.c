/// @file step.c
/// See step.h. One dfm_world_step = `substeps` advances; each advance moves the shapes from their
/// previous to their current host state by the advance's fraction of the step.
#include "step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "coarse_cpu.h"
#include "contact_patch_friction.h"
#include "vbd_cpu.h"
#include "vbd_simd.h"
#include "world_internal.h"

void dfm_step_fill_shapes(dfm_world* w, float a0, float a1, dfm_shape_rt* out) {
    dfm_contacts* c = &w->contacts;
    for (int32_t k = 0; k < c->shape_count; ++k) {
        const dfm_shape* s = dfm_world_shape_at(w, c->shape_slot[k]);
        dfm_shape_rt* r = &out[k];
        r->geom = s->geom;
        r->local = s->local;
        r->body_start = dfm_xform_lerp(s->body_prev, s->body_cur, a0);
        r->body_end = dfm_xform_lerp(s->body_prev, s->body_cur, a1);
        for (int a = 0; a < 3; ++a) {
            r->aabb_min[a] = fminf(s->aabb_prev[a], s->aabb_cur[a]);
            r->aabb_max[a] = fmaxf(s->aabb_prev[3 + a], s->aabb_cur[3 + a]);
        }
        r->margin = s->margin;
        r->gap = s->gap;
        r->ke = s->ke;
        r->kd = s->kd;
        r->mu = s->mu;
        r->environment = s->environment;
        r->is_plane = s->type == DFM_SHAPE_PLANE;
        r->coupled = 0; /* dfm_host_bodies_begin_advance sets it for the shapes it solves */
    }
}

void dfm_step_finish_contacts(dfm_world* w, float dt, const double* impulses, const int32_t* emitted, int32_t advances,
                              const double particle_impulse[3], const int32_t kinds[3], float max_penetration,
                              float residual_max) {
    dfm_contacts* c = &w->contacts;
    /* Shapes: reactions averaged over the step; the current state becomes the previous one. */
    for (int32_t k = 0; k < c->shape_count; ++k) {
        dfm_shape* s = dfm_world_shape_at(w, c->shape_slot[k]);
        for (int a = 0; a < 6; ++a) s->reaction[a] = impulses ? (float)(impulses[6 * k + a] / dt) : 0.0f;
        s->body_last = s->body_cur;
        s->body_prev = s->body_cur;
        memcpy(s->aabb_prev, s->aabb_cur, sizeof(s->aabb_cur));
    }
    int64_t dropped = 0;
    for (int32_t s = 0; emitted && s < advances; ++s)
        if (emitted[s] > c->capacity) dropped += emitted[s] - c->capacity;
    c->count = emitted && advances > 0 ? emitted[advances - 1] : 0;
    for (int a = 0; a < 3; ++a) c->particle_force[a] = (float)(particle_impulse[a] / dt);
    memcpy(c->last_kind_counts, kinds, sizeof(c->last_kind_counts));
    c->max_penetration = max_penetration;
    c->residual_max = residual_max;
    c->dropped_last_step = dropped;
    c->dropped_total += dropped;
    if (dropped > 0)
        dfm_log(w, DFM_LOG_WARNING,
                "contact capacity %d exceeded: %lld records dropped this step (%lld in total); raise "
                "world_def.contact_capacity",
                c->capacity, (long long)dropped, (long long)c->dropped_total);
}

/// Room for a record per candidate (parallel detection), allocated on first use. Returns 0 when
/// host memory is short (the step then detects serially).
static int detection_scratch(dfm_world* w) {
    dfm_contacts* c = &w->contacts;
    size_t n = (size_t)dfm_contact_candidates_total(&c->cand) + 1u;
    if (!c->scratch.corners && !dfm_contact_records_alloc(&c->scratch, n)) {
        dfm_log(w, DFM_LOG_WARNING,
                "out of host memory for parallel contact detection (%zu records); detecting serially", n);
        return 0;
    }
    return 1;
}

dfm_result dfm_step_scratch(dfm_world* w, int32_t substeps, int32_t shapes, int32_t** emitted, double** impulses) {
    if (substeps > w->step_emitted_cap) {
        int32_t* e = (int32_t*)realloc(w->step_emitted, (size_t)substeps * sizeof(int32_t));
        if (!e) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for per-substep contact counts");
        w->step_emitted = e;
        w->step_emitted_cap = substeps;
    }
    int32_t want = shapes > 0 ? shapes : 1;
    if (want > w->step_impulses_cap) {
        double* i = (double*)realloc(w->step_impulses, (size_t)want * 6u * sizeof(double));
        if (!i) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for shape reactions");
        w->step_impulses = i;
        w->step_impulses_cap = want;
    }
    memset(w->step_emitted, 0, (size_t)substeps * sizeof(int32_t));
    memset(w->step_impulses, 0, (size_t)want * 6u * sizeof(double));
    *emitted = w->step_emitted;
    *impulses = w->step_impulses;
    return DFM_OK;
}

void dfm_step_coarse_report(dfm_world* w) {
    if (!w->coarse || w->coarse->friction_skipped == 0 || w->coarse_friction_logged) return;
    w->coarse_friction_logged = 1;
    dfm_log(w, DFM_LOG_WARNING,
            "coarse correction: %lld body corrections so far without friction in the coarse step (a body touched "
            "more than %d shapes with friction); those bodies take the patch decision after the iterations",
            (long long)w->coarse->friction_skipped, DFM_PATCH_MAX);
}

dfm_result dfm_step_coarse_level(dfm_world* w, const dfm_vbd_view* view, struct dfm_cpu_coarse** out) {
    if (!w->coarse) {
        w->coarse = (dfm_cpu_coarse*)calloc(1, sizeof(dfm_cpu_coarse));
        if (!w->coarse) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the coarse level");
        w->coarse->generation = -1;
    }
    if (dfm_cpu_coarse_prepare(w->coarse, view, w->model_generation, w->model.body_count, w->model.body_offsets) != 0)
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the coarse level (%d particles)",
                        view->particle_count);
    *out = w->coarse;
    return DFM_OK;
}

/// Room for the per-particle sliding flags (w->particle_slides) of the patch decision
/// (contact_patch_friction.h) or the body-level solve, zeroed; `what` names the user in the error.
static dfm_result slides_scratch(dfm_world* w, const char* what) {
    const int32_t np = w->model.particle_count;
    if (np > w->particle_slides_cap) {
        uint8_t* f = (uint8_t*)realloc(w->particle_slides, (size_t)np);
        if (!f) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %s", what);
        w->particle_slides = f;
        w->particle_slides_cap = np;
    }
    if (np > 0) memset(w->particle_slides, 0, (size_t)np);
    return DFM_OK;
}

/// Scratch of the body-level translation solve (DFM_FEATURE_BODY_TRANSLATION): offsets per body
/// and room for `records` contact records, grown on demand; fills `out`.
static dfm_result body_solve_scratch(dfm_world* w, int32_t records, dfm_cpu_body_solve* out) {
    const int32_t nb = w->model.body_count;
    if (nb + 1 > w->body_record_offsets_cap) {
        int32_t* o = (int32_t*)realloc(w->body_record_offsets, ((size_t)nb + 1u) * sizeof(int32_t));
        if (!o) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the body-level solve");
        w->body_record_offsets = o;
        w->body_record_offsets_cap = nb + 1;
    }
    if (records > w->body_records_cap) {
        void* p = realloc(w->body_records, (size_t)records * sizeof(dfm_body_record));
        if (!p)
            return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the body-level solve (%d records)",
                            records);
        w->body_records = p;
        w->body_records_cap = records;
    }
    dfm_result r = slides_scratch(w, "the body-level solve");
    if (r != DFM_OK) return r;
    out->particle_slides = w->particle_slides;
    out->body_count = nb;
    out->body_offsets = w->model.body_offsets;
    out->record_offsets = w->body_record_offsets;
    out->records = (dfm_body_record*)w->body_records;
    return DFM_OK;
}

/// Attaches the rigid broad phase (issue 16, kernels/cpu/rigid_broad_cpu.h) to the advances when
/// DFM_CPU_RIGID_BROAD (default: from DFM_CPU_RIGID_BVH_SHAPES non-plane shapes per feature)
/// asks for it; refuses a bad value of the variable. Logs the choice once per candidate rebuild.
static dfm_result attach_rigid_broad(dfm_world* w, dfm_cpu_contacts* cc) {
    const char* knob = getenv(DFM_CPU_RIGID_BROAD_ENV);
    int64_t threshold;
    if (dfm_cpu_rigid_broad_threshold(knob, &threshold) != 0)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "%s is '%s'; must be auto, bvh, brute or a number of non-plane shapes per feature (>= 0)",
                        DFM_CPU_RIGID_BROAD_ENV, knob);
    dfm_contacts* c = &w->contacts;
    if (c->broad_counted != c->generation) { /* once per rebuild: candidates it could cull, features */
        c->broad_counted = c->generation;
        c->broad_cullable = 0;
        c->broad_features = 0;
        const int32_t nf[DFM_CANDIDATE_KINDS] = {w->model.feat_particle_count, w->model.feat_edge_count,
                                                 w->model.feat_face_count};
        uint8_t* plane = (uint8_t*)calloc((size_t)c->shape_count + 1u, 1);
        if (!plane) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory counting candidates");
        for (int32_t k = 0; k < c->shape_count; ++k)
            plane[k] = dfm_world_shape_at(w, c->shape_slot[k])->type == DFM_SHAPE_PLANE;
        for (int k = 0; k < DFM_CANDIDATE_KINDS; ++k) {
            if (c->cand.count[k] > 0) c->broad_features += nf[k];
            for (int32_t i = 0; i < c->cand.count[k]; ++i) c->broad_cullable += !plane[c->cand.pairs[k][2 * i + 1]];
        }
        free(plane);
    }
    const int sorted = !(w->def.disable_flags & (DFM_DISABLE_SHAPE_SORT | DFM_DISABLE_AABB_CULL));
    const int on = sorted && threshold != INT64_MAX &&
                   (threshold == 0 || (c->broad_cullable >= DFM_CPU_RIGID_BVH_MIN_PAIRS &&
                                       c->broad_cullable >= threshold * c->broad_features));
    if (c->broad_logged != 2 * c->generation + on) {
        c->broad_logged = 2 * c->generation + on;
        dfm_log(w, DFM_LOG_INFO,
                "rigid broad phase: %s (%lld of %lld candidates on non-plane shapes, %.2f per feature; threshold "
                "%lld%s)",
                on ? "BVH over the shapes' AABBs" : "all pairs", (long long)c->broad_cullable,
                (long long)dfm_contact_candidates_total(&c->cand),
                c->broad_features > 0 ? (double)c->broad_cullable / (double)c->broad_features : 0.0,
                (long long)(threshold == INT64_MAX ? -1 : threshold),
                sorted ? "" : ", lists unsorted or early-out off");
    }
    if (!on) return DFM_OK;
    cc->broad = &c->broad;
    cc->particle_env = w->model.environment;
    cc->env_count = w->def.environment_count > 0 ? w->def.environment_count : 1;
    cc->generation = c->generation;
    return DFM_OK;
}

dfm_result dfm_step_cpu(dfm_world* w, float dt) {
    dfm_result r = dfm_contacts_ensure(w);
    if (r == DFM_OK) r = dfm_deform_contacts_ensure(w);
    if (r != DFM_OK) return r;
    dfm_contacts* c = &w->contacts;
    dfm_cpu_dc* deform = w->def.deformable_contact_radius > 0.0f ? &w->deform.cpu : NULL;
    int64_t deform_dropped = 0;
    const int32_t substeps = w->def.substeps;
    const float h = dt / (float)substeps;
    dfm_vbd_view view = dfm_world_host_view(w, h);
    dfm_contact_view cview = dfm_world_contact_view(w);
    int use_contacts = c->shape_count > 0 && c->capacity > 0;
    int32_t* emitted = NULL;
    double* impulses = NULL;
    r = dfm_step_scratch(w, substeps, c->shape_count, &emitted, &impulses);
    if (r != DFM_OK) return r;
    if (!use_contacts) impulses = NULL;
    dfm_cpu_contacts cc;
    memset(&cc, 0, sizeof(cc));
    cc.view = &cview;
    cc.gather = !(w->def.disable_flags & DFM_DISABLE_CONTACT_LISTS);
    cc.particle_color = w->model.particle_color;
    cc.acc_f = c->acc_f;
    cc.acc_H = c->acc_H;
    cc.guess_normal = c->guess_normal;
    cc.guess_gap = c->guess_gap;
    cc.record_force = c->record_force;
    cc.node_part = c->node_part;
    cc.residual = c->residual;
    cc.body_extra = c->body_extra;
    cc.node_friction = c->node_friction;
    cc.detect.pose = c->detect_pose;
    cc.detect.speed = c->detect_speed;
    cc.detect.corner = c->detect_corner;
    cc.detect.corner_shape = c->detect_corner_shape;
    cc.body_count = w->model.body_count;
    cc.body_offsets = w->model.body_offsets;
    cc.particle_body = w->model.particle_body;
    cc.shape_impulse = impulses;
    cc.threads = dfm_cpu_thread_count(w->def.cpu_threads);
    int64_t candidates = dfm_contact_candidates_total(&c->cand);
    /* scratch for a forked detection: when this step's first detection may fork (by the last one's
     * work, or by the candidate count before any, cpu_threads.h); the advance decides each one */
    const char* work_knob = getenv(DFM_CPU_DETECT_WORK_ENV);
    cc.detect_work_min = DFM_CPU_DETECT_WORK_MIN;
    if (work_knob) {
        char* end = NULL;
        const long long v = strtoll(work_knob, &end, 10);
        if (end == work_knob || *end != '\0' || v < 1)
            return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s is '%s'; must be a number of work units >= 1",
                            DFM_CPU_DETECT_WORK_ENV, work_knob);
        cc.detect_work_min = v;
    }
    if (use_contacts && dfm_cpu_detect_forks(cc.threads, c->detect_work, candidates, cc.detect_work_min) &&
        detection_scratch(w))
        cc.scratch = &c->scratch;
    cc.detect_work = &c->detect_work;
    cc.detect_forks = &c->detect_forks;
    if (use_contacts) {
        r = attach_rigid_broad(w, &cc);
        if (r != DFM_OK) return r;
    }
    const int32_t np = w->model.particle_count;
    if (np > w->residual_norms_cap) {
        float* norms = (float*)realloc(w->residual_norms, (size_t)np * sizeof(float));
        if (!norms) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the convergence figure");
        w->residual_norms = norms;
        w->residual_norms_cap = np;
    }
    /* Per-element coefficients (P3, vbd_coef.h): 3 per triangle and tet, 2 per hinge, once per step. */
    const dfm_model* m = &w->model;
    const int64_t ncoef = 3 * (int64_t)m->tri_count + 2 * (int64_t)m->edge_count + 3 * (int64_t)m->tet_count;
    if (ncoef > w->element_coef_cap) {
        float* p = (float*)realloc(w->element_coef, (size_t)ncoef * sizeof(float));
        if (!p) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the element coefficients");
        w->element_coef = p;
        w->element_coef_cap = ncoef;
    }
    if (ncoef > 0) {
        view.tri_coef = w->element_coef;
        view.edge_coef = view.tri_coef + 3 * (size_t)m->tri_count;
        view.tet_coef = view.edge_coef + 2 * (size_t)m->edge_count;
        dfm_cpu_vbd_coefficients(&view, m->tri_count, m->tet_count);
    }
    /* The lane layout of the per-color solve (vbd_simd.h), refilled every step (this step's
     * coefficients and materials); its buffer grows only when the model does. */
    dfm_cpu_simd simd = {dfm_cpu_simd_width(), NULL};
    if (simd.width) {
        size_t need = dfm_cpu_simd_fill(simd.width, &view, m->color_count, m->color_offsets, m->color_particles,
                                        w->simd_layout, w->simd_layout_cap);
        if (need > w->simd_layout_cap) {
            void* p = realloc(w->simd_layout, need);
            if (!p) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the lane layout");
            w->simd_layout = p;
            w->simd_layout_cap = need;
            need = dfm_cpu_simd_fill(simd.width, &view, m->color_count, m->color_offsets, m->color_particles,
                                     w->simd_layout, w->simd_layout_cap);
        }
        simd.layout = w->simd_layout;
        if (!need) simd.width = 0;
    }
    dfm_cpu_convergence conv;
    memset(&conv, 0, sizeof(conv));
    conv.norms = w->residual_norms;
    dfm_cpu_body_solve bodies;
    memset(&bodies, 0, sizeof(bodies));
    const int body_solve = (w->def.feature_flags & DFM_FEATURE_BODY_TRANSLATION) != 0;
    if (body_solve) {
        r = body_solve_scratch(w, use_contacts ? c->capacity : 0, &bodies);
        if (r != DFM_OK) return r;
        cview.flags |= DFM_CONTACT_BODY_SOLVE | DFM_CONTACT_SHEET_NORMALS;
        cview.particle_slides = bodies.particle_slides;
    }
    /* Coulomb's decision per contact patch of each free body (contact_patch_friction.h): the
     * default solver without deformable contact (whose forces the patch's momentum balance would
     * read as the shapes'). */
    if (!body_solve && use_contacts && !deform && !(w->def.disable_flags & DFM_DISABLE_STATIC_FRICTION)) {
        r = slides_scratch(w, "the friction patches");
        if (r != DFM_OK) return r;
        cc.node_body_friction = c->node_body_friction;
        cc.particle_slides = w->particle_slides;
        cview.particle_slides = w->particle_slides;
        cc.coarse_friction = 1; /* with the coarse feature: dfm_cpu_contacts_patch_friction reads its result */
    }
    struct dfm_cpu_coarse* coarse = NULL;
    if (w->def.feature_flags & DFM_FEATURE_COARSE_CORRECTION) {
        r = dfm_step_coarse_level(w, &view, &coarse);
        if (r != DFM_OK) return r;
        cview.flags |= DFM_CONTACT_SHEET_NORMALS; /* contact_view.h */
    }
    dfm_cpu_host_solve hosts;
    r = dfm_host_bodies_begin_step(w, use_contacts ? c->capacity : 0, dt, &hosts);
    if (r != DFM_OK) return r;
    const int coupled = use_contacts && hosts.count > 0;
    if (coupled) cc.hosts = &hosts;
    for (int32_t s = 0; s < substeps; ++s) {
        float a0 = (float)s / (float)substeps, a1 = (float)(s + 1) / (float)substeps;
        if (use_contacts) dfm_step_fill_shapes(w, a0, a1, c->rt);
        if (coupled) dfm_host_bodies_begin_advance(&hosts, h);
        if (deform) { /* pairs found once per step, kept while they cover (dfm_cpu_dc_detect) */
            const int once = !(w->def.disable_flags & DFM_DISABLE_DEFORMABLE_PAIR_REUSE);
            deform->span = once ? substeps - s : 1;
            deform->reuse = once && s > 0;
        }
        dfm_cpu_vbd_advance(&view, use_contacts ? &cc : NULL, w->model.color_count, w->model.color_offsets,
                            w->model.color_particles, w->def.iterations, a1, w->def.cpu_threads,
                            s == substeps - 1 ? &conv : NULL, body_solve ? &bodies : NULL, simd.width ? &simd : NULL,
                            deform, coarse);
        if (deform) deform_dropped += deform->dropped;
        emitted[s] = use_contacts ? c->count : 0;
        if (coupled) dfm_host_bodies_end_advance(&hosts, h);
    }
    /* Kinematic vertices reached their targets: the next step starts from there. */
    dfm_copy_floats(w->state.kin_start, w->state.kin_target, (size_t)w->model.particle_count * 3u);
    if (!use_contacts) cc.max_penetration = 0.0f;
    dfm_step_finish_contacts(w, dt, impulses, emitted, substeps, cc.particle_impulse, cc.kind_counts,
                             cc.max_penetration, use_contacts ? conv.max : 0.0f);
    if (hosts.count > 0) dfm_host_bodies_finish_step(w, &hosts); /* without contacts: zero, solved */
    if (deform) dfm_deform_contacts_finish_step(w, deform_dropped);
    w->residual_force_max = conv.max;
    w->residual_force_sum = conv.sum;
    dfm_step_coarse_report(w);
    return DFM_OK;
}
