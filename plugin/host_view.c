/// @file host_view.c
/// See host_view.h. The table rows of kernels/shared/model_arrays.h give the arrays a view shares
/// with the model and state; the adjacency's CSR arrays are named one by one (their view fields
/// are v_*_offsets / v_*_items).
#include "host_view.h"

#include <string.h>

dfm_vbd_view dfm_world_host_view(dfm_world* w, float h) {
    dfm_model* m = &w->model;
    dfm_state* s = &w->state;
    dfm_vbd_view v;
    memset(&v, 0, sizeof(v));
    v.particle_count = m->particle_count;
    v.edge_count = m->edge_count;
#define MODEL_ROW(type, name, count, width) v.name = m->name;
    DFM_MODEL_VIEW_ARRAYS(MODEL_ROW)
#undef MODEL_ROW
#define STATE_ROW(type, name, count, width) v.name = s->name;
    DFM_STATE_ARRAYS(STATE_ROW)
#undef STATE_ROW
    v.v_tri_offsets = m->adjacency.tri_offsets;
    v.v_tri_items = m->adjacency.tri_items;
    v.v_edge_offsets = m->adjacency.edge_offsets;
    v.v_edge_items = m->adjacency.edge_items;
    v.v_tet_offsets = m->adjacency.tet_offsets;
    v.v_tet_items = m->adjacency.tet_items;
    memcpy(v.gravity, w->def.gravity, sizeof(v.gravity));
    v.h = h;
    return v;
}

dfm_contact_view dfm_world_contact_view(dfm_world* w) {
    dfm_contacts* c = &w->contacts;
    const dfm_model* m = &w->model;
    dfm_contact_view v;
    memset(&v, 0, sizeof(v));
    v.shape_count = c->shape_count;
    v.shapes = c->rt;
    v.particle_mass = m->mass;
#define FEATURE_ROW(type, name, count, width) v.name = m->name;
    DFM_MODEL_FEATURE_ARRAYS(FEATURE_ROW)
#undef FEATURE_ROW
    v.cand = c->cand;
    v.capacity = c->capacity;
    v.count = &c->count;
    v.rec = c->rec;
    v.head = c->head;
    v.next = c->next;
    v.penalty_beta = w->def.contact_penalty_beta;
    v.penalty_start = w->def.contact_penalty_start;
    v.flags = w->def.disable_flags;
    return v;
}
