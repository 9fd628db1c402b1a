/// @file world.c
/// World lifetime, settings and world-wide queries.
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coarse_cpu.h"
#include "def_read.h"
#include "device_probe.h"
#include "error.h"
#include "solver_internal.h"
#include "step_guard.h"
#include "strided.h"
#include "world_internal.h"

#ifndef DFM_VERSION_STRING
#define DFM_VERSION_STRING "0.0.0"
#endif

/// Source of world tags (16-bit, never 0).
static atomic_uint g_next_tag = 1;

uint32_t dfm_abi_version(void) { return DFM_ABI_VERSION; }

int32_t dfm_device_count(void) { return (int32_t)dfm_cuda_device_count(); }

const char* dfm_version(void) { return DFM_VERSION_STRING; }

static uint16_t next_world_tag(void) {
    for (;;) {
        unsigned t = atomic_fetch_add(&g_next_tag, 1u) & 0xFFFFu;
        if (t != 0) return (uint16_t)t;
    }
}

/// Checks the def's values; `w` may be the half-built world (for messages).
static dfm_result validate_world_def(dfm_world* w, const dfm_world_def* d) {
    for (int k = 0; k < 3; ++k)
        if (!isfinite(d->gravity[k]))
            return dfm_fail(w, DFM_ERROR_NON_FINITE, "world_def.gravity[%d] is not finite", k);
    if (d->substeps < 1 || d->substeps > DFM_MAX_SUBSTEPS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.substeps is %d; must be 1..%d", d->substeps,
                        DFM_MAX_SUBSTEPS);
    if (d->iterations < 1 || d->iterations > DFM_MAX_ITERATIONS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.iterations is %d; must be 1..%d", d->iterations,
                        DFM_MAX_ITERATIONS);
    if (d->environment_count < 1)
        return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "world_def.environment_count is %d; must be >= 1",
                        d->environment_count);
    if (d->backend < DFM_BACKEND_AUTO || d->backend > DFM_BACKEND_CUDA)
        return dfm_fail(w, DFM_ERROR_INVALID_ENUM, "world_def.backend is %d; not a dfm_backend", d->backend);
    if (d->deterministic != 0 && d->deterministic != 1)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.deterministic is %d; must be 0 or 1", d->deterministic);
    if (d->deterministic && d->backend != DFM_BACKEND_CPU && (d->disable_flags & DFM_DISABLE_SHAPE_SORT))
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED,
                        "world_def.deterministic needs the shape sort (its per-shape reductions run over records "
                        "grouped by shape); clear DFM_DISABLE_SHAPE_SORT");
    if (d->deterministic && d->backend != DFM_BACKEND_CPU && (d->disable_flags & DFM_DISABLE_CONTACT_LISTS))
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED,
                        "world_def.deterministic needs the contact lists (the legacy scatter sums contact forces "
                        "with float atomics on CUDA, in varying order); clear DFM_DISABLE_CONTACT_LISTS");
    if (d->cpu_threads < 0)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.cpu_threads is %d; must be >= 0", d->cpu_threads);
    if (!isfinite(d->deformable_contact_radius) ||
        (d->deformable_contact_radius != 0.0f &&
         !(d->deformable_contact_radius >= 1e-4f && d->deformable_contact_radius <= 1.0f)))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "world_def.deformable_contact_radius is %g m; must be 0 (off) or in [1e-4, 1] m",
                        (double)d->deformable_contact_radius);
    if (!isfinite(d->deformable_contact_ke) || !(d->deformable_contact_ke > 0.0f))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.deformable_contact_ke is %g N/m; must be finite and > 0",
                        (double)d->deformable_contact_ke);
    if (!isfinite(d->deformable_contact_mu) || d->deformable_contact_mu < 0.0f)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.deformable_contact_mu is %g; must be finite and >= 0",
                        (double)d->deformable_contact_mu);
    if (d->deformable_pair_capacity < 0 || d->deformable_pair_capacity > DFM_MAX_CONTACT_CAPACITY)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "world_def.deformable_pair_capacity is %d; must be in [0, DFM_MAX_CONTACT_CAPACITY = %d] "
                        "(0 = 32 per surface vertex and edge)",
                        d->deformable_pair_capacity, DFM_MAX_CONTACT_CAPACITY);
    if (d->deformable_contact_radius > 0.0f && (d->feature_flags & DFM_FEATURE_BODY_TRANSLATION))
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED,
                        "world_def.deformable_contact_radius > 0 with DFM_FEATURE_BODY_TRANSLATION: the body-level "
                        "translation moves whole bodies past the displacement bound of deformable contact; not "
                        "combined yet");
    if (d->deformable_contact_radius > 0.0f && (d->feature_flags & DFM_FEATURE_COARSE_CORRECTION))
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED,
                        "world_def.deformable_contact_radius > 0 with DFM_FEATURE_COARSE_CORRECTION: the coarse "
                        "correction moves particles past the displacement bound of deformable contact; not combined "
                        "yet");
    if (d->contact_capacity < 0 || d->contact_capacity > DFM_MAX_CONTACT_CAPACITY)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "world_def.contact_capacity is %d; must be in [0, DFM_MAX_CONTACT_CAPACITY = %d] (0 = one "
                        "per candidate pair)",
                        d->contact_capacity, DFM_MAX_CONTACT_CAPACITY);
    if (!isfinite(d->contact_penalty_beta) || d->contact_penalty_beta < 0.0f)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.contact_penalty_beta is %g; must be finite and >= 0",
                        (double)d->contact_penalty_beta);
    if (!isfinite(d->contact_penalty_start) || d->contact_penalty_start < 0.0f)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "world_def.contact_penalty_start is %g N/m; must be finite and >= 0",
                        (double)d->contact_penalty_start);
    if (d->feature_flags & ~DFM_FEATURE_KNOWN_FLAGS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.feature_flags has unknown bits 0x%x",
                        (unsigned)(d->feature_flags & ~DFM_FEATURE_KNOWN_FLAGS));
    if (d->disable_flags & ~DFM_DISABLE_KNOWN_FLAGS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "world_def.disable_flags has unknown bits 0x%x",
                        (unsigned)(d->disable_flags & ~DFM_DISABLE_KNOWN_FLAGS));
    return DFM_OK;
}

