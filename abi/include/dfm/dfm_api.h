/// @file dfm_api.h
/// The plugin entry table: one exported function hands a host that loads libdfm at run time
/// (dlopen/LoadLibrary, resolving only `dfm_get_api`) every ABI function for the ABI major it
/// asks for. Fields are only ever appended (check `struct_size` before using a late field).
#ifndef DFM_API_TABLE_H
#define DFM_API_TABLE_H

#include "dfm_body.h"
#include "dfm_coupling.h"
#include "dfm_defaults.h"
#include "dfm_mesh.h"
#include "dfm_shape.h"
#include "dfm_solver.h"
#include "dfm_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Every function of ABI 1, by its name without the `dfm_` prefix.
typedef struct dfm_api_v1 {
    uint32_t struct_size; ///< sizeof(dfm_api_v1) as the library was compiled.
    uint32_t library_abi; ///< The library's ABI version (DFM_ABI_VERSION layout).
    uint32_t (*abi_version)(void);
    const char* (*version)(void);
    const char* (*result_string)(dfm_result result);
    dfm_result (*world_create)(uint32_t abi_version, const dfm_world_def* def, dfm_world** out_world);
    void (*world_destroy)(dfm_world* world);
    const char* (*world_last_error)(const dfm_world* world);
    dfm_result (*world_step)(dfm_world* world, float dt);
    dfm_result (*world_set_gravity)(dfm_world* world, const float gravity[3]);
    dfm_result (*world_set_solver_counts)(dfm_world* world, int32_t substeps, int32_t iterations);
    dfm_result (*world_get_stats)(dfm_world* world, dfm_world_stats* out);
    dfm_result (*world_get_particle_colors)(dfm_world* world, int32_t* out_colors, int32_t count);
    dfm_result (*world_get_positions)(dfm_world* world, int32_t first, int32_t count, float* out, int32_t stride_bytes);
    dfm_result (*world_get_velocities)(dfm_world* world, int32_t first, int32_t count, float* out,
                                       int32_t stride_bytes);
    dfm_result (*world_add_cloth)(dfm_world* world, const dfm_cloth_def* def, dfm_body_id* out_body);
    dfm_result (*world_add_volume)(dfm_world* world, const dfm_volume_def* def, dfm_body_id* out_body);
    dfm_result (*world_remove_body)(dfm_world* world, dfm_body_id body);
    dfm_result (*body_get_info)(dfm_world* world, dfm_body_id body, dfm_body_info* out);
    dfm_result (*body_get_positions)(dfm_world* world, dfm_body_id body, int32_t first, int32_t count, float* out,
                                     int32_t stride_bytes);
    dfm_result (*body_set_positions)(dfm_world* world, dfm_body_id body, int32_t first, int32_t count,
                                     const float* positions, int32_t stride_bytes);
    dfm_result (*body_get_velocities)(dfm_world* world, dfm_body_id body, int32_t first, int32_t count, float* out,
                                      int32_t stride_bytes);
    dfm_result (*body_set_velocities)(dfm_world* world, dfm_body_id body, int32_t first, int32_t count,
                                      const float* velocities, int32_t stride_bytes);
    dfm_result (*body_set_vertex_mode)(dfm_world* world, dfm_body_id body, const int32_t* vertices, int32_t count,
                                       dfm_vertex_mode mode);
    dfm_result (*body_set_kinematic_targets)(dfm_world* world, dfm_body_id body, const int32_t* vertices, int32_t count,
                                             const float* targets, int32_t stride_bytes);
    dfm_result (*cloth_grid_counts)(int32_t nu, int32_t nv, int32_t* out_vertex_count, int32_t* out_triangle_count);
    dfm_result (*cloth_grid_generate)(int32_t nu, int32_t nv, const float origin[3], const float axis_u[3],
                                      const float axis_v[3], float* out_positions, int32_t* out_triangles);
    dfm_result (*tet_box_counts)(int32_t nx, int32_t ny, int32_t nz, int32_t* out_vertex_count, int32_t* out_tet_count);
    dfm_result (*tet_box_generate)(int32_t nx, int32_t ny, int32_t nz, const float lo[3], const float hi[3],
                                   float* out_positions, int32_t* out_tets);
    dfm_result (*world_add_shape)(dfm_world* world, const dfm_shape_def* def, dfm_shape_id* out_shape);
    dfm_result (*world_remove_shape)(dfm_world* world, dfm_shape_id shape);
    dfm_result (*world_set_shape_states)(dfm_world* world, const dfm_shape_id* ids, int32_t id_stride,
                                         const dfm_shape_state* states, int32_t state_stride, int32_t count);
    dfm_result (*shape_get_info)(dfm_world* world, dfm_shape_id shape, dfm_shape_info* out);
    dfm_result (*world_get_shape_reactions)(dfm_world* world, const dfm_shape_id* ids, int32_t count, float* forces,
                                            float* torques, int32_t stride_bytes);
    dfm_result (*world_get_contact_stats)(dfm_world* world, dfm_contact_stats* out);
    int32_t (*device_count)(void);
    /* Solver providers (dfm_solver.h), appended in ABI 1.1. */
    int32_t (*solver_count)(void);
    dfm_result (*solver_get_info)(int32_t index, dfm_solver_info* out);
    dfm_result (*register_solver)(const dfm_solver_provider_v1* provider);
    dfm_result (*register_solver_library)(const char* path, const char** out_name);
    dfm_result (*world_set_solver)(dfm_world* world, const char* name, int32_t backend);
    dfm_result (*world_get_solver)(dfm_world* world, const char** out_name, int32_t* out_backend);
    dfm_result (*world_set_profiling)(dfm_world* world, int32_t enabled);
    dfm_result (*world_get_phase_times)(dfm_world* world, dfm_phase_times* out);
    /* Appended in ABI 1.2. */
    dfm_result (*world_prepare)(dfm_world* world);
    /* Appended in ABI 1.3. */
    dfm_result (*world_get_contacts)(dfm_world* world, dfm_contact_point* out, int32_t capacity, int32_t element_size,
                                     int32_t* out_count);
    /* Appended in ABI 1.6. */
    dfm_result (*world_set_host_body_dynamics)(dfm_world* world, const dfm_host_body_dynamics* bodies,
                                               int32_t stride_bytes, int32_t count);
    dfm_result (*world_get_host_body_corrections)(dfm_world* world, const uint64_t* host_bodies, int32_t count,
                                                  dfm_host_body_correction* out, int32_t stride_bytes);
} dfm_api_v1;

/// Gives the function table of ABI major `abi_version >> 16` in *out_table (a `const
/// dfm_api_v1*` for major 1; static storage, valid while the library is loaded). A major this
/// library does not implement is refused with DFM_ERROR_ABI_MISMATCH, *out_table = NULL and a
/// static message in *out_message (may be NULL). Thread safety: any thread.
DFM_API dfm_result dfm_get_api(uint32_t abi_version, const void** out_table, const char** out_message);

/// Signature of dfm_get_api, for hosts resolving it with dlsym/GetProcAddress.
typedef dfm_result (*dfm_get_api_fn)(uint32_t abi_version, const void** out_table, const char** out_message);

#ifdef __cplusplus
}
#endif

#endif
