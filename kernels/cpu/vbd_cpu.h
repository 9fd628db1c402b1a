/// @file vbd_cpu.h
/// The CPU backend's VBD advance (reference and deterministic).
#ifndef DFM_VBD_CPU_H
#define DFM_VBD_CPU_H

#include "contacts_cpu.h"
#include "vbd_view.h"

/// Runs one VBD advance on the host arrays of `view`: contact detection and per-particle lists
/// (when `contacts` is not NULL), predict, `iterations` sweeps (penalty ramp, then per color:
/// contact gather or scatter and the particle solves), contact finalization, velocity update.
/// Colors are given in CSR form (color_offsets, color_particles).
/// `alpha` is the fraction of the host step reached at the end of this advance (kinematic targets).
/// `threads` > 0 limits OpenMP workers. Bitwise deterministic for any thread count: particles of
/// one color are independent.
void dfm_cpu_vbd_advance(const dfm_vbd_view* view, dfm_cpu_contacts* contacts, int32_t color_count, const int32_t* color_offsets,
                         const int32_t* color_particles, int32_t iterations, float alpha, int32_t threads);

#endif
