/// @file strided.h
/// Pointer + stride + count helpers for bulk accessors.
#ifndef DFM_STRIDED_H
#define DFM_STRIDED_H

#include <dfm/dfm.h>
#include <stdint.h>

/// Checks first >= 0, count >= 1, first + count <= limit and stride (0 or >= 12 bytes, multiple of 4).
dfm_result dfm_check_range(dfm_world* w, int32_t first, int32_t count, int32_t limit, int32_t stride, const char* what);

/// Copies `count` packed 3-vectors from `src` into `dst` with `stride` bytes (0 = packed).
void dfm_strided_store(float* dst, int32_t stride, const float* src, int32_t count);

/// Reads `count` 3-vectors from `src` (stride bytes apart, 0 = packed) into packed `dst`.
void dfm_strided_load(float* dst, const float* src, int32_t stride, int32_t count);

/// Returns the index of the first non-finite 3-vector in a strided array, or -1.
int32_t dfm_strided_first_nonfinite(const float* src, int32_t stride, int32_t count);

/// Checks a strided array of `count` positions (m): DFM_ERROR_NON_FINITE for the first non-finite
/// one, DFM_ERROR_INVALID_VALUE for the first with a coordinate beyond DFM_MAX_COORD, each with a
/// message naming `what` and the index first + i.
dfm_result dfm_check_positions(dfm_world* w, const float* src, int32_t stride, int32_t count, int32_t first,
                               const char* what);

#endif
