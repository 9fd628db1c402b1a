/// @file body.c
/// Adding, removing and querying deformable bodies; per-vertex state access.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "def_read.h"
#include "error.h"
#include "model.h"
#include "strided.h"
#include "topology.h"
#include "vbd_bending.h"
#include "vbd_membrane.h"
#include "vbd_tet.h"
#include "world_internal.h"

void dfm_body_free(dfm_body* b) {
    if (!b) return;
    free(b->mass);
    free(b->drag);
    free(b->initial_positions);
    free(b->initial_mode);
    free(b->triangles);
    free(b->tri_dinv);
    free(b->tri_area);
    free(b->edges);
    free(b->edge_rest_angle);
    free(b->edge_rest_length);
    free(b->tets);
    free(b->tet_dminv);
    free(b->tet_volume);
    dfm_coloring_free(&b->coloring);
    free(b->surf_particles);
    free(b->surf_edges);
    free(b->surf_faces);
    free(b);
}

dfm_result dfm_resolve_body(dfm_world* w, dfm_body_id id, dfm_body** out) {
    if (id.index1 == 0) return dfm_fail(w, DFM_ERROR_STALE_ID, "body id is null");
    if (id.world_tag != w->tag)
        return dfm_fail(w, DFM_ERROR_FOREIGN_ID,
                        "body id {%d, gen %u} was issued by another world (tag %u, this is %u)", id.index1,
                        id.generation, id.world_tag, w->tag);
    dfm_id_pool_status st;
    dfm_body* b = (dfm_body*)dfm_id_pool_resolve(&w->body_pool, id.index1, id.generation, &st);
    if (!b)
        return dfm_fail(w, DFM_ERROR_STALE_ID, "body id {%d, gen %u} is stale (the body was removed)", id.index1,
                        id.generation);
    *out = b;
    return DFM_OK;
}

/// Puts a finished body into the lowest free slot and issues its id. Takes ownership on success.
static dfm_result insert_body(dfm_world* w, dfm_body* b, dfm_body_id* out) {
    b->first_particle = -1;
    uint16_t generation = 0;
    int32_t slot = dfm_id_pool_insert(&w->body_pool, b, &generation);
    if (slot < 0) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory growing the body table");
    w->dirty = 1;
    out->index1 = slot + 1;
    out->generation = generation;
    out->world_tag = w->tag;
    return DFM_OK;
}

/// Checks the parts every mesh def shares: pointers, counts, stride, environment, finiteness.
static dfm_result check_mesh_common(dfm_world* w, const char* what, int32_t env, const float* pos, int32_t stride,
                                    int32_t nv, int32_t min_v, const int32_t* elems, int32_t ne,
                                    const char* elem_name) {
    if (!pos) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "%s.positions is NULL", what);
    if (!elems) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "%s.%s is NULL", what, elem_name);
    if (nv < min_v)
        return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "%s.vertex_count is %d; must be >= %d", what, nv, min_v);
    if (ne < 1) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "%s.%s count is %d; must be >= 1", what, elem_name, ne);
    if (stride != 0 && (stride < 12 || stride % 4 != 0))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s.position_stride is %d; must be 0 or a multiple of 4 >= 12",
                        what, stride);
    if (env < -1 || env >= w->def.environment_count)
        return dfm_fail(w, DFM_ERROR_INDEX_OUT_OF_RANGE, "%s.environment is %d; must be -1..%d", what, env,
                        w->def.environment_count - 1);
    char name[48];
    snprintf(name, sizeof(name), "%s position of vertex", what);
    return dfm_check_positions(w, pos, stride, nv, 0, name);
}

/// Checks element indices: in range and pairwise distinct.
static dfm_result check_indices(dfm_world* w, const char* elem, const int32_t* idx, int32_t n, int corners,
                                int32_t nv) {
    for (int32_t e = 0; e < n; ++e)
        for (int k = 0; k < corners; ++k) {
            int32_t v = idx[(size_t)corners * (size_t)e + (size_t)k];
            if (v < 0 || v >= nv)
                return dfm_fail(w, DFM_ERROR_INDEX_OUT_OF_RANGE, "%s %d corner %d is vertex %d; vertex_count is %d",
                                elem, e, k, v, nv);
            for (int j = 0; j < k; ++j)
                if (idx[(size_t)corners * (size_t)e + (size_t)j] == v)
                    return dfm_fail(w, DFM_ERROR_DEGENERATE_ELEMENT, "%s %d repeats vertex %d", elem, e, v);
        }
    return DFM_OK;
}

