/// @file shape_sync.c
/// Reads the collision shapes of every pybullet body and link through the b3 C API and keeps the
/// dfm shapes in step with them: on the first tick and after pybullet notifies a change (body
/// added or removed, simulation reset, link dynamics changed). Supported: box, sphere, capsule,
/// cylinder, plane, and GEOM_MESH as dfm mesh SDF shapes: convex hulls from the hull points
/// pybullet returns (b3GetMeshData) or, for a URDF mesh file, from the OBJ file's parts; concave
/// meshes from a URDF's OBJ file or from triangles handed in by dfm_pyb_set_mesh (pybullet's C
/// API returns no triangles; docs/pybullet.md). Heightfields, SDF shapes, concave meshes without
/// triangles and bodies in maximal coordinates (whose shapes the C API does not report) are
/// logged once each and ignored.
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
    case B3_GEOM_MESH: def->type = DFM_SHAPE_MESH; break; /* its triangles: add_mesh_entry */
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
    dfm_pyb_mesh* meshes; ///< The mesh each def points to (zeroed for primitives), owned.
    int count, capacity;
    dfm_pyb_link* links;
    int link_count, link_capacity;
} shape_list;

/// Appends a shape; `mesh` (NULL for a primitive) passes to the list, which frees it (also on
/// failure). The def's mesh pointers are set to it.
static int push_shape(shape_list* l, const dfm_pyb_shape* s, const dfm_shape_def* def, dfm_pyb_mesh* mesh) {
    if (l->count == l->capacity) {
        const int cap = l->capacity ? 2 * l->capacity : 16;
        dfm_pyb_shape* s2 = (dfm_pyb_shape*)realloc(l->shapes, (size_t)cap * sizeof(*s2));
        if (s2) l->shapes = s2;
        dfm_shape_def* d2 = s2 ? (dfm_shape_def*)realloc(l->defs, (size_t)cap * sizeof(*d2)) : NULL;
        if (d2) l->defs = d2;
        dfm_pyb_mesh* m2 = d2 ? (dfm_pyb_mesh*)realloc(l->meshes, (size_t)cap * sizeof(*m2)) : NULL;
        if (!m2) {
            if (mesh) dfm_pyb_mesh_free(mesh);
            return 0;
        }
        l->meshes = m2;
        l->capacity = cap;
    }
    l->shapes[l->count] = *s;
    l->defs[l->count] = *def;
    memset(&l->meshes[l->count], 0, sizeof(dfm_pyb_mesh));
    if (mesh) {
        l->meshes[l->count] = *mesh; /* the arrays move; the def points to them */
        memset(mesh, 0, sizeof(*mesh));
        dfm_shape_def* d = &l->defs[l->count];
        const dfm_pyb_mesh* m = &l->meshes[l->count];
        d->mesh_vertices = m->vertices;
        d->mesh_vertex_count = m->vertex_count;
        d->mesh_triangles = m->triangles;
        d->mesh_triangle_count = m->triangle_count;
    }
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

/// Frees the defs and their meshes (the shapes and links may have moved to the instance).
static void free_defs(shape_list* l) {
    for (int i = 0; i < l->count; ++i) dfm_pyb_mesh_free(&l->meshes[i]);
    free(l->meshes);
    free(l->defs);
}

static void free_list(shape_list* l) {
    free_defs(l);
    free(l->shapes);
    free(l->links);
}

/// 1 when `name` ends with `suffix`, ignoring case.
static int ends_with(const char* name, const char* suffix) {
    const size_t n = strlen(name), k = strlen(suffix);
    if (n < k) return 0;
    for (size_t i = 0; i < k; ++i) {
        char a = name[n - k + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

/// The registered mesh of (body, link, shape), or NULL.
static const dfm_pyb_user_mesh* find_user_mesh(const dfm_pyb_instance* inst, int body, int link, int shape) {
    for (int i = 0; i < inst->user_mesh_count; ++i) {
        const dfm_pyb_user_mesh* u = &inst->user_meshes[i];
        if (u->body == body && u->link == link && u->shape == shape) return u;
    }
    return NULL;
}

/// Copies a mesh (for a registered one, which the instance keeps). Returns 0 when out of memory.
static int copy_mesh(const dfm_pyb_mesh* from, dfm_pyb_mesh* to) {
    to->vertices = (float*)malloc((size_t)from->vertex_count * 3 * sizeof(float));
    to->triangles = (int32_t*)malloc((size_t)from->triangle_count * 3 * sizeof(int32_t));
    if (!to->vertices || !to->triangles) {
        dfm_pyb_mesh_free(to);
        return 0;
    }
    memcpy(to->vertices, from->vertices, (size_t)from->vertex_count * 3 * sizeof(float));
    memcpy(to->triangles, from->triangles, (size_t)from->triangle_count * 3 * sizeof(int32_t));
    to->vertex_count = from->vertex_count;
    to->triangle_count = from->triangle_count;
    return 1;
}

/// The hull points pybullet reports for entry `k` of (body, link), copied out of the client's cache
/// (3 doubles each, in the link's centre-of-mass frame). Sets *count (0: none, i.e. not a convex
/// hull); returns NULL with *count 0 also when out of memory.
static double* request_hull_points(dfm_pyb_instance* inst, int body, int link, int k, int32_t* count) {
    const b3_api* b = &inst->api;
    b3_client c = inst->client;
    *count = 0;
    b3_command cmd = b->b3GetMeshDataCommandInit(c, body, link);
    b->b3GetMeshDataSetCollisionShapeIndex(cmd, k);
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(c, cmd);
    if (b->b3GetStatusType(st) != B3_REQUEST_MESH_DATA_COMPLETED) return NULL;
    b3_mesh_data md;
    memset(&md, 0, sizeof(md));
    b->b3GetMeshData(c, &md);
    if (md.num_vertices <= 0 || !md.vertices) return NULL;
    double* p = (double*)malloc((size_t)md.num_vertices * 3 * sizeof(double));
    if (!p) return NULL;
    for (int i = 0; i < md.num_vertices; ++i) {
        p[3 * i] = md.vertices[i].x;
        p[3 * i + 1] = md.vertices[i].y;
        p[3 * i + 2] = md.vertices[i].z;
    }
    *count = md.num_vertices;
    return p;
}

/// Smallest SDF cell the plugin asks dfm for, m (push_mesh).
#define DFM_PYB_MIN_SDF_CELL 0.002f

/// Pushes one dfm mesh shape of entry `s` (its part set), with `def` as translated and `identity`
/// set when the mesh is already in the link's centre-of-mass frame (pybullet's hull points). A mesh
/// that is not closed is logged and freed. Returns 1 when pushed, 0 when skipped, -1 when out of
/// memory.
static int push_mesh(dfm_pyb_instance* inst, shape_list* l, dfm_pyb_shape* s, const dfm_shape_def* def, int part,
                     int identity, dfm_pyb_mesh* mesh) {
    char why[256];
    if (!dfm_pyb_mesh_check_closed(mesh, why, sizeof(why))) {
        dfm_pyb_log(inst, "body %d link %d: GEOM_MESH part %d: %s; dfm's deformables pass through it", s->body, s->link,
                    part, why);
        dfm_pyb_mesh_free(mesh);
        return 0;
    }
    dfm_shape_def d = *def;
    /* dfm's automatic SDF cell is 1/48 of the mesh's largest extent and its grid reaches 0.05 m past
       the surface, so the bake costs about triangles x (0.05 m / cell)^3: a 5 cm hull (1 mm cells)
       took 15 s. The cell is kept at 2 mm or more (docs/pybullet.md, "Meshes"). */
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) lo[a] = hi[a] = mesh->vertices[a];
    for (int32_t i = 1; i < mesh->vertex_count; ++i)
        for (int a = 0; a < 3; ++a) {
            const float x = mesh->vertices[3 * i + a];
            lo[a] = x < lo[a] ? x : lo[a];
            hi[a] = x > hi[a] ? x : hi[a];
        }
    float extent = 0.0f;
    for (int a = 0; a < 3; ++a) extent = hi[a] - lo[a] > extent ? hi[a] - lo[a] : extent;
    if (extent / 48.0f < DFM_PYB_MIN_SDF_CELL) d.sdf_cell_size = DFM_PYB_MIN_SDF_CELL;
    if (identity) {
        for (int a = 0; a < 3; ++a) d.local_position[a] = 0.0f;
        d.local_rotation[0] = d.local_rotation[1] = d.local_rotation[2] = 0.0f;
        d.local_rotation[3] = 1.0f;
    }
    s->part = part;
    uint32_t margin_bits;
    memcpy(&margin_bits, &d.margin, sizeof(margin_bits));
    s->mesh_hash = dfm_pyb_mesh_hash(mesh) ^ ((uint64_t)margin_bits << 17); /* a new margin: a new shape */
    return push_shape(l, s, &d, mesh) ? 1 : -1;
}

/// Translates GEOM_MESH entry `k` of (body, link) into one dfm mesh shape per convex part, or one
/// for a concave mesh: `s` and `def` as for a primitive (def->type DFM_SHAPE_MESH, the entry's
/// frame). Logs what it cannot read. Sets *pushed to the shapes added; returns 0 when out of memory.
static int add_mesh_entry(dfm_pyb_instance* inst, int body, int link, int k, const b3_collision_shape_data* d,
                          dfm_pyb_shape* s, const dfm_shape_def* def, shape_list* l, int* pushed) {
    char why[1400];
    *pushed = 0;
    /* 1. Triangles handed in from Python (concave meshes made by createCollisionShape). */
    const dfm_pyb_user_mesh* u = find_user_mesh(inst, body, link, k);
    if (u) {
        dfm_pyb_mesh m;
        if (!copy_mesh(&u->mesh, &m)) return 0;
        const int r = push_mesh(inst, l, s, def, 0, 0, &m);
        *pushed = r > 0;
        return r >= 0;
    }
    /* pybullet names the file of a URDF mesh (with its scale in dimensions); createCollisionShape
       meshes read "unknown_file" with scale 1 (the scale is already in their points). */
    const int has_file = d->mesh_file[0] != '\0' && strcmp(d->mesh_file, "unknown_file") != 0;
    const int obj = has_file && ends_with(d->mesh_file, ".obj");
    int32_t npts = 0;
    double* pts = request_hull_points(inst, body, link, k, &npts);
    dfm_pyb_obj file;
    memset(&file, 0, sizeof(file));
    int have_file = 0;
    if (obj) {
        have_file = dfm_pyb_obj_read(d->mesh_file, d->dimensions, &file, why, sizeof(why));
        if (!have_file && npts == 0) {
            dfm_pyb_log(inst, "body %d link %d shape %d: GEOM_MESH: %s; dfm's deformables pass through it", body, link,
                        k, why);
            return 1;
        }
    }
    int ok = 1;
    if (npts > 0) {
        /* A convex hull (pybullet hulls every convex mesh, one per OBJ part). */
        if (have_file) {
            double* part_pts = (double*)malloc((size_t)file.triangle_count * 9 * sizeof(double));
            if (!part_pts) ok = 0;
            for (int p = 0; ok && p < file.part_count; ++p) {
                int32_t n = 0;
                for (int32_t t = file.part_first[p]; t < file.part_first[p + 1]; ++t)
                    for (int c = 0; c < 3; ++c) {
                        memcpy(&part_pts[3 * n], &file.vertices[3 * (size_t)file.triangles[3 * t + c]],
                               3 * sizeof(double));
                        ++n;
                    }
                dfm_pyb_mesh m;
                if (!dfm_pyb_convex_hull(part_pts, n, 3, &m, why, sizeof(why))) {
                    dfm_pyb_log(inst, "body %d link %d shape %d: GEOM_MESH \"%s\" part %d: %s; dfm skips this part",
                                body, link, k, d->mesh_file, p, why);
                    continue;
                }
                const int r = push_mesh(inst, l, s, def, p, 0, &m);
                if (r < 0) ok = 0;
                *pushed += r > 0;
            }
            free(part_pts);
        } else {
            dfm_pyb_mesh m;
            if (!dfm_pyb_convex_hull(pts, npts, 3, &m, why, sizeof(why)))
                dfm_pyb_log(inst,
                            "body %d link %d shape %d: GEOM_MESH convex hull: %s; dfm's deformables pass "
                            "through it",
                            body, link, k, why);
            else {
                const int r = push_mesh(inst, l, s, def, 0, 1, &m);
                ok = r >= 0;
                *pushed = r > 0;
            }
        }
    } else if (have_file) {
        /* A concave triangle mesh (URDF concave="yes"): the file's triangles as they are. */
        dfm_pyb_mesh m;
        if (!dfm_pyb_mesh_weld(file.vertices, file.vertex_count, file.triangles, file.triangle_count, &m, why,
                               sizeof(why)))
            dfm_pyb_log(inst, "body %d link %d shape %d: GEOM_MESH \"%s\": %s; dfm's deformables pass through it", body,
                        link, k, d->mesh_file, why);
        else {
            const int r = push_mesh(inst, l, s, def, 0, 0, &m);
            ok = r >= 0;
            *pushed = r > 0;
        }
    } else if (has_file) {
        dfm_pyb_log(inst,
                    "body %d link %d shape %d: concave GEOM_MESH \"%s\": only Wavefront OBJ files are read; hand "
                    "its triangles to dfm with World.set_mesh(%d, vertices, indices, link=%d, shape=%d); dfm's "
                    "deformables pass through it",
                    body, link, k, d->mesh_file, body, link, k);
    } else {
        dfm_pyb_log(inst,
                    "body %d link %d shape %d: concave GEOM_MESH made by createCollisionShape (pybullet's C API "
                    "returns neither its triangles nor its file); hand them to dfm with World.set_mesh(%d, "
                    "vertices, indices, link=%d, shape=%d, mesh_scale=...); dfm's deformables pass through it",
                    body, link, k, body, link, k);
    }
    free(pts);
    dfm_pyb_obj_free(&file);
    return ok;
}

/// Same body, link, geometry, dimensions, frame and friction: the dfm shape can stay.
static int same_shape(const dfm_pyb_shape* a, const dfm_pyb_shape* b) {
    return a->body == b->body && a->link == b->link && a->geometry_type == b->geometry_type &&
           memcmp(a->dimensions, b->dimensions, sizeof(a->dimensions)) == 0 &&
           memcmp(a->local_frame, b->local_frame, sizeof(a->local_frame)) == 0 && a->mu == b->mu &&
           a->part == b->part && a->mesh_hash == b->mesh_hash;
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

/// 1 when pybullet gives (body, link) a world AABB of more extent than an empty link's: a URDF link
/// without <collision> reads a point padded by 1 mm on each side (2 mm extents, probed with
/// pybullet 3.2.7), createMultiBody's empty base a bare point.
static int has_extent(dfm_pyb_instance* inst, int body, int link) {
    const b3_api* b = &inst->api;
    b3_status st = b->b3SubmitClientCommandAndWaitStatus(inst->client,
                                                         b->b3RequestCollisionInfoCommandInit(inst->client, body));
    double lo[3], hi[3];
    if (b->b3GetStatusType(st) != B3_REQUEST_COLLISION_INFO_COMPLETED || !b->b3GetStatusAABB(st, link, lo, hi))
        return 1; /* cannot tell: report it */
    const double empty = 2.0e-3 + 1e-6;
    return hi[0] - lo[0] > empty || hi[1] - lo[1] > empty || hi[2] - lo[2] > empty;
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
        if (info.num_shapes == 0) {
            /* No entry: a link without shapes (an empty base, e.g. createMultiBody(0, -1, ...) with
               links: its AABB is a point) or a collider pybullet 3.2.7 cannot describe (its shape info
               has no case for heightfields and SDF shapes: it prints "Unexpected collision shape
               type"), which has an AABB of some extent. */
            if (!has_extent(inst, body, link)) continue;
            dfm_pyb_log(inst,
                        "body %d link %d: pybullet reports a collision shape it cannot describe (GEOM_HEIGHTFIELD or "
                        "GEOM_SDF), not supported; dfm's deformables pass through it",
                        body, link);
            continue;
        }
        /* Copied: the mesh requests below are further commands of the same client. */
        b3_collision_shape_data* entries = NULL;
        if (info.num_shapes > 0) {
            entries = (b3_collision_shape_data*)malloc((size_t)info.num_shapes * sizeof(*entries));
            if (!entries) return 0;
            memcpy(entries, info.shapes, (size_t)info.num_shapes * sizeof(*entries));
        }
        int kept = 0;
        for (int k = 0; k < info.num_shapes; ++k) {
            const b3_collision_shape_data* d = &entries[k];
            dfm_shape_def def;
            char why[1200];
            if (!translate(d, dyn.lateral_friction, dfm_pyb_host_body(body, link), &def, why, sizeof(why))) {
                dfm_pyb_log(inst, "body %d link %d shape %d: %s; dfm's deformables pass through it", body, link, k,
                            why);
                continue;
            }
            if (def.type == DFM_SHAPE_MESH) {
                /* Bullet collides a hull or triangle mesh at its collision margin (pybullet's default
                   0.001 m: a mesh box rests 1 mm above the ground), a box or sphere at its surface;
                   the Bullet adapter gives dfm the same margin. */
                def.margin = dyn.collision_margin > 0.0 ? (float)dyn.collision_margin : 0.0f;
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
            if (d->geometry_type == B3_GEOM_MESH) {
                int pushed = 0;
                if (!add_mesh_entry(inst, body, link, k, d, &s, &def, l, &pushed)) {
                    free(entries);
                    return 0;
                }
                kept += pushed;
                continue;
            }
            if (!push_shape(l, &s, &def, NULL)) {
                free(entries);
                return 0;
            }
            ++kept;
        }
        free(entries);
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
    /* Meshes handed in for a body that is gone go with it (pybullet reuses body ids). */
    for (int u = 0; u < inst->user_mesh_count;) {
        int alive = 0;
        for (int i = 0; i < bodies && !alive; ++i) alive = b->b3GetBodyUniqueId(c, i) == inst->user_meshes[u].body;
        if (alive) {
            ++u;
            continue;
        }
        dfm_pyb_mesh_free(&inst->user_meshes[u].mesh);
        inst->user_meshes[u] = inst->user_meshes[--inst->user_mesh_count];
    }
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
    free_defs(&l);
    inst->shapes = l.shapes;
    inst->shape_count = l.count;
    inst->links = l.links;
    inst->link_count = l.link_count;
    inst->dirty = 0;
    return DFM_OK;
}
