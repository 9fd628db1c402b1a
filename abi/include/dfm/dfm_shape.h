/// @file dfm_shape.h
/// Rigid shapes of the host engine that deformables collide with, their per-tick state, and the
/// reactions (two-way coupling) dfm computes on them.
///
/// A shape belongs to a host rigid body (`host_body`, any integer the host chooses) and sits at a
/// fixed local frame in that body. Every tick the host sets each shape's body pose, velocities
/// and world AABB in one bulk call (dfm_world_set_shape_states), steps the world, then reads the
/// reactions (dfm_world_get_shape_reactions) and applies them to its dynamic bodies.
/// Same ownership, threading and error rules as dfm_world.h.
#ifndef DFM_SHAPE_H
#define DFM_SHAPE_H

#include "dfm_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Shape types. Shape-local conventions: capsule, cylinder and cone have their axis on local z
/// (cone: base at z = -half_height, apex at +half_height); the plane is z = 0 with normal +z.
typedef enum dfm_shape_type {
    DFM_SHAPE_SPHERE = 1,   ///< radius.
    DFM_SHAPE_BOX = 2,      ///< half_extents[0..2].
    DFM_SHAPE_CAPSULE = 3,  ///< radius, half_height (of the segment between the cap centres).
    DFM_SHAPE_CYLINDER = 4, ///< radius, half_height.
    DFM_SHAPE_CONE = 5,     ///< radius (base), half_height.
    DFM_SHAPE_PLANE = 6,    ///< half_extents[0..1] in x, y; both 0 = infinite plane.
    DFM_SHAPE_MESH = 7,     ///< Closed triangle mesh (or convex hull) baked into an SDF grid.
    DFM_SHAPE_TYPE_MAX_ENUM = 0x7FFFFFFF
} dfm_shape_type;

/// Shape creation parameters.
typedef struct dfm_shape_def {
    uint32_t struct_size;       ///< sizeof(dfm_shape_def) as compiled by the caller.
    int32_t type;               ///< A dfm_shape_type.
    int32_t environment;        ///< Environment index, or -1 to collide with every environment. Default -1.
    uint64_t host_body;         ///< The host's rigid body this shape belongs to (reactions are per shape;
                                ///< torques are about this body's origin). Default 0.
    float local_position[3];    ///< Shape frame origin in the body frame, m. Default 0.
    float local_rotation[4];    ///< Shape frame rotation in the body frame, quaternion (x, y, z, w). Default identity.
    float radius;               ///< m (sphere, capsule, cylinder, cone).
    float half_height;          ///< m (capsule, cylinder, cone).
    float half_extents[3];      ///< m (box; plane uses [0], [1]).
    const float* mesh_vertices; ///< Borrowed during the call: 3 floats per vertex, shape frame, m.
    int32_t mesh_vertex_count;
    const int32_t* mesh_triangles; ///< Borrowed during the call: 3 indices per triangle, outward (counter-clockwise)
                                   ///< winding.
    int32_t mesh_triangle_count;
    float sdf_cell_size; ///< Mesh SDF grid spacing in m; 0 = automatic (about 1/48 of the mesh size). Default 0.
    float margin;        ///< Contact offset added to the surface (shell thickness), m. Default 0.
    float gap;           ///< Extra detection distance beyond contact (speculative), m. Default 0.005.
    float ke;            ///< Contact stiffness, N/m. Default 1e4.
    float kd;            ///< Contact damping (on approach), N*s/m. Default 10.
    float mu;            ///< Coulomb friction coefficient (static = kinetic). Default 0.5.
} dfm_shape_def;

/// Per-tick state of a shape's host body, world frame. If aabb_min[0] > aabb_max[0], dfm computes
/// the shape's world AABB itself from the pose. Within a step the shape moves from its previous
/// pose to this one (the contact damping and friction see that motion); the velocities are
/// validated and stored but not used yet (a shape's first state therefore starts at rest).
typedef struct dfm_shape_state {
    float position[3];         ///< Host body origin, m.
    float rotation[4];         ///< Host body orientation, unit quaternion (x, y, z, w).
    float linear_velocity[3];  ///< Velocity of the body origin, m/s.
    float angular_velocity[3]; ///< rad/s.
    float aabb_min[3];         ///< World AABB of the shape, m (see above).
    float aabb_max[3];
} dfm_shape_state;

/// Facts about a shape (filled by dfm_shape_get_info).
typedef struct dfm_shape_info {
    uint32_t struct_size; ///< sizeof(dfm_shape_info) as compiled by the caller.
    int32_t type;         ///< dfm_shape_type.
    int32_t environment;  ///< Environment index or -1.
    int32_t sdf_dims[3];  ///< Mesh shapes: SDF grid nodes per axis (0 otherwise).
    float sdf_cell_size;  ///< Mesh shapes: grid spacing, m.
    float sdf_max_error;  ///< Mesh shapes: largest |grid - exact distance| measured at bake time, m.
} dfm_shape_info;

/// Contact counters of the last step (filled by dfm_world_get_contact_stats).
typedef struct dfm_contact_stats {
    uint32_t struct_size;      ///< sizeof(dfm_contact_stats) as compiled by the caller.
    int32_t capacity;          ///< Records per advance.
    int32_t active;            ///< Records written in the last advance.
    int32_t particle_contacts; ///< ... of which particle records.
    int32_t edge_contacts;     ///< ... edge records.
    int32_t face_contacts;     ///< ... face records.
    int64_t dropped_last_step; ///< Records that did not fit, summed over the last step's advances.
    int64_t dropped_total;     ///< Since the world was created.
    int64_t candidate_pairs;   ///< (feature, shape) pairs tested per advance (particle + edge + face).
    float max_penetration;     ///< Largest penetration (m) at the end of the last step (0 if none).
    float particle_force[3];   ///< Sum of contact forces on particles, averaged over the last step, N.
    /* ABI 1.3 */
    float residual_force_max; ///< Convergence of the last step: the largest local force residual of a dynamic
                              ///< particle at its end (|inertia + elastic + drag + contact forces|, N; 0 when
                              ///< converged), computed in worlds with contacts (0 otherwise). Compare it with a
                              ///< particle's weight m g: VBD's iterations are not run to convergence.
} dfm_contact_stats;

