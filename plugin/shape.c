/// @file shape.c
/// Rigid shapes: registration (with mesh SDF baking), removal, per-tick states, reactions and
/// contact statistics.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "def_read.h"
#include "error.h"
#include "mesh_sdf.h"
#include "shape.h"
#include "strided.h"
#include "world_internal.h"

/// Largest mesh SDF grid (nodes) a shape may bake: 256^3 floats = 64 MiB.
#define DFM_MESH_SDF_MAX_NODES (256LL * 256LL * 256LL)

void dfm_shape_free(dfm_shape* s) {
    if (!s) return;
    dfm_sdf_entry_release(s->sdf);
    free(s);
}

/// Resolves a shape id; `entry` >= 0 names the batch entry in the message.
static dfm_result resolve_shape_entry(dfm_world* w, dfm_shape_id id, int32_t entry, dfm_shape** out) {
    char where[32] = "";
    if (entry >= 0) snprintf(where, sizeof(where), "state %d: ", entry);
    if (id.index1 == 0) return dfm_fail(w, DFM_ERROR_STALE_ID, "%sshape id is null", where);
    if (id.world_tag != w->tag)
        return dfm_fail(w, DFM_ERROR_FOREIGN_ID,
                        "%sshape id {%d, gen %u} was issued by another world (tag %u, this is %u)", where, id.index1,
                        id.generation, id.world_tag, w->tag);
    dfm_id_pool_status st;
    dfm_shape* s = (dfm_shape*)dfm_id_pool_resolve(&w->shape_pool, id.index1, id.generation, &st);
    if (!s)
        return dfm_fail(w, DFM_ERROR_STALE_ID, "%sshape id {%d, gen %u} is stale (the shape was removed)", where,
                        id.index1, id.generation);
    *out = s;
    return DFM_OK;
}

static dfm_result resolve_shape(dfm_world* w, dfm_shape_id id, dfm_shape** out) {
    return resolve_shape_entry(w, id, -1, out);
}

/// Shape-local AABB half size and centre (infinite planes get a huge box).
static void local_bounds(const dfm_shape* s, float lo[3], float hi[3]) {
    const float* p = s->geom.params;
    float e[3] = {0, 0, 0};
    switch (s->type) {
    // clang-format off
    case DFM_SHAPE_SPHERE: e[0] = e[1] = e[2] = p[0]; break;
    case DFM_SHAPE_BOX: e[0] = p[0]; e[1] = p[1]; e[2] = p[2]; break;
    case DFM_SHAPE_CAPSULE: e[0] = e[1] = p[0]; e[2] = p[1] + p[0]; break;
    case DFM_SHAPE_CYLINDER:
    case DFM_SHAPE_CONE: e[0] = e[1] = p[0]; e[2] = p[1]; break;
    // clang-format on
    case DFM_SHAPE_PLANE:
        e[0] = p[0] > 0.0f ? p[0] : 1e6f;
        e[1] = p[1] > 0.0f ? p[1] : 1e6f;
        e[2] = p[0] > 0.0f ? 0.0f : 1e6f;
        break;
    default: break;
    }
    for (int a = 0; a < 3; ++a) {
        lo[a] = -e[a];
        hi[a] = e[a];
    }
    if (s->type == DFM_SHAPE_MESH) {
        const dfm_sdf_grid_view* g = &s->geom.grid;
        for (int a = 0; a < 3; ++a) {
            lo[a] = g->origin[a];
            hi[a] = g->origin[a] + g->cell * (float)(g->dims[a] - 1);
        }
    }
}

/// World AABB of a shape whose host body is at `body` (min xyz, max xyz).
static void world_aabb(const dfm_shape* s, dfm_xform body, float out[6]) {
    float lo[3], hi[3];
    local_bounds(s, lo, hi);
    dfm_xform x = dfm_xform_mul(body, s->local);
    for (int a = 0; a < 3; ++a) {
        out[a] = 3.0e38f;
        out[3 + a] = -3.0e38f;
    }
    for (int c = 0; c < 8; ++c) {
        dfm_v3 p = dfm_v3_make((c & 1) ? hi[0] : lo[0], (c & 2) ? hi[1] : lo[1], (c & 4) ? hi[2] : lo[2]);
        dfm_v3 q = dfm_xform_point(x, p);
        float v[3] = {q.x, q.y, q.z};
        for (int a = 0; a < 3; ++a) {
            out[a] = fminf(out[a], v[a]);
            out[3 + a] = fmaxf(out[3 + a], v[a]);
        }
    }
}

