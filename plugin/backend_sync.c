/// @file backend_sync.c
/// Keeping the host copy of the model/state and the CUDA backend's device copy consistent:
/// the device copy is authoritative after a step, the host copy after any host-side change.
#include <string.h>

#include "world_internal.h"

dfm_result dfm_world_sync_host(dfm_world* w) {
    if (!w->cuda || !w->device_newer) return DFM_OK;
    char err[256];
    int r = dfm_cuda_backend_download_state(w->cuda, w->state.x, w->state.v, err, sizeof(err));
    if (r != 0) return dfm_fail(w, (dfm_result)r, "reading state back from the GPU: %s", err);
    w->device_newer = 0;
    return DFM_OK;
}

/// A view of the host arrays (model and state) for uploads.
static dfm_vbd_view host_view(dfm_world* w) {
    dfm_vbd_view v;
    memset(&v, 0, sizeof(v));
    const dfm_model* m = &w->model;
    dfm_state* s = &w->state;
    v.particle_count = m->particle_count;
    v.mass = m->mass;
    v.drag = m->drag;
    v.radius = m->radius;
    v.mode = s->mode;
    v.x = s->x;
    v.v = s->v;
    v.x_prev = s->x_prev;
    v.d = s->d;
    v.y = s->y;
    v.kin_start = s->kin_start;
    v.kin_target = s->kin_target;
    v.tris = m->tris;
    v.tri_dinv = m->tri_dinv;
    v.tri_area = m->tri_area;
    v.tri_material = m->tri_material;
    v.edges = m->edges;
    v.edge_rest_angle = m->edge_rest_angle;
    v.edge_rest_length = m->edge_rest_length;
    v.edge_material = m->edge_material;
    v.tets = m->tets;
    v.tet_dminv = m->tet_dminv;
    v.tet_volume = m->tet_volume;
    v.tet_material = m->tet_material;
    v.v_tri_offsets = m->adjacency.tri_offsets;
    v.v_tri_items = m->adjacency.tri_items;
    v.v_edge_offsets = m->adjacency.edge_offsets;
    v.v_edge_items = m->adjacency.edge_items;
    v.v_tet_offsets = m->adjacency.tet_offsets;
    v.v_tet_items = m->adjacency.tet_items;
    return v;
}

dfm_result dfm_world_sync_device(dfm_world* w) {
    if (!w->cuda) return DFM_OK;
    char err[256];
    dfm_vbd_view hv = host_view(w);
    int r = 0;
    if (w->uploaded_generation != w->model_generation) {
        dfm_cuda_model_desc d;
        d.host = &hv;
        d.tri_count = w->model.tri_count;
        d.edge_count = w->model.edge_count;
        d.tet_count = w->model.tet_count;
        d.color_count = w->model.color_count;
        d.color_offsets = w->model.color_offsets;
        d.color_particles = w->model.color_particles;
        r = dfm_cuda_backend_upload_model(w->cuda, &d, err, sizeof(err));
        if (r == 0) w->uploaded_generation = w->model_generation;
    } else if (w->host_dirty) {
        r = dfm_cuda_backend_upload_state(w->cuda, &hv, err, sizeof(err));
    }
    if (r != 0) {
        w->uploaded_generation = -1; /* a partial upload: start over next time */
        return dfm_fail(w, (dfm_result)r, "uploading to the GPU: %s", err);
    }
    w->host_dirty = 0;
    return DFM_OK;
}
