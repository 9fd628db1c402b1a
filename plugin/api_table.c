/// @file api_table.c
/// The ABI 1 entry table (see dfm_api.h).
#include <dfm/dfm_api.h>

#include <stdio.h>

static const dfm_api_v1 g_api_v1 = {
    (uint32_t)sizeof(dfm_api_v1),
    DFM_ABI_VERSION,
    dfm_abi_version,
    dfm_version,
    dfm_result_string,
    dfm_world_create,
    dfm_world_destroy,
    dfm_world_last_error,
    dfm_world_step,
    dfm_world_set_gravity,
    dfm_world_set_solver_counts,
    dfm_world_get_stats,
    dfm_world_get_particle_colors,
    dfm_world_get_positions,
    dfm_world_get_velocities,
    dfm_world_add_cloth,
    dfm_world_add_volume,
    dfm_world_remove_body,
    dfm_body_get_info,
    dfm_body_get_positions,
    dfm_body_set_positions,
    dfm_body_get_velocities,
    dfm_body_set_velocities,
    dfm_body_set_vertex_mode,
    dfm_body_set_kinematic_targets,
    dfm_cloth_grid_counts,
    dfm_cloth_grid_generate,
    dfm_tet_box_counts,
    dfm_tet_box_generate,
    dfm_world_add_shape,
    dfm_world_remove_shape,
    dfm_world_set_shape_states,
    dfm_shape_get_info,
    dfm_world_get_shape_reactions,
    dfm_world_get_contact_stats,
    dfm_device_count,
    dfm_solver_count,
    dfm_solver_get_info,
    dfm_register_solver,
    dfm_register_solver_library,
    dfm_world_set_solver,
    dfm_world_get_solver,
    dfm_world_set_profiling,
    dfm_world_get_phase_times,
    dfm_world_prepare,
    dfm_world_get_contacts,
    dfm_world_set_host_body_dynamics,
    dfm_world_get_host_body_corrections,
};

dfm_result dfm_get_api(uint32_t abi_version, const void** out_table, const char** out_message) {
    static _Thread_local char message[160];
    if (out_message) *out_message = "";
    if (!out_table) return DFM_ERROR_NULL_POINTER;
    *out_table = NULL;
    if ((abi_version >> 16) != DFM_ABI_VERSION_MAJOR) {
        snprintf(message, sizeof(message), "dfm %s implements ABI %u.%u; the host asked for ABI major %u",
                 dfm_version(), (unsigned)DFM_ABI_VERSION_MAJOR, (unsigned)DFM_ABI_VERSION_MINOR, abi_version >> 16);
        if (out_message) *out_message = message;
        return DFM_ERROR_ABI_MISMATCH;
    }
    *out_table = &g_api_v1;
    return DFM_OK;
}