/// Checks that each named material value is finite and >= 0.
static dfm_result check_nonneg(dfm_world* w, const char* what, const char* field, float v) {
    if (!isfinite(v)) return dfm_fail(w, DFM_ERROR_NON_FINITE, "%s.%s is not finite", what, field);
    if (v < 0.0f) return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s.%s is %g; must be >= 0", what, field, (double)v);
    return DFM_OK;
}

/// Per-vertex masses: given ones are checked; otherwise lumped from `elem_measure` by density.
static dfm_result fill_masses(dfm_world* w, dfm_body* b, const char* what, const float* given, float density,
                              const int32_t* elems, const float* measure, int32_t n, int corners) {
    if (given) {
        for (int32_t i = 0; i < b->vertex_count; ++i) {
            if (!isfinite(given[i]))
                return dfm_fail(w, DFM_ERROR_NON_FINITE, "%s vertex %d mass is not finite", what, i);
            if (given[i] <= 0.0f)
                return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s vertex %d mass is %g kg; must be > 0", what, i,
                                (double)given[i]);
            b->mass[i] = given[i];
        }
        return DFM_OK;
    }
    if (!isfinite(density)) return dfm_fail(w, DFM_ERROR_NON_FINITE, "%s.density is not finite", what);
    if (density <= 0.0f)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s.density is %g; must be > 0 when vertex_masses is NULL", what,
                        (double)density);
    for (int32_t e = 0; e < n; ++e)
        for (int k = 0; k < corners; ++k)
            b->mass[elems[(size_t)corners * (size_t)e + (size_t)k]] += density * measure[e] / (float)corners;
    for (int32_t i = 0; i < b->vertex_count; ++i)
        if (!(b->mass[i] > 0.0f))
            return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                            "%s vertex %d belongs to no element and so has no mass; remove it or pass vertex_masses",
                            what, i);
    return DFM_OK;
}

/// The body def's self_collision flag (ABI 1.7) must be 0 or 1.
static dfm_result check_self_collision(dfm_world* w, const char* what, int32_t v) {
    if (v != 0 && v != 1)
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "%s_def.self_collision is %d; must be 0 or 1", what, (int)v);
    return DFM_OK;
}

#define BODY_ALLOC(ptr, count) ((ptr) = calloc((size_t)(count) + 1u, sizeof(*(ptr))), (ptr) != NULL)

static dfm_result oom(dfm_world* w, dfm_body* b, const char* what) {
    dfm_body_free(b);
    return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating %s", what);
}

