/// @file coupling.c
/// Implicit two-way coupling (DFM_PYB_COUPLING_IMPLICIT) through dfm_coupling.h, as the C++
/// Bullet adapter's DFM_BULLET_COUPLING_SOLVED does it: the tick runs in the post-tick, after
/// Bullet has integrated every body with its own contacts, joints and forces (the body's free
/// motion with respect to dfm); dfm solves each dynamic single-link body with the deformables and
/// the plugin adds dfm's correction to the body's pose and velocities (one pose command each).
/// Links of articulated bodies keep explicit reactions (their joints are Bullet's, not dfm's),
/// applied as forces in the next pre-tick, and so do bodies that touch another pybullet body in
/// this step (a box on the ground under a cloth): Bullet's contact solve holds them, and dfm,
/// which does not see that contact, would fight it.
/// Measured: a 0.5 kg box resting on a soft cube, explicit: it chatters and falls off within
/// 2 s; implicit: at rest, the ground reads 9.8100 N of 9.8100 N. A box on the ground under a
/// cloth, solved by dfm: its position correction pushed it 2.2 mm into the ground every step and
/// only 0.83 of the load reached the ground; with explicit reactions for touching bodies 1.00.
#include "instance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Rotation matrix (row-major) of the unit quaternion q (x, y, z, w).
static void quat_matrix(const double q[4], double m[9]) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0] = 1 - 2 * (y * y + z * z);
    m[1] = 2 * (x * y - z * w);
    m[2] = 2 * (x * z + y * w);
    m[3] = 2 * (x * y + z * w);
    m[4] = 1 - 2 * (x * x + z * z);
    m[5] = 2 * (y * z - x * w);
    m[6] = 2 * (x * z - y * w);
    m[7] = 2 * (y * z + x * w);
    m[8] = 1 - 2 * (x * x + y * y);
}

/// World inertia R diag(I) R^T of a link, kg m^2, row-major.
static void world_inertia(const dfm_pyb_link* k, double out[9]) {
    double r[9];
    quat_matrix(k->rotation, r);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double sum = 0.0;
            for (int a = 0; a < 3; ++a) sum += r[3 * i + a] * k->inertia_diagonal[a] * r[3 * j + a];
            out[3 * i + j] = sum;
        }
}

/// Whether the body touches another pybullet body in this step's contacts (then Bullet's contact
/// solve holds it and it gets explicit reactions: dfm, which does not see that contact, would
/// fight it). -1 when the query fails.
static int touches_bullet(dfm_pyb_instance* inst, int body) {
    const b3_api* b = &inst->api;
    b3_command cmd = b->b3InitRequestContactPointInformation(inst->client);
    b->b3SetContactFilterBodyA(cmd, body);
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(inst->client, cmd);
    if (b->b3GetStatusType(st) != B3_CONTACT_POINT_INFORMATION_COMPLETED) return -1;
    b3_contact_information info;
    memset(&info, 0, sizeof(info));
    b->b3GetContactPointInformation(inst->client, &info);
    return info.num_contact_points > 0;
}

/// Whether dfm may solve this link's dynamics (a dynamic body without joints).
static int solvable(const dfm_pyb_link* k) { return k->single && k->mass > 0.0; }

void dfm_pyb_coupling_forget(dfm_pyb_instance* inst) {
    for (int i = 0; i < inst->link_count; ++i) {
        dfm_pyb_link* k = &inst->links[i];
        if (!k->solved) continue;
        dfm_host_body_dynamics d;
        memset(&d, 0, sizeof(d));
        d.host_body = dfm_pyb_host_body(k->body, k->link); /* mass 0: removed */
        if (dfm_world_set_host_body_dynamics(inst->world, &d, 0, 1) != DFM_OK)
            dfm_pyb_log(inst, "body %d: removing its dfm dynamics failed: %s", k->body,
                        dfm_world_last_error(inst->world));
        k->solved = 0;
    }
}

