/// @file device_probe_none.c
/// CUDA-less builds: no device is ever usable.
#include "device_probe.h"

int dfm_cuda_device_count(void) { return 0; }
