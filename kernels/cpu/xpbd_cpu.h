/// @file xpbd_cpu.h
/// CPU loops of the "xpbd" solver over the constraints of kernels/shared/xpbd_constraints.h.
#ifndef DFM_XPBD_CPU_H
#define DFM_XPBD_CPU_H

#include <stdint.h>

#include "contact_view.h"

/// Everything one XPBD small step reads and writes (host arrays). Positions in m, world frame.
typedef struct dfm_xpbd_view {
    int32_t particle_count;
    const float* inv_mass;   ///< 1/kg per particle; 0 for pinned and kinematic particles.
    const float* drag;       ///< Linear air drag per particle, kg/s.
    const float* mass;       ///< kg per particle.
    const uint8_t* mode;     ///< dfm_vertex_mode per particle.
    float* x;                ///< Positions, 3 per particle.
    float* v;                ///< Velocities, 3 per particle (m/s).
    float* x_prev;           ///< Positions at the start of the small step.
    float* d;                ///< Displacement over the small step (x = x_prev + d), kept apart so
                             ///< that velocities d / h never subtract two nearby positions.
    const float* kin_start;  ///< Kinematic: position at the host step's start.
    const float* kin_target; ///< Kinematic: position at the host step's end.
    int32_t dist_count;      ///< Distance constraints (unique element edges).
    const int32_t* dist;     ///< 2 particles each.
    const float* dist_rest;  ///< Rest length, m.
    const float* dist_alpha; ///< Compliance, m/N.
    const float* dist_beta;  ///< Damping, N s/m.
    int32_t bend_count;      ///< Bending hinges.
    const int32_t* bends;    ///< o0, o1, v0, v1 each.
    const float* bend_rest;  ///< Rest angle, rad.
    const float* bend_alpha; ///< Compliance, 1/(N m) per rad^2.
    const float* bend_beta;  ///< Damping, N m s.
    int32_t vol_count;       ///< Tet volume constraints.
    const int32_t* tets;     ///< 4 particles each.
    const float* vol_rest;   ///< Rest volume, m^3.
    const float* vol_alpha;  ///< Compliance, 1/J.
    const float* vol_beta;   ///< Damping, J s.
    float gravity[3];        ///< m/s^2.
} dfm_xpbd_view;

/// Start of a small step of h seconds ending at fraction `alpha_end` of the host step:
/// x_prev = x; dynamic particles: implicit drag, v += h g, d = h v; pinned: v = 0, d = 0;
/// kinematic: d = lerp(kin_start, kin_target, alpha_end) - x_prev; then x = x_prev + d.
void dfm_cpu_xpbd_predict(const dfm_xpbd_view* v, float h, float alpha_end);

/// One Gauss-Seidel pass over the distance, bending and volume constraints (in that order,
/// each in index order: deterministic), multipliers starting at zero.
void dfm_cpu_xpbd_solve_elements(const dfm_xpbd_view* v, float h);

/// One pass over the active contact records of `c` (normal projection, then position-level
/// Coulomb friction per record) for the small step covering fractions [u0, u1] of the advance
/// the records were detected in. Accumulates the reaction impulse on each shape (6 per shape:
/// N s and N m s about the host body origin) into shape_impulse and the contact impulse on the
/// particles into particle_impulse. Returns the deepest penetration left, m.
float dfm_cpu_xpbd_contacts(const dfm_contact_view* c, const dfm_xpbd_view* v, float h, float u0, float u1,
                            double* shape_impulse, double particle_impulse[3]);

/// End of a small step: v = d / h for dynamic and kinematic particles, 0 for pinned.
void dfm_cpu_xpbd_velocity(const dfm_xpbd_view* v, float h);

#endif