/// Checks a unit quaternion (norm within 1e-3 of 1) and returns it normalized.
static dfm_result check_quat(dfm_world* w, const float q[4], const char* what, dfm_quat* out) {
    for (int k = 0; k < 4; ++k)
        if (!isfinite(q[k])) return dfm_fail(w, DFM_ERROR_NON_FINITE, "%s[%d] is not finite", what, k);
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (fabsf(n - 1.0f) > 1e-3f)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s has norm %g; must be a unit quaternion (x, y, z, w)", what,
                        (double)n);
    *out = dfm_quat_make(q[0] / n, q[1] / n, q[2] / n, q[3] / n);
    return DFM_OK;
}

static dfm_result check_positive(dfm_world* w, const char* field, float v, int allow_zero) {
    if (!isfinite(v)) return dfm_fail(w, DFM_ERROR_NON_FINITE, "shape_def.%s is not finite", field);
    if (allow_zero ? v < 0.0f : v <= 0.0f)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "shape_def.%s is %g; must be %s", field, (double)v,
                        allow_zero ? ">= 0" : "> 0");
    return DFM_OK;
}

/// Validates the def's dimensions and material; fills geometry for analytic types.
static dfm_result setup_geometry(dfm_world* w, const dfm_shape_def* d, dfm_shape* s) {
    dfm_result r = DFM_OK;
    s->geom.type = d->type;
    switch (d->type) {
    case DFM_SHAPE_SPHERE:
        r = check_positive(w, "radius", d->radius, 0);
        s->geom.params[0] = d->radius;
        break;
    case DFM_SHAPE_BOX:
        for (int a = 0; a < 3 && r == DFM_OK; ++a) {
            static const char* names[3] = {"half_extents[0]", "half_extents[1]", "half_extents[2]"};
            r = check_positive(w, names[a], d->half_extents[a], 0);
        }
        for (int a = 0; a < 3; ++a) s->geom.params[a] = d->half_extents[a];
        break;
    case DFM_SHAPE_CAPSULE:
    case DFM_SHAPE_CYLINDER:
    case DFM_SHAPE_CONE:
        r = check_positive(w, "radius", d->radius, 0);
        if (r == DFM_OK) r = check_positive(w, "half_height", d->half_height, d->type == DFM_SHAPE_CAPSULE);
        s->geom.params[0] = d->radius;
        s->geom.params[1] = d->half_height;
        break;
    case DFM_SHAPE_PLANE:
        r = check_positive(w, "half_extents[0]", d->half_extents[0], 1);
        if (r == DFM_OK) r = check_positive(w, "half_extents[1]", d->half_extents[1], 1);
        if (r == DFM_OK && ((d->half_extents[0] > 0.0f) != (d->half_extents[1] > 0.0f)))
            r = dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                         "shape_def.half_extents of a plane must be both 0 (infinite) or both > 0 (finite)");
        s->geom.params[0] = d->half_extents[0];
        s->geom.params[1] = d->half_extents[1];
        break;
    case DFM_SHAPE_MESH: {
        if (!d->mesh_vertices) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "shape_def.mesh_vertices is NULL");
        if (!d->mesh_triangles) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "shape_def.mesh_triangles is NULL");
        if (d->mesh_vertex_count < 4 || d->mesh_triangle_count < 4)
            return dfm_fail(w, DFM_ERROR_INVALID_COUNT,
                            "mesh has %d vertices and %d triangles; a closed mesh needs >= 4 of each",
                            d->mesh_vertex_count, d->mesh_triangle_count);
        for (int32_t i = 0; i < 3 * d->mesh_vertex_count; ++i)
            if (!isfinite(d->mesh_vertices[i]))
                return dfm_fail(w, DFM_ERROR_NON_FINITE, "mesh vertex %d is not finite", i / 3);
        for (int32_t i = 0; i < 3 * d->mesh_triangle_count; ++i)
            if (d->mesh_triangles[i] < 0 || d->mesh_triangles[i] >= d->mesh_vertex_count)
                return dfm_fail(w, DFM_ERROR_INDEX_OUT_OF_RANGE,
                                "mesh triangle %d corner %d is vertex %d; vertex count is %d", i / 3, i % 3,
                                d->mesh_triangles[i], d->mesh_vertex_count);
        r = check_positive(w, "sdf_cell_size", d->sdf_cell_size, 1);
        if (r != DFM_OK) return r;
        char err[256] = "";
        float margin = d->margin + d->gap + 0.05f; /* the grid reaches past every contact distance */
        dfm_sdf_entry* entry = NULL;
        int hit = 0;
        int rc = dfm_sdf_cache_acquire(&w->sdf_cache, d->mesh_vertices, d->mesh_vertex_count, d->mesh_triangles,
                                       d->mesh_triangle_count, d->sdf_cell_size, margin, DFM_MESH_SDF_MAX_NODES, &entry,
                                       &hit, err, sizeof(err));
        if (rc == DFM_MESH_SDF_OUT_OF_MEMORY)
            return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory baking the mesh SDF");
        if (rc == DFM_MESH_SDF_TOO_MANY_NODES) return dfm_fail(w, DFM_ERROR_CAPACITY, "mesh SDF: %s", err);
        if (rc == DFM_MESH_SDF_OUT_OF_RANGE) return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "mesh SDF: %s", err);
        if (rc != 0) return dfm_fail(w, DFM_ERROR_DEGENERATE_ELEMENT, "mesh SDF: %s", err);
        const dfm_mesh_sdf sdf = entry->sdf;
        s->sdf = entry;
        s->sdf_max_error = sdf.max_error_estimate;
        for (int a = 0; a < 3; ++a) {
            s->geom.grid.origin[a] = sdf.origin[a];
            s->geom.grid.dims[a] = sdf.dims[a];
        }
        s->geom.grid.cell = sdf.cell;
        s->geom.grid.values = sdf.values;
        if (!hit)
            dfm_log(w, DFM_LOG_INFO, "mesh SDF baked: %dx%dx%d nodes, cell %.4g m, max error %.3g m", sdf.dims[0],
                    sdf.dims[1], sdf.dims[2], (double)sdf.cell, (double)sdf.max_error_estimate);
        break;
    }
    default: return dfm_fail(w, DFM_ERROR_INVALID_ENUM, "shape_def.type %d is not a dfm_shape_type", d->type);
    }
    return r;
}

