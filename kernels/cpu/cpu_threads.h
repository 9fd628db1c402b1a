/// @file cpu_threads.h
/// How the CPU backend's loops use threads: the worker count for world_def.cpu_threads and the
/// size below which a loop stays on the calling thread. Every OpenMP loop in kernels/cpu reads
/// these (vbd_cpu.c, contacts_cpu.c); the step (plugin/step.c) uses them to decide on the
/// parallel contact detection. Results never depend on the thread count (see each loop).
#ifndef DFM_CPU_THREADS_H
#define DFM_CPU_THREADS_H

#include <stdint.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

/// Loops shorter than this run on the calling thread: an OpenMP fork/join (and the spinning
/// workers it leaves behind on small machines) costs more than it saves below it. Measured on a
/// 2-core machine: a 256-particle cloth ran 3x slower with every loop forked.
#define DFM_CPU_PARALLEL_MIN 4096

/// Worker threads the CPU backend uses for `requested` (world_def.cpu_threads; 0 = all). 1 in
/// builds without OpenMP.
static inline int dfm_cpu_thread_count(int32_t requested) {
#if defined(_OPENMP)
    return requested > 0 ? requested : omp_get_max_threads();
#else
    (void)requested;
    return 1;
#endif
}

#endif
