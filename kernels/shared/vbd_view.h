/// @file vbd_view.h
/// A plain view (pointers + counts) of the world-wide model and state that the per-particle VBD
/// functions read. Both backends fill one: the CPU with host arrays, CUDA with device arrays.
#ifndef DFM_VBD_VIEW_H
#define DFM_VBD_VIEW_H

#include <stdint.h>

/// Inputs of one VBD advance. Positions in m, world frame; masses in kg; h in s.
typedef struct dfm_vbd_view {
    int32_t particle_count;
    const float* mass;         ///< kg per particle.
    const float* drag;         ///< Linear air drag per particle in kg/s.
    const float* radius;       ///< Contact radius per particle, m.
    const uint8_t* mode;       ///< dfm_vertex_mode per particle (0 dynamic, 1 pinned, 2 kinematic).
    float* x;                  ///< Current iterate, 3 per particle.
    float* v;                  ///< Velocities, 3 per particle.
    const float* guess_normal; ///< Per particle: contact normal for the initial guess (0 = none); may be NULL.
    const float* guess_gap;    ///< Per particle: distance to contact along guess_normal, m (>= 0).
    float* x_prev;             ///< Positions at the start of the advance.
    float* d;                  ///< Displacement of the iterate from x_prev (x = x_prev + d).
    float* y;                  ///< Inertia displacement target (h v + h^2 g for dynamic particles).
    const float* kin_start;    ///< Kinematic vertices: position at step start.
    const float* kin_target;   ///< Kinematic vertices: position at step end.
    const int32_t* tris;       ///< 3 per triangle.
    const float* tri_dinv;     ///< 4 per triangle.
    const float* tri_area;     ///< m^2.
    const float* tri_material; ///< mu, lambda, damping per triangle.
    int32_t edge_count;        ///< Bending edges.
    const int32_t* edges;      ///< o0, o1, v0, v1 per bending edge.
    const float* edge_rest_angle;
    const float* edge_rest_length;
    const float* edge_material; ///< stiffness, damping per edge.
    float* edge_start_angle;    ///< Per edge: hinge angle at x_prev (NaN = degenerate), filled once per
                                ///< advance by dfm_vbd_edge_start_angle; NULL = recompute per use.
    const int32_t* tets;        ///< 4 per tet.
    const float* tet_dminv;     ///< 9 per tet.
    const float* tet_volume;    ///< m^3.
    const float* tet_material;  ///< mu, lambda, damping per tet.
    float* tri_coef;  ///< Per triangle, 3: dfm_membrane_coef, filled once per step (vbd_coef.h); NULL = per visit.
    float* edge_coef; ///< Per edge, 2: dfm_bending_coef, filled once per step; NULL = per visit.
    float* tet_coef;  ///< Per tet, 3: dfm_tet_coef, filled once per step; NULL = per visit.
    const int32_t* v_tri_offsets; ///< Adjacency CSR (see plugin/topology.h).
    const int32_t* v_tri_items;
    const int32_t* v_edge_offsets;
    const int32_t* v_edge_items;
    const int32_t* v_tet_offsets;
    const int32_t* v_tet_items;
    float gravity[3]; ///< m/s^2.
    float h;          ///< Substep length in s.
} dfm_vbd_view;

#endif
