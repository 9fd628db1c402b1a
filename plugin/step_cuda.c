/// @file step_cuda.c
/// One dfm_world_step on the CUDA backend: bring the device copy up to date (model, state,
/// contact candidates, each only when it changed), stage the step's shape records, launch the
/// step (one CUDA graph), read the contact results back and book them like the CPU step does.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coarse_cpu.h"
#include "cpu_threads.h"
#include "error.h"
#include "host_bodies.h"
#include "step.h"
#include "step_guard.h"
#include "world_internal.h"

dfm_result dfm_step_cuda_sync_deform(dfm_world* w) {
    if (!(w->def.deformable_contact_radius > 0.0f)) return DFM_OK;
    dfm_result r = dfm_deform_contacts_ensure(w);
    if (r != DFM_OK) return r;
    char err[256] = "";
    int rc = dfm_cuda_backend_upload_deform(w->cuda, &w->deform.cpu, w->deform.generation, err, sizeof(err));
    if (rc != 0) return dfm_fail(w, (dfm_result)rc, "CUDA: deformable contact buffers: %s", err);
    return DFM_OK;
}

dfm_result dfm_step_cuda(dfm_world* w, float dt) {
    dfm_result r = dfm_contacts_ensure(w);
    if (r != DFM_OK) return r;
    r = dfm_world_sync_device(w);
    if (r == DFM_OK) r = dfm_step_cuda_sync_deform(w);
    if (r != DFM_OK) return r;
    const int deform = w->def.deformable_contact_radius > 0.0f;
    dfm_contacts* c = &w->contacts;
    const int32_t substeps = w->def.substeps, S = c->shape_count;
    const int use_contacts = S > 0 && c->capacity > 0;
    int32_t* emitted = NULL;
    double* impulses = NULL;
    r = dfm_step_scratch(w, substeps, S, &emitted, &impulses);
    if (r != DFM_OK) return r;
    if (!use_contacts) impulses = NULL;
    char err[256];
    dfm_shape_rt* shapes = NULL;
    if (use_contacts) {
        /* Fill the backend's pinned staging buffer directly (one copy to the device, no host one). */
        int rs = dfm_cuda_backend_shape_staging(w->cuda, substeps, &shapes, err, sizeof(err));
        if (rs != 0) return dfm_fail(w, (dfm_result)rs, "CUDA step: staging shape records: %s", err);
    }
    for (int32_t s = 0; use_contacts && s < substeps; ++s)
        dfm_step_fill_shapes(w, (float)s / (float)substeps, (float)(s + 1) / (float)substeps, shapes + (size_t)s * S);
    /* Dynamic host bodies: the device runs their per-advance bookkeeping and solve
     * (kernels/cuda/host_bodies_cuda.cu); the host starts and finishes the step as on the CPU. */
    dfm_cpu_host_solve hosts;
    r = dfm_host_bodies_begin_step(w, 0, dt, &hosts);
    if (r != DFM_OK) return r;
    const int coupled = use_contacts && hosts.count > 0;
    dfm_cuda_step_desc d;
    memset(&d, 0, sizeof(d));
    d.dt = dt;
    d.substeps = substeps;
    d.iterations = w->def.iterations;
    memcpy(d.gravity, w->def.gravity, sizeof(d.gravity));
    d.disable_flags = w->def.disable_flags;
    d.feature_flags = w->def.feature_flags;
    d.deterministic = w->def.deterministic;
    d.shapes = shapes;
    d.penalty_beta = w->def.contact_penalty_beta;
    d.penalty_start = w->def.contact_penalty_start;
    if (coupled) {
        d.host_body_count = hosts.count;
        d.host_bodies = hosts.bodies;
        d.shape_host = hosts.shape_host;
        d.host_first_shape = hosts.first_shape;
    }
    if (deform) { /* host-assisted first slice: the step runs eagerly (kernels/cuda/deform_contact_cuda.h) */
        d.deform = &w->deform.cpu;
        w->deform.cpu.threads = dfm_cpu_thread_count(w->def.cpu_threads); /* the host build's workers */
        d.deform_generation = w->deform.generation;
        d.host_color_particles = w->model.color_particles;
    }
    dfm_vbd_view coarse_model; /* the model's host arrays, read by the host's coarse step */
    if (w->def.feature_flags & DFM_FEATURE_COARSE_CORRECTION) {
        /* host-assisted first slice (kernels/cuda/coarse_cuda.h). The level is built from host
         * positions: current after a model rebuild or a vertex-mode change (both read the state
         * back first); read back here too when the level is of another model. */
        if (!w->coarse || w->coarse->generation != w->model_generation) {
            r = dfm_world_sync_host(w);
            if (r != DFM_OK) return r;
        }
        coarse_model = dfm_world_host_view(w, dt / (float)substeps);
        r = dfm_step_coarse_level(w, &coarse_model, &d.coarse);
        if (r != DFM_OK) return r;
        d.coarse_model = &coarse_model;
    }
    dfm_cuda_step_results out;
    memset(&out, 0, sizeof(out));
    out.shape_impulse = impulses;
    out.emitted = emitted;
    int rc = dfm_cuda_backend_step(w->cuda, &d, &out, err, sizeof(err));
    if (rc == DFM_ERROR_NON_FINITE || rc == DFM_ERROR_OUT_OF_BOUNDS) /* rolled back: the step did not happen */
        return dfm_step_guard_refuse(w, out.refused_particle,
                                     out.refused_kind ? DFM_GUARD_OUT_OF_BOUNDS : DFM_GUARD_NON_FINITE);
    if (rc != 0) {
        w->uploaded_generation = -1; /* device state unknown: re-upload from the host copy next time */
        w->uploaded_contacts = -1;
        w->device_newer = 0;
        return dfm_fail(w, (dfm_result)rc, "CUDA step: %s", err);
    }
    w->device_newer = 1;
    if (out.coarse_corrections > 0 && w->coarse_cuda_corrections == 0)
        dfm_log(w, DFM_LOG_INFO,
                "coarse correction on CUDA (host-assisted: the CPU's coarse step between the sweeps, the step without "
                "a graph): %lld corrections in the first step, %d bodies, %d coarse nodes",
                (long long)out.coarse_corrections, w->coarse->body_count, w->coarse->node_total);
    w->coarse_cuda_corrections += out.coarse_corrections;
    dfm_step_coarse_report(w);
    /* The device moved kinematic targets into their start; keep the host copy in step. */
    dfm_copy_floats(w->state.kin_start, w->state.kin_target, (size_t)w->model.particle_count * 3u);
    double particle_impulse[3] = {0.0, 0.0, 0.0};
    for (int32_t k = 0; use_contacts && k < S; ++k)
        for (int a = 0; a < 3; ++a) particle_impulse[a] -= impulses[6 * k + a];
    dfm_step_finish_contacts(w, dt, impulses, emitted, substeps, particle_impulse, out.kind_counts,
                             use_contacts ? out.max_penetration : 0.0f, use_contacts ? out.residual_max : 0.0f);
    if (hosts.count > 0) dfm_host_bodies_finish_step(w, &hosts); /* without contacts: zero, solved */
    if (deform) dfm_deform_contacts_finish_step(w, out.deform_dropped);
    w->residual_force_max = out.residual_max;
    w->residual_force_sum = out.residual_sum;
    return DFM_OK;
}
