/// @file instance.h
/// One plugin instance: the plugin loaded into one pybullet physics server. It holds the resolved
/// b3 API, the dfm world, the tracked bodies/links and their dfm shapes, the last tick's
/// reactions and the log. Instances live in a locked registry keyed by never-reused integers
/// (instance.c); the entry points (plugin_entry.c) and the bridge (bridge.c) find them there.
#ifndef DFM_PYB_INSTANCE_H
#define DFM_PYB_INSTANCE_H

#include "b3_api.h"
#include "mesh_read.h"

#include <dfm/dfm_pybullet.h>

/// One collision shape of a body or link as pybullet reports it, and its dfm shape.
typedef struct dfm_pyb_shape {
    int body;              ///< pybullet body unique id.
    int link;              ///< Link index, -1 = base.
    int geometry_type;     ///< B3_GEOM_*.
    double dimensions[3];  ///< As reported (b3_collision_shape_data.dimensions).
    double local_frame[7]; ///< In the link's centre-of-mass frame: position (m), quaternion (x, y, z, w).
    float mu;              ///< Friction coefficient given to dfm (the link's lateral friction).
    int link_slot;         ///< Index of its body/link in dfm_pyb_instance.links.
    int part;              ///< GEOM_MESH: which convex part of the entry (an OBJ has one hull per part); 0 otherwise.
    uint64_t mesh_hash;    ///< GEOM_MESH: dfm_pyb_mesh_hash of the mesh given to dfm; 0 otherwise.
    dfm_shape_id id;       ///< The dfm shape.
} dfm_pyb_shape;

/// Triangles handed in from Python for one GEOM_MESH entry whose triangles pybullet's C API does
/// not return (a concave mesh made by createCollisionShape): dfm_pyb_set_mesh.
typedef struct dfm_pyb_user_mesh {
    int body;          ///< pybullet body unique id.
    int link;          ///< Link index, -1 = base.
    int shape;         ///< Index of the entry in the link's collision shape information.
    dfm_pyb_mesh mesh; ///< Welded, scaled, in the entry's frame.
} dfm_pyb_user_mesh;

/// One tracked body or link that owns dfm shapes: where its pose comes from and where its
/// reaction goes.
typedef struct dfm_pyb_link {
    int body;                   ///< pybullet body unique id.
    int link;                   ///< Link index, -1 = base.
    double mass;                ///< kg (0: static or fixed; no reaction is applied).
    double inertia_diagonal[3]; ///< kg m^2 about the centre of mass, in its principal (centre-of-mass) frame.
    int single;                 ///< 1: the body's only link (no joints): dfm can solve it (DFM_PYB_COUPLING_IMPLICIT).
    int solved;                 ///< 1: dfm has this link's dynamics (dfm_world_set_host_body_dynamics).
    int solve_next;             ///< Scratch of dfm_pyb_coupling_before: solved in this step.
    double position[3];         ///< This tick's centre of mass, m, world frame.
    double rotation[4];         ///< This tick's centre-of-mass frame, quaternion (x, y, z, w).
    double linear_velocity[3];  ///< m/s, world frame.
    double angular_velocity[3]; ///< rad/s, world frame.
    double force[3];            ///< Last tick's reaction on it, N, world frame.
    double torque[3];           ///< ... N m about its centre of mass, world frame.
    double target_force[3];     ///< What the body should feel over this tick: the reaction (explicit) or
                                ///< the force of dfm's velocity correction (implicit), N.
    double target_torque[3];    ///< Likewise, N m.
    double applied_force[3];    ///< Force already applied in this stepSimulation (forces accumulate over
                                ///< the substeps of one stepSimulation in pybullet), N.
    double applied_torque[3];   ///< Likewise, N m.
} dfm_pyb_link;

