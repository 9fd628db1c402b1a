/// @file tick.cpp
/// One coupled tick, run by the adapter's btActionInterface inside every Bullet substep after
/// Bullet has integrated its rigid bodies (btDiscreteDynamicsWorld::internalSingleStepSimulation:
/// predict, collide, solve constraints, integrate, *actions*, update activation):
///   sync objects -> one bulk dfm_world_set_shape_states -> dfm_world_step(dt) ->
///   dfm_world_get_shape_reactions -> impulses on dynamic bodies (they act in the next substep;
///   implicit against each body's measured contact stiffness with DFM_BULLET_COUPLING_SECANT).
/// With DFM_BULLET_COUPLING_SOLVED (the default) the dynamic bodies' mass and world inertia go to
/// dfm before the step (dfm_world_set_host_body_dynamics) and dfm's corrections are added to their
/// pose and velocities after it; reactions are applied only to bodies dfm did not solve.
#include "adapter.hpp"

#include <cmath>
#include <cstring>

namespace dfm_bullet_impl {
namespace {

/// The pose, velocities and (leaf) AABB of one tracked shape at the end of this Bullet substep.
dfm_shape_state state_of(const btCollisionObject* co, const TrackedShape& s) {
    dfm_shape_state st;
    const btTransform& x = co->getWorldTransform();
    const btQuaternion q = x.getRotation();
    for (int a = 0; a < 3; ++a) st.position[a] = (float)x.getOrigin()[a];
    st.rotation[0] = (float)q.x();
    st.rotation[1] = (float)q.y();
    st.rotation[2] = (float)q.z();
    st.rotation[3] = (float)q.w();
    btVector3 v(0, 0, 0), w(0, 0, 0);
    if (const btRigidBody* rb = btRigidBody::upcast(co)) {
        v = rb->getLinearVelocity();
        w = rb->getAngularVelocity();
    }
    for (int a = 0; a < 3; ++a) {
        st.linear_velocity[a] = (float)v[a];
        st.angular_velocity[a] = (float)w[a];
    }
    if (s.aabb_shape) {
        btVector3 lo, hi;
        s.aabb_shape->getAabb(x * s.aabb_local, lo, hi);
        for (int a = 0; a < 3; ++a) {
            st.aabb_min[a] = (float)lo[a];
            st.aabb_max[a] = (float)hi[a];
        }
    } else {
        st.aabb_min[0] = 1.0f; /* min > max: dfm bounds the shape itself (infinite planes) */
        st.aabb_max[0] = -1.0f;
        st.aabb_min[1] = st.aabb_min[2] = st.aabb_max[1] = st.aabb_max[2] = 0.0f;
    }
    return st;
}

/// Updates the body's remembered contact stiffnesses from the secant between its last reaction
/// and this one (only when the last reaction was the previous tick's: a body that left contact
/// starts over), then stores this tick's reaction and pose.
void update_stiffness(dfm_bullet* b, BodyCoupling& c, const btRigidBody* rb, const btVector3& f, const btVector3& t,
                      btScalar dt) {
    const btTransform& x = rb->getCenterOfMassTransform();
    const btScalar keep = btPow(btScalar(0.5), dt / btScalar(b->def.stiffness_half_life));
    if (c.tick == b->stats.ticks - 1) {
        c.k_linear *= keep;
        c.k_angular *= keep;
        const btVector3 dx = x.getOrigin() - c.position;
        btQuaternion dq = x.getRotation() * c.rotation.inverse();
        if (dq.w() < 0) dq = -dq;
        const btVector3 dth = btVector3(dq.x(), dq.y(), dq.z()) * 2; /* small-angle rotation vector, rad */
        /* Motions below these (about float resolution of a pose) carry no usable secant. */
        if (dx.length2() > btScalar(1e-14)) c.k_linear = btMax(c.k_linear, -(f - c.force).dot(dx) / dx.length2());
        if (dth.length2() > btScalar(1e-12)) c.k_angular = btMax(c.k_angular, -(t - c.torque).dot(dth) / dth.length2());
    } else {
        c.k_linear = c.k_angular = 0;
    }
    c.force = f;
    c.torque = t;
    c.position = x.getOrigin();
    c.rotation = x.getRotation();
    c.tick = b->stats.ticks;
}

/// Applies the reaction (f, t) of one tick to a dynamic body: explicitly (impulses f dt, t dt) or
/// as the backward-Euler step against its remembered stiffness (see dfm_bullet_def.implicit_reactions).
/// Bullet adds gravity (and its own forces) in the next substep's prediction; the implicit velocity
/// includes gravity, so that part is taken back out of the impulse.
void apply_body_reaction(dfm_bullet* b, btRigidBody* rb, const btVector3& f, const btVector3& t, btScalar dt) {
    if (b->def.implicit_reactions == DFM_BULLET_COUPLING_EXPLICIT) {
        rb->applyCentralImpulse(f * dt); /* torques are about the body origin = its centre of mass */
        rb->applyTorqueImpulse(t * dt);
        return;
    }
    BodyCoupling& c = b->coupling[rb];
    update_stiffness(b, c, rb, f, t, dt);
    const btScalar m = 1 / rb->getInvMass(), kdt2 = c.k_linear * dt * dt;
    const btVector3 v = rb->getLinearVelocity(), g = rb->getGravity();
    const btVector3 v1 = (v * m + (f + g * m) * dt) / (m + kdt2);
    rb->applyCentralImpulse((v1 - v) * m - g * (m * dt));
    const btMatrix3x3& inv_i = rb->getInvInertiaTensorWorld();
    if (inv_i.determinant() == 0) { /* an axis locked by zero inverse inertia: explicit rotation */
        rb->applyTorqueImpulse(t * dt);
        return;
    }
    const btMatrix3x3 inertia = inv_i.inverse();
    btMatrix3x3 a = inertia;
    for (int i = 0; i < 3; ++i) a[i][i] += c.k_angular * dt * dt;
    const btVector3 w = rb->getAngularVelocity();
    const btVector3 w1 = a.inverse() * (inertia * w + t * dt);
    rb->applyTorqueImpulse(inertia * (w1 - w));
}

/// Applies summed reactions to the dynamic rigid bodies among the tick's owners.
void apply_reactions(dfm_bullet* b, btScalar dt) {
    const size_t n = b->ids.size();
    for (size_t i = 0; i < n;) {
        const btCollisionObject* co = b->owners[i];
        btVector3 f(0, 0, 0), t(0, 0, 0);
        size_t j = i;
        for (; j < n && b->owners[j] == co; ++j) {
            f += btVector3(b->forces[3 * j], b->forces[3 * j + 1], b->forces[3 * j + 2]);
            t += btVector3(b->torques[3 * j], b->torques[3 * j + 1], b->torques[3 * j + 2]);
        }
        i = j;
        btRigidBody* rb = btRigidBody::upcast(const_cast<btCollisionObject*>(co));
        if (!rb || rb->isStaticOrKinematicObject() || rb->getInvMass() == 0) continue;
        if (f.isZero() && t.isZero()) continue;
        if (b->solved_bodies.count(co)) continue; /* its correction already holds the reaction */
        apply_body_reaction(b, rb, f, t, dt);
        rb->activate();
        ++b->stats.impulses_applied;
    }
}

/// DFM_BULLET_COUPLING_SOLVED, before the step: hands dfm the mass and world inertia of every
/// dynamic body among the tick's owners, and removes the dynamics of bodies that are gone or no
/// longer dynamic. Bullet has already integrated them freely this substep (no dfm impulse).
dfm_result sync_dynamics(dfm_bullet* b) {
    dfm_world* w = b->def.world;
    b->dynamics.clear();
    b->solved_order.clear();
    std::unordered_set<const btCollisionObject*> now;
    for (const btCollisionObject* co : b->owners) {
        btRigidBody* rb = btRigidBody::upcast(const_cast<btCollisionObject*>(co));
        if (!rb || rb->isStaticOrKinematicObject() || rb->getInvMass() == 0 || !now.insert(co).second) continue;
        dfm_host_body_dynamics d;
        std::memset(&d, 0, sizeof(d));
        d.host_body = (uint64_t)(uintptr_t)co;
        d.mass = (float)(1 / rb->getInvMass());
        const btMatrix3x3& inv_i = rb->getInvInertiaTensorWorld();
        if (inv_i.determinant() > 0) { /* a locked axis (zero inverse inertia) leaves rotation to Bullet */
            const btMatrix3x3 inertia = inv_i.inverse();
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) d.inertia[3 * r + c] = (float)inertia[r][c];
            for (int r = 0; r < 3; ++r) /* symmetric to float precision */
                for (int c = r + 1; c < 3; ++c) d.inertia[3 * r + c] = d.inertia[3 * c + r];
        }
        b->dynamics.push_back(d);
        b->solved_order.push_back(rb);
    }
    for (const btCollisionObject* co : b->solved_bodies)
        if (!now.count(co)) {
            dfm_host_body_dynamics d;
            std::memset(&d, 0, sizeof(d));
            d.host_body = (uint64_t)(uintptr_t)co; /* mass 0: removed */
            b->dynamics.push_back(d);
        }
    b->solved_bodies.swap(now);
    if (b->dynamics.empty()) return DFM_OK;
    dfm_result r = dfm_world_set_host_body_dynamics(w, b->dynamics.data(), 0, (int32_t)b->dynamics.size());
    if (r != DFM_OK) return fail(b, r, std::string("dfm_world_set_host_body_dynamics: ") + dfm_world_last_error(w));
    return DFM_OK;
}

/// DFM_BULLET_COUPLING_SOLVED, after the step: adds dfm's correction to each solved body's pose
/// and velocities. A body dfm did not solve (solved = 0) leaves the solved set for this tick, so
/// its reaction is applied the SECANT way.
dfm_result apply_corrections(dfm_bullet* b) {
    const size_t n = b->solved_order.size();
    if (n == 0) return DFM_OK;
    dfm_world* w = b->def.world;
    b->dynamics_ids.resize(n);
    b->corrections.resize(n);
    for (size_t i = 0; i < n; ++i) b->dynamics_ids[i] = (uint64_t)(uintptr_t)b->solved_order[i];
    dfm_result r = dfm_world_get_host_body_corrections(w, b->dynamics_ids.data(), (int32_t)n, b->corrections.data(), 0);
    if (r != DFM_OK) return fail(b, r, std::string("dfm_world_get_host_body_corrections: ") + dfm_world_last_error(w));
    for (size_t i = 0; i < n; ++i) {
        btRigidBody* rb = b->solved_order[i];
        const dfm_host_body_correction& c = b->corrections[i];
        if (!c.solved) {
            b->solved_bodies.erase(rb);
            if (!b->logged_unsolved) {
                b->logged_unsolved = true;
                log_message(b, DFM_LOG_WARNING,
                            "dfm did not solve the coupling of dynamic bodies (its backend or solver does not); their "
                            "reactions are applied with DFM_BULLET_COUPLING_SECANT instead");
            }
            continue;
        }
        btTransform x = rb->getCenterOfMassTransform();
        x.setOrigin(x.getOrigin() + btVector3(c.position[0], c.position[1], c.position[2]));
        const btVector3 rot(c.rotation[0], c.rotation[1], c.rotation[2]);
        const btScalar angle = rot.length();
        if (angle > btScalar(0)) x.setRotation((btQuaternion(rot / angle, angle) * x.getRotation()).normalized());
        rb->setCenterOfMassTransform(x);
        rb->setLinearVelocity(rb->getLinearVelocity() +
                              btVector3(c.linear_velocity[0], c.linear_velocity[1], c.linear_velocity[2]));
        rb->setAngularVelocity(rb->getAngularVelocity() +
                               btVector3(c.angular_velocity[0], c.angular_velocity[1], c.angular_velocity[2]));
        rb->activate();
        ++b->stats.impulses_applied;
    }
    return DFM_OK;
}

} // namespace