dfm_result dfm_world_add_shape(dfm_world* w, const dfm_shape_def* def, dfm_shape_id* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!out) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "out_shape is NULL");
    dfm_shape_def d = dfm_shape_def_default();
    dfm_result r = dfm_def_read(w, def, sizeof(d), offsetof(dfm_shape_def, mu) + sizeof(float), "shape_def", &d);
    if (r != DFM_OK) return r;
    if (d.environment < -1 || d.environment >= w->def.environment_count)
        return dfm_fail(w, DFM_ERROR_INDEX_OUT_OF_RANGE, "shape_def.environment is %d; must be -1..%d", d.environment,
                        w->def.environment_count - 1);
    for (int a = 0; a < 3; ++a)
        if (!isfinite(d.local_position[a]))
            return dfm_fail(w, DFM_ERROR_NON_FINITE, "shape_def.local_position[%d] is not finite", a);
    dfm_quat lq;
    r = check_quat(w, d.local_rotation, "shape_def.local_rotation", &lq);
    if (r == DFM_OK) r = check_positive(w, "margin", d.margin, 1);
    if (r == DFM_OK) r = check_positive(w, "gap", d.gap, 1);
    if (r == DFM_OK) r = check_positive(w, "ke", d.ke, 0);
    if (r == DFM_OK) r = check_positive(w, "kd", d.kd, 1);
    if (r == DFM_OK) r = check_positive(w, "mu", d.mu, 1);
    if (r != DFM_OK) return r;
    dfm_shape* s = (dfm_shape*)calloc(1, sizeof(dfm_shape));
    if (!s) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a shape");
    r = setup_geometry(w, &d, s);
    if (r != DFM_OK) {
        dfm_shape_free(s);
        return r;
    }
    s->type = d.type;
    s->environment = d.environment;
    s->host_body = d.host_body;
    s->local.t = dfm_v3_load(d.local_position);
    s->local.q = lq;
    s->margin = d.margin;
    s->gap = d.gap;
    s->ke = d.ke;
    s->kd = d.kd;
    s->mu = d.mu;
    s->body_prev.t = s->body_cur.t = dfm_v3_zero();
    s->body_prev.q = s->body_cur.q = dfm_quat_identity();
    world_aabb(s, s->body_cur, s->aabb_cur);
    memcpy(s->aabb_prev, s->aabb_cur, sizeof(s->aabb_cur));
    uint16_t generation = 0;
    int32_t slot = dfm_id_pool_insert(&w->shape_pool, s, &generation);
    if (slot < 0) {
        dfm_shape_free(s);
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory growing the shape table");
    }
    w->contacts.dirty = 1;
    out->index1 = slot + 1;
    out->generation = generation;
    out->world_tag = w->tag;
    return DFM_OK;
}

