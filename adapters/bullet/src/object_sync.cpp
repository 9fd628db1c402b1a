/// @file object_sync.cpp
/// Keeps the adapter's dfm shapes in line with the Bullet world's collision objects.
#include "adapter.hpp"

#include <cstdio>

namespace dfm_bullet_impl {
namespace {

/// The object's environment index per the adapter's environment source.
int32_t environment_of(const dfm_bullet* b, const btCollisionObject* co) {
    switch (b->def.environment_source) {
    case DFM_BULLET_ENV_USER_INDEX: return co->getUserIndex() < 0 ? -1 : co->getUserIndex();
    case DFM_BULLET_ENV_USER_INDEX2: return co->getUserIndex2() < 0 ? -1 : co->getUserIndex2();
    case DFM_BULLET_ENV_USER_INDEX3: return co->getUserIndex3() < 0 ? -1 : co->getUserIndex3();
    default: return -1;
    }
}

/// True when dfm should see the object: a plain collision object or rigid body, with contact
/// response, whose Bullet collision filter accepts the deformables' group/mask.
bool wanted(const dfm_bullet* b, const btCollisionObject* co) {
    const int type = co->getInternalType();
    if (type != btCollisionObject::CO_COLLISION_OBJECT && type != btCollisionObject::CO_RIGID_BODY) return false;
    if (co->getCollisionFlags() & btCollisionObject::CF_NO_CONTACT_RESPONSE) return false;
    const btBroadphaseProxy* proxy = co->getBroadphaseHandle();
    if (!proxy) return false;
    return (proxy->m_collisionFilterGroup & b->def.filter_mask) != 0 &&
           (b->def.filter_group & proxy->m_collisionFilterMask) != 0;
}

void remove_shapes(dfm_bullet* b, TrackedObject& obj) {
    for (const TrackedShape& s : obj.shapes) dfm_world_remove_shape(b->def.world, s.id);
    b->stats.shapes -= (int32_t)obj.shapes.size();
    obj.shapes.clear();
}

/// Translates `co` and creates its dfm shapes. Untranslatable leaves are logged (once per Bullet
/// shape) and counted; a dfm refusal of a translated leaf (e.g. an open mesh) is treated the same.
dfm_result add_object(dfm_bullet* b, const btCollisionObject* co, TrackedObject& obj) {
    std::vector<LeafShape> leaves;
    std::vector<SkippedShape> skipped;
    translate_shape(co->getCollisionShape(), btTransform::getIdentity(), leaves, skipped);
    obj.shape = co->getCollisionShape();
    obj.environment = environment_of(b, co);
    const auto mat = b->materials.find(co);
    for (LeafShape& leaf : leaves) {
        dfm_shape_def& d = leaf.def;
        d.environment = obj.environment;
        d.host_body = (uint64_t)(uintptr_t)co;
        d.ke = b->def.ke;
        d.kd = b->def.kd;
        d.gap = b->def.gap;
        d.mu = b->def.mu_from_friction ? (float)co->getFriction() : b->def.mu;
        if (mat != b->materials.end()) {
            d.ke = mat->second.ke;
            d.kd = mat->second.kd;
            if (mat->second.mu >= 0) d.mu = mat->second.mu;
        }
        if (d.type == DFM_SHAPE_MESH) {
            d.mesh_vertices = leaf.vertices.data();
            d.mesh_vertex_count = (int32_t)(leaf.vertices.size() / 3);
            d.mesh_triangles = leaf.triangles.data();
            d.mesh_triangle_count = (int32_t)(leaf.triangles.size() / 3);
            d.sdf_cell_size = b->def.mesh_cell_size;
        }
        dfm_shape_id id = DFM_NULL_SHAPE_ID;
        dfm_result r = dfm_world_add_shape(b->def.world, &d, &id);
        if (r == DFM_OK) {
            obj.shapes.push_back({id, leaf.aabb_shape, leaf.aabb_local});
            ++b->stats.shapes;
        } else if (r == DFM_ERROR_OUT_OF_HOST_MEMORY || r == DFM_ERROR_OUT_OF_DEVICE_MEMORY) {
            return fail(b, r, std::string("dfm_world_add_shape: ") + dfm_world_last_error(b->def.world));
        } else {
            skipped.push_back({leaf.aabb_shape ? leaf.aabb_shape->getName() : "plane",
                               std::string("dfm refused it: ") + dfm_world_last_error(b->def.world)});
        }
    }
    if (!skipped.empty()) {
        b->stats.shapes_skipped += (int32_t)skipped.size();
        if (b->logged_skips.insert(co->getCollisionShape()).second) {
            for (const SkippedShape& s : skipped) {
                char head[160];
                std::snprintf(head, sizeof(head),
                              "skipped a %s shape of collision object %p (user index %d): ", s.name.c_str(),
                              (const void*)co, co->getUserIndex());
                log_message(b, DFM_LOG_WARNING, head + s.reason);
            }
        }
    }
    return DFM_OK;
}

} // namespace

dfm_result sync_objects(dfm_bullet* b) {
    for (auto& kv : b->objects) kv.second.seen = false;
    const btCollisionObjectArray& arr = b->world->getCollisionObjectArray();
    int32_t filtered = 0;
    for (int i = 0; i < arr.size(); ++i) {
        const btCollisionObject* co = arr[i];
        if (!wanted(b, co)) {
            ++filtered;
            continue;
        }
        auto it = b->objects.find(co);
        if (it != b->objects.end()) {
            TrackedObject& obj = it->second;
            obj.seen = true;
            const bool changed = obj.shape != co->getCollisionShape() || obj.environment != environment_of(b, co) ||
                                 b->material_dirty.count(co);
            if (!changed) continue;
            remove_shapes(b, obj);
            dfm_result r = add_object(b, co, obj);
            if (r != DFM_OK) return r;
            continue;
        }
        TrackedObject& obj = b->objects[co];
        obj.seen = true;
        dfm_result r = add_object(b, co, obj);
        if (r != DFM_OK) return r;
    }
    b->material_dirty.clear();
    for (auto it = b->objects.begin(); it != b->objects.end();) {
        if (it->second.seen) {
            ++it;
            continue;
        }
        remove_shapes(b, it->second);
        b->coupling.erase(it->first); /* the address may be reused by a new object */
        it = b->objects.erase(it);
    }
    b->stats.objects_tracked = (int32_t)b->objects.size();
    b->stats.objects_filtered = filtered;
    return DFM_OK;
}

void remove_all_shapes(dfm_bullet* b) {
    for (auto& kv : b->objects) remove_shapes(b, kv.second);
    b->objects.clear();
    b->coupling.clear();
    b->stats.objects_tracked = 0;
}

} // namespace dfm_bullet_impl
