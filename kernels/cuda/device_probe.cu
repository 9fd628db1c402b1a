/// @file device_probe.cu
/// Counts usable CUDA devices. Any runtime error (no driver, no device) means zero devices.
#include <cuda_runtime.h>

#include "device_probe.h"

extern "C" int dfm_cuda_device_count(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return 0;
    }
    return n;
}