dfm_result dfm_world_remove_shape(dfm_world* w, dfm_shape_id id) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_shape* s = NULL;
    dfm_result r = resolve_shape(w, id, &s);
    if (r != DFM_OK) return r;
    dfm_shape_free((dfm_shape*)dfm_id_pool_remove(&w->shape_pool, id.index1 - 1));
    dfm_sdf_cache_sweep(&w->sdf_cache); /* a grid no shape uses any more is freed */
    w->contacts.dirty = 1;
    return DFM_OK;
}

dfm_result dfm_world_set_shape_states(dfm_world* w, const dfm_shape_id* ids, int32_t id_stride,
                                      const dfm_shape_state* states, int32_t state_stride, int32_t count) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!ids || !states) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "%s is NULL", ids ? "states" : "ids");
    if (count <= 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "count is %d; must be >= 1", count);
    if ((id_stride != 0 && id_stride < (int32_t)sizeof(dfm_shape_id)) ||
        (state_stride != 0 && state_stride < (int32_t)sizeof(dfm_shape_state)))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "strides %d / %d are smaller than the structs", id_stride,
                        state_stride);
    size_t is = id_stride ? (size_t)id_stride : sizeof(dfm_shape_id);
    size_t ss = state_stride ? (size_t)state_stride : sizeof(dfm_shape_state);
    /* Validate everything first: a failed call changes nothing. */
    for (int32_t i = 0; i < count; ++i) {
        dfm_shape_id id;
        dfm_shape_state st;
        memcpy(&id, (const char*)ids + is * (size_t)i, sizeof(id));
        memcpy(&st, (const char*)states + ss * (size_t)i, sizeof(st));
        dfm_shape* s = NULL;
        dfm_result r = resolve_shape_entry(w, id, i, &s);
        if (r != DFM_OK) return r;
        const float* f = st.position;
        for (int k = 0; k < 3; ++k)
            if (!isfinite(f[k]) || !isfinite(st.linear_velocity[k]) || !isfinite(st.angular_velocity[k]))
                return dfm_fail(w, DFM_ERROR_NON_FINITE, "state %d: position or velocity is not finite", i);
        r = dfm_check_positions(w, f, 0, 1, i, "position of state");
        if (r != DFM_OK) return r;
        for (int k = 0; k < 3; ++k)
            if (fabsf(st.linear_velocity[k]) > DFM_MAX_SPEED || fabsf(st.angular_velocity[k]) > DFM_MAX_ANGULAR_SPEED)
                return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                                "state %d: velocity (%g m/s, %g rad/s on axis %d) beyond DFM_MAX_SPEED (%g m/s) or "
                                "DFM_MAX_ANGULAR_SPEED (%g rad/s)",
                                i, (double)st.linear_velocity[k], (double)st.angular_velocity[k], k,
                                (double)DFM_MAX_SPEED, (double)DFM_MAX_ANGULAR_SPEED);
        dfm_quat q;
        char what[64];
        snprintf(what, sizeof(what), "state %d rotation", i);
        r = check_quat(w, st.rotation, what, &q);
        if (r != DFM_OK) return r;
        if (!(st.aabb_min[0] > st.aabb_max[0]))
            for (int k = 0; k < 3; ++k)
                if (!isfinite(st.aabb_min[k]) || !isfinite(st.aabb_max[k]) || st.aabb_min[k] > st.aabb_max[k])
                    return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "state %d: AABB axis %d is empty or not finite", i, k);
    }
    for (int32_t i = 0; i < count; ++i) {
        dfm_shape_id id;
        dfm_shape_state st;
        memcpy(&id, (const char*)ids + is * (size_t)i, sizeof(id));
        memcpy(&st, (const char*)states + ss * (size_t)i, sizeof(st));
        dfm_shape* s = dfm_world_shape_at(w, id.index1 - 1);
        dfm_xform body;
        body.t = dfm_v3_load(st.position);
        check_quat(w, st.rotation, "rotation", &body.q);
        s->body_cur = body;
        memcpy(s->velocity_cur, st.linear_velocity, 3 * sizeof(float));
        memcpy(s->velocity_cur + 3, st.angular_velocity, 3 * sizeof(float));
        if (st.aabb_min[0] > st.aabb_max[0]) {
            world_aabb(s, body, s->aabb_cur);
        } else {
            for (int k = 0; k < 3; ++k) {
                s->aabb_cur[k] = st.aabb_min[k];
                s->aabb_cur[3 + k] = st.aabb_max[k];
            }
        }
        if (!s->has_state) {
            s->body_prev = body;
            memcpy(s->aabb_prev, s->aabb_cur, sizeof(s->aabb_cur));
            s->has_state = 1;
        }
    }
    return DFM_OK;
}

