/// @file dfm_defaults.h
/// The default of every creation def, in one place, as named assignments (each value is also
/// documented at its field). Each sets struct_size with the caller's compiler; start from one
/// and change what differs:
///   dfm_world_def wd = dfm_world_def_default(); wd.substeps = 8;
#ifndef DFM_DEFAULTS_H
#define DFM_DEFAULTS_H

#include "dfm_shape.h"
#include "dfm_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The default world def.
static inline dfm_world_def dfm_world_def_default(void) {
    dfm_world_def d;
    dfm_zero_bytes(&d, sizeof(d));
    d.struct_size = (uint32_t)sizeof(d);
    d.gravity[2] = -9.81f;
    d.substeps = 4;
    d.iterations = 10;
    d.environment_count = 1;
    d.backend = DFM_BACKEND_AUTO;
    d.device_index = 0;
    d.cpu_threads = 0;
    d.log_fn = NULL;
    d.log_user = NULL;
    d.log_level = DFM_LOG_WARNING;
    d.contact_capacity = 0;
    d.disable_flags = 0u;
    d.contact_penalty_beta = 0.0f;
    d.contact_penalty_start = 1000.0f;
    d.deterministic = 0;
    d.cuda_stream = NULL;
    d.feature_flags = 0u;
    d.deformable_contact_radius = 0.0f;
    d.deformable_contact_ke = 1e3f;
    d.deformable_contact_mu = 0.5f;
    d.deformable_pair_capacity = 0;
    return d;
}

/// The default cloth def (its mesh still to be set).
static inline dfm_cloth_def dfm_cloth_def_default(void) {
    dfm_cloth_def d;
    dfm_zero_bytes(&d, sizeof(d));
    d.struct_size = (uint32_t)sizeof(d);
    d.environment = 0;
    d.positions = NULL;
    d.position_stride = 0;
    d.vertex_count = 0;
    d.triangles = NULL;
    d.triangle_count = 0;
    d.vertex_masses = NULL;
    d.density = 0.2f;
    d.stretch_mu = 2000.0f;
    d.stretch_lambda = 2000.0f;
    d.stretch_damping = 0.01f;
    d.bend_stiffness = 1e-3f;
    d.bend_damping = 1e-5f;
    d.contact_radius = 0.002f;
    d.air_drag = 0.0f;
    d.self_collision = 1;
    d.collision_group = 1u;
    d.collision_mask = 0xFFFFFFFFu;
    return d;
}

/// The default volume def (its mesh still to be set).
static inline dfm_volume_def dfm_volume_def_default(void) {
    dfm_volume_def d;
    dfm_zero_bytes(&d, sizeof(d));
    d.struct_size = (uint32_t)sizeof(d);
    d.environment = 0;
    d.positions = NULL;
    d.position_stride = 0;
    d.vertex_count = 0;
    d.tets = NULL;
    d.tet_count = 0;
    d.vertex_masses = NULL;
    d.density = 1000.0f;
    d.mu = 1e5f;
    d.lambda = 1e6f;
    d.damping = 10.0f;
    d.contact_radius = 0.002f;
    d.self_collision = 0;
    d.collision_group = 1u;
    d.collision_mask = 0xFFFFFFFFu;
    return d;
}

/// The default shape def: a sphere of radius 0.5 m until type and dimensions are set.
static inline dfm_shape_def dfm_shape_def_default(void) {
    dfm_shape_def d;
    dfm_zero_bytes(&d, sizeof(d));
    d.struct_size = (uint32_t)sizeof(d);
    d.type = DFM_SHAPE_SPHERE;
    d.environment = -1;
    d.host_body = 0u;
    d.local_position[0] = d.local_position[1] = d.local_position[2] = 0.0f;
    d.local_rotation[0] = d.local_rotation[1] = d.local_rotation[2] = 0.0f;
    d.local_rotation[3] = 1.0f;
    d.radius = 0.5f;
    d.half_height = 0.0f;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.0f;
    d.mesh_vertices = NULL;
    d.mesh_vertex_count = 0;
    d.mesh_triangles = NULL;
    d.mesh_triangle_count = 0;
    d.sdf_cell_size = 0.0f;
    d.margin = 0.0f;
    d.gap = 0.005f;
    d.ke = 1e4f;
    d.kd = 10.0f;
    d.mu = 0.5f;
    return d;
}

#ifdef __cplusplus
}
#endif

#endif
