/// @file deform_contact_cuda.h
/// Internal (C++/CUDA only): deformable-deformable contact on the CUDA backend (issue 16,
/// kernels/cuda/deform_contact_cuda.cu), the twin of kernels/cpu/deform_contact_cpu.c over the
/// same force math (kernels/shared/deform_contact.h).
///
/// First slice, host-assisted: per advance the broad phase runs on the GPU (bvh_cuda: build +
/// query of the triangle tree for vertex-triangle candidates and of the edge tree for edge-edge
/// ones), but the candidates come back to the host, where the CPU code (dfm_cpu_dc_build) runs
/// the narrow phase, builds each particle's pair list and the sub-colours, so that they are
/// bitwise the CPU's for the same candidates; the lists go back up. TODO (device-side build):
/// that costs per advance a stream synchronization, the download of x_prev and y (24 bytes per
/// particle), the re-upload of x_prev into each tree (12 bytes per particle, twice), the
/// candidate download (8 bytes each), the serial host narrow phase, list and sub-colour build
/// (O(candidates + pairs + particles)) and the list upload (20 + 16 bytes per pair, 8 per
/// particle); and, because the host works between the advance's launches, the step cannot be
/// captured into a CUDA graph (it runs eagerly). A device build needs a count/scan/emit narrow
/// phase, a stable sort of the (particle, item) entries, and a parallel sub-colouring whose
/// result the CPU reproduces. The guess bound, the per-sub-colour solve, the final forces and
/// the reaction correction run on the device.
#ifndef DFM_DEFORM_CONTACT_CUDA_H
#define DFM_DEFORM_CONTACT_CUDA_H

#include <cuda_runtime.h>

#include "bvh_cuda.h"
#include "deform_contact_cpu.h"
#include "vbd_view.h"

/// Device side of one world's deformable contact (generation -1: none uploaded).
struct dfm_cuda_dc {
    int64_t generation;     ///< Host state generation the buffers were built for (-1: none).
    int32_t particle_count; ///< Particles the buffers are sized for.
    int32_t body_count;     ///< Bodies (the final forces' per-body scale).
    int64_t capacity;       ///< Candidate (and pair) capacity per advance.
    dfm_cuda_bvh* tri_bvh;  ///< Triangle tree (NULL without triangles or surface vertices).
    dfm_cuda_bvh* edge_bvh; ///< Edge tree (NULL without edges).
    dfm_dc_pair* pairs;     ///< Device, capacity: the advance's pairs.
    int32_t* offsets;       ///< Device, particle_count + 1: CSR of each particle's items.
    int32_t* items;         ///< Device, 4 * capacity: 4 * pair + corner.
    int32_t* sub_particles; ///< Device, particle_count: each colour's particles by sub-colour.
    uint8_t* surface;       ///< Device, particle_count: 1 for a corner of some primitive.
    float* final_force;     ///< Device, 3 per particle: deformable-contact force at the final iterate.
    float* body_scale;      ///< Device, 1 per body: the final forces' scale (< 0: supported).
    float* part_terms;      ///< Device, 6 per particle: momentum need (N) and raw pair force (N).
    uint8_t* part_support;  ///< Device, 1 per particle: 1 when it supports its body (pinned, kinematic, shape contact).
    float* host_x_prev;     ///< Pinned host, 3 per particle: x_prev of the advance (detection input).
    float* host_y;          ///< Pinned host, 3 per particle: y of the advance (query radius).
    dfm_dc_view view;       ///< Device pointers: the gather's view of the current advance.
    int64_t device_bytes;   ///< Device memory held, bytes (the trees' excluded).
};

/// (Re)allocates the device buffers for host state `s` (its primitives, filters, surface flags and
/// capacity; generation `generation`) over `particle_count` particles and `body_count` bodies,
/// creating the two trees, and uploads the surface flags. Returns 0 or a DFM_ERROR_* with `err`.
int dfm_cuda_dc_upload(dfm_cuda_dc* dc, const dfm_cpu_dc* s, int64_t generation, int32_t particle_count,
                       int32_t body_count, cudaStream_t st, char* err, size_t err_size);

/// Frees everything (dc zeroed, generation -1). A zeroed dc is fine.
void dfm_cuda_dc_free(dfm_cuda_dc* dc);

/// The detection of one advance after predict (the CUDA twin of dfm_cpu_dc_detect): synchronizes
/// `st`, downloads x_prev and y of the device view `v`, computes the query radius, queries both
/// trees on the GPU, builds pairs, lists and sub-colours on the host into s (dfm_cpu_dc_build:
/// s->sub_offsets is then the host's launch table), uploads the lists and enqueues the guess
/// bound of every dynamic surface particle (d and x rewritten on the device). color_* and
/// particle_color are host arrays of the model. Fills dc->view.
int dfm_cuda_dc_detect(dfm_cuda_dc* dc, dfm_cpu_dc* s, const dfm_vbd_view& v, int32_t color_count,
                       const int32_t* color_offsets, const int32_t* color_particles, const int32_t* particle_color,
                       cudaStream_t st, char* err, size_t err_size);

/// After the sweeps and friction, before the reactions (dfm_cpu_dc_final_forces' twin): each
/// dynamic surface particle's momentum-consistent deformable-contact force at the final iterate
/// into dc->final_force. shape_head: the shape contact lists' head per particle (device; NULL:
/// none); body_offsets and particle_body device arrays.
int dfm_cuda_dc_final_forces(dfm_cuda_dc* dc, const dfm_vbd_view& v, const int32_t* shape_head,
                             const int32_t* body_offsets, const int32_t* particle_body, cudaStream_t st, char* err,
                             size_t err_size);

#endif