dfm_result dfm_world_create(uint32_t abi_version, const dfm_world_def* def, dfm_world** out_world) {
    if (!out_world) return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "out_world is NULL");
    *out_world = NULL;
    if ((abi_version >> 16) != DFM_ABI_VERSION_MAJOR)
        return dfm_fail(NULL, DFM_ERROR_ABI_MISMATCH,
                        "caller was compiled against ABI %u.%u; this library implements ABI %u.%u", abi_version >> 16,
                        abi_version & 0xFFFFu, (unsigned)DFM_ABI_VERSION_MAJOR, (unsigned)DFM_ABI_VERSION_MINOR);
    dfm_world_def full = dfm_world_def_default();
    if (def) {
        dfm_result r = dfm_def_read(NULL, def, sizeof(dfm_world_def),
                                    offsetof(dfm_world_def, iterations) + sizeof(int32_t), "world_def", &full);
        if (r != DFM_OK) return r;
    }
    dfm_world* w = (dfm_world*)calloc(1, sizeof(dfm_world));
    if (!w) return dfm_fail(NULL, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory allocating the world");
    w->residual_force_max = -1.0f; /* no step yet */
    w->residual_force_sum = -1.0;
    w->def = full;
    dfm_result r = validate_world_def(w, &full);
    if (r == DFM_OK && full.backend == DFM_BACKEND_CUDA) {
        char err[256] = "";
        int rc = dfm_cuda_backend_create(full.device_index, full.cuda_stream, &w->cuda, err, sizeof(err));
        if (rc != 0) r = dfm_fail(w, (dfm_result)rc, "backend CUDA: %s", err);
    }
    if (r != DFM_OK) {
        /* Move the message to the thread's create-error buffer, where dfm_world_last_error(NULL) reads. */
        dfm_fail(NULL, r, "%s", strchr(w->last_error, ':') ? strchr(w->last_error, ':') + 2 : w->last_error);
        free(w);
        return r;
    }
    if (full.backend == DFM_BACKEND_AUTO && full.deformable_contact_radius > 0.0f) {
        dfm_log(w, DFM_LOG_INFO,
                "backend AUTO: deformable-deformable contact (deformable_contact_radius %g m): using the CPU "
                "backend (its CUDA twin is a host-assisted first slice that steps without a graph; ask for "
                "DFM_BACKEND_CUDA explicitly)",
                (double)full.deformable_contact_radius);
    } else if (full.backend == DFM_BACKEND_AUTO) {
        int devices = dfm_cuda_device_count();
        if (devices > 0) {
            char err[256] = "";
            int rc = dfm_cuda_backend_create(full.device_index, full.cuda_stream, &w->cuda, err, sizeof(err));
            if (rc != 0) {
                w->cuda = NULL;
                dfm_log(w, DFM_LOG_WARNING, "backend AUTO: CUDA device %d not usable (%s); using the CPU backend",
                        full.device_index, err);
            }
        }
        dfm_log(w, DFM_LOG_INFO, "backend AUTO: %d CUDA device(s) visible; using the %s backend", devices,
                w->cuda ? "CUDA" : "CPU");
    }
    w->def.backend = w->cuda ? DFM_BACKEND_CUDA : DFM_BACKEND_CPU;
    r = dfm_solver_world_init(w); /* the built-in vbd on that backend */
    if (r != DFM_OK) {
        dfm_fail(NULL, r, "%s", strchr(w->last_error, ':') ? strchr(w->last_error, ':') + 2 : w->last_error);
        dfm_cuda_backend_destroy(w->cuda);
        free(w);
        return r;
    }
    w->uploaded_generation = -1;
    w->uploaded_contacts = -1;
    w->tag = next_world_tag();
    w->contacts.dirty = 1;
    dfm_log(w, DFM_LOG_INFO, "world created: backend %s, %d substeps x %d iterations, %d environments",
            w->cuda ? "cuda" : "cpu", full.substeps, full.iterations, full.environment_count);
    *out_world = w;
    dfm_clear_error(NULL); /* a success leaves no stale create error behind */
    return DFM_OK;
}