dfm_result dfm_shape_get_info(dfm_world* w, dfm_shape_id id, dfm_shape_info* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_shape* s = NULL;
    dfm_result r = resolve_shape(w, id, &s);
    if (r != DFM_OK) return r;
    dfm_shape_info info = dfm_shape_info_init();
    r = dfm_def_read(w, out, sizeof(info), offsetof(dfm_shape_info, type) + sizeof(int32_t), "shape_info", &info);
    if (r != DFM_OK) return r;
    uint32_t caller = out->struct_size;
    info.type = s->type;
    info.environment = s->environment;
    if (s->type == DFM_SHAPE_MESH) {
        for (int a = 0; a < 3; ++a) info.sdf_dims[a] = s->geom.grid.dims[a];
        info.sdf_cell_size = s->geom.grid.cell;
        info.sdf_max_error = s->sdf_max_error;
    }
    info.struct_size = caller;
    memcpy(out, &info, caller);
    return DFM_OK;
}

dfm_result dfm_world_get_shape_reactions(dfm_world* w, const dfm_shape_id* ids, int32_t count, float* forces,
                                         float* torques, int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!ids || !forces) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "%s is NULL", ids ? "forces" : "ids");
    if (count <= 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "count is %d; must be >= 1", count);
    if (stride != 0 && (stride < 12 || stride % 4 != 0))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "stride is %d bytes; must be 0 or a multiple of 4 >= 12", stride);
    size_t st = stride ? (size_t)stride : 12u;
    for (int32_t i = 0; i < count; ++i) {
        dfm_shape* s = NULL;
        dfm_result r = resolve_shape(w, ids[i], &s);
        if (r != DFM_OK) return r;
    }
    for (int32_t i = 0; i < count; ++i) {
        const dfm_shape* s = dfm_world_shape_at(w, ids[i].index1 - 1);
        memcpy((char*)forces + st * (size_t)i, s->reaction, 3 * sizeof(float));
        if (torques) memcpy((char*)torques + st * (size_t)i, s->reaction + 3, 3 * sizeof(float));
    }
    return DFM_OK;
}

dfm_result dfm_world_get_contact_stats(dfm_world* w, dfm_contact_stats* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_contact_stats s = dfm_contact_stats_init();
    dfm_result r = dfm_def_read(w, out, sizeof(s), offsetof(dfm_contact_stats, active) + sizeof(int32_t),
                                "contact_stats", &s);
    if (r != DFM_OK) return r;
    uint32_t caller = out->struct_size;
    const dfm_contacts* c = &w->contacts;
    s.capacity = c->capacity;
    s.active = c->count < c->capacity ? c->count : c->capacity;
    s.particle_contacts = c->last_kind_counts[0];
    s.edge_contacts = c->last_kind_counts[1];
    s.face_contacts = c->last_kind_counts[2];
    s.dropped_last_step = c->dropped_last_step;
    s.dropped_total = c->dropped_total;
    s.candidate_pairs = dfm_contact_candidates_total(&c->cand);
    s.max_penetration = c->max_penetration;
    memcpy(s.particle_force, c->particle_force, sizeof(s.particle_force));
    s.residual_force_max = c->residual_max;
    s.struct_size = caller;
    memcpy(out, &s, caller);
    return DFM_OK;
}
