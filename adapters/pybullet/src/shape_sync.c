/// @file shape_sync.c
/// Reads the collision shapes of every pybullet body and link through the b3 C API and keeps the
/// dfm shapes in step with them: on the first tick and after pybullet notifies a change (body
/// added or removed, simulation reset, link dynamics changed). Supported: box, sphere, capsule,
/// cylinder (created as such: URDF cylinders come back as meshes unless loaded with
/// URDF_USE_IMPLICIT_CYLINDER) and plane. Meshes, heightfields, SDF shapes and bodies in maximal
/// coordinates (whose shapes the C API does not report) are logged once each and ignored.
#include "instance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Quaternion product a * b, (x, y, z, w).
static void quat_mul(const double a[4], const double b[4], double out[4]) {
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/// The shortest rotation taking +z to the unit vector n, (x, y, z, w).
static void quat_z_to(const double n[3], double out[4]) {
    /* q = (z x n, 1 + z.n) normalised; opposite vectors turn about x. */
    const double w = 1.0 + n[2];
    if (w < 1e-9) {
        out[0] = 1.0;
        out[1] = out[2] = out[3] = 0.0;
        return;
    }
    const double x = -n[1], y = n[0];
    const double len = sqrt(x * x + y * y + w * w);
    out[0] = x / len;
    out[1] = y / len;
    out[2] = 0.0;
    out[3] = w / len;
}

/// Fills `def` for one reported shape. Returns 1 when supported; 0 with the reason in `why`.
static int translate(const b3_collision_shape_data* d, double mu, uint64_t host_body, dfm_shape_def* def, char* why,
                     size_t why_size) {
    *def = dfm_shape_def_default();
    def->host_body = host_body;
    def->mu = (float)mu;
    double rot[4] = {d->local_frame[3], d->local_frame[4], d->local_frame[5], d->local_frame[6]};
    for (int a = 0; a < 3; ++a) def->local_position[a] = (float)d->local_frame[a];
    switch (d->geometry_type) {
    case B3_GEOM_BOX:
        def->type = DFM_SHAPE_BOX; /* pybullet reports full extents */
        for (int a = 0; a < 3; ++a) def->half_extents[a] = (float)(0.5 * d->dimensions[a]);
        break;
    case B3_GEOM_SPHERE:
        def->type = DFM_SHAPE_SPHERE;
        def->radius = (float)d->dimensions[0];
        break;
    case B3_GEOM_CAPSULE: /* (length between the cap centres, radius), along z as in dfm */
        def->type = DFM_SHAPE_CAPSULE;
        def->half_height = (float)(0.5 * d->dimensions[0]);
        def->radius = (float)d->dimensions[1];
        break;
    case B3_GEOM_CYLINDER: /* (length, radius), along z */
        def->type = DFM_SHAPE_CYLINDER;
        def->half_height = (float)(0.5 * d->dimensions[0]);
        def->radius = (float)d->dimensions[1];
        break;
    case B3_GEOM_PLANE: {
        /* pybullet reports the normal only; its planes (createCollisionShape, URDF) pass through the
           shape frame's origin (constant 0). dfm's plane is z = 0 of the shape frame. */
        const double* n = d->dimensions;
        const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 0.0)) {
            snprintf(why, why_size, "a plane with a zero normal");
            return 0;
        }
        const double un[3] = {n[0] / len, n[1] / len, n[2] / len};
        double to_n[4], combined[4];
        quat_z_to(un, to_n);
        quat_mul(rot, to_n, combined);
        memcpy(rot, combined, sizeof(rot));
        def->type = DFM_SHAPE_PLANE; /* half_extents 0: infinite */
        break;
    }
    case B3_GEOM_MESH:
        snprintf(why, why_size,
                 "GEOM_MESH (file \"%s\": pybullet's C API returns no triangles; a URDF <cylinder> is one "
                 "unless loaded with URDF_USE_IMPLICIT_CYLINDER) is not supported yet",
                 d->mesh_file);
        return 0;
    case B3_GEOM_HEIGHTFIELD: snprintf(why, why_size, "GEOM_HEIGHTFIELD is not supported"); return 0;
    case B3_GEOM_SDF: snprintf(why, why_size, "GEOM_SDF is not supported"); return 0;
    default: snprintf(why, why_size, "geometry type %d is not supported", d->geometry_type); return 0;
    }
    for (int a = 0; a < 4; ++a) def->local_rotation[a] = (float)rot[a];
    return 1;
}

/// Growable arrays of the new shape list.
typedef struct shape_list {
    dfm_pyb_shape* shapes;
    dfm_shape_def* defs;
    int count, capacity;
    dfm_pyb_link* links;
    int link_count, link_capacity;
} shape_list;

