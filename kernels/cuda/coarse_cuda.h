/// @file coarse_cuda.h
/// Internal (C++/CUDA only): the coarse correction of the two-level solve
/// (DFM_FEATURE_COARSE_CORRECTION, kernels/cpu/coarse_cpu.h) on the CUDA backend, host-assisted
/// first slice: after every sweep but the last (the CPU's call points and `first` flag, vbd_cpu.c)
/// the iterate comes down into pinned mirrors after one stream synchronization, the host runs the
/// CPU's own dfm_cpu_coarse_correct over a view of the model's host arrays and the mirrors (scalar
/// path: simd NULL), and the corrected d and x go back up.
///
/// Contacts: the host correction gathers them itself (cc->gather 1 over a host copy of the
/// advance's contact view: records, per-particle lists, shapes, sliding flags), so that whatever
/// the coarse code evaluates (its contact terms, the friction of its coarse problem, a second
/// evaluation at the corrected iterate) is the CPU's code on the device's records, and coarse_cpu.c
/// needs nothing CUDA-specific. The brief's alternative, the sweep's gather on the device into
/// per-particle f and H read through the scatter accumulators (gather 0), serves only an
/// evaluation at the downloaded iterate and only the sweep's force law.
///
/// Cost (n particles, r active records, S shapes; predicted, not measured): per correction 24
/// bytes per particle down (x, d), 24 up (d, x), the sliding flags (1 per particle, when there are
/// any) and S shape records down (a coupled host body moves its shapes between the sweeps); at an
/// advance's first correction also x_prev and y (24 bytes per particle), the lists' heads (4 per
/// particle), then, after a
/// second synchronization that reads the record count, the r records (68 bytes each) and their
/// list links (12 each); with the AVBD ramp the r penalties (4 bytes each) at every later
/// correction. Synchronizations: iterations (first correction two, the others one) per advance.
/// The step runs eagerly (no CUDA graph: the host works between launches). TODO (device-side
/// coarse step): the per-particle force pass, P^T f and the prolongation are parallel per particle
/// and per node; the banded solve and the PCG are per body.
#ifndef DFM_COARSE_CUDA_H
#define DFM_COARSE_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "contact_view.h"
#include "vbd_view.h"

struct dfm_cpu_coarse; /* kernels/cpu/coarse_cpu.h */

/// Host mirrors of one world's host-assisted coarse correction (zeroed: none).
struct dfm_cuda_coarse {
    int32_t particle_count;    ///< Particles the mirrors are sized for (0: none).
    int32_t capacity;          ///< Contact records the mirrors hold (the pipeline's capacity).
    int32_t shape_count;       ///< Shape records they hold.
    float* host;               ///< Pinned, 12 per particle: x, d, x_prev, y (3 each, m).
    int32_t* head;             ///< Pinned, per particle: first list node (dfm_contact_view.head).
    uint8_t* slides;           ///< Pinned, per particle: the device's sliding flags (particle_slides).
    int32_t* count;            ///< Pinned, 1: the advance's emitted record count.
    int32_t active;            ///< Records mirrored for the current advance (min(count, capacity)).
    dfm_contact_records rec;   ///< Host, capacity records: the advance's records (penalties refreshed).
    int32_t* next;             ///< Host, 3 per record: the lists' links.
    dfm_shape_rt* shapes;      ///< Host, shape_count: the advance's shape records (device grid pointers).
    float* node_body_friction; ///< Pinned, 9 per record: the patch friction's node forces (host side, N).
    int64_t mirror_advance;    ///< The level's advance (dfm_cpu_coarse.advances) whose records are mirrored (-1: none).
    int64_t corrections;       ///< Host-assisted corrections run since the mirrors were sized (each
                               ///< corrects every body with a coarse space; the level counts per body).
};

/// Sizes the mirrors for `particle_count` particles, `capacity` contact records and `shape_count`
/// shapes (nothing happens when they already are); call outside any capture. Returns 0, or
/// DFM_ERROR_OUT_OF_HOST_MEMORY (host or pinned) / another DFM_ERROR_* with `err`.
int dfm_cuda_coarse_reserve(dfm_cuda_coarse* co, int32_t particle_count, int32_t capacity, int32_t shape_count,
                            char* err, size_t err_size);

/// Frees everything (co zeroed). A zeroed co is fine.
void dfm_cuda_coarse_free(dfm_cuda_coarse* co);

/// One coarse correction of the device iterate (v.d and v.x rewritten), as the CPU's
/// dfm_cpu_coarse_correct(level, ..., first) after a sweep: `model` is a view of the model's host
/// arrays (dfm_world_host_view; its state pointers other than `mode` are not read), `v` the
/// device view of the advance, `c` the device contact view whose per-particle lists the sweep
/// gathers (NULL: no contacts, or the legacy scatter, whose contacts stay out of the coarse
/// problem as on the CPU). `first`: the advance's first correction (its lists and records come
/// down then). Enqueues on `st` and synchronizes it; a level with nothing to correct costs nothing.
/// `friction`: the coarse step carries Coulomb friction per patch (coarse_friction.h), as the CPU's
/// patch path; the caller then runs the patch decision on the host (dfm_cuda_coarse_patch_friction).
int dfm_cuda_coarse_correct(dfm_cuda_coarse* co, struct dfm_cpu_coarse* level, const dfm_vbd_view* model,
                            const dfm_vbd_view& v, const dfm_contact_view* c, int first, int friction, cudaStream_t st,
                            char* err, size_t err_size);

/// The friction after the iterations for a step whose coarse steps carried friction: the CPU's
/// dfm_cpu_contacts_patch_friction (each body with a coarse friction result takes it, the others
/// the patch decision) over host mirrors of the final iterate and the advance's records, then x, d,
/// the node forces (`node_body_friction`, device, 9 per record) and `particle_slides` (device) go
/// back up. `c`: the device contact view of the advance (its records mirrored by the advance's first
/// correction). Enqueues on `st` and synchronizes it. `*done` = 0 when the advance took no correction
/// with contacts (fewer than 2 iterations, no coarse space): nothing is done, and the caller runs the
/// device's patch decision.
int dfm_cuda_coarse_patch_friction(dfm_cuda_coarse* co, struct dfm_cpu_coarse* level, const dfm_vbd_view* model,
                                   const dfm_vbd_view& v, const dfm_contact_view* c, float* node_body_friction,
                                   uint8_t* particle_slides, int* done, cudaStream_t st, char* err, size_t err_size);

#endif
