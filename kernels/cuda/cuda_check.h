/// @file cuda_check.h
/// Checking every CUDA runtime call: on failure, write "file:line: call: error string" into the
/// caller's err buffer and return a dfm_result (out of device memory, or device unavailable).
#ifndef DFM_CUDA_CHECK_H
#define DFM_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>

#include <dfm/dfm_base.h>

/// Maps a CUDA error to the closest dfm_result.
static inline int dfm_cuda_result(cudaError_t e) {
    return e == cudaErrorMemoryAllocation ? DFM_ERROR_OUT_OF_DEVICE_MEMORY : DFM_ERROR_DEVICE_UNAVAILABLE;
}

/// Evaluates a CUDA call; on error records it in (err, err_size) and returns from the function.
#define DFM_CUDA_TRY(call)                                                                               \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                         \
            snprintf(err, err_size, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return dfm_cuda_result(e_);                                                                  \
        }                                                                                                \
    } while (0)

#endif
