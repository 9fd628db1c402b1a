/// @file coarse_band.c
/// Banded Cholesky factorisation and solve for the coarse correction's matrices (coarse_cpu.h).
/// A body's coarse nodes are numbered along the grid with its largest extent slowest, so a 24 x 24
/// cloth's ~150 nodes (450 dofs) have a half-bandwidth of ~90 dofs: m bw^2 / 2 flops per factor
/// instead of the dense m^3 / 6 (docs/physics.md, session 12).
///
/// Parallelism review (seed 001): P1 does-not-apply (a factorisation is sequential along its
/// rows; bodies are independent, and the caller runs them in sequence: applies-TODO there);
/// P2 does-not-apply; P3 applies-and-done (the factor of an advance is reused by all its
/// corrections); P4 applies-and-done (band rows contiguous, row-major).
#include <math.h>

#include "coarse_cpu.h"

int dfm_cpu_band_cholesky(double* band, int32_t m, int32_t bw) {
    const int32_t w = bw + 1;
#define B(i, j) band[(size_t)(i) * (size_t)w + (size_t)((j) - (i) + bw)]
    for (int32_t j = 0; j < m; ++j) {
        const int32_t k0 = j - bw > 0 ? j - bw : 0;
        double s = B(j, j);
        for (int32_t k = k0; k < j; ++k) s -= B(j, k) * B(j, k);
        if (!(s > 0.0)) return 0;
        const double djj = sqrt(s);
        B(j, j) = djj;
        const int32_t i1 = j + bw < m - 1 ? j + bw : m - 1;
        for (int32_t i = j + 1; i <= i1; ++i) {
            const int32_t kk = i - bw > k0 ? i - bw : k0;
            double t = B(i, j);
            for (int32_t k = kk; k < j; ++k) t -= B(i, k) * B(j, k);
            B(i, j) = t / djj;
        }
    }
    return 1;
}

void dfm_cpu_band_solve(const double* band, int32_t m, int32_t bw, double* b) {
    dfm_cpu_band_solve_many(band, m, bw, b, 1);
}

void dfm_cpu_band_solve_many(const double* band, int32_t m, int32_t bw, double* b, int32_t nrhs) {
    const int32_t w = bw + 1;
    /* L y = b by rows: each band row is read once for all right sides */
    for (int32_t i = 0; i < m; ++i) {
        const int32_t k0 = i - bw > 0 ? i - bw : 0;
        const double* row = &B(i, k0);
        const double inv = 1.0 / B(i, i);
        for (int32_t r = 0; r < nrhs; ++r) {
            double* x = b + (size_t)r * (size_t)m;
            double t = x[i];
            for (int32_t k = k0; k < i; ++k) t -= row[k - k0] * x[k];
            x[i] = t * inv;
        }
    }
    /* L^T x = y by columns of L^T, i.e. rows of L: x_i final, then taken out of the rows above
       (contiguous; the row-wise form walked a column of the band, one cache line per entry) */
    for (int32_t i = m - 1; i >= 0; --i) {
        const int32_t k0 = i - bw > 0 ? i - bw : 0;
        const double* row = &B(i, k0);
        const double inv = 1.0 / B(i, i);
        for (int32_t r = 0; r < nrhs; ++r) {
            double* x = b + (size_t)r * (size_t)m;
            const double xi = x[i] * inv;
            x[i] = xi;
            for (int32_t k = k0; k < i; ++k) x[k] -= row[k - k0] * xi;
        }
    }
#undef B
}
