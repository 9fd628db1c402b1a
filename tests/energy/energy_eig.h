/// @file energy_eig.h
/// Helpers of the whole-element Hessian tests (test_energy_membrane_psd.c, test_energy_tet_hessian.c):
/// a seeded splitmix64 uniform draw and the eigenvalue range of a small symmetric matrix.
#ifndef DFM_TEST_ENERGY_EIG_H
#define DFM_TEST_ENERGY_EIG_H

#include <math.h>
#include <stdint.h>

/// Uniform draw in [a, b) from the splitmix64 stream at *state (advanced).
static inline double energy_uni(uint64_t* state, double a, double b) {
    *state += 0x9E3779B97F4A7C15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return a + (b - a) * (double)(z >> 11) / 9007199254740992.0;
}

/// Smallest and largest eigenvalue of the symmetric n x n matrix K (row-major, n <= 12; cyclic
/// Jacobi in double until the off-diagonal mass is 1e-28 of the diagonal's).
static inline void energy_eig_range(const double* K, int n, double* lo, double* hi) {
    double A[144];
    for (int i = 0; i < n * n; ++i) A[i] = K[i];
    for (int sweep = 0; sweep < 60; ++sweep) {
        double off = 0.0, diag = 0.0;
        for (int i = 0; i < n; ++i) {
            diag += A[i * n + i] * A[i * n + i];
            for (int j = i + 1; j < n; ++j) off += A[i * n + j] * A[i * n + j];
        }
        if (off <= 1e-28 * diag) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                const double apq = A[p * n + q];
                if (fabs(apq) < 1e-300) continue;
                const double th = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                const double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; ++k) {
                    const double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; ++k) {
                    const double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
            }
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < n; ++i) {
        if (A[i * n + i] < *lo) *lo = A[i * n + i];
        if (A[i * n + i] > *hi) *hi = A[i * n + i];
    }
}

#endif