void dfm_world_destroy(dfm_world* w) {
    if (!w) return;
    dfm_solver_world_release(w);
    for (int32_t i = 0; i < w->body_pool.count; ++i)
        if (dfm_world_body_at(w, i)) dfm_body_free(dfm_world_body_at(w, i));
    dfm_id_pool_free(&w->body_pool);
    for (int32_t i = 0; i < w->shape_pool.count; ++i) dfm_shape_free(dfm_world_shape_at(w, i));
    dfm_id_pool_free(&w->shape_pool);
    dfm_sdf_cache_free(&w->sdf_cache);
    dfm_contacts_free(&w->contacts);
    dfm_deform_contacts_free(&w->deform);
    dfm_model_free(&w->model);
    dfm_state_free(&w->state);
    dfm_cuda_backend_destroy(w->cuda);
    free(w->step_emitted);
    free(w->residual_norms);
    free(w->element_coef);
    free(w->simd_layout);
    free(w->body_record_offsets);
    free(w->body_records);
    free(w->particle_slides);
    if (w->coarse) dfm_cpu_coarse_free(w->coarse);
    free(w->coarse);
    free(w->step_impulses);
    dfm_host_bodies_free(&w->host_bodies);
    free(w->guard.state);
    free(w->guard.shapes);
    free(w);
}

dfm_result dfm_world_step(dfm_world* w, float dt) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!isfinite(dt)) return dfm_fail(w, DFM_ERROR_NON_FINITE, "dt is not finite");
    if (dt <= 0.0f) return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "dt is %g s; must be > 0", (double)dt);
    /* Values the float solver cannot take: h^2 underflows (a denormal dt gave NaN everywhere) or the
     * step spans more than any host tick (1e30 s gave NaN too). */
    const float h = dt / (float)w->def.substeps;
    if (dt > DFM_MAX_DT || h < DFM_MIN_SUBSTEP)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "dt is %g s (substep %g s); dt must be <= %g s and dt / substeps >= %g s", (double)dt,
                        (double)h, (double)DFM_MAX_DT, (double)DFM_MIN_SUBSTEP);
    dfm_result r = dfm_world_ensure_model(w);
    if (r != DFM_OK) return r;
    const dfm_solver_ops* ops = w->solver->ops;
    if (ops->guards_itself) {
        r = ops->step(w, dt); /* vbd/cuda: guarded on the device (step_guard.h) */
        if (r != DFM_OK) return r;
    } else {
        /* Host-side steps (vbd/cpu, xpbd, providers): a step that goes non-finite is rolled back. */
        r = dfm_step_guard_save(w);
        if (r != DFM_OK) return r;
        r = dfm_step_guard_check(w, ops->step(w, dt));
        if (r != DFM_OK) return r;
    }
    w->step_count++;
    w->sim_time += (double)dt;
    return DFM_OK;
}

