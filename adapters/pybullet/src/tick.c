/// @file tick.c
/// The coupled tick, run once per internal step of the pybullet server (docs/pybullet.md):
///   server time step and gravity -> shapes re-read if pybullet notified a change -> every
///   tracked body's and link's pose and velocities (one state request per body) -> one bulk
///   dfm_world_set_shape_states -> dfm_world_step(internal step) -> dfm_world_get_shape_reactions
///   -> one force and one torque command per dynamic body or link.
/// With DFM_PYB_COUPLING_NONE / _EXPLICIT it all runs in the pre-tick (before Bullet's collision
/// detection, solve and integration), so Bullet integrates the reaction forces in this very step
/// together with its own contacts (the ground under a box holds the box's and the cloth's
/// weight). With _IMPLICIT dfm steps in the post-tick, after Bullet has integrated, solving the
/// dynamic single-link bodies with the deformables (coupling.c); the reactions of the other links
/// are applied as forces in the next pre-tick. pybullet keeps external forces until the end of
/// stepSimulation, so with numSubSteps > 1 each internal step applies only the change over what
/// is already applied.
#include "instance.h"

#include <string.h>

/// The server's internal step (s), substeps per stepSimulation and gravity.
static int32_t read_parameters(dfm_pyb_instance* inst, double* dt, int* substeps, float gravity[3]) {
    const b3_api* b = &inst->api;
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(inst->client,
                                                         b->b3InitRequestPhysicsParamCommand(inst->client));
    b3_physics_parameters p;
    memset(&p, 0, sizeof(p));
    if (b->b3GetStatusType(st) != B3_PHYSICS_PARAMETERS_COMPLETED || !b->b3GetStatusPhysicsSimulationParameters(st, &p))
        return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "pybullet's physics parameter request failed (status %d)",
                            b->b3GetStatusType(st));
    *substeps = p.num_sub_steps > 0 ? p.num_sub_steps : 1;
    *dt = p.delta_time / *substeps;
    for (int a = 0; a < 3; ++a) gravity[a] = (float)p.gravity[a];
    if (!(*dt > 0.0))
        return dfm_pyb_fail(inst, DFM_ERROR_INVALID_VALUE, "the server's time step is %g s; dfm needs > 0", *dt);
    return DFM_OK;
}

/// Reads the pose and velocities of every tracked link, one actual-state request per body
/// (the links of a body are consecutive in inst->links).
static int32_t read_states(dfm_pyb_instance* inst) {
    const b3_api* b = &inst->api;
    b3_client c = inst->client;
    for (int i = 0; i < inst->link_count;) {
        const int body = inst->links[i].body;
        b3_command cmd = b->b3RequestActualStateCommandInit(c, body);
        b->b3RequestActualStateCommandComputeLinkVelocity(cmd, 1);
        b->b3RequestActualStateCommandComputeForwardKinematics(cmd, 1);
        b3_status st = b->b3SubmitClientCommandAndWaitStatus(c, cmd);
        if (b->b3GetStatusType(st) != B3_ACTUAL_STATE_UPDATE_COMPLETED)
            return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE,
                                "pybullet's state request for body %d failed (status %d; a body removed without "
                                "notice?)",
                                body, b->b3GetStatusType(st));
        int uid = 0, nq = 0, nu = 0;
        const double *frame = NULL, *q = NULL, *qdot = NULL, *reactions = NULL;
        b->b3GetStatusActualState(st, &uid, &nq, &nu, &frame, &q, &qdot, &reactions);
        for (; i < inst->link_count && inst->links[i].body == body; ++i) {
            dfm_pyb_link* k = &inst->links[i];
            if (k->link < 0) {
                if (!q || !qdot || nq < 7 || nu < 6)
                    return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "body %d: pybullet's state has no base pose",
                                        body);
                memcpy(k->position, q, 3 * sizeof(double)); /* the base's centre of mass */
                memcpy(k->rotation, q + 3, 4 * sizeof(double));
                memcpy(k->linear_velocity, qdot, 3 * sizeof(double));
                memcpy(k->angular_velocity, qdot + 3, 3 * sizeof(double));
            } else {
                b3_link_state ls;
                if (!b->b3GetLinkState(c, st, k->link, &ls))
                    return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "body %d link %d: pybullet gave no link state",
                                        body, k->link);
                memcpy(k->position, ls.world_position, sizeof(k->position));
                memcpy(k->rotation, ls.world_orientation, sizeof(k->rotation));
                memcpy(k->linear_velocity, ls.world_linear_velocity, sizeof(k->linear_velocity));
                memcpy(k->angular_velocity, ls.world_angular_velocity, sizeof(k->angular_velocity));
            }
        }
    }
    return DFM_OK;
}

