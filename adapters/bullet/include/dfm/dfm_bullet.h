/// @file dfm_bullet.h
/// dfm inside an existing Bullet (2.8x/3.x C++ API) btDiscreteDynamicsWorld, as a C header.
///
/// The adapter registers one btActionInterface with the dynamics world. In every internal Bullet
/// substep, after Bullet has solved and integrated its rigid bodies, it:
///   1. translates collision objects it has not seen yet (or whose collision shape changed) into
///      dfm shapes, and removes the dfm shapes of objects that left the world or stopped passing
///      the collision filter;
///   2. hands dfm every tracked shape's body pose, velocities and world AABB in one bulk call
///      (dfm_world_set_shape_states);
///   3. steps the dfm world by the substep's dt (dfm_world_step);
///   4. applies the reaction of the deformables on each dynamic btRigidBody as a central impulse
///      plus a torque impulse and activates the body, so the reaction acts in the next Bullet
///      substep. By default (implicit_reactions) the impulse is the backward-Euler one for the
///      contact stiffness measured on that body (see dfm_bullet_def.implicit_reactions); otherwise
///      it is force * dt and torque * dt.
///
/// Units are Bullet's (the adapter assumes metres, kilograms and seconds). dfm is axis-agnostic:
/// Bullet's gravity vector is copied into dfm each tick (Y-up, Z-up or anything else works).
/// Precision: the library is built per Bullet precision: link dfm_bullet with Debian's float
/// Bullet (pkg-config `bullet`) and dfm_bullet_f64 with the double one (`bullet-float64`), and pass
/// sizeof(btScalar) in dfm_bullet_def.scalar_size so a mismatch is refused at attach time.
///
/// Threading: like a dfm world, an adapter is used from the thread that steps the Bullet world.
#ifndef DFM_BULLET_H
#define DFM_BULLET_H

#include <dfm/dfm.h>

// clang-format off
#if defined(__GNUC__)
#  define DFM_BULLET_API __attribute__((visibility("default")))
#else
#  define DFM_BULLET_API
#endif
// clang-format on

