/// @file b3_api.h
/// The few declarations of pybullet's physics-server plugin ABI and b3 C API that the dfm plugin
/// uses, written for this project from Bullet's public headers (bulletphysics/bullet3 at the
/// pybullet 3.2.7 release commit 6c888f4: examples/SharedMemory/plugins/b3PluginContext.h,
/// SharedMemoryPublic.h, PhysicsClientC_API.h; docs/pybullet.md). Bullet ships none of them in a
/// package, and pybullet loads its module without RTLD_GLOBAL, so the plugin does not link against
/// the b3 functions: it resolves them at run time into a table (b3_api.c).
///
/// Target: plugin API version 202010061 (SHARED_MEMORY_MAGIC_NUMBER, = pybullet.getAPIVersion()
/// of 3.2.7). The struct layouts are checked against the x86_64 sizes and offsets observed on that
/// build by the static asserts below. All b3 quantities are doubles in SI units, world frame
/// unless a name says otherwise; quaternions are (x, y, z, w).
#ifndef DFM_PYB_B3_API_H
#define DFM_PYB_B3_API_H

#include <stddef.h>

/// The plugin API version initPlugin must return (pybullet 3.2.7).
#define DFM_PYB_B3_API_VERSION 202010061

/// Opaque handles of the C API.
typedef struct b3_client_opaque* b3_client;
typedef struct b3_command_opaque* b3_command;
typedef struct b3_status_opaque* b3_status;

/// Status codes (EnumSharedMemoryServerStatus) the plugin checks.
enum {
    B3_CLIENT_COMMAND_COMPLETED = 2,
    B3_ACTUAL_STATE_UPDATE_COMPLETED = 21,
    B3_SYNC_BODY_INFO_COMPLETED = 66,
    B3_GET_DYNAMICS_INFO_COMPLETED = 77,
    B3_PHYSICS_PARAMETERS_COMPLETED = 91,
    B3_COLLISION_SHAPE_INFO_COMPLETED = 96,
    B3_CONTACT_POINT_INFORMATION_COMPLETED = 39,
    B3_REQUEST_COLLISION_INFO_COMPLETED = 85,
    B3_REQUEST_MESH_DATA_COMPLETED = 110
};

/// Collision geometry types (GEOM_*) of b3_collision_shape_data.geometry_type.
enum {
    B3_GEOM_SPHERE = 2,
    B3_GEOM_BOX = 3,
    B3_GEOM_CYLINDER = 4,
    B3_GEOM_MESH = 5,
    B3_GEOM_PLANE = 6,
    B3_GEOM_CAPSULE = 7,
    B3_GEOM_SDF = 8,
    B3_GEOM_HEIGHTFIELD = 9
};

/// Notification types (b3NotificationType) the plugin reacts to.
enum { B3_SIMULATION_RESET = 0, B3_BODY_ADDED = 1, B3_BODY_REMOVED = 2, B3_LINK_DYNAMICS_CHANGED = 5 };

enum { B3_EF_WORLD_FRAME = 2 };              ///< b3ApplyExternalForce/Torque flag: world-frame vectors.
enum { B3_ACTIVATION_DISABLE_SLEEPING = 2 }; ///< eActivationStateDisableSleeping.
enum { B3_BODY_TYPE_MULTI_BODY = 2 };        ///< b3DynamicsInfo.m_bodyType of a multibody.

/// struct b3PluginContext: handed to every entry point. `return_data` is a b3UserDataValue*.
typedef struct b3_plugin_context {
    b3_client client;          ///< In-process client of the server the plugin was loaded into.
    void* user_pointer;        ///< Kept by pybullet between calls: the plugin's instance.
    void* return_data;         ///< executePluginCommand only.
    const void* vr_events;     ///< Tick only (unused).
    int num_vr_events;         ///< (unused)
    const void* key_events;    ///< (unused)
    int num_key_events;        ///< (unused)
    const void* mouse_events;  ///< (unused)
    int num_mouse_events;      ///< (unused)
    const void* notifications; ///< processNotifications: b3Notification array; the type is the first int.
    int num_notifications;     ///< Entries in `notifications`.
    void* rpc_processor;       ///< A C++ class pointer in Bullet (unused).
} b3_plugin_context;

/// struct b3PluginArguments of executePluginCommand (floats arrive rounded through C float).
typedef struct b3_plugin_arguments {
    char text[1024];
    int num_ints;
    int ints[128];
    int num_floats;
    double floats[128];
} b3_plugin_arguments;

/// sizeof(struct b3Notification): the type (first int) and a union of per-kind arguments (8-byte aligned).
#define B3_NOTIFICATION_SIZE 280

