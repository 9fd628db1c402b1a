/// @file bridge.c
/// The functions of dfm/dfm_pybullet.h that Python calls through ctypes on the plugin library.
#include "instance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t dfm_pyb_bridge_version(void) { return DFM_PYB_BRIDGE_VERSION; }

dfm_result dfm_pyb_create_world(int32_t key, int32_t backend, int32_t substeps, int32_t iterations, int32_t coupling) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    if (!inst) return DFM_ERROR_STALE_ID;
    if (inst->world)
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE,
                                        "this pybullet client already has a dfm world (attach once per client)");
    if (coupling != DFM_PYB_COUPLING_NONE && coupling != DFM_PYB_COUPLING_EXPLICIT &&
        coupling != DFM_PYB_COUPLING_IMPLICIT)
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INVALID_ENUM,
                                        "coupling is %d; must be %d (none), %d (explicit) or %d (implicit)", coupling,
                                        DFM_PYB_COUPLING_NONE, DFM_PYB_COUPLING_EXPLICIT, DFM_PYB_COUPLING_IMPLICIT);
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = backend;
    if (substeps != 0) wd.substeps = substeps;
    if (iterations != 0) wd.iterations = iterations;
    dfm_world* w = NULL;
    dfm_result r = dfm_world_create(DFM_ABI_VERSION, &wd, &w);
    if (r != DFM_OK) return (dfm_result)dfm_pyb_fail(inst, r, "%s", dfm_world_last_error(NULL));
    inst->world = w;
    inst->coupling = coupling;
    inst->dirty = 1;
    inst->error[0] = '\0';
    return DFM_OK;
}

dfm_world* dfm_pyb_world(int32_t key) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    return inst ? inst->world : NULL;
}

const char* dfm_pyb_last_error(int32_t key) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    if (!inst) return "no plugin instance has this key (its pybullet client disconnected, or the key is wrong)";
    return inst->error;
}

int32_t dfm_pyb_take_tick_error(int32_t key) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    if (!inst) return DFM_ERROR_STALE_ID;
    const int32_t r = inst->tick_error;
    inst->tick_error = DFM_OK;
    return r;
}

int64_t dfm_pyb_tick_count(int32_t key) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    return inst ? inst->ticks : -1;
}

int32_t dfm_pyb_shape_count(int32_t key) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    return inst ? inst->shape_count : -1;
}

int32_t dfm_pyb_reactions(int32_t key, int32_t* body_links, double* wrenches, int32_t capacity) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    if (!inst) return -1;
    for (int i = 0; i < inst->link_count && i < capacity; ++i) {
        const dfm_pyb_link* k = &inst->links[i];
        body_links[2 * i] = k->body;
        body_links[2 * i + 1] = k->link;
        memcpy(wrenches + 6 * i, k->force, 3 * sizeof(double));
        memcpy(wrenches + 6 * i + 3, k->torque, 3 * sizeof(double));
    }
    return inst->link_count;
}

int32_t dfm_pyb_message_count(int32_t key) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    return inst ? inst->message_count : -1;
}

const char* dfm_pyb_message(int32_t key, int32_t index) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    if (!inst || index < 0 || index >= inst->message_count) return NULL;
    return inst->messages[index];
}

uint32_t dfm_pyb_def_size(int32_t which) {
    switch (which) {
    case 1: return (uint32_t)sizeof(dfm_cloth_def);
    case 2: return (uint32_t)sizeof(dfm_volume_def);
    default: return 0;
    }
}

void dfm_pyb_cloth_def_default(dfm_cloth_def* out) {
    if (out) *out = dfm_cloth_def_default();
}

void dfm_pyb_volume_def_default(dfm_volume_def* out) {
    if (out) *out = dfm_volume_def_default();
}

