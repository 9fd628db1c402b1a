/// @file solver_vbd.c
/// The built-in "vbd" provider (Vertex Block Descent, Chen et al. 2024): its registry table and
/// its ops on the two backends. vbd keeps no instance: its data lives in the world (model,
/// state, contact records, the CUDA backend's device mirror), so swaps need no import or export.
/// vbd/cpu steps with dfm_step_cpu (plugin/step.c), vbd/cuda with dfm_step_cuda
/// (plugin/step_cuda.c), which also guards itself on the device.
#include "error.h"
#include "solver_internal.h"
#include "step.h"
#include "world_internal.h"

/// CUDA: sizes the per-advance contact buffers (shape records, counters) for `substeps`; nothing
/// to do before contacts were uploaded (they are sized at their upload).
static dfm_result size_cuda_advances(dfm_world* w, int32_t substeps) {
    dfm_shape_rt* staging = NULL;
    char err[256] = "";
    int rc = dfm_cuda_backend_shape_staging(w->cuda, substeps, &staging, err, sizeof(err));
    if (rc != 0 && rc != DFM_ERROR_INVALID_STATE)
        return dfm_fail(w, (dfm_result)rc, "CUDA: sizing the contact buffers for %d substeps: %s", substeps, err);
    return DFM_OK;
}

/// CUDA: uploads what changed and sizes the contact buffers, so that the first step allocates
/// nothing.
static dfm_result prepare_cuda(dfm_world* w) {
    dfm_result r = dfm_world_sync_device(w);
    if (r == DFM_OK) r = dfm_step_cuda_sync_deform(w);
    if (r != DFM_OK) return r;
    return size_cuda_advances(w, w->def.substeps);
}

static const char k_vbd_restarts[] = "vbd contact penalties and records (rebuilt every advance)";

static const dfm_solver_ops k_vbd_cpu_ops = {
    NULL,         /* create: no instance */
    NULL,         /* destroy */
    NULL,         /* import_state: reads the world's arrays */
    dfm_step_cpu, /* step */
    NULL,         /* export_state */
    NULL,         /* prepare */
    NULL,         /* grow_substeps */
    k_vbd_restarts,
    0, /* guards_itself: dfm_world_step saves and rolls back */
    1, /* reports_contacts */
};

static const dfm_solver_ops k_vbd_cuda_ops = {
    NULL,          /* create: the world holds the CUDA backend */
    NULL,          /* destroy */
    NULL,          /* import_state: uploaded at the next step */
    dfm_step_cuda, /* step */
    NULL,          /* export_state: dfm_world_set_solver downloads the state first */
    prepare_cuda,
    size_cuda_advances,
    k_vbd_restarts,
    1, /* guards_itself: on the device (step_guard.h) */
    1, /* reports_contacts */
};

const dfm_solver_builtin dfm_solver_vbd = {
    {(uint32_t)sizeof(dfm_solver_provider_v1), DFM_SOLVER_PROVIDER_ABI, "vbd",
     "Vertex Block Descent (Chen et al. 2024): per-particle Newton steps over colors; penalty contacts",
     DFM_SOLVER_CAP_CLOTH | DFM_SOLVER_CAP_BENDING | DFM_SOLVER_CAP_VOLUME | DFM_SOLVER_CAP_CONTACTS |
         DFM_SOLVER_CAP_FRICTION | DFM_SOLVER_CAP_REACTIONS | DFM_SOLVER_CAP_KINEMATIC | DFM_SOLVER_CAP_DETERMINISTIC,
     DFM_SOLVER_BACKEND_CPU | DFM_SOLVER_BACKEND_CUDA, NULL, NULL, NULL, NULL, NULL},
    {NULL, &k_vbd_cpu_ops, &k_vbd_cuda_ops},
};
