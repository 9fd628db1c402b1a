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
/// fmaxf: the device instruction.
#define dfm_fmaxf(a, b) fmaxf((a), (b))
/// fminf: the device instruction.
#define dfm_fminf(a, b) fminf((a), (b))
#else
/// fmaxf without the libm call (GCC does not inline fmaxf without -ffinite-math-only): the larger
/// of a and b, the other one when one is NaN; for equal values (+0 and -0 too) b, as glibc's
/// x86-64 fmaxf (maxss) returns, so results are bitwise those of the library call there.
DFM_HD float dfm_fmaxf(float a, float b) { return (a > b || b != b) ? a : b; }
/// fminf without the libm call; same conventions as dfm_fmaxf.
DFM_HD float dfm_fminf(float a, float b) { return (a < b || b != b) ? a : b; }
#endif

#if defined(__CUDA_ARCH__)
/// Reserves one slot of a counter: returns the old value (atomic on the device).
#define DFM_COUNTER_BUMP(ptr) atomicAdd((ptr), 1)
#else
/// Reserves one slot of a counter: returns the old value (host loops that bump counters are serial).
#define DFM_COUNTER_BUMP(ptr) ((*(ptr))++)
#endif

#endif