dfm_result dfm_world_add_cloth(dfm_world* w, const dfm_cloth_def* def, dfm_body_id* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!out) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "out_body is NULL");
    dfm_cloth_def d = dfm_cloth_def_default();
    dfm_result r = dfm_def_read(w, def, sizeof(d), offsetof(dfm_cloth_def, triangle_count) + sizeof(int32_t),
                                "cloth_def", &d);
    if (r != DFM_OK) return r;
    const char* what = "cloth";
    r = check_mesh_common(w, what, d.environment, d.positions, d.position_stride, d.vertex_count, 3, d.triangles,
                          d.triangle_count, "triangles");
    if (r == DFM_OK) r = check_indices(w, "triangle", d.triangles, d.triangle_count, 3, d.vertex_count);
    if (r == DFM_OK) r = check_nonneg(w, what, "stretch_mu", d.stretch_mu);
    if (r == DFM_OK) r = check_nonneg(w, what, "stretch_lambda", d.stretch_lambda);
    if (r == DFM_OK) r = check_nonneg(w, what, "stretch_damping", d.stretch_damping);
    if (r == DFM_OK) r = check_nonneg(w, what, "bend_stiffness", d.bend_stiffness);
    if (r == DFM_OK) r = check_nonneg(w, what, "bend_damping", d.bend_damping);
    if (r == DFM_OK) r = check_nonneg(w, what, "contact_radius", d.contact_radius);
    if (r == DFM_OK) r = check_nonneg(w, what, "air_drag", d.air_drag);
    if (r == DFM_OK) r = check_self_collision(w, what, d.self_collision);
    if (r != DFM_OK) return r;

    dfm_body* b = (dfm_body*)calloc(1, sizeof(dfm_body));
    if (!b) return oom(w, b, what);
    b->kind = DFM_BODY_CLOTH;
    b->environment = d.environment;
    b->vertex_count = d.vertex_count;
    b->triangle_count = d.triangle_count;
    b->contact_radius = d.contact_radius;
    b->self_collision = d.self_collision;
    b->collision_group = d.collision_group;
    b->collision_mask = d.collision_mask;
    b->tri_material[0] = d.stretch_mu;
    b->tri_material[1] = d.stretch_lambda;
    b->tri_material[2] = d.stretch_damping;
    b->edge_material[0] = d.bend_stiffness;
    b->edge_material[1] = d.bend_damping;
    if (!BODY_ALLOC(b->mass, d.vertex_count) || !BODY_ALLOC(b->initial_positions, 3 * d.vertex_count) ||
        !BODY_ALLOC(b->triangles, 3 * d.triangle_count) || !BODY_ALLOC(b->tri_dinv, 4 * d.triangle_count) ||
        !BODY_ALLOC(b->tri_area, d.triangle_count))
        return oom(w, b, what);
    dfm_strided_load(b->initial_positions, d.positions, d.position_stride, d.vertex_count);
    memcpy(b->triangles, d.triangles, (size_t)d.triangle_count * 3u * sizeof(int32_t));
    const float* x = b->initial_positions;
    for (int32_t t = 0; t < d.triangle_count; ++t) {
        const int32_t* c = b->triangles + 3 * t;
        if (!dfm_tri_rest_compute(dfm_v3_load(x + 3 * c[0]), dfm_v3_load(x + 3 * c[1]), dfm_v3_load(x + 3 * c[2]),
                                  b->tri_dinv + 4 * t, &b->tri_area[t])) {
            int32_t c0 = c[0], c1 = c[1], c2 = c[2];
            /* Far from the origin the cause is float spacing, not the caller's mesh (a 0.3 m cloth
             * at 1e7 m collapses onto a 1 m lattice): say so. */
            float far = 0.0f, longest = 0.0f;
            for (int k = 0; k < 3; ++k) {
                const float *p = x + 3 * c[k], *q = x + 3 * c[(k + 1) % 3];
                float e2 = 0.0f;
                for (int a = 0; a < 3; ++a) {
                    far = fmaxf(far, fabsf(p[a]));
                    e2 += (p[a] - q[a]) * (p[a] - q[a]);
                }
                longest = fmaxf(longest, sqrtf(e2));
            }
            const float spacing = far * FLT_EPSILON;
            dfm_body_free(b);
            if (spacing >= 0.01f * longest && far > 1.0f)
                return dfm_fail(
                    w, DFM_ERROR_DEGENERATE_ELEMENT,
                    "triangle %d (vertices %d, %d, %d) has zero area in float: its vertices lie %g m from the "
                    "origin, where float spacing is %g m against its longest edge of %g m; model the body "
                    "near the origin and move it with the host's frame",
                    t, c0, c1, c2, (double)far, (double)spacing, (double)longest);
            return dfm_fail(w, DFM_ERROR_DEGENERATE_ELEMENT, "triangle %d has zero area (vertices %d, %d, %d)", t, c0,
                            c1, c2);
        }
    }
    r = fill_masses(w, b, what, d.vertex_masses, d.density, b->triangles, b->tri_area, d.triangle_count, 3);
    if (r != DFM_OK) {
        dfm_body_free(b);
        return r;
    }
    if (d.air_drag > 0.0f) {
        if (!BODY_ALLOC(b->drag, d.vertex_count)) return oom(w, b, what);
        for (int32_t t = 0; t < d.triangle_count; ++t)
            for (int k = 0; k < 3; ++k) b->drag[b->triangles[3 * t + k]] += d.air_drag * b->tri_area[t] / 3.0f;
    }
    int32_t nonmanifold = 0;
    if (dfm_topology_bending_edges(b->triangles, b->triangle_count, &b->edges, &b->edge_count, &nonmanifold) != 0)
        return oom(w, b, what);
    if (nonmanifold > 0)
        dfm_log(w, DFM_LOG_WARNING, "cloth has %d non-manifold edges (3+ triangles); they carry no bending",
                nonmanifold);
    if (!BODY_ALLOC(b->edge_rest_angle, b->edge_count) || !BODY_ALLOC(b->edge_rest_length, b->edge_count))
        return oom(w, b, what);
    for (int32_t e = 0; e < b->edge_count; ++e) {
        dfm_v3 q[4];
        for (int k = 0; k < 4; ++k) q[k] = dfm_v3_load(x + 3 * b->edges[4 * e + k]);
        b->edge_rest_angle[e] = dfm_dihedral_angle(q);
        b->edge_rest_length[e] = dfm_v3_len(dfm_v3_sub(q[3], q[2]));
    }
    if (dfm_coloring_compute(&b->coloring, b->vertex_count, b->triangles, b->triangle_count, b->edges, b->edge_count,
                             NULL, 0) != 0)
        return oom(w, b, what);
    /* Contact features: every vertex, every unique edge, every triangle. */
    if (dfm_topology_unique_vertices(b->triangles, b->triangle_count, 3, b->vertex_count, &b->surf_particles,
                                     &b->surf_particle_count) != 0 ||
        dfm_topology_unique_edges(b->triangles, b->triangle_count, &b->surf_edges, &b->surf_edge_count) != 0 ||
        !BODY_ALLOC(b->surf_faces, 3 * b->triangle_count))
        return oom(w, b, what);
    memcpy(b->surf_faces, b->triangles, (size_t)b->triangle_count * 3u * sizeof(int32_t));
    b->surf_face_count = b->triangle_count;
    r = insert_body(w, b, out);
    if (r != DFM_OK) dfm_body_free(b);
    return r;
}

