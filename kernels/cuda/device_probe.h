/// @file device_probe.h
/// Whether a CUDA device is usable: kernels/cuda/device_probe.cu, or device_probe_none.c in
/// builds without CUDA (next to the backend's interface, vbd_cuda_api.h, and its stub).
#ifndef DFM_DEVICE_PROBE_H
#define DFM_DEVICE_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

/// Number of usable CUDA devices; 0 when the build has no CUDA or no driver/device is present.
int dfm_cuda_device_count(void);

#ifdef __cplusplus
}
#endif

#endif
