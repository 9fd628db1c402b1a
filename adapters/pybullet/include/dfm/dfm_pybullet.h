/// @file dfm_pybullet.h
/// The bridge between Python and the dfm world of the pybullet physics-server plugin
/// (libdfm_pybullet.so, adapters/pybullet). pybullet loads the plugin into a physics server with
/// `loadPlugin(path, "_dfm")`; the plugin then steps a dfm world inside every internal step of that
/// server (its pre-tick callback) with the server's rigid bodies as dfm shapes. Python reaches the
/// same world through these functions, called with ctypes on the same library file (dlopen of the
/// path pybullet already loaded gives the same copy), and through dfm's own ABI on the world
/// pointer dfm_pyb_world returns (docs/pybullet.md).
///
/// An instance is the plugin loaded into one physics server (one pybullet client). Its key comes
/// from `executePluginCommand(plugin_id, intArgs=[DFM_PYB_COMMAND_INSTANCE_KEY])`; keys are never
/// reused, so a key whose server was disconnected (the plugin exited) is refused, not confused
/// with another. Every function takes the key and validates it.
///
/// Threading: an instance is used from the thread that steps its server (DIRECT mode: the Python
/// thread, under the GIL). The registry of instances is locked; instances are not.
#ifndef DFM_PYBULLET_H
#define DFM_PYBULLET_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DFM_PYB_API __attribute__((visibility("default")))
#else
#define DFM_PYB_API
#endif

/// Version of this bridge; the Python package refuses a library with another.
#define DFM_PYB_BRIDGE_VERSION 2

/// executePluginCommand ints[0]: returns the instance key (>= 0) of the calling client's server.
#define DFM_PYB_COMMAND_INSTANCE_KEY 1

/// How reactions reach the pybullet bodies (dfm_pyb_create_world).
typedef enum dfm_pyb_coupling {
    DFM_PYB_COUPLING_NONE = 0,     ///< One-way: the deformables feel the bodies, the bodies feel nothing.
    DFM_PYB_COUPLING_EXPLICIT = 1, ///< The whole tick runs in the pre-tick: each reaction force and torque acts on
                                   ///< its body or link in this Bullet step. A stiff contact with a heavy body
                                   ///< can chatter (a box resting on a soft cube falls off).
    DFM_PYB_COUPLING_IMPLICIT = 2, ///< The tick runs in the post-tick: dynamic bodies without joints that touch
                                   ///< no other pybullet body are solved by dfm with the deformables
                                   ///< (dfm_coupling.h) and get dfm's correction of pose and velocities; the
                                   ///< others get explicit reactions in the next step. The Python default.
    DFM_PYB_COUPLING_MAX_ENUM = 0x7FFFFFFF
} dfm_pyb_coupling;

/// Bridge version the library was built with (DFM_PYB_BRIDGE_VERSION).
DFM_PYB_API int32_t dfm_pyb_bridge_version(void);

/// Creates the instance's dfm world: `backend` a dfm_backend, `substeps` and `iterations` per
/// server tick (0 = dfm's defaults, 4 x 10), `coupling` a dfm_pyb_coupling. Gravity follows the
/// server's every tick. DFM_ERROR_INVALID_STATE when the instance already has a world,
/// DFM_ERROR_STALE_ID for an unknown key; dfm_world_create's errors pass through. The message is
/// in dfm_pyb_last_error.
DFM_PYB_API dfm_result dfm_pyb_create_world(int32_t key, int32_t backend, int32_t substeps, int32_t iterations,
                                            int32_t coupling);

/// The instance's dfm world (owned by the plugin, destroyed when the server disconnects), or NULL
/// for an unknown key or an instance without a world.
DFM_PYB_API dfm_world* dfm_pyb_world(int32_t key);

/// The last error of the instance (bridge calls and ticks), or a message saying the key is
/// unknown. Valid until the next call on the instance.
DFM_PYB_API const char* dfm_pyb_last_error(int32_t key);

/// The first error of a tick since the last call (a dfm_result; DFM_OK if none), and clears it.
/// A failed tick leaves the bodies without reactions for that tick; the message stays in
/// dfm_pyb_last_error.
DFM_PYB_API int32_t dfm_pyb_take_tick_error(int32_t key);

/// Number of ticks the instance has run (server substeps with a world), or -1 for an unknown key.
DFM_PYB_API int64_t dfm_pyb_tick_count(int32_t key);

/// Number of dfm shapes the plugin tracks (supported collision shapes of all bodies and links),
/// or -1 for an unknown key.
DFM_PYB_API int32_t dfm_pyb_shape_count(int32_t key);

/// The last tick's reactions, summed per pybullet body and link: entry i writes
/// body_links[2i] = body unique id, body_links[2i+1] = link index (-1 = base), and wrenches[6i..]
/// = force (N, world frame) and torque (N m, world frame, about the link's centre of mass).
/// Writes at most `capacity` entries and returns how many there are (call with capacity 0 to
/// size), or -1 for an unknown key.
DFM_PYB_API int32_t dfm_pyb_reactions(int32_t key, int32_t* body_links, double* wrenches, int32_t capacity);

/// Hands the plugin the triangles of GEOM_MESH entry `shape` (its index in
/// getCollisionShapeData(body, link)) of a body's link (-1 = base), for a concave mesh whose
/// triangles pybullet's C API does not return (one made by createCollisionShape with indices, or
/// with GEOM_FORCE_CONCAVE_TRIMESH). `vertices`: 3 doubles each in the entry's frame, multiplied by
/// `mesh_scale` (3 doubles) as createCollisionShape does; `indices`: 3 per triangle,
/// counter-clockwise seen from outside; both copied. Vertices with identical coordinates are
/// welded; the mesh must then be closed (every edge used once each way). It replaces what pybullet
/// reports for that entry from the next tick on and stays until the body is removed.
/// DFM_ERROR_STALE_ID for an unknown key, DFM_ERROR_NULL_POINTER, DFM_ERROR_INVALID_COUNT,
/// DFM_ERROR_INDEX_OUT_OF_RANGE, DFM_ERROR_NON_FINITE, DFM_ERROR_INVALID_VALUE (an open mesh), with
/// the message in dfm_pyb_last_error. (Bridge 2.)
DFM_PYB_API dfm_result dfm_pyb_set_mesh(int32_t key, int32_t body, int32_t link, int32_t shape, const double* vertices,
                                        int32_t vertex_count, const int32_t* indices, int32_t index_count,
                                        const double* mesh_scale);

/// Number of messages the plugin has logged (unsupported shapes and bodies, warnings), or -1.
DFM_PYB_API int32_t dfm_pyb_message_count(int32_t key);

/// Message `index` (0-based), or NULL when out of range.
DFM_PYB_API const char* dfm_pyb_message(int32_t key, int32_t index);

/// sizeof of the dfm defs the Python package mirrors: 1 dfm_cloth_def, 2 dfm_volume_def; 0 otherwise.
DFM_PYB_API uint32_t dfm_pyb_def_size(int32_t which);

/// Writes dfm_cloth_def_default() (the header's inline default, which ctypes cannot call).
DFM_PYB_API void dfm_pyb_cloth_def_default(dfm_cloth_def* out);

/// Writes dfm_volume_def_default().
DFM_PYB_API void dfm_pyb_volume_def_default(dfm_volume_def* out);

#ifdef __cplusplus
}
#endif

#endif
