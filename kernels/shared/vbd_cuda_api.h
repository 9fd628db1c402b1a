/// @file vbd_cuda_api.h
/// C interface of the CUDA backend (kernels/cuda/vbd_cuda.cu; kernels/cpu/vbd_cuda_none.c in
/// builds without CUDA). The plugin keeps the model and state on the host as well; this backend
/// mirrors them in device memory (structure of arrays, plain cudaMalloc, sized at upload) and
/// runs whole steps there. Every function returns 0 or a negative dfm_result with a message in
/// `err` (err_size bytes).
#ifndef DFM_VBD_CUDA_API_H
#define DFM_VBD_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "vbd_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Opaque device-side mirror of one world.
typedef struct dfm_cuda_backend dfm_cuda_backend;

/// What the backend copies at a model upload: host arrays (model and state, through `host`) and
/// the counts the view does not carry.
typedef struct dfm_cuda_model_desc {
    const dfm_vbd_view* host;          ///< Host arrays; h and gravity are ignored.
    int32_t tri_count, edge_count, tet_count;
    int32_t color_count;
    const int32_t* color_offsets;      ///< color_count + 1.
    const int32_t* color_particles;    ///< particle_count.
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

/// Runs one step: `substeps` advances of dt/substeps with `iterations` sweeps over the colors,
/// then moves kinematic targets into their start. With `use_graph`, the whole step is captured
/// once into a CUDA graph and replayed (re-captured when dt, substeps, iterations, gravity or the
/// model change). Synchronizes the stream before returning.
int dfm_cuda_backend_step(dfm_cuda_backend* b, float dt, int32_t substeps, int32_t iterations, const float gravity[3],
                          int use_graph, char* err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
