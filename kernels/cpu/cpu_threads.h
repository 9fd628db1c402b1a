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

/// Light per-item loops (predict, velocity, guess normals, the reaction passes: ~50-200
/// instructions per item) shorter than this run on the calling thread: an OpenMP fork/join (and
/// the spinning workers it leaves behind on small machines) costs more than it saves below it.
/// Measured on a 2-core machine: a 256-particle cloth ran 3x slower with every loop forked.
#define DFM_CPU_PARALLEL_MIN 4096

/// Heavy per-particle loops (the per-color solve, the residual: ~10^4 instructions per particle,
/// every incident element evaluated) fork from this many particles (~10^7 instructions, a few ms).
#define DFM_CPU_SOLVE_PARALLEL_MIN 1024

/// The per-color solve forks from this much work (dfm_cpu_solve_work: incident element
/// evaluations, a tet counted twice, plus two per particle). Measured on the benchmark scenes
/// (16 environments): a cloth-lift color of 1264 particles is 27.9k (22 per particle, so
/// DFM_CPU_SOLVE_PARALLEL_MIN = 1024 cloth particles are ~22.5k: cloth forks about where it did by
/// particle count), a soft-lift color of 864 tet particles 21.7k (~11.6 tets each): it forks now,
/// where by particle count its colors never did; a single 24 x 24 cloth's colors (~100 particles,
/// ~2.2k) stay on the calling thread.
#define DFM_CPU_SOLVE_WORK_MIN 16384

/// Contact detection forks from this many candidate pairs (~300 instructions each: 32768 are
/// ~10^7 instructions, as much as a color of DFM_CPU_SOLVE_PARALLEL_MIN particles). Measured (issue
/// 18, docs/perf.md): at the former 4096, cloth-lift with 1 environment (13k candidates) ran 1.6-2x
/// slower on 2 threads than on 1 — the detection was the only loop that forked there, 4 times a
/// step; a fork/join of 2 threads costs 1-2 us at the median but 5-16 ms at the 90th-99th
/// percentile on a loaded 2-core machine (a descheduled worker), more than that detection's work.
#define DFM_CPU_DETECT_PARALLEL_MIN 32768

/// Contact detection forks when the previous detection (the last advance's) did this much work or
/// more, in work units (kernels/shared/contact_detect.h: one per candidate plus one per SDF
/// evaluation; a face that reaches its Frank-Wolfe search counts ~490, one culled by its AABB 1).
/// Candidate counts alone cannot tell the scenes apart: game-cloth's 6534 candidates (p 1152, e 3266,
/// f 2116, each kind more than 16-environment cloth-lift's broad-phase selection, ~4500) mostly stop
/// at the AABB or the convex bound, while cloth-lift's selected faces run the search (~31k
/// instructions each, callgrind). Measured per advance (docs/perf.md, "the detection's fork by
/// work"): a single small cloth stays below (game-cloth 24, cloth-lift 1 environment), cloth-lift and
/// soft-lift at 16 environments are above. The first detection after a rebuild (no previous work)
/// falls back to DFM_CPU_DETECT_PARALLEL_MIN candidates. The environment variable
/// DFM_CPU_DETECT_WORK (DFM_CPU_DETECT_WORK_ENV: a number >= 1) replaces it, for tests and
/// calibration (plugin/step.c refuses other values).
#define DFM_CPU_DETECT_WORK_MIN 131072
/// Name of the environment variable that overrides DFM_CPU_DETECT_WORK_MIN.
#define DFM_CPU_DETECT_WORK_ENV "DFM_CPU_DETECT_WORK"

/// Whether a loop of `count` items with `nt` workers forks (count >= min and more than one
/// worker). Loops that do not fork run a plain serial copy, outside any OpenMP region: libgomp
/// allocates a team for every parallel region, even one of a single thread.
static inline int dfm_cpu_forks(int nt, int64_t count, int64_t min) { return nt > 1 && count >= min; }

/// Whether this advance's detection of `count` candidates forks on `nt` workers, given the work
/// units of the previous detection (`last_work`, 0: none yet) against `work_min`
/// (DFM_CPU_DETECT_WORK_MIN or its override). The detection is order-preserving either way
/// (contacts_cpu.h), so this decides speed, not results.
static inline int dfm_cpu_detect_forks(int nt, int64_t last_work, int64_t count, int64_t work_min) {
    if (nt <= 1 || count < 2) return 0;
    return last_work > 0 ? last_work >= work_min : count >= DFM_CPU_DETECT_PARALLEL_MIN;
}

/// The solve work of `count` particles `particles[0..count)` (see DFM_CPU_SOLVE_WORK_MIN): the
/// incident triangles and bending edges once, tets twice, two per particle for the particle's own
/// terms. `tri`, `edge`, `tet` are the per-particle adjacency CSR offsets (NULL: none).
static inline int64_t dfm_cpu_solve_work(const int32_t* particles, int32_t count, const int32_t* tri,
                                         const int32_t* edge, const int32_t* tet) {
    int64_t w = 2 * (int64_t)count;
    for (int32_t k = 0; k < count; ++k) {
        const int32_t i = particles[k];
        if (tri) w += tri[i + 1] - tri[i];
        if (edge) w += edge[i + 1] - edge[i];
        if (tet) w += 2 * (int64_t)(tet[i + 1] - tet[i]);
    }
    return w;
}

/// A range of a loop: items [begin, end) with the caller's context.
typedef void (*dfm_cpu_range_fn)(void* ctx, int32_t begin, int32_t end);

/// Runs fn over [0, n): as nt contiguous ranges, one per worker, when `fork` (the static
/// schedule's split), else as one call on the calling thread outside any OpenMP region. One loop
/// body for both (the compiler sees a single copy of the heavy per-item code). The items must be
/// independent, so the split changes no bit.
static inline void dfm_cpu_run(int fork, int nt, int32_t n, dfm_cpu_range_fn fn, void* ctx) {
#if defined(_OPENMP)
    if (fork) {
#pragma omp parallel num_threads(nt)
        {
            const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
            fn(ctx, (int32_t)(n * t / T), (int32_t)(n * (t + 1) / T));
        }
        return;
    }
#else
    (void)fork;
    (void)nt;
#endif
    fn(ctx, 0, n);
}

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