/// Submits one force or torque command and checks it (pybullet 3.2.7 corrupts every force after
/// the first of one command, so each goes alone).
static int32_t apply_one(dfm_pyb_instance* inst, const dfm_pyb_link* k, const double v[3], int torque) {
    const b3_api* b = &inst->api;
    b3_command cmd = b->b3ApplyExternalForceCommandInit(inst->client);
    if (torque)
        b->b3ApplyExternalTorque(cmd, k->body, k->link, v, B3_EF_WORLD_FRAME);
    else
        b->b3ApplyExternalForce(cmd, k->body, k->link, v, k->position, B3_EF_WORLD_FRAME);
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(inst->client, cmd);
    if (b->b3GetStatusType(st) != B3_CLIENT_COMMAND_COMPLETED)
        return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "body %d link %d: pybullet refused the %s (status %d)",
                            k->body, k->link, torque ? "torque" : "force", b->b3GetStatusType(st));
    return DFM_OK;
}

/// Sums the shapes' reactions per link (what reactions() reports) and makes them the links'
/// target forces (the implicit coupling then replaces those of the bodies dfm solved).
static void sum_reactions(dfm_pyb_instance* inst) {
    const int n = inst->shape_count;
    for (int i = 0; i < inst->link_count; ++i) {
        memset(inst->links[i].force, 0, sizeof(inst->links[i].force));
        memset(inst->links[i].torque, 0, sizeof(inst->links[i].torque));
    }
    for (int s = 0; s < n; ++s) {
        dfm_pyb_link* k = &inst->links[inst->shapes[s].link_slot];
        for (int a = 0; a < 3; ++a) {
            k->force[a] += inst->reactions[3 * s + a];
            k->torque[a] += inst->reactions[3 * n + 3 * s + a];
        }
    }
    for (int i = 0; i < inst->link_count; ++i) {
        memcpy(inst->links[i].target_force, inst->links[i].force, sizeof(inst->links[i].force));
        memcpy(inst->links[i].target_torque, inst->links[i].torque, sizeof(inst->links[i].torque));
    }
}

/// Applies each dynamic link's target force and torque: the change over what this stepSimulation
/// has already applied (none in its first internal step).
static int32_t apply_targets(dfm_pyb_instance* inst, int first_substep) {
    if (inst->coupling == DFM_PYB_COUPLING_NONE) return DFM_OK;
    for (int i = 0; i < inst->link_count; ++i) {
        dfm_pyb_link* k = &inst->links[i];
        if (first_substep) {
            memset(k->applied_force, 0, sizeof(k->applied_force));
            memset(k->applied_torque, 0, sizeof(k->applied_torque));
        }
        if (!(k->mass > 0.0)) continue;
        double df[3], dt[3];
        int any_f = 0, any_t = 0;
        for (int a = 0; a < 3; ++a) {
            df[a] = k->target_force[a] - k->applied_force[a];
            dt[a] = k->target_torque[a] - k->applied_torque[a];
            any_f |= df[a] != 0.0;
            any_t |= dt[a] != 0.0;
        }
        if (any_f) {
            int32_t r = apply_one(inst, k, df, 0);
            if (r != DFM_OK) return r;
            memcpy(k->applied_force, k->target_force, sizeof(k->target_force));
        }
        if (any_t) {
            int32_t r = apply_one(inst, k, dt, 1);
            if (r != DFM_OK) return r;
            memcpy(k->applied_torque, k->target_torque, sizeof(k->target_torque));
        }
    }
    return DFM_OK;
}

