/// @file bridge.c
/// The functions of dfm/dfm_pybullet.h that Python calls through ctypes on the plugin library.
#include "instance.h"

#include <stdio.h>
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