dfm_result dfm_world_add_volume(dfm_world* w, const dfm_volume_def* def, dfm_body_id* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!out) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "out_body is NULL");
    dfm_volume_def d = dfm_volume_def_default();
    dfm_result r = dfm_def_read(w, def, sizeof(d), offsetof(dfm_volume_def, tet_count) + sizeof(int32_t), "volume_def",
                                &d);
    if (r != DFM_OK) return r;
    const char* what = "volume";
    r = check_mesh_common(w, what, d.environment, d.positions, d.position_stride, d.vertex_count, 4, d.tets,
                          d.tet_count, "tets");
    if (r == DFM_OK) r = check_indices(w, "tet", d.tets, d.tet_count, 4, d.vertex_count);
    if (r == DFM_OK) r = check_nonneg(w, what, "mu", d.mu);
    if (r == DFM_OK) r = check_nonneg(w, what, "lambda", d.lambda);
    if (r == DFM_OK) r = check_nonneg(w, what, "damping", d.damping);
    if (r == DFM_OK) r = check_nonneg(w, what, "contact_radius", d.contact_radius);
    if (r == DFM_OK) r = check_self_collision(w, what, d.self_collision);
    if (r != DFM_OK) return r;

    dfm_body* b = (dfm_body*)calloc(1, sizeof(dfm_body));
    if (!b) return oom(w, b, what);
    b->kind = DFM_BODY_VOLUME;
    b->self_collision = d.self_collision;
    b->collision_group = d.collision_group;
    b->collision_mask = d.collision_mask;
    b->environment = d.environment;
    b->vertex_count = d.vertex_count;
    b->tet_count = d.tet_count;
    b->contact_radius = d.contact_radius;
    b->tet_material[0] = d.mu;
    b->tet_material[1] = d.lambda;
    b->tet_material[2] = d.damping;
    if (!BODY_ALLOC(b->mass, d.vertex_count) || !BODY_ALLOC(b->initial_positions, 3 * d.vertex_count) ||
        !BODY_ALLOC(b->tets, 4 * d.tet_count) || !BODY_ALLOC(b->tet_dminv, 9 * d.tet_count) ||
        !BODY_ALLOC(b->tet_volume, d.tet_count))
        return oom(w, b, what);
    dfm_strided_load(b->initial_positions, d.positions, d.position_stride, d.vertex_count);
    memcpy(b->tets, d.tets, (size_t)d.tet_count * 4u * sizeof(int32_t));
    const float* x = b->initial_positions;
    for (int32_t t = 0; t < d.tet_count; ++t) {
        const int32_t* c = b->tets + 4 * t;
        int ok = dfm_tet_rest_compute(dfm_v3_load(x + 3 * c[0]), dfm_v3_load(x + 3 * c[1]), dfm_v3_load(x + 3 * c[2]),
                                      dfm_v3_load(x + 3 * c[3]), b->tet_dminv + 9 * t, &b->tet_volume[t]);
        if (ok != 1) {
            int32_t q[4] = {c[0], c[1], c[2], c[3]};
            dfm_body_free(b);
            if (ok < 0)
                return dfm_fail(w, DFM_ERROR_INVERTED_ELEMENT,
                                "tet %d is inverted (negative signed volume; swap two corners of %d, %d, %d, %d)", t,
                                q[0], q[1], q[2], q[3]);
            return dfm_fail(w, DFM_ERROR_DEGENERATE_ELEMENT, "tet %d is flat (zero volume; vertices %d, %d, %d, %d)", t,
                            q[0], q[1], q[2], q[3]);
        }
    }
    r = fill_masses(w, b, what, d.vertex_masses, d.density, b->tets, b->tet_volume, d.tet_count, 4);
    if (r != DFM_OK) {
        dfm_body_free(b);
        return r;
    }
    if (dfm_coloring_compute(&b->coloring, b->vertex_count, NULL, 0, NULL, 0, b->tets, b->tet_count) != 0)
        return oom(w, b, what);
    /* Contact features: the boundary surface (faces, their edges and vertices). */
    if (dfm_topology_tet_boundary(b->tets, b->tet_count, x, &b->surf_faces, &b->surf_face_count) != 0 ||
        dfm_topology_unique_vertices(b->surf_faces, b->surf_face_count, 3, b->vertex_count, &b->surf_particles,
                                     &b->surf_particle_count) != 0 ||
        dfm_topology_unique_edges(b->surf_faces, b->surf_face_count, &b->surf_edges, &b->surf_edge_count) != 0)
        return oom(w, b, what);
    r = insert_body(w, b, out);
    if (r != DFM_OK) dfm_body_free(b);
    return r;
}

