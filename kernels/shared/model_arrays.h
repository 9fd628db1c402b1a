/// @file model_arrays.h
/// The arrays of the world-wide model and state (plugin/model.h), one X-macro row each, in the
/// manner of MuJoCo's mjxmacro.h: X(type, name, count, width) is an array `name` of `count` items
/// of `width` values of `type`, where `count` names a count of dfm_model (particle_count,
/// tri_count, edge_count, tet_count, feat_*_count). The rows declare dfm_model and dfm_state and
/// drive their allocation and freeing (plugin/model_build.c), the host views (plugin/host_view.c),
/// the CUDA model and state uploads (plugin/backend_sync.c, kernels/cuda/vbd_cuda.cu) and the
/// feature upload (kernels/cuda/contacts_cuda.cu). A field of the same name carries the array in
/// each of those structs (dfm_vbd_view, dfm_cuda_model_desc, dfm_contact_view, ...).
///
/// Arrays that are not `count` x `width` are not rows and are written out where they are used:
/// the CSR offsets (dfm_model.body_offsets, body_count + 1; color_offsets, color_count + 1, sized
/// only once the colors are counted) and the adjacency (dfm_adjacency, plugin/topology.h: its item
/// arrays are sized by their offsets).
#ifndef DFM_MODEL_ARRAYS_H
#define DFM_MODEL_ARRAYS_H

/// Model arrays that the VBD view reads (dfm_vbd_view, kernels/shared/vbd_view.h).
#define DFM_MODEL_VIEW_ARRAYS(X)                                                                        \
    X(float, mass, particle_count, 1)         /* kg. */                                                 \
    X(float, drag, particle_count, 1)         /* kg/s, linear air drag. */                              \
    X(float, radius, particle_count, 1)       /* m, contact radius. */                                  \
    X(int32_t, tris, tri_count, 3)            /* World particle indices. */                             \
    X(float, tri_dinv, tri_count, 4)          /* Inverse rest edge matrix (2 x 2). */                   \
    X(float, tri_area, tri_count, 1)          /* Rest area, m^2. */                                     \
    X(float, tri_material, tri_count, 3)      /* mu, lambda, damping. */                                \
    X(int32_t, edges, edge_count, 4)          /* o0, o1, v0, v1 in world particle indices (-1 none). */ \
    X(float, edge_rest_angle, edge_count, 1)  /* Rest hinge angle. */                                   \
    X(float, edge_rest_length, edge_count, 1) /* m. */                                                  \
    X(float, edge_material, edge_count, 2)    /* Stiffness, damping. */                                 \
    X(float, edge_start_angle, edge_count, 1) /* Scratch: hinge angle at the advance start. */          \
    X(int32_t, tets, tet_count, 4)            /* World particle indices. */                             \
    X(float, tet_dminv, tet_count, 9)         /* Inverse rest edge matrix (3 x 3). */                   \
    X(float, tet_volume, tet_count, 1)        /* Rest volume, m^3. */                                   \
    X(float, tet_material, tet_count, 3)      /* mu, lambda, damping. */

/// Model arrays that the CUDA backend mirrors outside the view (dfm_cuda_model_desc and the
/// backend hold fields of the same names).
#define DFM_MODEL_DEVICE_ARRAYS(X)                                                   \
    X(int32_t, color_particles, particle_count, 1) /* Particles grouped by color. */ \
    X(int32_t, particle_color, particle_count, 1)  /* Color of each particle. */     \
    X(int32_t, particle_body, particle_count, 1)   /* Placed body (into body_offsets) of each. */

/// Contact features in world particle indices (dfm_body.surf_*), read by detection
/// (dfm_contact_view, dfm_cuda_contacts_desc).
#define DFM_MODEL_FEATURE_ARRAYS(X)                                               \
    X(int32_t, feat_particles, feat_particle_count, 1) /* Particle ids. */        \
    X(int32_t, feat_edges, feat_edge_count, 2)         /* 2 particle ids each. */ \
    X(int32_t, feat_faces, feat_face_count, 3)         /* 3 particle ids each. */

/// Model arrays only the host reads.
#define DFM_MODEL_HOST_ARRAYS(X) X(int32_t, environment, particle_count, 1) /* Environment of each particle. */

/// Every row of dfm_model.
#define DFM_MODEL_ARRAYS(X)     \
    DFM_MODEL_VIEW_ARRAYS(X)    \
    DFM_MODEL_DEVICE_ARRAYS(X)  \
    DFM_MODEL_FEATURE_ARRAYS(X) \
    DFM_MODEL_HOST_ARRAYS(X)

/// Per-particle state kept between steps: carried across model rebuilds, uploaded after host
/// changes (dfm_cuda_backend_upload_state).
#define DFM_STATE_KEPT_ARRAYS(X)                                                     \
    X(float, x, particle_count, 3)          /* Positions, m. */                      \
    X(float, v, particle_count, 3)          /* Velocities, m/s. */                   \
    X(uint8_t, mode, particle_count, 1)     /* dfm_vertex_mode. */                   \
    X(float, kin_start, particle_count, 3)  /* Kinematic: position at step start. */ \
    X(float, kin_target, particle_count, 3) /* Kinematic: position at step end. */

/// Per-particle state of one advance (rewritten by every advance).
#define DFM_STATE_ADVANCE_ARRAYS(X)                                                    \
    X(float, x_prev, particle_count, 3) /* Positions at the start of the advance. */   \
    X(float, d, particle_count, 3)      /* Displacement of the iterate from x_prev. */ \
    X(float, y, particle_count, 3)      /* Inertia displacement targets. */

/// Every row of dfm_state.
#define DFM_STATE_ARRAYS(X)  \
    DFM_STATE_KEPT_ARRAYS(X) \
    DFM_STATE_ADVANCE_ARRAYS(X)

/// A row as a struct member (`type* name;`).
#define DFM_ARRAY_MEMBER(type, name, count, width) type* name;

#endif
