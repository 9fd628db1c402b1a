/// @file deform_contacts.c
/// See deform_contacts.h. The primitives are the bodies' contact features (dfm_body.surf_*, placed
/// in the model's feat_* arrays); the filters come from the body records.
#include "deform_contacts.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "world_internal.h"

void dfm_deform_contacts_free(dfm_deform_contacts* c) {
    free(c->points);
    free(c->edges);
    free(c->tris);
    free(c->filter);
    free(c->surface);
    dfm_cpu_bvh_free(&c->tri_tree);
    dfm_cpu_bvh_free(&c->edge_tree);
    free(c->cpu.cand);
    free(c->cpu.pairs);
    free(c->cpu.offsets);
    free(c->cpu.items);
    free(c->cpu.sub_of);
    free(c->cpu.sub_particles);
    free(c->cpu.sub_offsets);
    free(c->cpu.final_force);
    free(c->cpu.body_work);
    free(c->cpu.edge_work);
    free(c->cpu.solve_work);
    free(c->cpu.pair_dist);
    free(c->cpu.terms);
    free(c->cpu.need);
    free(c->cpu.feature);
    free(c->cpu.vertex_bound);
    int64_t total = c->dropped_total;
    memset(c, 0, sizeof(*c));
    c->dropped_total = total;
    c->generation = -1;
}

/// Whether the filters let any two primitives pair (dfm_bvh_pair_allowed's body rules): a body with
/// self-collision, or two bodies of one environment whose groups and masks agree both ways. Once
/// per model; O(bodies^2) at worst, stopping at the first match.
static int32_t pairable(const dfm_bvh_filter* f, int32_t nb) {
    for (int32_t a = 0; a < nb; ++a) {
        if (f[a].self_collision) return 1;
        for (int32_t b = a + 1; b < nb; ++b)
            if (f[a].env == f[b].env && (f[a].group & f[b].mask) && (f[b].group & f[a].mask)) return 1;
    }
    return 0;
}

#define DC_ALLOC(ptr, count) ((ptr) = calloc((size_t)(count) + 1u, sizeof(*(ptr))), (ptr) != NULL)

