/// @file dfm_hd.h
/// Host/device qualifiers for math shared by the CPU and CUDA backends.
/// Every header in kernels/shared compiles as C17 and as CUDA C++.
#ifndef DFM_HD_H
#define DFM_HD_H

#if defined(__CUDACC__)
/// Marks an inline function callable from host and device code.
#define DFM_HD static inline __host__ __device__
#else
/// Marks an inline function callable from host and device code.
#define DFM_HD static inline
#endif

#include <math.h>

#if defined(__CUDA_ARCH__)
/// Reserves one slot of a counter: returns the old value (atomic on the device).
#define DFM_COUNTER_BUMP(ptr) atomicAdd((ptr), 1)
#else
/// Reserves one slot of a counter: returns the old value (host loops that bump counters are serial).
#define DFM_COUNTER_BUMP(ptr) ((*(ptr))++)
#endif

#endif
