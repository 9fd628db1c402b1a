/// @file backend_sync.c
/// Keeping the host copy of the model/state and the CUDA backend's device copy consistent:
/// the device copy is authoritative after a step, the host copy after any host-side change.
#include <string.h>

#include "error.h"
#include "host_view.h"
#include "step.h"
#include "world_internal.h"

dfm_result dfm_world_sync_host(dfm_world* w) {
    if (!w->cuda || !w->device_newer) return DFM_OK;
    char err[256];
    int r = dfm_cuda_backend_download_state(w->cuda, w->state.x, w->state.v, err, sizeof(err));
    if (r != 0) return dfm_fail(w, (dfm_result)r, "reading state back from the GPU: %s", err);
    w->device_newer = 0;
    return DFM_OK;
}

dfm_result dfm_world_sync_device(dfm_world* w) {
    if (!w->cuda) return DFM_OK;
    char err[256];
    dfm_vbd_view hv = dfm_world_host_view(w, 0.0f);
    int r = 0;
    if (w->uploaded_generation != w->model_generation) {
        dfm_cuda_model_desc d;
        d.host = &hv;
        d.tri_count = w->model.tri_count;
        d.edge_count = w->model.edge_count;
        d.tet_count = w->model.tet_count;
        d.color_count = w->model.color_count;
        d.color_offsets = w->model.color_offsets;
        d.body_count = w->model.body_count;
        d.body_offsets = w->model.body_offsets;
#define DEVICE_ROW(type, name, count, width) d.name = w->model.name;
        DFM_MODEL_DEVICE_ARRAYS(DEVICE_ROW)
#undef DEVICE_ROW
        r = dfm_cuda_backend_upload_model(w->cuda, &d, err, sizeof(err));
        if (r == 0) w->uploaded_generation = w->model_generation;
        w->uploaded_contacts = -1; /* the contact buffers are sized to the model */
    } else if (w->host_dirty) {
        r = dfm_cuda_backend_upload_state(w->cuda, &hv, err, sizeof(err));
    }
    if (r == 0 && w->uploaded_contacts != w->contacts.generation) {
        const dfm_contacts* c = &w->contacts;
        const dfm_model* m = &w->model;
        dfm_cuda_contacts_desc cd;
        memset(&cd, 0, sizeof(cd));
        cd.shape_count = c->shape_count;
        cd.shapes = c->rt;
#define FEATURE_ROW(type, name, count, width) \
    cd.name = m->name;                        \
    cd.count = m->count;
        DFM_MODEL_FEATURE_ARRAYS(FEATURE_ROW)
#undef FEATURE_ROW
        cd.cand = c->cand;
        cd.capacity = c->capacity;
        cd.deterministic = w->def.deterministic;
        /* mesh grids are read from the shapes' geometry */
        if (c->shape_count > 0) dfm_step_fill_shapes(w, 0.0f, 1.0f, c->rt);
        r = dfm_cuda_backend_upload_contacts(w->cuda, &cd, err, sizeof(err));
        if (r == 0) w->uploaded_contacts = w->contacts.generation;
    }
    if (r != 0) {
        w->uploaded_generation = -1; /* a partial upload: start over next time */
        w->uploaded_contacts = -1;
        return dfm_fail(w, (dfm_result)r, "uploading to the GPU: %s", err);
    }
    w->host_dirty = 0;
    return DFM_OK;
}
