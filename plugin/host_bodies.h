/// @file host_bodies.h
/// Dynamic host bodies of a world (implicit two-way coupling, abi/include/dfm/dfm_coupling.h):
/// their mass and inertia as the host set them, the last step's corrections, and the step-time
/// bookkeeping of the CPU backend's solve (plugin/host_bodies.c).
#ifndef DFM_PLUGIN_HOST_BODIES_H
#define DFM_PLUGIN_HOST_BODIES_H

#include <dfm/dfm.h>
#include <dfm/dfm_coupling.h>
#include <stdint.h>

#include "host_bodies_cpu.h"

/// Most host bodies with dynamics in one world.
#define DFM_MAX_HOST_BODIES 65536
/// Largest host body mass, kg.
#define DFM_MAX_HOST_BODY_MASS 1e9f

/// One host body with dynamics.
typedef struct dfm_host_body_entry {
    uint64_t host_body;
    float mass;                  ///< kg.
    float inertia[9];            ///< kg m^2, world frame, row-major.
    int64_t solved_at;           ///< world step_count after the step that solved `last` (-1: none).
    float end_velocity[6];       ///< Its velocity at the end of the last solved step, corrected (m/s, rad/s).
    int has_end_velocity;        ///< 0 until a step solved it.
    float saved_end_velocity[6]; ///< end_velocity as the step that began at step_count saved_at found it.
    int saved_has_end_velocity;
    int64_t saved_at;              ///< world step_count when begin_step saved them (-1: never).
    dfm_host_body_correction last; ///< The last step's correction.
} dfm_host_body_entry;

/// The world's host bodies with dynamics, sorted by host_body, and the CPU solve's step scratch.
typedef struct dfm_host_bodies {
    int32_t count, cap;
    dfm_host_body_entry* entries;
    dfm_host_body_rt* rt;     ///< Step scratch: count.
    int32_t* shape_host;      ///< Step scratch: per live shape, its entry or -1 (shape_cap).
    int32_t* first_shape;     ///< Step scratch: per entry, its first live shape or -1 (first_cap).
    int32_t* record_offsets;  ///< Step scratch: 2 * count + 1.
    dfm_host_record* records; ///< Step scratch: records_cap.
    int32_t rt_cap, offsets_cap, shape_cap, records_cap, first_cap;
} dfm_host_bodies;

/// Frees the table and its scratch.
void dfm_host_bodies_free(dfm_host_bodies* hb);

/// Start of a vbd step of dt seconds (CPU or CUDA): sizes the scratch for the live shapes and
/// `records` records, maps each live shape to its body and each body to its first shape, zeroes every correction and spreads each body's
/// velocity kick of the host over the step; fills `out` (out->count 0 when the world has no host
/// body with dynamics).
dfm_result dfm_host_bodies_begin_step(dfm_world* w, int32_t records, float dt, dfm_cpu_host_solve* out);

/// After dfm_step_fill_shapes for an advance of length h: starts every body's correction from its
/// inertia (the last advance's rate) and places its shapes at the corrected start and end poses.
void dfm_host_bodies_begin_advance(dfm_cpu_host_solve* hs, float h);

/// After an advance: the correction's rate over it.
void dfm_host_bodies_end_advance(dfm_cpu_host_solve* hs, float h);

/// After the step's shapes were finished (dfm_step_finish_contacts): records the corrections and
/// starts the next step of each body's shapes from its corrected pose.
void dfm_host_bodies_finish_step(dfm_world* w, const dfm_cpu_host_solve* hs);

/// The step was refused or solved nothing for the bodies: no correction counts as solved.
void dfm_host_bodies_forget(dfm_world* w);

/// The step was refused (plugin/step_guard.c): forgets its corrections and restores each body's
/// end velocity to what it was before that step began, so the next step's kick is measured as if
/// the refused one had not happened.
void dfm_host_bodies_rollback(dfm_world* w);

#endif
