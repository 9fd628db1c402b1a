/// @file vbd_cuda_api.h
/// C interface of the CUDA backend (kernels/cuda/vbd_cuda.cu; kernels/cuda/vbd_cuda_none.c in
/// builds without CUDA). The plugin keeps the model and state on the host as well; this backend
/// mirrors them in device memory (structure of arrays, plain cudaMalloc, sized at upload) and
/// runs whole steps there. Every function returns 0 or a negative dfm_result with a message in
/// `err` (err_size bytes).
#ifndef DFM_VBD_CUDA_API_H
#define DFM_VBD_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "contact_view.h"
#include "host_body_solve.h"
#include "vbd_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Opaque device-side mirror of one world.
typedef struct dfm_cuda_backend dfm_cuda_backend;

struct dfm_cpu_dc; /* kernels/cpu/deform_contact_cpu.h */

/// What the backend copies at a model upload: host arrays (model and state, through `host`), the
/// counts the view does not carry, the color and body offsets and the rows of
/// DFM_MODEL_DEVICE_ARRAYS (kernels/shared/model_arrays.h), particle_count items each.
typedef struct dfm_cuda_model_desc {
    const dfm_vbd_view* host; ///< Host arrays; h and gravity are ignored.
    int32_t tri_count, edge_count, tet_count;
    int32_t color_count;
    const int32_t* color_offsets;   ///< color_count + 1.
    const int32_t* color_particles; ///< Particles grouped by color.
    const int32_t* particle_color;  ///< Color of each particle.
    int32_t body_count;             ///< Bodies (contiguous particle ranges).
    const int32_t* body_offsets;    ///< body_count + 1.
    const int32_t* particle_body;   ///< Body of each particle.
} dfm_cuda_model_desc;

/// Creates a backend on CUDA device `device` using `stream` (a cudaStream_t, NULL = a stream of
/// its own).
int dfm_cuda_backend_create(int device, void* stream, dfm_cuda_backend** out, char* err, size_t err_size);

/// Frees all device memory (NULL is a no-op).
void dfm_cuda_backend_destroy(dfm_cuda_backend* b);

/// (Re)allocates device arrays for the model and copies model and state.
int dfm_cuda_backend_upload_model(dfm_cuda_backend* b, const dfm_cuda_model_desc* desc, char* err, size_t err_size);

/// Copies the per-particle state (x, v, mode, kinematic start/target) to the device.
int dfm_cuda_backend_upload_state(dfm_cuda_backend* b, const dfm_vbd_view* host, char* err, size_t err_size);

/// Copies positions and velocities (3 floats per particle each) back to the host.
int dfm_cuda_backend_download_state(dfm_cuda_backend* b, float* x, float* v, char* err, size_t err_size);

/// What the backend copies when the contact candidates change (host arrays, read during the call).
typedef struct dfm_cuda_contacts_desc {
    int32_t shape_count;        ///< 0 = no contacts (device buffers are freed).
    const dfm_shape_rt* shapes; ///< shape_count; only geom is read (mesh SDF grids are copied).
    int32_t feat_particle_count, feat_edge_count, feat_face_count;
    const int32_t* feat_particles; ///< Particle ids.
    const int32_t* feat_edges;     ///< 2 particle ids each.
    const int32_t* feat_faces;     ///< 3 particle ids each.
    dfm_contact_candidates cand;   ///< Host arrays of the (feature, shape) pairs.
    int32_t capacity;              ///< Contact records per advance.
    int deterministic;             ///< Allocate the buffers of deterministic mode (world_def.deterministic).
} dfm_cuda_contacts_desc;

/// (Re)allocates the contact pipeline's device buffers for `desc` (capacities are fixed here,
/// never inside a step) and copies candidates, features and mesh SDF grids.
int dfm_cuda_backend_upload_contacts(dfm_cuda_backend* b, const dfm_cuda_contacts_desc* desc, char* err,
                                     size_t err_size);