#ifdef __cplusplus
extern "C" {
#endif

/// Opaque adapter (one per Bullet world / dfm world pair).
typedef struct dfm_bullet dfm_bullet;

/// Where a collision object's dfm environment index comes from.
typedef enum dfm_bullet_env_source {
    DFM_BULLET_ENV_SHARED = 0,      ///< Every shape collides with every environment (-1).
    DFM_BULLET_ENV_USER_INDEX = 1,  ///< btCollisionObject::getUserIndex() (-1, Bullet's default, = shared).
    DFM_BULLET_ENV_USER_INDEX2 = 2, ///< btCollisionObject::getUserIndex2().
    DFM_BULLET_ENV_USER_INDEX3 = 3, ///< btCollisionObject::getUserIndex3().
    DFM_BULLET_ENV_MAX_ENUM = 0x7FFFFFFF
} dfm_bullet_env_source;

/// How dfm's reactions reach the dynamic rigid bodies (dfm_bullet_def.implicit_reactions).
typedef enum dfm_bullet_coupling {
    DFM_BULLET_COUPLING_EXPLICIT = 0, ///< Impulses F dt, T dt after the step (acts one substep late).
    DFM_BULLET_COUPLING_SECANT = 1,   ///< Backward Euler against a stiffness measured between ticks (see below).
    DFM_BULLET_COUPLING_SOLVED = 2,   ///< The body is solved with the deformables (dfm_coupling.h): the adapter
                                      ///< hands dfm each dynamic body's mass and world inertia, and adds dfm's
                                      ///< correction to its pose and velocities after the step. Where dfm does not
                                      ///< solve it (a CUDA world), that body falls back to SECANT (logged once).
    DFM_BULLET_COUPLING_MAX_ENUM = 0x7FFFFFFF
} dfm_bullet_coupling;

/// Adapter creation parameters. Initialize with dfm_bullet_def_default().
typedef struct dfm_bullet_def {
    uint32_t struct_size;       ///< sizeof(dfm_bullet_def) as compiled by the caller.
    dfm_world* world;           ///< The dfm world to drive (not owned; must outlive the adapter).
    void* dynamics_world;       ///< The host's btDiscreteDynamicsWorld* (any btDynamicsWorld*; not owned).
    uint32_t scalar_size;       ///< sizeof(btScalar) in the caller (4 or 8); 0 = not checked. Default 0.
    int32_t environment_source; ///< A dfm_bullet_env_source. Default DFM_BULLET_ENV_USER_INDEX3.
    int32_t filter_group;       ///< Bullet collision filter group of the deformables. Default 1
                                ///< (btBroadphaseProxy::DefaultFilter).
    int32_t filter_mask;        ///< Bullet collision filter mask of the deformables. Default -1 (all).
                                ///< An object is translated only when (its group & filter_mask) != 0
                                ///< and (filter_group & its mask) != 0, as Bullet's default filter does.
    int32_t sync_gravity;       ///< Nonzero: copy the Bullet world's gravity into dfm every tick. Default 1.
    int32_t apply_reactions;    ///< Nonzero: apply dfm's reactions to dynamic bodies (two-way). Default 1.
    int32_t implicit_reactions; ///< A dfm_bullet_coupling. Default DFM_BULLET_COUPLING_SOLVED.
                                ///< SECANT: each tick the adapter takes the secant stiffness k = -dF.dx / |dx|^2
                                ///< (N/m; dF the change of the body's reaction force, dx of its centre of
                                ///< mass since the last tick, world frame) and the rotational analogue
                                ///< (N*m/rad, torque against the rotation vector), keeps the larger of it
                                ///< and its remembered value (decaying with stiffness_half_life), and gives
                                ///< the body the velocity v' solving (m + k dt^2) v' = m v + dt (F + m g)
                                ///< (and (I + k_r dt^2) w' = I w + dt T). At rest (F = -m g, v = 0) this
                                ///< is exactly the explicit impulse; it removes the explicit coupling's
                                ///< instability when k dt^2 / m approaches 1 (stiff contacts on light
                                ///< bodies, cloth wrapped around a box), but it lags a substep: a heavy body
                                ///< on a soft cloth gains energy every bounce (docs/bullet.md).
    float stiffness_half_life;  ///< Half-life (s, > 0) of a body's remembered contact stiffness. Default 0.05.
    int32_t mu_from_friction;   ///< Nonzero: a shape's Coulomb mu is its object's getFriction(). Default 1.
    float mu;                   ///< Coulomb mu when mu_from_friction is 0. Default 0.5.
    float ke;                   ///< Contact stiffness of translated shapes, N/m. Default 1e4.
    float kd;                   ///< Contact damping of translated shapes, N*s/m. Default 10.
    float gap;                  ///< Speculative detection distance of translated shapes, m. Default 0.005.
    float mesh_cell_size;       ///< SDF cell of triangle-mesh / convex-hull shapes, m; 0 = automatic. Default 0.
    dfm_log_fn log_fn;          ///< Receives "skipped shape" warnings and tick errors; NULL = stderr. Default NULL.
    void* log_user;             ///< Passed to log_fn unchanged.
} dfm_bullet_def;

/// Default adapter def (world and dynamics_world still to be set).
static inline dfm_bullet_def dfm_bullet_def_default(void) {
    dfm_bullet_def d;
    dfm_zero_bytes(&d, sizeof(d));
    d.struct_size = (uint32_t)sizeof(d);
    d.environment_source = DFM_BULLET_ENV_USER_INDEX3;
    d.filter_group = 1;
    d.filter_mask = -1;
    d.sync_gravity = 1;
    d.apply_reactions = 1;
    d.implicit_reactions = DFM_BULLET_COUPLING_SOLVED;
    d.stiffness_half_life = 0.05f;
    d.mu_from_friction = 1;
    d.mu = 0.5f;
    d.ke = 1e4f;
    d.kd = 10.0f;
    d.gap = 0.005f;
    return d;
}

/// Per-object contact material overriding the adapter defaults (see dfm_bullet_set_object_material).
typedef struct dfm_bullet_material {
    uint32_t struct_size; ///< sizeof(dfm_bullet_material) as compiled by the caller.
    float ke;             ///< Contact stiffness, N/m (> 0).
    float kd;             ///< Contact damping, N*s/m (>= 0).
    float mu;             ///< Coulomb friction coefficient (>= 0); < 0 = use the adapter rule.
} dfm_bullet_material;

/// Counters of an adapter (filled by dfm_bullet_get_stats).
typedef struct dfm_bullet_stats {
    uint32_t struct_size;     ///< sizeof(dfm_bullet_stats) as compiled by the caller.
    int32_t objects_tracked;  ///< Collision objects that currently have dfm shapes.
    int32_t objects_filtered; ///< Objects skipped in the last tick by the collision filter, no-contact-response flag
                              ///< or type.
    int32_t shapes;           ///< dfm shapes currently owned by the adapter.
    int32_t shapes_skipped;   ///< Leaf shapes that could not be translated (each logged once), since attach.
    int64_t ticks;            ///< Bullet substeps the adapter has run.
    int64_t impulses_applied; ///< Body impulses applied (one per dynamic body with a nonzero reaction per tick).
    int64_t tick_errors;      ///< Ticks in which a dfm call failed (logged; see dfm_bullet_last_error).
} dfm_bullet_stats;

/// Returns the adapter's stats struct with struct_size set.
static inline dfm_bullet_stats dfm_bullet_stats_init(void) {
    dfm_bullet_stats s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

/// sizeof(btScalar) this adapter library was built with (4: float Bullet, 8: float64 Bullet).
DFM_BULLET_API uint32_t dfm_bullet_scalar_size(void);

/// Attaches dfm to a Bullet dynamics world: registers the adapter's action (addAction) and
/// translates the world's current collision objects. On failure *out is NULL and the returned
/// code's reason is in dfm_bullet_last_error(NULL) (e.g. DFM_ERROR_NULL_POINTER for a missing
/// world, DFM_ERROR_ABI_MISMATCH for a scalar_size that differs from this build's).
DFM_BULLET_API dfm_result dfm_bullet_attach(const dfm_bullet_def* def, dfm_bullet** out);

/// Removes the action from the Bullet world and the adapter's shapes from the dfm world, and frees
/// the adapter. NULL is a no-op. Neither world is destroyed.
DFM_BULLET_API void dfm_bullet_detach(dfm_bullet* adapter);

/// Sets the contact material of one collision object's shapes (btCollisionObject*), before or
/// after it is translated (its shapes are re-created with the new material at the next tick).
DFM_BULLET_API dfm_result dfm_bullet_set_object_material(dfm_bullet* adapter, const void* collision_object,
                                                         const dfm_bullet_material* material);

/// Brings the adapter's shapes up to date with the Bullet world now (the action also does it at
/// the start of every tick). Useful to query shapes before the first step.
DFM_BULLET_API dfm_result dfm_bullet_sync_objects(dfm_bullet* adapter);

/// Copies the dfm shape ids of one collision object (leaf shapes, compound children in order)
/// into out[0..capacity); *out_count receives how many it has (may exceed capacity).
DFM_BULLET_API dfm_result dfm_bullet_get_object_shapes(dfm_bullet* adapter, const void* collision_object,
                                                       dfm_shape_id* out, int32_t capacity, int32_t* out_count);

/// Fills `out` (whose struct_size the caller sets) with the adapter's counters.
DFM_BULLET_API dfm_result dfm_bullet_get_stats(const dfm_bullet* adapter, dfm_bullet_stats* out);

/// Last error message of the adapter (empty if none); with NULL, the last failed attach's message.
DFM_BULLET_API const char* dfm_bullet_last_error(const dfm_bullet* adapter);

#ifdef __cplusplus
}
#endif

#endif