static int push_shape(shape_list* l, const dfm_pyb_shape* s, const dfm_shape_def* def) {
    if (l->count == l->capacity) {
        const int cap = l->capacity ? 2 * l->capacity : 16;
        dfm_pyb_shape* s2 = (dfm_pyb_shape*)realloc(l->shapes, (size_t)cap * sizeof(*s2));
        if (!s2) return 0;
        l->shapes = s2;
        dfm_shape_def* d2 = (dfm_shape_def*)realloc(l->defs, (size_t)cap * sizeof(*d2));
        if (!d2) return 0;
        l->defs = d2;
        l->capacity = cap;
    }
    l->shapes[l->count] = *s;
    l->defs[l->count] = *def;
    ++l->count;
    return 1;
}

static int push_link(shape_list* l, const dfm_pyb_link* k) {
    if (l->link_count == l->link_capacity) {
        const int cap = l->link_capacity ? 2 * l->link_capacity : 16;
        dfm_pyb_link* k2 = (dfm_pyb_link*)realloc(l->links, (size_t)cap * sizeof(*k2));
        if (!k2) return 0;
        l->links = k2;
        l->link_capacity = cap;
    }
    l->links[l->link_count++] = *k;
    return 1;
}

static void free_list(shape_list* l) {
    free(l->shapes);
    free(l->defs);
    free(l->links);
}

/// Same body, link, geometry, dimensions, frame and friction: the dfm shape can stay.
static int same_shape(const dfm_pyb_shape* a, const dfm_pyb_shape* b) {
    return a->body == b->body && a->link == b->link && a->geometry_type == b->geometry_type &&
           memcmp(a->dimensions, b->dimensions, sizeof(a->dimensions)) == 0 &&
           memcmp(a->local_frame, b->local_frame, sizeof(a->local_frame)) == 0 && a->mu == b->mu;
}

/// Disables sleeping of a dynamic body, once: sleeping bodies ignore external forces, so the
/// coupling would stop when the body settles.
static void disable_sleeping(dfm_pyb_instance* inst, int body) {
    for (int i = 0; i < inst->awake_count; ++i)
        if (inst->awake_bodies[i] == body) return;
    const b3_api* b = &inst->api;
    b3_command cmd = b->b3InitChangeDynamicsInfo(inst->client);
    b->b3ChangeDynamicsInfoSetActivationState(cmd, body, B3_ACTIVATION_DISABLE_SLEEPING);
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(inst->client, cmd);
    if (b->b3GetStatusType(st) != B3_CLIENT_COMMAND_COMPLETED) {
        dfm_pyb_log(inst, "body %d: disabling sleep failed; a sleeping body ignores dfm's reactions", body);
        return;
    }
    if (inst->awake_count == inst->awake_capacity) {
        const int cap = inst->awake_capacity ? 2 * inst->awake_capacity : 16;
        int* grown = (int*)realloc(inst->awake_bodies, (size_t)cap * sizeof(int));
        if (!grown) return; /* asked again at the next re-read: harmless */
        inst->awake_bodies = grown;
        inst->awake_capacity = cap;
    }
    inst->awake_bodies[inst->awake_count++] = body;
}

/// Reads the shapes of one body (all its links) into `l`. Logs what it cannot use. Returns 0 on
/// an allocation failure.
static int read_body(dfm_pyb_instance* inst, int body, shape_list* l) {
    const b3_api* b = &inst->api;
    b3_client c = inst->client;
    const int joints = b->b3GetNumJoints(c, body);
    int any_dynamic = 0;
    for (int link = -1; link < joints; ++link) {
        b3_status st = b->b3SubmitClientCommandAndWaitStatus(c, b->b3GetDynamicsInfoCommandInit(c, body, link));
        b3_dynamics_info dyn;
        if (b->b3GetStatusType(st) != B3_GET_DYNAMICS_INFO_COMPLETED || !b->b3GetDynamicsInfo(st, &dyn)) {
            dfm_pyb_log(inst, "body %d link %d: pybullet gave no dynamics info; dfm does not see this link", body,
                        link);
            continue;
        }
        if (dyn.body_type != B3_BODY_TYPE_MULTI_BODY) {
            dfm_pyb_log(inst,
                        "body %d is not a multibody (body type %d: created with useMaximalCoordinates=True, or a "
                        "soft body); pybullet's C API reports no collision shapes for it, so dfm does not see it",
                        body, dyn.body_type);
            return 1;
        }
        st = b->b3SubmitClientCommandAndWaitStatus(c, b->b3InitRequestCollisionShapeInformation(c, body, link));
        if (b->b3GetStatusType(st) != B3_COLLISION_SHAPE_INFO_COMPLETED) {
            /* The getter would return the previous request's cached shapes (docs/pybullet.md). */
            dfm_pyb_log(inst, "body %d link %d: pybullet's collision shape request failed; dfm does not see it", body,
                        link);
            continue;
        }
        b3_collision_shape_information info;
        memset(&info, 0, sizeof(info));
        b->b3GetCollisionShapeInformation(c, &info);
        int kept = 0;
        for (int k = 0; k < info.num_shapes; ++k) {
            const b3_collision_shape_data* d = &info.shapes[k];
            dfm_shape_def def;
            char why[1200];
            if (!translate(d, dyn.lateral_friction, dfm_pyb_host_body(body, link), &def, why, sizeof(why))) {
                dfm_pyb_log(inst, "body %d link %d shape %d: %s; dfm's deformables pass through it", body, link, k,
                            why);
                continue;
            }
            dfm_pyb_shape s;
            memset(&s, 0, sizeof(s));
            s.body = body;
            s.link = link;
            s.geometry_type = d->geometry_type;
            memcpy(s.dimensions, d->dimensions, sizeof(s.dimensions));
            memcpy(s.local_frame, d->local_frame, sizeof(s.local_frame));
            s.mu = def.mu;
            s.link_slot = l->link_count; /* its link is appended after its shapes */
            if (!push_shape(l, &s, &def)) return 0;
            ++kept;
        }
        if (kept == 0) continue;
        dfm_pyb_link k;
        memset(&k, 0, sizeof(k));
        k.body = body;
        k.link = link;
        k.mass = dyn.mass;
        memcpy(k.inertia_diagonal, dyn.local_inertia_diagonal, sizeof(k.inertia_diagonal));
        k.single = joints == 0;
        if (!push_link(l, &k)) return 0;
        if (dyn.mass > 0.0) any_dynamic = 1;
    }
    if (any_dynamic) disable_sleeping(inst, body);
    return 1;
}

