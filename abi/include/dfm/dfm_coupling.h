/// @file dfm_coupling.h
/// Implicit two-way coupling of dynamic host rigid bodies (ABI 1.6).
///
/// Without it a host applies dfm_world_get_shape_reactions to its dynamic bodies after the step:
/// the reaction acts one host step late, which pumps energy into a heavy body resting on a soft
/// deformable and lets a stiff contact chatter (docs/bullet.md). With it the host gives dfm the
/// mass and inertia of each dynamic body whose shapes touch deformables; dfm then integrates that
/// body together with the deformables, as one more block of its solve (backward Euler over each
/// advance, the body's inertia against its contacts' forces), and hands back the correction the
/// contacts caused.
///
/// Per tick, for a body with dynamics:
///   1. the host integrates the body without dfm's reaction (gravity, its own forces and joints)
///      and sets the resulting pose with dfm_world_set_shape_states, as for any shape: this is the
///      body's free motion over the step;
///   2. dfm_world_step moves the body's shapes along that free motion plus the correction, solved
///      with the deformables;
///   3. the host reads dfm_world_get_host_body_corrections and adds them to the body's pose and
///      velocity (and does not apply the reactions to it as well: they are in the correction).
///
/// The next step starts the body's shapes from the corrected pose. Supported by the built-in vbd
/// solver on the CPU and CUDA backends; elsewhere (xpbd, a registered provider) the step solves
/// nothing for the body and the correction's `solved` is 0 (the host then applies the reactions
/// itself). Same ownership, threading and error
/// rules as dfm_world.h.
#ifndef DFM_COUPLING_H
#define DFM_COUPLING_H

#include "dfm_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The dynamics of one host body (ABI 1.6).
typedef struct dfm_host_body_dynamics {
    uint64_t host_body; ///< The body, as in dfm_shape_def.host_body.
    float mass;         ///< kg, > 0; 0 removes the body's dynamics (its shapes follow the host's poses again).
    float inertia[9];   ///< Inertia tensor about the body origin (the pose's position: its centre of mass),
                        ///< world frame at the pose last set, kg m^2, row-major, symmetric positive definite.
                        ///< All zeros: the body's rotation is not coupled (it turns as the host says).
} dfm_host_body_dynamics;

/// What the contacts with deformables did to one host body over the last step (ABI 1.6), world
/// frame. The host adds these to the pose and velocities it set for the step's end.
typedef struct dfm_host_body_correction {
    uint64_t host_body;        ///< The body.
    int32_t solved;            ///< 1: the last step solved the body's coupling; 0: it did not (another backend
                               ///< or solver, or no step yet) and every value below is 0.
    float position[3];         ///< Add to the body origin, m.
    float rotation[3];         ///< Rotation vector (axis times angle, rad) about the body origin: the new
                               ///< orientation is exp(rotation) times the one set.
    float linear_velocity[3];  ///< Add to the body's linear velocity, m/s.
    float angular_velocity[3]; ///< Add to its angular velocity, rad/s.
} dfm_host_body_correction;

/// Sets (mass > 0) or removes (mass 0) the dynamics of `count` host bodies: bodies[i] at
/// `stride_bytes` apart (0 = packed). A body keeps its dynamics until they are set again; update
/// the world-frame inertia every tick as the body turns. A body may have dynamics before it has
/// shapes. Validates everything before changing anything: DFM_ERROR_NON_FINITE, or
/// DFM_ERROR_INVALID_VALUE for a negative or too large mass (above 1e9 kg) or an inertia that is
/// not symmetric positive definite (or all zero); DFM_ERROR_CAPACITY above 65536 bodies.
DFM_API dfm_result dfm_world_set_host_body_dynamics(dfm_world* world, const dfm_host_body_dynamics* bodies,
                                                    int32_t stride_bytes, int32_t count);

/// Writes the last step's correction of each of `count` host bodies (host_bodies[i] into out[i],
/// `stride_bytes` apart, 0 = packed). DFM_ERROR_INVALID_VALUE for a body without dynamics.
DFM_API dfm_result dfm_world_get_host_body_corrections(dfm_world* world, const uint64_t* host_bodies, int32_t count,
                                                       dfm_host_body_correction* out, int32_t stride_bytes);

#ifdef __cplusplus
}
#endif

#endif