dfm_result dfm_world_remove_body(dfm_world* w, dfm_body_id id) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = dfm_resolve_body(w, id, &b);
    if (r != DFM_OK) return r;
    /* Make sure every other body's state lives in the current arrays before the layout changes. */
    r = dfm_world_ensure_model(w);
    if (r != DFM_OK) return r;
    dfm_body_free((dfm_body*)dfm_id_pool_remove(&w->body_pool, id.index1 - 1));
    w->dirty = 1;
    return DFM_OK;
}

dfm_result dfm_body_get_info(dfm_world* w, dfm_body_id id, dfm_body_info* out) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = dfm_resolve_body(w, id, &b);
    if (r != DFM_OK) return r;
    dfm_body_info info;
    memset(&info, 0, sizeof(info));
    r = dfm_def_read(w, out, sizeof(info), offsetof(dfm_body_info, kind) + sizeof(int32_t), "body_info", &info);
    if (r != DFM_OK) return r;
    uint32_t caller_size = out->struct_size;
    r = dfm_world_ensure_model(w);
    if (r != DFM_OK) return r;
    info.kind = b->kind;
    info.environment = b->environment;
    info.vertex_count = b->vertex_count;
    info.triangle_count = b->triangle_count;
    info.bending_edge_count = b->edge_count;
    info.tet_count = b->tet_count;
    info.first_particle = b->first_particle;
    for (int32_t i = 0; i < b->vertex_count; ++i) info.total_mass += b->mass[i];
    info.struct_size = caller_size;
    memcpy(out, &info, caller_size);
    return DFM_OK;
}

