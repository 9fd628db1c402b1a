/// @file adapter.hpp
/// The adapter's state (struct dfm_bullet) and the functions of its parts.
#ifndef DFM_BULLET_ADAPTER_HPP
#define DFM_BULLET_ADAPTER_HPP

#include <btBulletDynamicsCommon.h>
#include <dfm/dfm_bullet.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "shape_translate.hpp"

namespace dfm_bullet_impl {

/// One translated leaf shape living in the dfm world.
struct TrackedShape {
    dfm_shape_id id;                    ///< The dfm shape.
    const btCollisionShape* aabb_shape; ///< Bullet shape bounding it (nullptr: dfm computes the AABB).
    btTransform aabb_local;             ///< aabb_shape's frame in the object frame.
};

/// A collision object the adapter has translated.
struct TrackedObject {
    const btCollisionShape* shape = nullptr; ///< The collision shape it was translated from.
    int32_t environment = -1;                ///< Environment index its shapes were created with.
    std::vector<TrackedShape> shapes;
    bool seen = false; ///< Found in the world during the current sync.
};

/// What the implicit reaction scheme remembers of one dynamic body between ticks.
struct BodyCoupling {
    btVector3 force{0, 0, 0};          ///< Reaction force of the last tick, N, world.
    btVector3 torque{0, 0, 0};         ///< Reaction torque of the last tick about the centre of mass, N*m, world.
    btVector3 position{0, 0, 0};       ///< Centre of mass when that reaction was computed, m.
    btQuaternion rotation{0, 0, 0, 1}; ///< Orientation then.
    btScalar k_linear = 0;             ///< Remembered translational contact stiffness, N/m.
    btScalar k_angular = 0;            ///< Remembered rotational contact stiffness, N*m/rad.
    int64_t tick = -1;                 ///< Adapter tick of that reaction (-1: none yet).
};

class TickAction;

} // namespace dfm_bullet_impl

/// The adapter (opaque in the C header).
struct dfm_bullet {
    dfm_bullet_def def;
    btDynamicsWorld* world = nullptr;
    std::unique_ptr<dfm_bullet_impl::TickAction> action;
    std::unordered_map<const btCollisionObject*, dfm_bullet_impl::TrackedObject> objects;
    std::unordered_map<const btCollisionObject*, dfm_bullet_material> materials;
    std::unordered_set<const btCollisionObject*> material_dirty; ///< Re-translate at the next sync.
    std::unordered_set<const btCollisionShape*> logged_skips;    ///< Shapes already reported as skipped.
    /// Per dynamic body (implicit reactions).
    std::unordered_map<const btCollisionObject*, dfm_bullet_impl::BodyCoupling> coupling;
    /// Bodies whose dynamics dfm has (DFM_BULLET_COUPLING_SOLVED), and the tick's scratch for them.
    std::unordered_set<const btCollisionObject*> solved_bodies;
    std::vector<btRigidBody*> solved_order;
    std::vector<dfm_host_body_dynamics> dynamics;
    std::vector<uint64_t> dynamics_ids;
    std::vector<dfm_host_body_correction> corrections;
    bool logged_unsolved = false; ///< The SECANT fallback was logged.
    dfm_bullet_stats stats = dfm_bullet_stats_init();
    /* Per-tick scratch (kept to avoid allocations every tick). */
    std::vector<dfm_shape_id> ids;
    std::vector<dfm_shape_state> states;
    std::vector<const btCollisionObject*> owners;
    std::vector<float> forces, torques;
    std::string last_error;
};

namespace dfm_bullet_impl {

/// Writes a message to the adapter's log callback (stderr when none).
void log_message(const dfm_bullet* b, dfm_log_level level, const std::string& message);

/// Records `message` as the last error, logs it and returns `code`.
dfm_result fail(dfm_bullet* b, dfm_result code, const std::string& message);

/// Brings the tracked objects in line with the Bullet world: translates new or changed objects,
/// removes the shapes of objects that are gone or filtered out.
dfm_result sync_objects(dfm_bullet* b);

/// Removes every dfm shape the adapter created.
void remove_all_shapes(dfm_bullet* b);

/// One coupled tick of `dt` seconds: sync objects, bulk shape states, dfm step, reaction impulses.
dfm_result run_tick(dfm_bullet* b, btScalar dt);

/// The btActionInterface the adapter registers; updateAction calls run_tick.
class TickAction : public btActionInterface {
public:
    explicit TickAction(dfm_bullet* b) : adapter_(b) {}
    void updateAction(btCollisionWorld* world, btScalar dt) override;
    void debugDraw(btIDebugDraw*) override {}

private:
    dfm_bullet* adapter_;
};

} // namespace dfm_bullet_impl

#endif