dfm_result dfm_pyb_set_mesh(int32_t key, int32_t body, int32_t link, int32_t shape, const double* vertices,
                            int32_t vertex_count, const int32_t* indices, int32_t index_count,
                            const double* mesh_scale) {
    dfm_pyb_instance* inst = dfm_pyb_instance_find(key);
    if (!inst) return DFM_ERROR_STALE_ID;
    if (!vertices || !indices || !mesh_scale)
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_NULL_POINTER,
                                        "set_mesh: vertices, indices or mesh_scale is NULL");
    if (link < -1 || shape < 0)
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INDEX_OUT_OF_RANGE,
                                        "set_mesh: link is %d and shape %d; need link >= -1 and shape >= 0", link,
                                        shape);
    if (vertex_count < 4 || index_count < 12 || index_count % 3 != 0)
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INVALID_COUNT,
                                        "set_mesh: %d vertices and %d indices; a closed mesh needs at least 4 vertices "
                                        "and 12 indices, 3 per triangle",
                                        vertex_count, index_count);
    for (int a = 0; a < 3; ++a)
        if (!isfinite(mesh_scale[a]) || mesh_scale[a] == 0.0)
            return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INVALID_VALUE,
                                            "set_mesh: mesh_scale[%d] is %g; must be finite and not 0", a,
                                            mesh_scale[a]);
    for (int32_t i = 0; i < index_count; ++i)
        if (indices[i] < 0 || indices[i] >= vertex_count)
            return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INDEX_OUT_OF_RANGE,
                                            "set_mesh: indices[%d] is %d; must be 0..%d", i, indices[i],
                                            vertex_count - 1);
    double* scaled = (double*)malloc((size_t)vertex_count * 3 * sizeof(double));
    if (!scaled) return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "set_mesh: out of host memory");
    for (int32_t i = 0; i < 3 * vertex_count; ++i) {
        if (!isfinite(vertices[i])) {
            free(scaled);
            return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_NON_FINITE, "set_mesh: vertex %d is not finite", i / 3);
        }
        scaled[i] = vertices[i] * mesh_scale[i % 3];
    }
    /* A mirroring scale (an odd number of negative factors) turns the triangles inside out. */
    const int mirrored = (mesh_scale[0] < 0) ^ (mesh_scale[1] < 0) ^ (mesh_scale[2] < 0);
    int32_t* tri = (int32_t*)malloc((size_t)index_count * sizeof(int32_t));
    if (!tri) {
        free(scaled);
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "set_mesh: out of host memory");
    }
    for (int32_t t = 0; t < index_count / 3; ++t) {
        tri[3 * t] = indices[3 * t];
        tri[3 * t + 1] = indices[3 * t + (mirrored ? 2 : 1)];
        tri[3 * t + 2] = indices[3 * t + (mirrored ? 1 : 2)];
    }
    dfm_pyb_mesh m;
    char why[256];
    const int welded = dfm_pyb_mesh_weld(scaled, vertex_count, tri, index_count / 3, &m, why, sizeof(why));
    free(scaled);
    free(tri);
    if (!welded) return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INVALID_VALUE, "set_mesh: %s", why);
    if (!dfm_pyb_mesh_check_closed(&m, why, sizeof(why))) {
        dfm_pyb_mesh_free(&m);
        return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_INVALID_VALUE, "set_mesh: body %d link %d shape %d: %s", body,
                                        link, shape, why);
    }
    for (int i = 0; i < inst->user_mesh_count; ++i) {
        dfm_pyb_user_mesh* u = &inst->user_meshes[i];
        if (u->body == body && u->link == link && u->shape == shape) {
            dfm_pyb_mesh_free(&u->mesh);
            u->mesh = m;
            inst->dirty = 1;
            return DFM_OK;
        }
    }
    if (inst->user_mesh_count == inst->user_mesh_capacity) {
        const int cap = inst->user_mesh_capacity ? 2 * inst->user_mesh_capacity : 8;
        dfm_pyb_user_mesh* g = (dfm_pyb_user_mesh*)realloc(inst->user_meshes, (size_t)cap * sizeof(*g));
        if (!g) {
            dfm_pyb_mesh_free(&m);
            return (dfm_result)dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "set_mesh: out of host memory");
        }
        inst->user_meshes = g;
        inst->user_mesh_capacity = cap;
    }
    dfm_pyb_user_mesh* u = &inst->user_meshes[inst->user_mesh_count++];
    u->body = body;
    u->link = link;
    u->shape = shape;
    u->mesh = m;
    inst->dirty = 1; /* read again at the next tick */
    return DFM_OK;
}