/// Resolves the body, brings the model up to date and checks a body-local vertex range.
static dfm_result body_range(dfm_world* w, dfm_body_id id, int32_t first, int32_t count, const void* buf,
                             int32_t stride, dfm_body** out) {
    dfm_result r = dfm_resolve_body(w, id, out);
    if (r != DFM_OK) return r;
    if (!buf) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "vertex buffer is NULL");
    r = dfm_check_range(w, first, count, (*out)->vertex_count, stride, "body vertex");
    if (r != DFM_OK) return r;
    r = dfm_world_ensure_model(w);
    return r == DFM_OK ? dfm_world_sync_host(w) : r;
}

dfm_result dfm_body_get_positions(dfm_world* w, dfm_body_id id, int32_t first, int32_t count, float* out,
                                  int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = body_range(w, id, first, count, out, stride, &b);
    if (r != DFM_OK) return r;
    dfm_strided_store(out, stride, w->state.x + 3 * (size_t)(b->first_particle + first), count);
    return DFM_OK;
}

dfm_result dfm_body_get_velocities(dfm_world* w, dfm_body_id id, int32_t first, int32_t count, float* out,
                                   int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = body_range(w, id, first, count, out, stride, &b);
    if (r != DFM_OK) return r;
    dfm_strided_store(out, stride, w->state.v + 3 * (size_t)(b->first_particle + first), count);
    return DFM_OK;
}

dfm_result dfm_body_set_positions(dfm_world* w, dfm_body_id id, int32_t first, int32_t count, const float* in,
                                  int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = body_range(w, id, first, count, in, stride, &b);
    if (r != DFM_OK) return r;
    r = dfm_check_positions(w, in, stride, count, first, "position of vertex");
    if (r != DFM_OK) return r;
    size_t p = (size_t)(b->first_particle + first);
    dfm_strided_load(w->state.x + 3 * p, in, stride, count);
    /* Pinned and kinematic vertices hold their new place. */
    memcpy(w->state.kin_start + 3 * p, w->state.x + 3 * p, (size_t)count * 3u * sizeof(float));
    memcpy(w->state.kin_target + 3 * p, w->state.x + 3 * p, (size_t)count * 3u * sizeof(float));
    w->host_dirty = 1;
    return DFM_OK;
}

dfm_result dfm_body_set_velocities(dfm_world* w, dfm_body_id id, int32_t first, int32_t count, const float* in,
                                   int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = body_range(w, id, first, count, in, stride, &b);
    if (r != DFM_OK) return r;
    int32_t bad = dfm_strided_first_nonfinite(in, stride, count);
    if (bad >= 0) return dfm_fail(w, DFM_ERROR_NON_FINITE, "velocity of vertex %d is not finite", first + bad);
    const size_t st = stride ? (size_t)stride : 3u * sizeof(float);
    for (int32_t i = 0; i < count; ++i) {
        float vel[3];
        memcpy(vel, (const char*)in + st * (size_t)i, sizeof(vel));
        for (int k = 0; k < 3; ++k)
            if (fabsf(vel[k]) > DFM_MAX_SPEED)
                return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                                "velocity of vertex %d has component %g m/s, beyond DFM_MAX_SPEED (%g m/s)", first + i,
                                (double)vel[k], (double)DFM_MAX_SPEED);
    }
    size_t p = (size_t)(b->first_particle + first);
    dfm_strided_load(w->state.v + 3 * p, in, stride, count);
    for (int32_t i = 0; i < count; ++i)
        if (w->state.mode[p + (size_t)i] == DFM_VERTEX_PINNED)
            memset(w->state.v + 3 * (p + (size_t)i), 0, 3 * sizeof(float));
    w->host_dirty = 1;
    return DFM_OK;
}

