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
/// result the CPU reproduces. The guess bound, the per-sub-colour solve and the reaction
/// correction run on the device; the final forces' balance over the body graph is solved on the
/// host by the CPU's code (deform_balance.c) from per-body and per-body-pair sums made on the device.
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
    int32_t body_count;     ///< Bodies (the balance's graph).
    int64_t capacity;       ///< Candidate (and pair) capacity per advance.
    dfm_cuda_bvh* tri_bvh;  ///< Triangle tree (NULL without triangles or surface vertices).
    dfm_cuda_bvh* edge_bvh; ///< Edge tree (NULL without edges).
    dfm_dc_pair* pairs;     ///< Device, capacity: the advance's pairs.
    int32_t* offsets;       ///< Device, particle_count + 1: CSR of each particle's items.
    int32_t* items;         ///< Device, 4 * capacity: 4 * pair + corner.
    int32_t* sub_particles; ///< Device, particle_count: each colour's particles by sub-colour.
    float* vertex_bound;    ///< Device, particle_count: dfm_dc_view.vertex_bound when detection filtered (m).
    uint8_t* surface;       ///< Device, particle_count: 1 for a corner of some primitive.
    float* final_force;     ///< Device, 3 per particle: deformable-contact force at the final iterate.
    /* the balance over the body graph (deform_balance.h; the host solves it, the device sums and applies) */
    int32_t edge_capacity;       ///< Body pairs with pairs between them, at most (min(capacity, bodies choose 2)).
    int32_t edge_count;          ///< This advance's body pairs (dfm_dc_balance_edges at detection).
    double* part_terms;          ///< Device, 10 per particle: need, raw cross-body pair force, R (N), S (N).
    float* corner_mag;           ///< Device, 4 * capacity: |force| of each cross-body pair corner (N).
    int32_t* pair_edge;          ///< Device, capacity: each pair's body pair, -1 inside one body.
    int32_t* edge_offsets;       ///< Device, edge_capacity + 1: CSR of each body pair's pairs.
    int32_t* edge_pairs;         ///< Device, capacity: the pairs of each body pair, in pair order.
    dfm_cpu_dc_edge* edges;      ///< Device, edge_capacity: the body pairs (sums down, changes up).
    dfm_cpu_dc_body* bodies;     ///< Device, body_count: each body's sums (down to the host's solve).
    double* lambda;              ///< Device, 3 per body: a round's potentials (pull check).
    uint8_t* body_flags;         ///< Device, 2 per body: a round's pull tests, then its pulls.
    int32_t* host_particle_body; ///< Host, particle_count: each particle's body (the edges at detection).
    int32_t* host_pair_edge;     ///< Host, capacity: each pair's body pair (staged up).
    int32_t* host_edge_offsets;  ///< Host, edge_capacity + 1.
    int32_t* host_edge_pairs;    ///< Host, capacity.
    uint8_t* host_flags;         ///< Host, 2 per body: the pull tests up and the pulls down.
    float* host_x_prev;          ///< Pinned host, 3 per particle: x_prev of the advance (detection input).
    float* host_y;               ///< Pinned host, 3 per particle: y of the advance (query radius).
    dfm_dc_view view;            ///< Device pointers: the gather's view of the current advance.
    int64_t device_bytes;        ///< Device memory held, bytes (the trees' excluded).
};

/// (Re)allocates the device buffers for host state `s` (its primitives, filters, surface flags and
/// capacity; generation `generation`) over `particle_count` particles and `body_count` bodies,
/// creating the two trees, uploads the surface flags and downloads `particle_body` (device, the
/// model's) into a host copy. Returns 0 or a DFM_ERROR_* with `err`.
int dfm_cuda_dc_upload(dfm_cuda_dc* dc, const dfm_cpu_dc* s, int64_t generation, int32_t particle_count,
                       int32_t body_count, const int32_t* particle_body, cudaStream_t st, char* err, size_t err_size);

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
/// dynamic surface particle's deformable-contact force at the final iterate into dc->final_force,
/// balanced over the body graph with the CPU's code (deform_balance.c). The device sums each
/// body's need, raw cross-body pair force and shape contact force and magnitude sum, and each body
/// pair's corner-force magnitudes per side; those sums come down (sizeof(dfm_cpu_dc_body) per body,
/// sizeof(dfm_cpu_dc_edge) per body pair, after a stream synchronization), the host solves, the
/// body pairs' changes go up and the device spreads them over the corners. A round of the no-pull
/// check costs one more round trip (3 doubles and 1 byte per body up, 1 byte per body down). No
/// pair: zero forces; no pair between two bodies: raw forces, nothing comes down. c: the shape
/// contact view (device pointers); node_friction: the Coulomb projection's node forces (device,
/// 9 per record, or NULL); body_offsets and particle_body device arrays; s: the host state of the
/// advance (its pairs, body pairs and balance scratch, from dfm_cuda_dc_detect).
int dfm_cuda_dc_final_forces(dfm_cuda_dc* dc, dfm_cpu_dc* s, const dfm_vbd_view& v, const dfm_contact_view& c,
                             const float* node_friction, const int32_t* body_offsets, const int32_t* particle_body,
                             cudaStream_t st, char* err, size_t err_size);

#endif
