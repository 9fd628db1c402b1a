/// @file solver_internal.h
/// Private side of the solver providers (dfm_solver.h): the registry, a world's current
/// provider, and the built-in "xpbd" solver's entry points.
#ifndef DFM_SOLVER_INTERNAL_H
#define DFM_SOLVER_INTERNAL_H

#include <dfm/dfm_solver.h>

#include "world_internal.h"

/// How a registry entry is implemented.
enum { DFM_SOLVER_KIND_VBD = 0, DFM_SOLVER_KIND_XPBD = 1, DFM_SOLVER_KIND_EXTERNAL = 2 };

/// A world's provider other than the default (NULL world->solver = built-in vbd on the world's
/// backend, stepped by the paths in world.c / step.c).
typedef struct dfm_world_solver {
    int32_t index;                       ///< Registry index.
    int32_t kind;                        ///< DFM_SOLVER_KIND_*.
    const dfm_solver_provider_v1* table; ///< Registry's copy of the table (external providers).
    void* instance;                      ///< The provider's instance.
    int64_t imported_generation;         ///< Model generation last handed to import_state.
} dfm_world_solver;

/// Steps a world whose world->solver is set (xpbd or an external provider). The model must be
/// current. Kinematic vertices end at their targets; shapes' current states become previous.
dfm_result dfm_solver_world_step(dfm_world* world, float dt);

/// Hands the state back and destroys the world's provider instance (world destruction).
void dfm_solver_world_release(dfm_world* world);

/// Built-in xpbd: instance lifetime and one host step (see plugin/solver_xpbd.c).
void* dfm_xpbd_create(void);
void dfm_xpbd_destroy(void* instance);
dfm_result dfm_xpbd_step(dfm_world* world, void* instance, float dt);

#endif