dfm_result dfm_deform_contacts_ensure(dfm_world* w) {
    dfm_deform_contacts* c = &w->deform;
    if (!(w->def.deformable_contact_radius > 0.0f)) return DFM_OK;
    if (c->generation == w->model_generation && c->cpu.offsets) return DFM_OK;
    dfm_deform_contacts_free(c);
    const dfm_model* m = &w->model;
    const int32_t np = m->feat_particle_count, ne = m->feat_edge_count, nt = m->feat_face_count;
    int64_t cap = w->def.deformable_pair_capacity;
    if (cap == 0) {
        cap = 32 * ((int64_t)np + ne);
        if (cap < 1024) cap = 1024;
        if (cap > DFM_MAX_CONTACT_CAPACITY) cap = DFM_MAX_CONTACT_CAPACITY;
    }
    const int64_t bodies = m->body_count, body_pairs = bodies * (bodies - 1) / 2;
    const int64_t edge_cap = body_pairs < cap ? body_pairs : cap;
    char err[256];
    int ok = DC_ALLOC(c->points, np) && DC_ALLOC(c->edges, ne) && DC_ALLOC(c->tris, nt) &&
             DC_ALLOC(c->filter, m->body_count) && DC_ALLOC(c->surface, m->particle_count) &&
             DC_ALLOC(c->cpu.cand, cap) && DC_ALLOC(c->cpu.pairs, cap) && DC_ALLOC(c->cpu.items, 4 * cap) &&
             DC_ALLOC(c->cpu.offsets, m->particle_count + 1) && DC_ALLOC(c->cpu.sub_of, m->particle_count) &&
             DC_ALLOC(c->cpu.sub_particles, m->particle_count) &&
             DC_ALLOC(c->cpu.sub_offsets, (int64_t)m->color_count * DFM_DC_SUBCOLOR_SLOTS + 1) &&
             DC_ALLOC(c->cpu.final_force, 3 * m->particle_count) && DC_ALLOC(c->cpu.body_work, bodies) &&
             DC_ALLOC(c->cpu.edge_work, edge_cap) && DC_ALLOC(c->cpu.solve_work, 16 * bodies) &&
             DC_ALLOC(c->cpu.pair_dist, cap) && DC_ALLOC(c->cpu.terms, cap) &&
             DC_ALLOC(c->cpu.need, 3 * m->particle_count) && DC_ALLOC(c->cpu.feature, cap) &&
             DC_ALLOC(c->cpu.vertex_bound, m->particle_count);
    ok = ok && dfm_cpu_bvh_init(&c->tri_tree, nt > 0 ? nt : 1, err, sizeof(err)) == 0 &&
         dfm_cpu_bvh_init(&c->edge_tree, ne > 0 ? ne : 1, err, sizeof(err)) == 0;
    if (!ok) {
        dfm_deform_contacts_free(c);
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY,
                        "out of host memory for deformable contact (%lld candidate pairs; lower "
                        "world_def.deformable_pair_capacity)",
                        (long long)cap);
    }
    for (int32_t i = 0; i < np; ++i) {
        int32_t p = m->feat_particles[i];
        c->points[i] = (dfm_bvh_prim){{p, -1, -1}, m->particle_body[p]};
        c->surface[p] = 1;
    }
    for (int32_t i = 0; i < ne; ++i) {
        int32_t a = m->feat_edges[2 * i], b = m->feat_edges[2 * i + 1];
        c->edges[i] = (dfm_bvh_prim){{a, b, -1}, m->particle_body[a]};
        c->surface[a] = c->surface[b] = 1;
    }
    for (int32_t i = 0; i < nt; ++i) {
        const int32_t* f = m->feat_faces + 3 * i;
        c->tris[i] = (dfm_bvh_prim){{f[0], f[1], f[2]}, m->particle_body[f[0]]};
        for (int k = 0; k < 3; ++k) c->surface[f[k]] = 1;
    }
    for (int32_t i = 0, nb = 0; i < w->body_pool.count; ++i) {
        const dfm_body* b = dfm_world_body_at(w, i);
        if (!b) continue;
        c->filter[nb].env = b->environment;
        c->filter[nb].group = b->collision_group;
        c->filter[nb].mask = b->collision_mask;
        c->filter[nb].self_collision = b->self_collision;
        ++nb;
    }
    dfm_cpu_dc* s = &c->cpu;
    s->pairable = pairable(c->filter, m->body_count);
    s->points = c->points;
    s->point_count = np;
    s->edges = c->edges;
    s->edge_count = ne;
    s->tris = c->tris;
    s->tri_count = nt;
    s->filter = c->filter;
    s->body_count = m->body_count;
    s->surface = c->surface;
    s->particle_color = m->particle_color;
    s->tri_tree = &c->tri_tree;
    s->edge_tree = &c->edge_tree;
    s->candidate_capacity = cap;
    s->radius = w->def.deformable_contact_radius;
    s->ke = w->def.deformable_contact_ke;
    s->mu = w->def.deformable_contact_mu;
    s->feasible = !(w->def.disable_flags & DFM_DISABLE_DEFORMABLE_PAIR_FILTER);
    c->generation = w->model_generation;
    dfm_log(w, DFM_LOG_INFO,
            "deformable contact: %d surface vertices, %d edges, %d triangles over %d bodies; %lld candidate pairs "
            "per advance",
            np, ne, nt, m->body_count, (long long)cap);
    return DFM_OK;
}

void dfm_deform_contacts_finish_step(dfm_world* w, int64_t dropped) {
    dfm_deform_contacts* c = &w->deform;
    c->last_pairs = c->cpu.pair_count;
    c->last_candidates = (int32_t)(c->cpu.candidates < 2147483647 ? c->cpu.candidates : 2147483647);
    c->dropped_last_step = dropped;
    c->dropped_total += dropped;
    if (dropped > 0)
        dfm_log(w, DFM_LOG_WARNING,
                "deformable pair capacity %lld exceeded: %lld candidate pairs dropped this step (%lld in total); "
                "those pairs are neither repelled nor bounded; raise world_def.deformable_pair_capacity",
                (long long)c->cpu.candidate_capacity, (long long)dropped, (long long)c->dropped_total);
}
