/// @file vbd_coef_cpu.c
/// CPU pass filling the per-element coefficients of one step (kernels/shared/vbd_coef.h).
///
/// Parallelism review (seed 001):
/// - P1 level batching: does not apply — no recursion; one flat pass per element kind.
/// - P2 parallel independent columns: applies, left serial — every element writes only its own
///   coefficients, but a pass is ~20 instructions per element (~0.1 ms for 10^5 elements, once per
///   step), below the cost of a fork/join on a loaded machine (cpu_threads.h).
/// - P3 loop-invariant hoisting: applies-and-done — this pass is the hoist: the coefficients
///   leave the per-visit element functions (3-4 visits per element and iteration).
/// - P4 offline memory layout: applies-and-done — coefficients are stored per element in element
///   order, next to the element's other arrays' indexing (tri_coef + 3 t, edge_coef + 2 e).
#include "vbd_coef.h"
#include "vbd_cpu.h"

void dfm_cpu_vbd_coefficients(const dfm_vbd_view* view, int32_t tri_count, int32_t tet_count) {
    if (view->tri_coef)
        for (int32_t t = 0; t < tri_count; ++t) dfm_vbd_tri_coef(view, t);
    if (view->edge_coef)
        for (int32_t e = 0; e < view->edge_count; ++e) dfm_vbd_edge_coef(view, e);
    if (view->tet_coef)
        for (int32_t t = 0; t < tet_count; ++t) dfm_vbd_tet_coef(view, t);
}
