/// @file body.h
/// Private layout of one deformable body record (topology and rest data derived once, when the
/// host adds the body), and the body functions of plugin/body.c.
#ifndef DFM_PLUGIN_BODY_H
#define DFM_PLUGIN_BODY_H

#include <dfm/dfm.h>
#include <stdint.h>

#include "coloring.h"

/// Body kinds (match dfm_body_info.kind).
enum { DFM_BODY_CLOTH = 1, DFM_BODY_VOLUME = 2 };

/// One deformable body as the host described it, with topology and rest data derived once.
/// Indices are body-local.
typedef struct dfm_body {
    int32_t kind;        ///< DFM_BODY_CLOTH or DFM_BODY_VOLUME.
    int32_t environment; ///< -1 shared, else environment index.
    int32_t vertex_count;
    float* mass;              ///< kg per vertex (lumped).
    float* initial_positions; ///< m; consumed by the first rebuild that places the body, then freed.
    uint8_t* initial_mode;    ///< Vertex modes set before the body is placed (NULL = all dynamic); freed with
                              ///< initial_positions.
    float contact_radius;     ///< m.
    int32_t self_collision;   ///< 1: collides with itself (deformable contact, ABI 1.7).
    uint32_t collision_group; ///< Deformable contact group bits.
    uint32_t collision_mask;  ///< Groups it collides with.
    float* drag;              ///< Linear air drag per vertex in kg/s (NULL = none).
    int32_t triangle_count;
    int32_t* triangles;      ///< 3 per triangle.
    float* tri_dinv;         ///< 4 per triangle (rest D^-1, row-major 2x2).
    float* tri_area;         ///< m^2 per triangle.
    float tri_material[3];   ///< mu, lambda (N/m), damping.
    int32_t edge_count;      ///< Bending edges (interior edges only).
    int32_t* edges;          ///< 4 per edge: o0, o1, v0, v1.
    float* edge_rest_angle;  ///< rad.
    float* edge_rest_length; ///< m.
    float edge_material[2];  ///< bend stiffness, bend damping (per m of edge).
    int32_t tet_count;
    int32_t* tets;         ///< 4 per tet.
    float* tet_dminv;      ///< 9 per tet (rest Dm^-1, row-major).
    float* tet_volume;     ///< m^3 per tet.
    float tet_material[3]; ///< mu, lambda (Pa), damping (Pa*s).
    dfm_coloring coloring; ///< Body-local particle coloring (computed once at creation).
    int32_t surf_particle_count;
    int32_t* surf_particles; ///< Vertices that can touch shapes (cloth: all; volume: surface).
    int32_t surf_edge_count;
    int32_t* surf_edges; ///< 2 per unique surface edge.
    int32_t surf_face_count;
    int32_t* surf_faces;    ///< 3 per surface triangle (cloth triangles; volume boundary faces, outward).
    int32_t first_particle; ///< Offset in the world-wide arrays, -1 until placed.
} dfm_body;

/// Frees a body record.
void dfm_body_free(dfm_body* body);

/// Resolves an id to a live body, or fails with STALE_ID / FOREIGN_ID / NULL id messages.
dfm_result dfm_resolve_body(dfm_world* world, dfm_body_id id, dfm_body** out);

#endif
