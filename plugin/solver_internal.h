/// @file solver_internal.h
/// Private side of the solver providers (dfm_solver.h): the ops table every provider runs
/// through, the registry entries, and a world's current provider.
///
/// Every world always has a current provider (world->solver, never NULL after creation). Its ops
/// hold the entry points of dfm_solver_provider_v1 (create, destroy, import, step, export) in a
/// world-level form, plus the properties the world and the swap code read instead of asking
/// which provider it is. The built-ins give their own ops: vbd/cpu steps with dfm_step_cpu,
/// vbd/cuda with dfm_step_cuda (plugin/solver_vbd.c), xpbd with its host loop
/// (plugin/solver_xpbd.c). A third-party table registered through dfm_register_solver gets the
/// adapter ops of plugin/solver_registry.c, which hand it the dfm_solver_state view. Built-ins
/// are registered into the same registry as third-party tables, first.
#ifndef DFM_SOLVER_INTERNAL_H
#define DFM_SOLVER_INTERNAL_H

#include <dfm/dfm_solver.h>

#include "world_internal.h"

typedef struct dfm_world_solver dfm_world_solver;

/// How a provider runs on one backend. Functions that may be NULL say so; each returns DFM_OK or
/// a dfm_result after dfm_fail (the message names the provider).
typedef struct dfm_solver_ops {
    /// Creates the instance of `ws` (ws->instance; the world is not switched yet, its model is
    /// current). NULL: the provider keeps no instance.
    dfm_result (*create)(dfm_world* world, dfm_world_solver* ws, int32_t backend);
    /// Frees ws->instance (NULL is a no-op). NULL: nothing to free.
    void (*destroy)(dfm_world_solver* ws);
    /// Hands the world's state to `ws` when the world switches to it (after create). NULL: the
    /// provider reads the world's arrays at every step.
    dfm_result (*import_state)(dfm_world* world, dfm_world_solver* ws);
    /// Advances the world (whose current provider this is) by dt seconds. The model is current.
    /// Kinematic vertices end at their targets and become the start of the next step; shapes'
    /// current states become their previous ones.
    dfm_result (*step)(dfm_world* world, float dt);
    /// Writes state the provider keeps privately back into the world's host arrays before it is
    /// swapped out. NULL: it keeps none.
    dfm_result (*export_state)(dfm_world* world, dfm_world_solver* ws);
    /// dfm_world_prepare's work beyond the model and contact candidates. NULL: none.
    dfm_result (*prepare)(dfm_world* world);
    /// Called by dfm_world_set_solver_counts before the substep count grows to `substeps`, so that
    /// the next step allocates nothing. NULL: nothing to grow.
    dfm_result (*grow_substeps)(dfm_world* world, int32_t substeps);
    /// What a swap away from this provider restarts, for the swap's info line ("; restarted: ...");
    /// NULL: nothing.
    const char* swap_restarts;
    /// 1: the step guards itself against a non-finite state (step_guard.h, on the device); 0:
    /// dfm_world_step saves the host state before the step and rolls it back after a bad one.
    int guards_itself;
    /// 1: the world's contact records are this provider's, and dfm_world_get_contacts reports them.
    int reports_contacts;
} dfm_solver_ops;

/// A world's current provider.
struct dfm_world_solver {
    int32_t index;                       ///< Registry index.
    const dfm_solver_ops* ops;           ///< How it runs on the world's backend (static storage).
    const dfm_solver_provider_v1* table; ///< The registry's copy of its table (name, capabilities).
    void* instance;                      ///< Its instance (NULL for vbd).
    int64_t imported_generation;         ///< Model generation last handed to a third-party import_state.
};

/// A built-in provider: its table (name, description, capabilities, backends; the functions are
/// NULL, the ops run it) and its ops per backend (NULL where it does not run).
typedef struct dfm_solver_builtin {
    dfm_solver_provider_v1 table;
    const dfm_solver_ops* ops[DFM_BACKEND_CUDA + 1];
} dfm_solver_builtin;

/// The built-in providers, registered in this order (indices 0 and 1).
extern const dfm_solver_builtin dfm_solver_vbd;
extern const dfm_solver_builtin dfm_solver_xpbd;

/// Gives a new world its first provider: the built-in vbd on the world's backend (w->cuda set or
/// not). Returns DFM_ERROR_OUT_OF_HOST_MEMORY (after dfm_fail) when the record cannot be
/// allocated.
dfm_result dfm_solver_world_init(dfm_world* world);

/// Destroys the world's provider instance and record (world destruction; no export).
void dfm_solver_world_release(dfm_world* world);

#endif