dfm_result run_tick(dfm_bullet* b, btScalar dt) {
    ++b->stats.ticks;
    dfm_result r = sync_objects(b);
    if (r != DFM_OK) return r;
    dfm_world* w = b->def.world;
    if (b->def.sync_gravity) {
        const btVector3 g = b->world->getGravity();
        const float gf[3] = {(float)g.x(), (float)g.y(), (float)g.z()};
        r = dfm_world_set_gravity(w, gf);
        if (r != DFM_OK) return fail(b, r, std::string("dfm_world_set_gravity: ") + dfm_world_last_error(w));
    }
    b->ids.clear();
    b->states.clear();
    b->owners.clear();
    for (const auto& kv : b->objects)
        for (const TrackedShape& s : kv.second.shapes) {
            b->ids.push_back(s.id);
            b->states.push_back(state_of(kv.first, s));
            b->owners.push_back(kv.first);
        }
    const int32_t n = (int32_t)b->ids.size();
    if (n > 0) {
        r = dfm_world_set_shape_states(w, b->ids.data(), 0, b->states.data(), 0, n);
        if (r != DFM_OK) return fail(b, r, std::string("dfm_world_set_shape_states: ") + dfm_world_last_error(w));
    }
    const bool solved = b->def.apply_reactions && b->def.implicit_reactions == DFM_BULLET_COUPLING_SOLVED;
    if (solved) {
        r = sync_dynamics(b);
        if (r != DFM_OK) return r;
    }
    r = dfm_world_step(w, (float)dt);
    if (r != DFM_OK) return fail(b, r, std::string("dfm_world_step: ") + dfm_world_last_error(w));
    if (solved) {
        r = apply_corrections(b);
        if (r != DFM_OK) return r;
    }
    if (n > 0 && b->def.apply_reactions) {
        b->forces.assign((size_t)n * 3, 0.0f);
        b->torques.assign((size_t)n * 3, 0.0f);
        r = dfm_world_get_shape_reactions(w, b->ids.data(), n, b->forces.data(), b->torques.data(), 0);
        if (r != DFM_OK) return fail(b, r, std::string("dfm_world_get_shape_reactions: ") + dfm_world_last_error(w));
        apply_reactions(b, dt);
    }
    return DFM_OK;
}

void TickAction::updateAction(btCollisionWorld*, btScalar dt) {
    if (run_tick(adapter_, dt) != DFM_OK) ++adapter_->stats.tick_errors;
}

} // namespace dfm_bullet_impl