/// Grows the per-tick scratch to `n` shapes.
static int reserve_scratch(dfm_pyb_instance* inst, int n) {
    if (n <= inst->shape_capacity) return 1;
    dfm_shape_id* ids = (dfm_shape_id*)realloc(inst->ids, (size_t)n * sizeof(*ids));
    if (!ids) return 0;
    inst->ids = ids;
    dfm_shape_state* states = (dfm_shape_state*)realloc(inst->states, (size_t)n * sizeof(*states));
    if (!states) return 0;
    inst->states = states;
    float* reactions = (float*)realloc(inst->reactions, (size_t)n * 6 * sizeof(float));
    if (!reactions) return 0;
    inst->reactions = reactions;
    inst->shape_capacity = n;
    return 1;
}

int32_t dfm_pyb_sync_shapes(dfm_pyb_instance* inst) {
    const b3_api* b = &inst->api;
    b3_client c = inst->client;
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(c, b->b3InitSyncBodyInfoCommand(c));
    if (b->b3GetStatusType(st) != B3_SYNC_BODY_INFO_COMPLETED)
        return dfm_pyb_fail(inst, DFM_ERROR_INVALID_STATE, "pybullet's body sync failed (status %d)",
                            b->b3GetStatusType(st));
    shape_list l;
    memset(&l, 0, sizeof(l));
    const int bodies = b->b3GetNumBodies(c);
    for (int i = 0; i < bodies; ++i)
        if (!read_body(inst, b->b3GetBodyUniqueId(c, i), &l)) {
            free_list(&l);
            return dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading the shapes");
        }
    if (!reserve_scratch(inst, l.count > inst->shape_count ? l.count : inst->shape_count)) {
        free_list(&l);
        return dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %d shapes", l.count);
    }
    /* Keep the dfm shape of every unchanged shape; add the new ones (undone on failure, so a failed
       sync leaves the world as it was), then remove the old ones that are gone. */
    char* taken = (char*)calloc((size_t)(inst->shape_count + 1), 1);
    char* added = (char*)calloc((size_t)(l.count + 1), 1);
    if (!taken || !added) {
        free(taken);
        free(added);
        free_list(&l);
        return dfm_pyb_fail(inst, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the shape sync");
    }
    for (int i = 0; i < l.count; ++i)
        for (int j = 0; j < inst->shape_count; ++j) {
            if (taken[j] || !same_shape(&l.shapes[i], &inst->shapes[j])) continue;
            taken[j] = 1;
            l.shapes[i].id = inst->shapes[j].id;
            break;
        }
    for (int i = 0; i < l.count; ++i) {
        if (l.shapes[i].id.index1 != 0) continue;
        dfm_result r = dfm_world_add_shape(inst->world, &l.defs[i], &l.shapes[i].id);
        if (r != DFM_OK) {
            int32_t code = dfm_pyb_fail(inst, r, "body %d link %d: dfm_world_add_shape: %s", l.shapes[i].body,
                                        l.shapes[i].link, dfm_world_last_error(inst->world));
            for (int j = 0; j < i; ++j) /* undo this sync's additions */
                if (added[j]) dfm_world_remove_shape(inst->world, l.shapes[j].id);
            free(taken);
            free(added);
            free_list(&l);
            return code;
        }
        added[i] = 1;
    }
    for (int j = 0; j < inst->shape_count; ++j)
        if (!taken[j]) dfm_world_remove_shape(inst->world, inst->shapes[j].id);
    free(taken);
    free(added);
    dfm_pyb_coupling_forget(inst); /* the next tick hands dfm the dynamics of the new links */
    free(inst->shapes);
    free(inst->links);
    free(l.defs);
    inst->shapes = l.shapes;
    inst->shape_count = l.count;
    inst->links = l.links;
    inst->link_count = l.link_count;
    inst->dirty = 0;
    return DFM_OK;
}
