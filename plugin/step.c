/// @file step.c
/// See step.h.
#include "step.h"

#include <string.h>

#include "vbd_cpu.h"

/// Fills a view of the world's host arrays.
static dfm_vbd_view make_view(dfm_world* w, float h) {
    dfm_model* m = &w->model;
    dfm_state* s = &w->state;
    dfm_vbd_view v;
    memset(&v, 0, sizeof(v));
    v.particle_count = m->particle_count;
    v.mass = m->mass;
    v.drag = m->drag;
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
    memcpy(v.gravity, w->def.gravity, sizeof(v.gravity));
    v.h = h;
    return v;
}

void dfm_step_cpu(dfm_world* w, float dt) {
    const int32_t substeps = w->def.substeps;
    dfm_vbd_view view = make_view(w, dt / (float)substeps);
    for (int32_t s = 0; s < substeps; ++s) {
        float alpha = (float)(s + 1) / (float)substeps;
        dfm_cpu_vbd_advance(&view, w->model.color_count, w->model.color_offsets, w->model.color_particles,
                            w->def.iterations, alpha, w->def.cpu_threads);
    }
    /* Kinematic vertices reached their targets: the next step starts from there. */
    size_t n3 = (size_t)w->model.particle_count * 3u;
    memcpy(w->state.kin_start, w->state.kin_target, n3 * sizeof(float));
}
