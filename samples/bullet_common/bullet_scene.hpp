/// @file bullet_scene.hpp
/// A minimal Bullet dynamics world for the Bullet samples and adapter tests: owns the configuration,
/// dispatcher, broadphase, solver and world, and deletes every object, shape and motion state
/// added through it.
#ifndef DFM_BULLET_SCENE_HPP
#define DFM_BULLET_SCENE_HPP

#include <btBulletDynamicsCommon.h>

#include <memory>
#include <vector>

/// A btDiscreteDynamicsWorld with its parts.
struct BulletScene {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    std::vector<std::unique_ptr<btMotionState>> motion_states;
    std::vector<std::unique_ptr<btStridingMeshInterface>> meshes;

    BulletScene(const btVector3& gravity) { world.setGravity(gravity); }
    ~BulletScene() {
        for (auto& o : objects) world.removeCollisionObject(o.get());
    }

    /// Keeps `s` alive for the world's lifetime and returns it.
    template <class S>
    S* keep(S* s) {
        shapes.emplace_back(s);
        return s;
    }

    /// Adds a static collision object (not a rigid body) with `shape` at `xf`.
    btCollisionObject* add_static(btCollisionShape* shape, const btTransform& xf,
                                  int group = btBroadphaseProxy::StaticFilter,
                                  int mask = btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter) {
        auto* co = new btCollisionObject();
        co->setCollisionShape(shape);
        co->setWorldTransform(xf);
        objects.emplace_back(co);
        world.addCollisionObject(co, group, mask);
        return co;
    }

    /// Adds a rigid body (mass 0 = static; kinematic when `kinematic`).
    btRigidBody* add_body(btCollisionShape* shape, const btTransform& xf, btScalar mass, bool kinematic = false) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        auto* ms = new btDefaultMotionState(xf);
        motion_states.emplace_back(ms);
        btRigidBody::btRigidBodyConstructionInfo info(mass, ms, shape, inertia);
        auto* rb = new btRigidBody(info);
        if (kinematic) {
            rb->setCollisionFlags(rb->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
            rb->setActivationState(DISABLE_DEACTIVATION);
        }
        objects.emplace_back(rb);
        world.addRigidBody(rb);
        return rb;
    }
};

#endif