/// Settings of one step.
typedef struct dfm_cuda_step_desc {
    float dt; ///< s.
    int32_t substeps, iterations;
    float gravity[3];       ///< m/s^2.
    uint32_t disable_flags; ///< DFM_DISABLE_* of the world.
    uint32_t feature_flags; ///< DFM_FEATURE_* of the world (body-level translation solve).
    int deterministic;      ///< 1: bitwise reproducible contact ordering and reductions.
    /* contacts (ignored when no contacts were uploaded) */
    dfm_shape_rt* shapes;              ///< Host: substeps * shape_count records, advance-major (grid
                                       ///< pointers may be host pointers; the backend substitutes its
                                       ///< copies), best in dfm_cuda_backend_shape_staging's buffer.
    float penalty_beta, penalty_start; ///< AVBD ramp (world def).
    /* dynamic host bodies (implicit coupling; ignored without contacts) */
    int32_t host_body_count;         ///< 0 = none.
    dfm_host_body_rt* host_bodies;   ///< Host, host_body_count: their state at the step's start, overwritten
                                     ///< with their corrections at its end (plugin/host_bodies.c).
    const int32_t* shape_host;       ///< Host, shape_count: each shape's body in host_bodies, or -1.
    const int32_t* host_first_shape; ///< Host, host_body_count: each body's first shape, or -1.
    /* deformable-deformable contact (issue 16; NULL: none, and nothing of it runs) */
    /// Host state (plugin/deform_contacts.c: primitives, filters, host scratch), uploaded with
    /// dfm_cuda_backend_upload_deform at deform_generation; its figures (pair_count, candidates,
    /// dropped) are those of the step's last advance afterwards. A step with it runs eagerly (no
    /// graph: the host builds each advance's pair lists, deform_contact_cuda.h).
    struct dfm_cpu_dc* deform;
    int64_t deform_generation;           ///< Generation of `deform` (must be the uploaded one).
    const int32_t* host_color_particles; ///< Host: the model's particles grouped by colour (sub-colour split).
    /* the coarse correction of the two-level solve (DFM_FEATURE_COARSE_CORRECTION; NULL: none) */
    /// Host: the world's coarse level (kernels/cpu/coarse_cpu.h), prepared for the uploaded model.
    /// After every sweep but the last the backend runs the CPU's dfm_cpu_coarse_correct on the host
    /// over pinned mirrors of the iterate (host-assisted first slice, kernels/cuda/coarse_cuda.h);
    /// a step with it runs eagerly (no graph).
    struct dfm_cpu_coarse* coarse;
    const dfm_vbd_view* coarse_model; ///< Host, with `coarse`: the model's arrays and vertex modes
                                      ///< (dfm_world_host_view; its other state pointers are not read).
} dfm_cuda_step_desc;

/// Results of one step's contacts, copied back at its end.
typedef struct dfm_cuda_step_results {
    double* shape_impulse;      ///< Caller's array, 6 per shape: reaction impulse (N s) and angular
                                ///< impulse about the host body origin (N m s), summed over the step.
    int32_t* emitted;           ///< Caller's array, one per substep: records emitted (may exceed capacity).
    int32_t kind_counts[3];     ///< Particle, edge, face records of the last advance.
    float max_penetration;      ///< Largest penetration at the end of the last advance, m.
    float residual_max;         ///< Largest local force residual of a dynamic particle after the step, N.
    float residual_sum;         ///< Those residuals summed over all particles, N.
    int32_t refused_particle;   ///< A refused step (DFM_ERROR_NON_FINITE / OUT_OF_BOUNDS): the smallest
                                ///< offending particle index.
    int32_t refused_kind;       ///< 0: it was non-finite; 1: beyond DFM_MAX_COORD.
    int64_t deform_dropped;     ///< Deformable-contact candidates beyond the capacity, summed over the advances.
    int64_t coarse_corrections; ///< Host-assisted coarse corrections the step ran (desc.coarse; each corrects
                                ///< every body with a coarse space).
} dfm_cuda_step_results;

/// (Re)allocates the device buffers of deformable-deformable contact for host state `s` (NULL:
/// frees them) built for model generation `generation` (nothing happens when those buffers are
/// already of that generation); the model must be uploaded. Sized here, never inside a step
/// (the trees, pair lists, final forces; 2 pinned host staging arrays of 3 floats per particle).
int dfm_cuda_backend_upload_deform(dfm_cuda_backend* b, const struct dfm_cpu_dc* s, int64_t generation, char* err,
                                   size_t err_size);

