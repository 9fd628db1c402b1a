/// @file adapter_api.cpp
/// The C entry points of dfm_bullet.h: attach/detach, materials, queries, errors.
#include "adapter.hpp"

#include <cmath>
#include <cstdio>
#include <new>

using namespace dfm_bullet_impl;

namespace {
/// The message of the last failed attach (per thread).
thread_local std::string g_attach_error;

dfm_result attach_fail(dfm_result code, const char* message) {
    g_attach_error = message;
    return code;
}
} // namespace

namespace dfm_bullet_impl {

void log_message(const dfm_bullet* b, dfm_log_level level, const std::string& message) {
    if (b && b->def.log_fn)
        b->def.log_fn(b->def.log_user, level, message.c_str());
    else
        std::fprintf(stderr, "[dfm_bullet] %s\n", message.c_str());
}

dfm_result fail(dfm_bullet* b, dfm_result code, const std::string& message) {
    b->last_error = message;
    log_message(b, DFM_LOG_ERROR, message);
    return code;
}

} // namespace dfm_bullet_impl

extern "C" {

uint32_t dfm_bullet_scalar_size(void) { return (uint32_t)sizeof(btScalar); }

dfm_result dfm_bullet_attach(const dfm_bullet_def* def, dfm_bullet** out) {
    if (!out) return attach_fail(DFM_ERROR_NULL_POINTER, "dfm_bullet_attach: out is NULL");
    *out = nullptr;
    if (!def) return attach_fail(DFM_ERROR_NULL_POINTER, "dfm_bullet_attach: def is NULL");
    if (def->struct_size != sizeof(dfm_bullet_def))
        return attach_fail(DFM_ERROR_STRUCT_SIZE, "dfm_bullet_def.struct_size is not sizeof(dfm_bullet_def)");
    if (!def->world) return attach_fail(DFM_ERROR_NULL_POINTER, "dfm_bullet_def.world (the dfm world) is NULL");
    if (!def->dynamics_world)
        return attach_fail(DFM_ERROR_NULL_POINTER, "dfm_bullet_def.dynamics_world (the btDynamicsWorld*) is NULL");
    if (def->scalar_size != 0 && def->scalar_size != sizeof(btScalar))
        return attach_fail(
            DFM_ERROR_ABI_MISMATCH,
            sizeof(btScalar) == 4
                ? "dfm_bullet_def.scalar_size says double-precision Bullet, but this is the float adapter (link dfm_bullet_f64)"
                : "dfm_bullet_def.scalar_size says float Bullet, but this is the double adapter (link dfm_bullet)");
    if (def->environment_source < DFM_BULLET_ENV_SHARED || def->environment_source > DFM_BULLET_ENV_USER_INDEX3)
        return attach_fail(DFM_ERROR_INVALID_ENUM, "dfm_bullet_def.environment_source is not a dfm_bullet_env_source");
    if (!(def->ke > 0) || !std::isfinite(def->ke) || !(def->kd >= 0) || !std::isfinite(def->kd) || !(def->mu >= 0) ||
        !std::isfinite(def->mu) || !(def->gap >= 0) || !std::isfinite(def->gap) || !(def->mesh_cell_size >= 0))
        return attach_fail(DFM_ERROR_INVALID_VALUE,
                           "dfm_bullet_def: need ke > 0, kd >= 0, mu >= 0, gap >= 0, mesh_cell_size >= 0 (all finite)");
    if (!(def->stiffness_half_life > 0) || !std::isfinite(def->stiffness_half_life))
        return attach_fail(DFM_ERROR_INVALID_VALUE,
                           "dfm_bullet_def.stiffness_half_life must be > 0 seconds and finite");
    dfm_bullet* b = new (std::nothrow) dfm_bullet();
    if (!b) return attach_fail(DFM_ERROR_OUT_OF_HOST_MEMORY, "dfm_bullet_attach: out of memory");
    b->def = *def;
    b->world = static_cast<btDynamicsWorld*>(def->dynamics_world);
    b->action.reset(new TickAction(b));
    dfm_result r = sync_objects(b);
    if (r != DFM_OK) {
        g_attach_error = b->last_error;
        remove_all_shapes(b);
        delete b;
        return r;
    }
    b->world->addAction(b->action.get());
    *out = b;
    return DFM_OK;
}

void dfm_bullet_detach(dfm_bullet* b) {
    if (!b) return;
    b->world->removeAction(b->action.get());
    remove_all_shapes(b);
    delete b;
}

dfm_result dfm_bullet_set_object_material(dfm_bullet* b, const void* co, const dfm_bullet_material* m) {
    if (!b) return DFM_ERROR_NULL_POINTER;
    if (!co || !m) return fail(b, DFM_ERROR_NULL_POINTER, "dfm_bullet_set_object_material: object or material is NULL");
    if (m->struct_size != sizeof(dfm_bullet_material))
        return fail(b, DFM_ERROR_STRUCT_SIZE, "dfm_bullet_material.struct_size is not sizeof(dfm_bullet_material)");
    if (!(m->ke > 0) || !std::isfinite(m->ke) || !(m->kd >= 0) || !std::isfinite(m->kd) || !std::isfinite(m->mu))
        return fail(b, DFM_ERROR_INVALID_VALUE, "dfm_bullet_material: need ke > 0, kd >= 0 and a finite mu");
    const btCollisionObject* obj = static_cast<const btCollisionObject*>(co);
    b->materials[obj] = *m;
    b->material_dirty.insert(obj);
    return DFM_OK;
}

dfm_result dfm_bullet_sync_objects(dfm_bullet* b) {
    if (!b) return DFM_ERROR_NULL_POINTER;
    return sync_objects(b);
}

dfm_result dfm_bullet_get_object_shapes(dfm_bullet* b, const void* co, dfm_shape_id* out, int32_t capacity,
                                        int32_t* out_count) {
    if (!b) return DFM_ERROR_NULL_POINTER;
    if (!co || !out_count || (capacity > 0 && !out))
        return fail(b, DFM_ERROR_NULL_POINTER, "dfm_bullet_get_object_shapes: object, out or out_count is NULL");
    *out_count = 0;
    auto it = b->objects.find(static_cast<const btCollisionObject*>(co));
    if (it == b->objects.end()) return DFM_OK;
    const auto& shapes = it->second.shapes;
    *out_count = (int32_t)shapes.size();
    for (int32_t i = 0; i < capacity && i < (int32_t)shapes.size(); ++i) out[i] = shapes[(size_t)i].id;
    return DFM_OK;
}

dfm_result dfm_bullet_get_stats(const dfm_bullet* b, dfm_bullet_stats* out) {
    if (!b || !out) return DFM_ERROR_NULL_POINTER;
    if (out->struct_size != sizeof(dfm_bullet_stats)) return DFM_ERROR_STRUCT_SIZE;
    *out = b->stats;
    return DFM_OK;
}

const char* dfm_bullet_last_error(const dfm_bullet* b) { return b ? b->last_error.c_str() : g_attach_error.c_str(); }

} // extern "C"