/// struct b3CollisionShapeData: one collision shape of a body or link.
typedef struct b3_collision_shape_data {
    int object_unique_id;  ///< Valid in entry [0] only (pybullet 3.2.7).
    int link_index;        ///< Likewise.
    int geometry_type;     ///< B3_GEOM_*.
    double dimensions[3];  ///< Box: full extents; sphere: (r, r, r); capsule, cylinder: (length, radius);
                           ///< plane: the normal; mesh: the mesh scale.
    double local_frame[7]; ///< Pose in the link's centre-of-mass frame: position (m), quaternion.
    char mesh_file[1024];  ///< Mesh asset file name.
} b3_collision_shape_data;

/// struct b3CollisionShapeInformation.
typedef struct b3_collision_shape_information {
    int num_shapes;
    b3_collision_shape_data* shapes;
} b3_collision_shape_information;

/// struct b3MeshVertex: one vertex of b3GetMeshData (w unused).
typedef struct b3_mesh_vertex {
    double x, y, z, w;
} b3_mesh_vertex;

/// struct b3MeshData. For a multibody link's collision shape pybullet 3.2.7 returns the points of
/// its convex hulls only (btConvexHullShape::getVertex, scaled, in the link's centre-of-mass frame:
/// compound child frames applied), no faces; a concave triangle mesh or a primitive returns no
/// vertices (and pybullet prints "?" on stdout). The array is the client's cache, valid until its
/// next command.
typedef struct b3_mesh_data {
    int num_vertices;
    const b3_mesh_vertex* vertices;
} b3_mesh_data;

/// struct b3ContactInformation (the points themselves are not read).
typedef struct b3_contact_information {
    int num_contact_points;
    const void* contact_points;
} b3_contact_information;

/// struct b3LinkState (264 bytes); velocities only with ComputeLinkVelocity.
typedef struct b3_link_state {
    double world_position[3];    ///< Link centre of mass, m.
    double world_orientation[4]; ///< Link centre-of-mass frame.
    double local_inertial_position[3];
    double local_inertial_orientation[4];
    double world_link_frame_position[3];
    double world_link_frame_orientation[4];
    double world_linear_velocity[3];  ///< m/s.
    double world_angular_velocity[3]; ///< rad/s.
    double world_aabb_min[3];         ///< Never filled by pybullet 3.2.7.
    double world_aabb_max[3];
} b3_link_state;

/// struct b3DynamicsInfo (200 bytes).
typedef struct b3_dynamics_info {
    double mass;                      ///< kg; 0 = static.
    double local_inertia_diagonal[3]; ///< kg m^2, principal axes of local_inertial_frame.
    double local_inertial_frame[7];   ///< Centre-of-mass frame in the link frame.
    double lateral_friction;
    double rolling_friction;
    double spinning_friction;
    double restitution;
    double contact_stiffness;
    double contact_damping;
    int activation_state;
    int body_type; ///< B3_BODY_TYPE_MULTI_BODY, 1 rigid (maximal coordinates), 3 soft.
    double angular_damping;
    double linear_damping;
    double ccd_swept_sphere_radius;
    double contact_processing_threshold;
    int friction_anchor;
    double collision_margin;
    int dynamic_type;
} b3_dynamics_info;

/// struct b3PhysicsSimulationParameters (written whole by the getter).
typedef struct b3_physics_parameters {
    double delta_time; ///< s, the time of one stepSimulation.
    double simulation_timestamp;
    double gravity[3]; ///< m/s^2.
    int num_sub_steps; ///< 0 = one internal step of delta_time.
    int num_solver_iterations;
    double warm_starting_factor;
    double articulated_warm_starting_factor;
    int use_real_time_simulation;
    int use_split_impulse;
    double split_impulse_penetration_threshold;
    double contact_breaking_threshold;
    int internal_sim_flags;
    double default_contact_erp;
    int collision_filter_mode;
    int enable_file_caching;
    double restitution_velocity_threshold;
    double default_non_contact_erp;
    double friction_erp;
    double default_global_cfm;
    double friction_cfm;
    int enable_cone_friction;
    int deterministic_overlapping_pairs;
    double allowed_ccd_penetration;
    int joint_feedback_mode;
    double solver_residual_threshold;
    double contact_slop;
    int enable_sat;
    int constraint_solver_type;
    int minimum_solver_island_size;
    int report_solver_analytics;
    double sparse_sdf_voxel_size;
    int num_non_contact_inner_iterations;
} b3_physics_parameters;

_Static_assert(sizeof(b3_plugin_context) == 96, "b3PluginContext layout (pybullet 3.2.7)");
_Static_assert(offsetof(b3_plugin_context, notifications) == 72, "b3PluginContext.m_notifications");
_Static_assert(sizeof(b3_plugin_arguments) == 2568, "b3PluginArguments layout");
_Static_assert(offsetof(b3_plugin_arguments, floats) == 1544, "b3PluginArguments.m_floats");
_Static_assert(sizeof(b3_collision_shape_data) == 1120, "b3CollisionShapeData layout");
_Static_assert(offsetof(b3_collision_shape_data, local_frame) == 40, "b3CollisionShapeData.m_localCollisionFrame");
_Static_assert(sizeof(b3_link_state) == 264, "b3LinkState layout");
_Static_assert(offsetof(b3_link_state, world_linear_velocity) == 168, "b3LinkState.m_worldLinearVelocity");
_Static_assert(sizeof(b3_dynamics_info) == 200, "b3DynamicsInfo layout");
_Static_assert(offsetof(b3_dynamics_info, body_type) == 140, "b3DynamicsInfo.m_bodyType");
_Static_assert(sizeof(b3_mesh_vertex) == 32 && sizeof(b3_mesh_data) == 16, "b3MeshData layout");
_Static_assert(offsetof(b3_physics_parameters, num_sub_steps) == 40, "b3PhysicsSimulationParameters");