int32_t dfm_pyb_coupling_before(dfm_pyb_instance* inst) {
    if (inst->coupling != DFM_PYB_COUPLING_IMPLICIT) return DFM_OK;
    /* This step's solved set: dynamic single-link bodies that no pybullet body touches. A body that
       leaves the set gets its dfm dynamics removed (mass 0) in the same call. */
    int n = 0;
    for (int i = 0; i < inst->link_count; ++i) {
        dfm_pyb_link* k = &inst->links[i];
        int solve = solvable(k);
        if (solve) {
            const int touching = touches_bullet(inst, k->body);
            if (touching < 0)
                return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "body %d: pybullet's contact query failed", k->body);
            solve = !touching;
        }
        k->solve_next = solve;
        n += solve || k->solved;
    }
    if (n == 0) return DFM_OK;
    dfm_host_body_dynamics* dyn = (dfm_host_body_dynamics*)calloc((size_t)n, sizeof(*dyn));
    if (!dyn) return dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %d bodies", n);
    int j = 0;
    for (int i = 0; i < inst->link_count; ++i) {
        const dfm_pyb_link* k = &inst->links[i];
        if (!k->solve_next && !k->solved) continue;
        dyn[j].host_body = dfm_pyb_host_body(k->body, k->link);
        if (k->solve_next) {
            double inertia[9];
            world_inertia(k, inertia);
            dyn[j].mass = (float)k->mass;
            for (int a = 0; a < 9; ++a) dyn[j].inertia[a] = (float)inertia[a];
            for (int r = 0; r < 3; ++r) /* symmetric to float precision */
                for (int c = r + 1; c < 3; ++c) dyn[j].inertia[3 * r + c] = dyn[j].inertia[3 * c + r];
        } /* else mass 0: removed */
        ++j;
    }
    dfm_result r = dfm_world_set_host_body_dynamics(inst->world, dyn, 0, n);
    free(dyn);
    if (r != DFM_OK)
        return dfm_pyb_fail(inst, r, "dfm_world_set_host_body_dynamics: %s", dfm_world_last_error(inst->world));
    for (int i = 0; i < inst->link_count; ++i) inst->links[i].solved = inst->links[i].solve_next;
    return DFM_OK;
}

/// Sets a solved body's base pose and velocities to pybullet's plus dfm's correction.
static int32_t correct_body(dfm_pyb_instance* inst, dfm_pyb_link* k, const dfm_host_body_correction* c) {
    double q[4];
    memcpy(q, k->rotation, sizeof(q));
    const double rx = c->rotation[0], ry = c->rotation[1], rz = c->rotation[2];
    const double angle = sqrt(rx * rx + ry * ry + rz * rz);
    if (angle > 0.0) { /* exp(rotation) * q: the turn is about world axes */
        const double s = sin(0.5 * angle) / angle;
        const double d[4] = {rx * s, ry * s, rz * s, cos(0.5 * angle)};
        q[0] = d[3] * k->rotation[0] + d[0] * k->rotation[3] + d[1] * k->rotation[2] - d[2] * k->rotation[1];
        q[1] = d[3] * k->rotation[1] - d[0] * k->rotation[2] + d[1] * k->rotation[3] + d[2] * k->rotation[0];
        q[2] = d[3] * k->rotation[2] + d[0] * k->rotation[1] - d[1] * k->rotation[0] + d[2] * k->rotation[3];
        q[3] = d[3] * k->rotation[3] - d[0] * k->rotation[0] - d[1] * k->rotation[1] - d[2] * k->rotation[2];
        const double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int a = 0; a < 4; ++a) q[a] /= len;
    }
    double v[3], w[3];
    for (int a = 0; a < 3; ++a) {
        v[a] = k->linear_velocity[a] + c->linear_velocity[a];
        w[a] = k->angular_velocity[a] + c->angular_velocity[a];
    }
    const b3_api* b = &inst->api;
    b3_command cmd = b->b3CreatePoseCommandInit(inst->client, k->body);
    b->b3CreatePoseCommandSetBasePosition(cmd, k->position[0] + c->position[0], k->position[1] + c->position[1],
                                          k->position[2] + c->position[2]);
    b->b3CreatePoseCommandSetBaseOrientation(cmd, q[0], q[1], q[2], q[3]);
    b->b3CreatePoseCommandSetBaseLinearVelocity(cmd, v);
    b->b3CreatePoseCommandSetBaseAngularVelocity(cmd, w);
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(inst->client, cmd);
    if (b->b3GetStatusType(st) != B3_CLIENT_COMMAND_COMPLETED)
        return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "body %d: pybullet refused dfm's correction (status %d)",
                            k->body, b->b3GetStatusType(st));
    return DFM_OK;
}

int32_t dfm_pyb_coupling_after(dfm_pyb_instance* inst) {
    if (inst->coupling != DFM_PYB_COUPLING_IMPLICIT) return DFM_OK;
    for (int i = 0; i < inst->link_count; ++i) {
        dfm_pyb_link* k = &inst->links[i];
        if (!k->solved) continue;
        const uint64_t id = dfm_pyb_host_body(k->body, k->link);
        dfm_host_body_correction c;
        dfm_result r = dfm_world_get_host_body_corrections(inst->world, &id, 1, &c, 0);
        if (r != DFM_OK)
            return dfm_pyb_fail(inst, r, "body %d: dfm_world_get_host_body_corrections: %s", k->body,
                                dfm_world_last_error(inst->world));
        if (!c.solved) { /* another backend or solver: it keeps its explicit reaction as the target */
            dfm_pyb_log(inst,
                        "dfm did not solve the coupling of body %d (its backend or solver does not); it gets "
                        "explicit reactions instead",
                        k->body);
            continue;
        }
        int32_t e = correct_body(inst, k, &c);
        if (e != DFM_OK) return e;
        memset(k->target_force, 0, sizeof(k->target_force)); /* the correction holds the reaction */
        memset(k->target_torque, 0, sizeof(k->target_torque));
    }
    return DFM_OK;
}
