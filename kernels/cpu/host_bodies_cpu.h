/// @file host_bodies_cpu.h
/// The CPU backend's pass over the dynamic host bodies after every sweep (implicit two-way
/// coupling, kernels/shared/host_body_solve.h).
#ifndef DFM_HOST_BODIES_CPU_H
#define DFM_HOST_BODIES_CPU_H

#include "contact_view.h"
#include "host_body_solve.h"

/// The dynamic host bodies of one advance and the scratch of their solve.
typedef struct dfm_cpu_host_solve {
    int32_t count;              ///< Dynamic host bodies.
    dfm_host_body_rt* bodies;   ///< count: their corrections (updated by the pass).
    int32_t shape_count;        ///< Live shapes of the advance.
    const int32_t* shape_host;  ///< Per live shape: its body in `bodies`, or -1.
    const int32_t* first_shape; ///< Per body: its first live shape, or -1 (its staged poses are the body's).
    dfm_shape_rt* shapes;       ///< The advance's shapes (the contact view's): the pass moves the bodies'
                                ///< body_end.
    int32_t* record_offsets;    ///< Scratch: 2 * count + 1 (offsets, then fill cursors).
    dfm_host_record* records;   ///< Scratch: room for every active record of the advance.
} dfm_cpu_host_solve;

/// After a sweep: gathers each body's records at the displacements d, solves its correction
/// (dfm_host_body_solve) and moves its shapes' end-of-advance pose there. Serial over bodies, in
/// index order (deterministic).
void dfm_cpu_solve_host_bodies(const dfm_cpu_host_solve* hs, const dfm_contact_view* c, const float* d, float h);

/// Moves every shape of the bodies to its body's corrected end-of-advance pose (begin = 1 at the
/// advance's start: dfm_host_shape_place).
void dfm_cpu_place_host_shapes(const dfm_cpu_host_solve* hs, int begin);

#endif