/// Checks a list of body-local vertex indices.
static dfm_result check_vertex_list(dfm_world* w, const dfm_body* b, const int32_t* vertices, int32_t count) {
    if (!vertices) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "vertices is NULL");
    if (count <= 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "vertex count is %d; must be >= 1", count);
    for (int32_t i = 0; i < count; ++i)
        if (vertices[i] < 0 || vertices[i] >= b->vertex_count)
            return dfm_fail(w, DFM_ERROR_INDEX_OUT_OF_RANGE, "vertices[%d] is %d; the body has %d vertices", i,
                            vertices[i], b->vertex_count);
    return DFM_OK;
}

dfm_result dfm_body_set_vertex_mode(dfm_world* w, dfm_body_id id, const int32_t* vertices, int32_t count,
                                    dfm_vertex_mode mode) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = dfm_resolve_body(w, id, &b);
    if (r != DFM_OK) return r;
    if (mode != DFM_VERTEX_DYNAMIC && mode != DFM_VERTEX_PINNED && mode != DFM_VERTEX_KINEMATIC)
        return dfm_fail(w, DFM_ERROR_INVALID_ENUM, "mode %d is not a dfm_vertex_mode", (int)mode);
    r = check_vertex_list(w, b, vertices, count);
    if (r != DFM_OK) return r;
    if (b->first_particle < 0) {
        /* Not placed yet (added since the last rebuild): record the modes on the body, so that
         * adding many bodies and pinning each costs no rebuild per body (measured: quadratic, a
         * 4096-cloth scene did not finish building in minutes). */
        if (!b->initial_mode && !(b->initial_mode = (uint8_t*)calloc((size_t)b->vertex_count, 1)))
            return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for vertex modes");
        for (int32_t i = 0; i < count; ++i) b->initial_mode[vertices[i]] = (uint8_t)mode;
        return DFM_OK;
    }
    r = dfm_world_ensure_model(w);
    if (r == DFM_OK) r = dfm_world_sync_host(w);
    if (r != DFM_OK) return r;
    w->host_dirty = 1;
    for (int32_t i = 0; i < count; ++i) {
        size_t p = (size_t)(b->first_particle + vertices[i]);
        w->state.mode[p] = (uint8_t)mode;
        memcpy(w->state.kin_start + 3 * p, w->state.x + 3 * p, 3 * sizeof(float));
        memcpy(w->state.kin_target + 3 * p, w->state.x + 3 * p, 3 * sizeof(float));
        if (mode != DFM_VERTEX_DYNAMIC) memset(w->state.v + 3 * p, 0, 3 * sizeof(float));
    }
    return DFM_OK;
}

dfm_result dfm_body_set_kinematic_targets(dfm_world* w, dfm_body_id id, const int32_t* vertices, int32_t count,
                                          const float* targets, int32_t stride) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    dfm_body* b = NULL;
    dfm_result r = dfm_resolve_body(w, id, &b);
    if (r != DFM_OK) return r;
    r = check_vertex_list(w, b, vertices, count);
    if (r != DFM_OK) return r;
    if (!targets) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "targets is NULL");
    if (stride != 0 && (stride < 12 || stride % 4 != 0))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE, "stride is %d bytes; must be 0 or a multiple of 4 >= 12", stride);
    r = dfm_check_positions(w, targets, stride, count, 0, "target");
    if (r != DFM_OK) return r;
    r = dfm_world_ensure_model(w);
    if (r == DFM_OK) r = dfm_world_sync_host(w);
    if (r != DFM_OK) return r;
    w->host_dirty = 1;
    size_t s = stride ? (size_t)stride : 12u;
    for (int32_t i = 0; i < count; ++i) {
        size_t p = (size_t)(b->first_particle + vertices[i]);
        w->state.mode[p] = DFM_VERTEX_KINEMATIC;
        memcpy(w->state.kin_start + 3 * p, w->state.x + 3 * p, 3 * sizeof(float));
        memcpy(w->state.kin_target + 3 * p, (const char*)targets + s * (size_t)i, 3 * sizeof(float));
    }
    return DFM_OK;
}