/// Host buffer (pinned) for `substeps` advances of shape records, advance-major, that the next
/// dfm_cuda_backend_step copies to the device when `desc.shapes` points at it (saves a staging
/// copy per step), in *out; returns 0, or a DFM_ERROR_* (no contacts uploaded, out of pinned or
/// device memory) with `err` saying why.
int dfm_cuda_backend_shape_staging(dfm_cuda_backend* b, int32_t substeps, dfm_shape_rt** out, char* err,
                                   size_t err_size);

/// Copies the first `count` contact records of the last advance (every record field) into the
/// host arrays of `host` (room for `count` records each), and their record_force (3 per record)
/// and node_friction (9 per record); returns 0 or a DFM_ERROR_* with `err` saying why.
int dfm_cuda_backend_download_contacts(dfm_cuda_backend* b, int32_t count, const dfm_contact_records* host,
                                       float* record_force, float* node_friction, char* err, size_t err_size);

/// Runs one step: `substeps` advances of dt/substeps with `iterations` sweeps over the colors,
/// with the contact pipeline when contacts were uploaded, then moves kinematic targets into their
/// start. Unless DFM_DISABLE_GRAPH_CAPTURE is set, the whole step is captured once into a CUDA
/// graph and replayed (re-captured when a setting in `desc` other than the shape data, or the
/// model or contacts, change; a change of contact counts needs none). One host-to-device copy
/// of the shape records precedes the launch; the stream is synchronized once at the end, where
/// `out` (may be NULL without contacts) is filled.
int dfm_cuda_backend_step(dfm_cuda_backend* b, const dfm_cuda_step_desc* desc, dfm_cuda_step_results* out, char* err,
                          size_t err_size);

/// Phases of the step timed by the profiler (dfm_phase_times order).
enum {
    DFM_PHASE_DETECTION,
    DFM_PHASE_LISTS,
    DFM_PHASE_DUALS,
    DFM_PHASE_SOLVE,
    DFM_PHASE_FRICTION,
    DFM_PHASE_REACTIONS,
    DFM_PHASE_OTHER,
    DFM_PHASE_COUNT
};

/// Turns CUDA-event timing of each launch group on or off (steps then run eagerly).
int dfm_cuda_backend_set_profiling(dfm_cuda_backend* b, int enabled, char* err, size_t err_size);

/// Kernel milliseconds per phase of the last step (all zero, returns 0, when it was not profiled).
int dfm_cuda_backend_phase_times(const dfm_cuda_backend* b, float out_ms[DFM_PHASE_COUNT]);

/// Device memory the backend holds, bytes.
int64_t dfm_cuda_backend_device_bytes(const dfm_cuda_backend* b);

/// What the shared-memory per-body sweeps planned and ran (DFM_CUDA_BODY_SWEEP=2 or 3; issue 15),
/// for tests and measurement: which tier each block took, so that a test can prove a fallback ran.
typedef struct dfm_cuda_sweep_info {
    int32_t mode;                  ///< DFM_CUDA_BODY_SWEEP as read at creation (0..3).
    int32_t shared_ok;             ///< The model and its contact features qualify for the shared sweeps.
    int32_t resident_bodies;       ///< Bodies planned resident (mode 3: particles and element data staged).
    int32_t resident_launch_bytes; ///< Dynamic shared memory per block of the resident launch, bytes.
    int32_t staged_launch_bytes;   ///< ... of mode 2's launch over the other bodies (particles staged), bytes.
    int32_t body_resident_bytes;   ///< The asked body's resident layout, bytes (0: no plan).
    int32_t body_staged_bytes;     ///< The asked body's particle state (48 B per particle), bytes.
    int64_t blocks[3];             ///< Blocks run since the model upload: resident, particles staged, on global memory.
} dfm_cuda_sweep_info;

/// Fills *out (zeros where the model has no shared-sweep plan); the per-body sizes are those of
/// body index `body` (any value out of range: left 0). Synchronizes the backend's stream. Returns
/// 0 or a dfm_result with the CUDA message in err.
int dfm_cuda_backend_sweep_info(dfm_cuda_backend* b, int32_t body, dfm_cuda_sweep_info* out, char* err,
                                size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