dfm_result dfm_world_prepare(dfm_world* w) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_result r = dfm_world_ensure_model(w);
    if (r == DFM_OK) r = dfm_contacts_ensure(w);
    if (r == DFM_OK) r = dfm_deform_contacts_ensure(w);
    if (r != DFM_OK || !w->solver->ops->prepare) return r;
    return w->solver->ops->prepare(w); /* vbd/cuda: upload and size the contact buffers */
}

dfm_result dfm_world_set_gravity(dfm_world* w, const float g[3]) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!g) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "gravity is NULL");
    for (int k = 0; k < 3; ++k)
        if (!isfinite(g[k])) return dfm_fail(w, DFM_ERROR_NON_FINITE, "gravity[%d] is not finite", k);
    memcpy(w->def.gravity, g, sizeof(w->def.gravity));
    return DFM_OK;
}

dfm_result dfm_world_set_solver_counts(dfm_world* w, int32_t substeps, int32_t iterations) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (substeps < 1 || substeps > DFM_MAX_SUBSTEPS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "substeps is %d; must be 1..%d", substeps, DFM_MAX_SUBSTEPS);
    if (iterations < 1 || iterations > DFM_MAX_ITERATIONS)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "iterations is %d; must be 1..%d", iterations, DFM_MAX_ITERATIONS);
    if (w->solver->ops->grow_substeps && substeps > w->def.substeps) { /* here, not inside the next step */
        dfm_result r = w->solver->ops->grow_substeps(w, substeps);
        if (r != DFM_OK) return r;
    }
    w->def.substeps = substeps;
    w->def.iterations = iterations;
    return DFM_OK;
}

dfm_result dfm_world_get_stats(dfm_world* w, dfm_world_stats* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_world_stats s;
    memset(&s, 0, sizeof(s));
    dfm_result r = dfm_def_read(w, out, sizeof(s), offsetof(dfm_world_stats, body_count) + sizeof(int32_t),
                                "world_stats", &s);
    if (r != DFM_OK) return r;
    uint32_t caller_size = out->struct_size;
    r = dfm_world_ensure_model(w);
    if (r != DFM_OK) return r;
    const dfm_model* m = &w->model;
    s.body_count = w->body_pool.live;
    s.particle_count = m->particle_count;
    s.triangle_count = m->tri_count;
    s.bending_edge_count = m->edge_count;
    s.tet_count = m->tet_count;
    s.color_count = m->color_count;
    for (int32_t c = 0; c < m->color_count; ++c) {
        int32_t n = m->color_offsets[c + 1] - m->color_offsets[c];
        if (c == 0 || n < s.color_min_size) s.color_min_size = n;
        if (n > s.color_max_size) s.color_max_size = n;
    }
    s.step_count = w->step_count;
    s.sim_time = w->sim_time;
    s.backend = w->def.backend;
    s.device_memory_bytes = w->cuda ? dfm_cuda_backend_device_bytes(w->cuda) : 0;
    s.nonfinite_steps = w->nonfinite_steps;
    s.force_residual_max = w->residual_force_max;
    s.force_residual_relative = -1.0f;
    s.deformable_pairs = w->deform.last_pairs;
    s.deformable_candidates = w->deform.last_candidates;
    s.deformable_pairs_dropped = w->deform.dropped_last_step;
    s.deformable_pairs_dropped_total = w->deform.dropped_total;
    if (w->residual_force_sum >= 0.0) {
        const float* g = w->def.gravity;
        double gn = sqrt((double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2]), weight = 0.0;
        if (!(gn > 0.0)) gn = 9.81;
        for (int32_t i = 0; i < m->particle_count; ++i)
            if (w->state.mode[i] == DFM_VERTEX_DYNAMIC) weight += (double)m->mass[i] * gn;
        s.force_residual_relative = weight > 0.0 ? (float)(w->residual_force_sum / weight) : 0.0f;
    }
    s.struct_size = caller_size;
    memcpy(out, &s, caller_size);
    return DFM_OK;
}

