/// @file coarse_cuda.h
/// Internal (C++/CUDA only): the coarse correction of the two-level solve
/// (DFM_FEATURE_COARSE_CORRECTION, kernels/cpu/coarse_cpu.h) on the CUDA backend, host-assisted
/// first slice: after every sweep but the last (the CPU's call points, vbd_cpu.c), a kernel writes
/// each particle's contact force and Hessian at the iterate (the sweep's gather,
/// kernels/shared/contact_response.h) into device arrays; they come down with x and d (and, at the
/// advance's first correction, x_prev and y) into pinned mirrors after one stream
/// synchronization; the host runs the CPU's own dfm_cpu_coarse_correct over a view of the model's
/// host arrays and those mirrors (scalar path: simd NULL), and the corrected d and x go back up.
///
/// Cost per correction (n particles): 24 bytes per particle down (x, d), 48 more with contacts
/// (f, H), 24 more at an advance's first correction (x_prev, y), 24 up (d, x); one stream
/// synchronization, so substeps x (iterations - 1) per step; and the step runs eagerly (no CUDA
/// graph: the host works between launches). TODO (device-side coarse step): the per-particle
/// force pass, P^T f and the prolongation are parallel per particle and per node; the banded
/// solve and the PCG are per body.
#ifndef DFM_COARSE_CUDA_H
#define DFM_COARSE_CUDA_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "contact_view.h"
#include "vbd_view.h"

struct dfm_cpu_coarse; /* kernels/cpu/coarse_cpu.h */

/// Device and pinned buffers of one world's host-assisted coarse correction (zeroed: none).
struct dfm_cuda_coarse {
    int32_t particle_count; ///< Particles the buffers are sized for (0: none).
    float* terms;           ///< Device: contact forces (3 per particle, N), then their Hessians (9 per particle,
                            ///< row-major, N/m).
    float* host;            ///< Pinned host, 24 per particle: x, d, x_prev, y (3 each, m), then `terms`' copy.
    int64_t corrections;    ///< Host-assisted corrections run since the buffers were sized (calls that
                            ///< reached dfm_cpu_coarse_correct; the level counts per body).
    int64_t device_bytes;   ///< Device memory held, bytes.
};

/// Sizes the buffers for `particle_count` particles (nothing happens when they already are);
/// call outside any capture. Returns 0, or DFM_ERROR_OUT_OF_DEVICE_MEMORY /
/// DFM_ERROR_OUT_OF_HOST_MEMORY (pinned) / another DFM_ERROR_* with `err`.
int dfm_cuda_coarse_reserve(dfm_cuda_coarse* co, int32_t particle_count, char* err, size_t err_size);

/// Frees everything (co zeroed). A zeroed co is fine.
void dfm_cuda_coarse_free(dfm_cuda_coarse* co);

/// One coarse correction of the device iterate (v.d and v.x rewritten), as the CPU's
/// dfm_cpu_coarse_correct(level, ..., first) after a sweep: `model` is a view of the model's host
/// arrays (dfm_world_host_view; its state pointers other than `mode` are not read), `v` the
/// device view of the advance, `c` the device contact view whose per-particle lists the sweep
/// gathers (NULL: no contacts, or the legacy scatter, whose contacts stay out of the coarse
/// problem as on the CPU). Enqueues on `st` and synchronizes it once; a level with nothing to
/// correct costs nothing.
int dfm_cuda_coarse_correct(dfm_cuda_coarse* co, struct dfm_cpu_coarse* level, const dfm_vbd_view* model,
                            const dfm_vbd_view& v, const dfm_contact_view* c, int first, cudaStream_t st, char* err,
                            size_t err_size);

#endif