/// Reads the bodies, steps dfm over `dt` and sets the links' targets (and, implicit, the
/// solved bodies' corrections).
static int32_t step_dfm(dfm_pyb_instance* inst, double dt, const float gravity[3]) {
    int32_t r = DFM_OK;
    if (inst->dirty) {
        r = dfm_pyb_sync_shapes(inst);
        if (r != DFM_OK) return r;
    }
    r = read_states(inst);
    if (r != DFM_OK) { /* a body went away without a notification reaching the plugin: re-read once */
        r = dfm_pyb_sync_shapes(inst);
        if (r != DFM_OK) return r;
        r = read_states(inst);
        if (r != DFM_OK) return r;
    }
    const int n = inst->shape_count;
    for (int s = 0; s < n; ++s) {
        const dfm_pyb_link* k = &inst->links[inst->shapes[s].link_slot];
        dfm_shape_state* st = &inst->states[s];
        for (int a = 0; a < 3; ++a) {
            st->position[a] = (float)k->position[a];
            st->linear_velocity[a] = (float)k->linear_velocity[a];
            st->angular_velocity[a] = (float)k->angular_velocity[a];
        }
        for (int a = 0; a < 4; ++a) st->rotation[a] = (float)k->rotation[a];
        st->aabb_min[0] = 1.0f; /* min > max: dfm bounds the shape from its pose */
        st->aabb_max[0] = -1.0f;
        st->aabb_min[1] = st->aabb_min[2] = st->aabb_max[1] = st->aabb_max[2] = 0.0f;
        inst->ids[s] = inst->shapes[s].id;
    }
    dfm_world* w = inst->world;
    dfm_result dr = dfm_world_set_gravity(w, gravity);
    if (dr != DFM_OK) return dfm_pyb_fail(inst, dr, "dfm_world_set_gravity: %s", dfm_world_last_error(w));
    if (n > 0) {
        dr = dfm_world_set_shape_states(w, inst->ids, 0, inst->states, 0, n);
        if (dr != DFM_OK) return dfm_pyb_fail(inst, dr, "dfm_world_set_shape_states: %s", dfm_world_last_error(w));
    }
    r = dfm_pyb_coupling_before(inst);
    if (r != DFM_OK) return r;
    dr = dfm_world_step(w, (float)dt);
    if (dr != DFM_OK) return dfm_pyb_fail(inst, dr, "dfm_world_step(%g s): %s", dt, dfm_world_last_error(w));
    ++inst->ticks;
    if (n == 0) return DFM_OK;
    dr = dfm_world_get_shape_reactions(w, inst->ids, n, inst->reactions, inst->reactions + 3 * n, 0);
    if (dr != DFM_OK) return dfm_pyb_fail(inst, dr, "dfm_world_get_shape_reactions: %s", dfm_world_last_error(w));
    sum_reactions(inst);
    return dfm_pyb_coupling_after(inst);
}

int32_t dfm_pyb_pre_tick(dfm_pyb_instance* inst) {
    double dt = 0.0;
    int substeps = 1;
    float gravity[3];
    int32_t r = read_parameters(inst, &dt, &substeps, gravity);
    if (r != DFM_OK) return r;
    if (inst->substep >= substeps) inst->substep = 0;
    const int first_substep = inst->substep == 0;
    inst->substep = (inst->substep + 1) % substeps;
    if (inst->coupling == DFM_PYB_COUPLING_IMPLICIT) return inst->pending ? apply_targets(inst, first_substep) : DFM_OK;
    r = step_dfm(inst, dt, gravity);
    if (r != DFM_OK) return r;
    return apply_targets(inst, first_substep);
}

int32_t dfm_pyb_post_tick(dfm_pyb_instance* inst) {
    if (inst->coupling != DFM_PYB_COUPLING_IMPLICIT) return DFM_OK;
    double dt = 0.0;
    int substeps = 1;
    float gravity[3];
    int32_t r = read_parameters(inst, &dt, &substeps, gravity);
    if (r != DFM_OK) return r;
    inst->pending = 0;
    r = step_dfm(inst, dt, gravity);
    if (r != DFM_OK) return r;
    inst->pending = 1;
    return DFM_OK;
}