/// Registers a shape. Meshes are checked (closed, consistently oriented) and baked into an SDF
/// grid here; dfm_shape_get_info reports its resolution and measured error. Shapes whose mesh,
/// sdf_cell_size and margin + gap equal a live shape's share its grid (baked once).
DFM_API dfm_result dfm_world_add_shape(dfm_world* world, const dfm_shape_def* def, dfm_shape_id* out_shape);

/// Removes a shape; its id becomes stale.
DFM_API dfm_result dfm_world_remove_shape(dfm_world* world, dfm_shape_id shape);

/// Sets the state of `count` shapes: ids[i] (ids `id_stride` bytes apart, 0 = packed) gets
/// states[i] (`state_stride` bytes apart, 0 = packed). Call once per tick before dfm_world_step;
/// during the step each shape moves from its previous state to this one. Validates everything
/// before changing anything.
DFM_API dfm_result dfm_world_set_shape_states(dfm_world* world, const dfm_shape_id* ids, int32_t id_stride,
                                              const dfm_shape_state* states, int32_t state_stride, int32_t count);

/// Fills `out` (whose struct_size the caller sets) with facts about the shape.
DFM_API dfm_result dfm_shape_get_info(dfm_world* world, dfm_shape_id shape, dfm_shape_info* out);

/// Reaction of the deformables on `count` shapes over the last step, averaged over it: force
/// (N, world frame) and torque (N*m, about the host body's origin as given in the state) written
/// as 3 floats each, `stride_bytes` apart (0 = packed). Impulse over the step = value * dt.
/// torques may be NULL. Each shape reads the force its contacts applied (each pad of a pinch its
/// own squeeze), adjusted so that a deformable body's reactions sum to its momentum balance; no
/// shape is pulled along a contact normal.
DFM_API dfm_result dfm_world_get_shape_reactions(dfm_world* world, const dfm_shape_id* ids, int32_t count,
                                                 float* forces, float* torques, int32_t stride_bytes);

/// Contact kinds of dfm_contact_point.kind.
typedef enum dfm_contact_kind {
    DFM_CONTACT_KIND_PARTICLE = 1, ///< A vertex against the shape.
    DFM_CONTACT_KIND_EDGE = 2,     ///< An interior point of a mesh edge (e.g. across a shape's rim).
    DFM_CONTACT_KIND_FACE = 3,     ///< An interior point of a triangle (e.g. on a shape's corner).
    DFM_CONTACT_KIND_MAX_ENUM = 0x7FFFFFFF
} dfm_contact_kind;

/// One contact of the last advance of the last step, with the forces it applied then: the local
/// contact forces themselves (penalty, damping, friction), not the momentum-consistent share that
/// dfm_world_get_shape_reactions reports. Forces are those on the deformable (the shape receives
/// the opposite), world frame. With the default 4 x 10 counts these are not converged (see
/// dfm_contact_stats.residual_force_max and docs/friction.md).
typedef struct dfm_contact_point {
    dfm_shape_id shape;      ///< The rigid shape.
    dfm_body_id body;        ///< The deformable body.
    int32_t kind;            ///< A dfm_contact_kind.
    int32_t vertices[3];     ///< The body's vertex indices of the feature (-1 padded).
    float weights[3];        ///< Barycentric weights of the contact point on the feature.
    float point[3];          ///< Contact point on the shape's surface, m, world frame.
    float normal[3];         ///< Unit normal from the shape toward the deformable (from detection).
    float normal_force;      ///< Force along `normal` on the deformable at the end of the advance (penalty and
                             ///< damping), N (>= 0: a push, never a pull).
    float friction_force[3]; ///< Friction force of the Coulomb projection on the deformable over the advance, N
                             ///< (tangential; the impulse divided by the substep).
} dfm_contact_point;

/// Copies the contacts of the last advance of the last step, at most `capacity` of them, into
/// `out` (elements `element_size` bytes apart: sizeof(dfm_contact_point) as the caller compiled
/// it; the library writes that many bytes of each, so older callers keep working), and their
/// total number into *out_count (may exceed capacity: call again with more room; out may be NULL
/// with capacity 0 to ask for the count only). On CUDA this copies the records from the device.
/// After bodies or shapes were added or removed, and until the next step, it reports none.
/// ABI 1.3.
DFM_API dfm_result dfm_world_get_contacts(dfm_world* world, dfm_contact_point* out, int32_t capacity,
                                          int32_t element_size, int32_t* out_count);

/// Fills `out` (whose struct_size the caller sets) with the contact counters of the last step.
DFM_API dfm_result dfm_world_get_contact_stats(dfm_world* world, dfm_contact_stats* out);

/// An empty contact stats struct with struct_size set.
static inline dfm_contact_stats dfm_contact_stats_init(void) {
    dfm_contact_stats s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

/// An empty shape info struct with struct_size set.
static inline dfm_shape_info dfm_shape_info_init(void) {
    dfm_shape_info s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

#ifdef __cplusplus
}
#endif

#endif