dfm_result dfm_world_get_particle_colors(dfm_world* w, int32_t* out, int32_t count) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!out) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "out_colors is NULL");
    dfm_result r = dfm_world_ensure_model(w);
    if (r != DFM_OK) return r;
    if (count != w->model.particle_count)
        return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "count is %d; the world has %d particles", count,
                        w->model.particle_count);
    memcpy(out, w->model.particle_color, (size_t)count * sizeof(int32_t));
    return DFM_OK;
}

/// Validates a world-wide particle range and copies 3-vectors out.
static dfm_result world_get_vec3(dfm_world* w, const float* src, int32_t first, int32_t count, float* out,
                                 int32_t stride, const char* what) {
    if (!out) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "%s output buffer is NULL", what);
    dfm_result r = dfm_check_range(w, first, count, w->model.particle_count, stride, "world particle");
    if (r != DFM_OK) return r;
    dfm_strided_store(out, stride, src + 3 * (size_t)first, count);
    return DFM_OK;
}

dfm_result dfm_world_get_positions(dfm_world* w, int32_t first, int32_t count, float* out, int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_result r = dfm_world_ensure_model(w);
    if (r == DFM_OK) r = dfm_world_sync_host(w);
    if (r != DFM_OK) return r;
    return world_get_vec3(w, w->state.x, first, count, out, stride, "positions");
}

dfm_result dfm_world_get_velocities(dfm_world* w, int32_t first, int32_t count, float* out, int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_result r = dfm_world_ensure_model(w);
    if (r == DFM_OK) r = dfm_world_sync_host(w);
    if (r != DFM_OK) return r;
    return world_get_vec3(w, w->state.v, first, count, out, stride, "velocities");
}

dfm_result dfm_world_set_profiling(dfm_world* w, int32_t enabled) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (enabled != 0 && enabled != 1)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "enabled is %d; must be 0 or 1", enabled);
    if (!w->cuda)
        return dfm_fail(
            w, DFM_ERROR_UNSUPPORTED,
            "phase profiling uses CUDA events and runs on the CUDA backend only (this world runs on the CPU)");
    char err[256];
    int rc = dfm_cuda_backend_set_profiling(w->cuda, enabled, err, sizeof(err));
    if (rc != 0) return dfm_fail(w, (dfm_result)rc, "profiling: %s", err);
    return DFM_OK;
}

dfm_result dfm_world_get_phase_times(dfm_world* w, dfm_phase_times* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_phase_times s;
    memset(&s, 0, sizeof(s));
    dfm_result r = dfm_def_read(w, out, sizeof(s), offsetof(dfm_phase_times, valid) + sizeof(int32_t), "phase_times",
                                &s);
    if (r != DFM_OK) return r;
    uint32_t caller_size = out->struct_size;
    memset(&s, 0, sizeof(s));
    float ms[DFM_PHASE_COUNT];
    s.valid = w->cuda ? dfm_cuda_backend_phase_times(w->cuda, ms) : 0;
    if (s.valid) {
        s.detection_ms = ms[DFM_PHASE_DETECTION];
        s.lists_ms = ms[DFM_PHASE_LISTS];
        s.duals_ms = ms[DFM_PHASE_DUALS];
        s.solve_ms = ms[DFM_PHASE_SOLVE];
        s.friction_ms = ms[DFM_PHASE_FRICTION];
        s.reactions_ms = ms[DFM_PHASE_REACTIONS];
        s.other_ms = ms[DFM_PHASE_OTHER];
        for (int k = 0; k < DFM_PHASE_COUNT; ++k) s.total_ms += ms[k];
    }
    s.struct_size = caller_size;
    memcpy(out, &s, caller_size);
    return DFM_OK;
}