// clang-format off
/// X-macro list of the b3 functions the plugin resolves: (return type, name, parameters).
#define DFM_PYB_B3_FUNCTIONS(X)                                                                                  \
    X(b3_status, b3SubmitClientCommandAndWaitStatus, (b3_client, b3_command))                                 \
    X(int, b3GetStatusType, (b3_status))                                                                       \
    X(b3_command, b3InitSyncBodyInfoCommand, (b3_client))                                                      \
    X(int, b3GetNumBodies, (b3_client))                                                                        \
    X(int, b3GetBodyUniqueId, (b3_client, int))                                                                \
    X(int, b3GetNumJoints, (b3_client, int))                                                                   \
    X(b3_command, b3InitRequestCollisionShapeInformation, (b3_client, int, int))                               \
    X(void, b3GetCollisionShapeInformation, (b3_client, b3_collision_shape_information*))                      \
    X(b3_command, b3RequestActualStateCommandInit, (b3_client, int))                                           \
    X(int, b3RequestActualStateCommandComputeLinkVelocity, (b3_command, int))                                  \
    X(int, b3RequestActualStateCommandComputeForwardKinematics, (b3_command, int))                             \
    X(int, b3GetStatusActualState, (b3_status, int*, int*, int*, const double**, const double**,               \
                                    const double**, const double**))                                           \
    X(int, b3GetLinkState, (b3_client, b3_status, int, b3_link_state*))                                        \
    X(b3_command, b3ApplyExternalForceCommandInit, (b3_client))                                                \
    X(void, b3ApplyExternalForce, (b3_command, int, int, const double*, const double*, int))                   \
    X(void, b3ApplyExternalTorque, (b3_command, int, int, const double*, int))                                 \
    X(b3_command, b3InitRequestPhysicsParamCommand, (b3_client))                                               \
    X(int, b3GetStatusPhysicsSimulationParameters, (b3_status, b3_physics_parameters*))                        \
    X(b3_command, b3GetDynamicsInfoCommandInit, (b3_client, int, int))                                         \
    X(int, b3GetDynamicsInfo, (b3_status, b3_dynamics_info*))                                                  \
    X(b3_command, b3InitChangeDynamicsInfo, (b3_client))                                                       \
    X(int, b3ChangeDynamicsInfoSetActivationState, (b3_command, int, int))                                    \
    X(b3_command, b3CreatePoseCommandInit, (b3_client, int))                                                   \
    X(int, b3CreatePoseCommandSetBasePosition, (b3_command, double, double, double))                           \
    X(int, b3CreatePoseCommandSetBaseOrientation, (b3_command, double, double, double, double))                \
    X(int, b3CreatePoseCommandSetBaseLinearVelocity, (b3_command, const double*))                              \
    X(int, b3CreatePoseCommandSetBaseAngularVelocity, (b3_command, const double*))                             \
    X(b3_command, b3InitRequestContactPointInformation, (b3_client))                                           \
    X(void, b3SetContactFilterBodyA, (b3_command, int))                                                        \
    X(void, b3GetContactPointInformation, (b3_client, b3_contact_information*))                             \
    X(b3_command, b3GetMeshDataCommandInit, (b3_client, int, int))                                             \
    X(void, b3GetMeshDataSetCollisionShapeIndex, (b3_command, int))                                           \
    X(void, b3GetMeshData, (b3_client, b3_mesh_data*))                                                        \
    X(b3_command, b3RequestCollisionInfoCommandInit, (b3_client, int))                                         \
    X(int, b3GetStatusAABB, (b3_status, int, double*, double*))
// clang-format on

/// The resolved b3 functions, one pointer per entry of DFM_PYB_B3_FUNCTIONS.
typedef struct b3_api {
#define DFM_PYB_B3_MEMBER(ret, name, params) ret(*name) params;
    DFM_PYB_B3_FUNCTIONS(DFM_PYB_B3_MEMBER)
#undef DFM_PYB_B3_MEMBER
} b3_api;

/// Resolves every function of the table from the module that holds `client`'s code (found with
/// dladdr on the client object's vtable, then dlopen(RTLD_NOLOAD) and dlsym). Returns 0 on
/// success; otherwise -1 with a message naming the module or the missing symbol in `message`.
int dfm_pyb_b3_resolve(b3_client client, b3_api* out, char* message, size_t message_size);

#endif
