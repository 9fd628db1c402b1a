/// @file vbd_cpu.h
/// The CPU backend's VBD advance (reference and deterministic).
#ifndef DFM_VBD_CPU_H
#define DFM_VBD_CPU_H

#include "vbd_view.h"

/// Runs one VBD advance (predict, `iterations` sweeps over the colors, velocity update) on the
/// host arrays of `view`. Colors are given in CSR form (color_offsets, color_particles).
/// `alpha` is the fraction of the host step reached at the end of this advance (kinematic targets).
/// `threads` > 0 limits OpenMP workers. Bitwise deterministic for any thread count: particles of
/// one color are independent.
void dfm_cpu_vbd_advance(const dfm_vbd_view* view, int32_t color_count, const int32_t* color_offsets,
                         const int32_t* color_particles, int32_t iterations, float alpha, int32_t threads);

#endif
