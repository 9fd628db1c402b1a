/// @file contact_query.c
/// dfm_world_get_contacts: the contact records of the last advance with their local forces (the
/// penalty and damping force at the final iterate, the friction projection's force), in the ABI's
/// terms (shape and body ids, body-local vertex indices, world points).
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "solver_internal.h"
#include "world_internal.h"

/// Id of the live shape at contact index k.
static dfm_shape_id shape_id_of(const dfm_world* w, int32_t k) {
    int32_t slot = w->contacts.shape_slot[k];
    dfm_shape_id id;
    id.index1 = slot + 1;
    id.generation = w->shape_pool.generations[slot];
    id.world_tag = w->tag;
    return id;
}

dfm_result dfm_world_get_contacts(dfm_world* w, dfm_contact_point* out, int32_t capacity, int32_t element_size,
                                  int32_t* out_count) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!out_count) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "out_count is NULL");
    if (capacity < 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "capacity is %d; must be >= 0", capacity);
    if (capacity > 0 && !out) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "out is NULL with capacity %d", capacity);
    if (capacity > 0 && (element_size < (int32_t)sizeof(dfm_shape_id) ||
                         element_size > (int32_t)sizeof(dfm_contact_point) || element_size % 4 != 0))
        return dfm_fail(w, DFM_ERROR_STRUCT_SIZE, "element_size is %d; must be sizeof(dfm_contact_point) (%d here)",
                        element_size, (int)sizeof(dfm_contact_point));
    if (!w->solver->ops->reports_contacts)
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED, "the contact query reports the vbd solver's records");
    const dfm_contacts* c = &w->contacts;
    if (w->dirty || c->dirty) { /* bodies or shapes changed since the step: its records name a layout that is gone */
        *out_count = 0;
        return DFM_OK;
    }
    const int32_t active = c->count < c->capacity ? c->count : c->capacity;
    *out_count = active;
    const int32_t n = active < capacity ? active : capacity;
    if (n <= 0) return DFM_OK;
    if (w->cuda) {
        char err[256];
        int rc = dfm_cuda_backend_download_contacts(w->cuda, n, &c->rec, c->record_force, c->node_friction, err,
                                                    sizeof(err));
        if (rc != 0) return dfm_fail(w, (dfm_result)rc, "contact query: %s", err);
    }
    const dfm_model* m = &w->model;
    /* placed body index -> slot (bodies are placed in slot order) */
    int32_t* slot_of = (int32_t*)malloc(((size_t)m->body_count + 1u) * sizeof(int32_t));
    if (!slot_of) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the contact query");
    for (int32_t b = 0; b < m->body_count; ++b) slot_of[b] = -1;
    for (int32_t s = 0, b = 0; s < w->body_pool.count && b < m->body_count; ++s)
        if (dfm_world_body_at(w, s) && dfm_world_body_at(w, s)->first_particle == m->body_offsets[b]) slot_of[b++] = s;
    for (int32_t k = 0; k < n; ++k) {
        dfm_contact_point p;
        memset(&p, 0, sizeof(p));
        const int32_t first = c->rec.corners[3 * k];
        const int32_t b = m->particle_body[first], slot = slot_of[b];
        p.shape = shape_id_of(w, c->rec.shape[k]);
        if (slot >= 0) { /* always while the model is current (checked above); else the null id */
            p.body.index1 = slot + 1;
            p.body.generation = w->body_pool.generations[slot];
            p.body.world_tag = w->tag;
        }
        p.kind = c->rec.corners[3 * k + 1] < 0   ? DFM_CONTACT_KIND_PARTICLE
                 : c->rec.corners[3 * k + 2] < 0 ? DFM_CONTACT_KIND_EDGE
                                                 : DFM_CONTACT_KIND_FACE;
        for (int j = 0; j < 3; ++j) {
            const int32_t q = c->rec.corners[3 * k + j];
            p.vertices[j] = q >= 0 ? q - m->body_offsets[b] : -1;
            p.weights[j] = c->rec.bary[3 * k + j];
        }
        const dfm_shape* sh = dfm_world_shape_at(w, c->shape_slot[c->rec.shape[k]]);
        dfm_v3 point = dfm_xform_point(sh->body_last, dfm_v3_load(c->rec.body_point + 3 * k));
        /* penalty and damping act along the normal; friction is the projection's, per dynamic corner */
        dfm_v3 nrm = dfm_v3_load(c->rec.normal + 3 * k), ft = dfm_v3_zero();
        float fn = dfm_v3_dot(nrm, dfm_v3_load(c->record_force + 3 * k));
        if (!(w->def.disable_flags & DFM_DISABLE_STATIC_FRICTION))
            for (int j = 0; j < 3; ++j) {
                const int32_t q = c->rec.corners[3 * k + j];
                if (q >= 0 && w->state.mode[q] == DFM_VERTEX_DYNAMIC)
                    ft = dfm_v3_add(ft, dfm_v3_load(c->node_friction + 3 * (3 * k + j)));
            }
        /* the patch decision's share (contact_patch_friction.h) is its patch's force, whose plane a
         * rim record's normal tilts from: reported in the record's own tangent plane, as the ABI says */
        ft = dfm_v3_madd(ft, nrm, -dfm_v3_dot(ft, nrm));
        dfm_v3_store(point, p.point);
        dfm_v3_store(nrm, p.normal);
        p.normal_force = fn;
        dfm_v3_store(ft, p.friction_force);
        memcpy((char*)out + (size_t)element_size * (size_t)k, &p, (size_t)element_size);
    }
    free(slot_of);
    return DFM_OK;
}