/// A plugin instance.
typedef struct dfm_pyb_instance {
    int32_t key;           ///< Registry key (never reused).
    b3_client client;      ///< The server's in-process client of the context.
    b3_api api;            ///< Resolved b3 functions.
    dfm_world* world;      ///< NULL until dfm_pyb_create_world.
    int32_t coupling;      ///< dfm_pyb_coupling.
    int dirty;             ///< Bodies changed (or first tick): re-read shapes before the next tick.
    dfm_pyb_shape* shapes; ///< Tracked shapes, grouped by (body, link) in the order of `links`.
    int shape_count;
    int shape_capacity;
    dfm_pyb_link* links; ///< Tracked bodies and links with at least one shape.
    int link_count;
    int link_capacity;
    int* awake_bodies; ///< Bodies whose sleeping the plugin disabled (once each: the change
                       ///< notifies LINK_DYNAMICS_CHANGED, which would re-read the shapes again).
    int awake_count;
    int awake_capacity;
    dfm_pyb_user_mesh* user_meshes; ///< Meshes handed in by dfm_pyb_set_mesh (dropped with their body).
    int user_mesh_count;
    int user_mesh_capacity;
    int64_t ticks;      ///< Ticks run with a world.
    int substep;        ///< Index of this tick within the server's stepSimulation.
    int pending;        ///< Implicit coupling: the post-tick left forces for the next pre-tick to apply.
    int32_t tick_error; ///< First failed tick's dfm_result since dfm_pyb_take_tick_error.
    char error[1024];   ///< Last error message.
    char** messages;    ///< Log of unsupported items and warnings (each logged once).
    int message_count;
    int message_capacity;
    /* Per-tick scratch, sized with the shapes. */
    dfm_shape_id* ids;
    dfm_shape_state* states;
    float* reactions; ///< 6 floats per shape: force, torque.
} dfm_pyb_instance;

/// The dfm host_body of a pybullet body's link (-1 = base): body id in the high word.
static inline uint64_t dfm_pyb_host_body(int body, int link) {
    return ((uint64_t)(uint32_t)body << 32) | (uint64_t)(uint32_t)(link + 1);
}

/// Creates an instance for `client` (resolving the b3 API) and registers it. NULL on failure with
/// the reason in `message`.
dfm_pyb_instance* dfm_pyb_instance_create(b3_client client, char* message, size_t message_size);

/// Unregisters and frees the instance, destroying its world.
void dfm_pyb_instance_destroy(dfm_pyb_instance* inst);

/// The instance with `key`, or NULL. The pointer stays valid until the server exits the plugin,
/// which happens on the thread that uses the instance (see dfm_pybullet.h, threading).
dfm_pyb_instance* dfm_pyb_instance_find(int32_t key);

/// Sets the instance's last error (printf format) and returns `code`.
int32_t dfm_pyb_fail(dfm_pyb_instance* inst, int32_t code, const char* fmt, ...);

/// Appends a message to the instance's log unless the same text is already there, and prints it
/// to stderr (prefixed "dfm_pybullet: ") when it is new. Never drops a message: on allocation
/// failure it is printed only.
void dfm_pyb_log(dfm_pyb_instance* inst, const char* fmt, ...);

/// Reads every body's and link's collision shapes and registers the supported ones with dfm
/// (keeping the dfm shape of one that did not change, removing those that are gone); logs each
/// unsupported body, link and shape. Returns a dfm_result (the message in inst->error).
int32_t dfm_pyb_sync_shapes(dfm_pyb_instance* inst);

/// DFM_PYB_COUPLING_IMPLICIT, before the step: hands dfm the mass and world inertia of each
/// dynamic single-link body (removing nothing; see dfm_pyb_coupling_forget). Returns a dfm_result.
int32_t dfm_pyb_coupling_before(dfm_pyb_instance* inst);

/// DFM_PYB_COUPLING_IMPLICIT, after the step: adds dfm's correction to each solved body's pose and
/// velocities in pybullet (one pose command per body) and zeroes its target force; the other
/// links keep their reactions as targets. Returns a dfm_result.
int32_t dfm_pyb_coupling_after(dfm_pyb_instance* inst);

/// Removes the dfm dynamics of every solved link (before the links are re-read).
void dfm_pyb_coupling_forget(dfm_pyb_instance* inst);

/// The pre-tick (start of every internal step): with DFM_PYB_COUPLING_NONE or _EXPLICIT the whole
/// coupled tick (poses and velocities read, dfm stepped, reactions applied as forces in this
/// step); with _IMPLICIT it applies the forces the last post-tick left. Returns a dfm_result.
int32_t dfm_pyb_pre_tick(dfm_pyb_instance* inst);

/// The post-tick (end of every internal step, after Bullet integrated): with
/// DFM_PYB_COUPLING_IMPLICIT, the coupled tick with dfm solving the dynamic single-link bodies
/// (coupling.c); nothing otherwise. Returns a dfm_result.
int32_t dfm_pyb_post_tick(dfm_pyb_instance* inst);

#endif
