/// @file strided.c
/// See strided.h.
#include "strided.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "error.h"

static size_t eff_stride(int32_t stride) { return stride == 0 ? 3u * sizeof(float) : (size_t)stride; }

dfm_result dfm_check_range(dfm_world* w, int32_t first, int32_t count, int32_t limit, int32_t stride,
                           const char* what) {
    if (count <= 0) return dfm_fail(w, DFM_ERROR_INVALID_COUNT, "%s count is %d; must be >= 1", what, count);
    if (first < 0 || first > limit - count) /* limit >= 0 and count >= 1: no overflow */
        return dfm_fail(w, DFM_ERROR_INDEX_OUT_OF_RANGE, "%s range [%d, %lld) is outside [0, %d)", what, first,
                        (long long)first + count, limit); /* first + count in 64 bits (INT_MAX + 1 overflowed) */
    if (stride != 0 && (stride < (int32_t)(3 * sizeof(float)) || stride % (int32_t)sizeof(float) != 0))
        return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                        "stride is %d bytes; must be 0 (packed) or a multiple of 4 that is >= 12", stride);
    return DFM_OK;
}

void dfm_strided_store(float* dst, int32_t stride, const float* src, int32_t count) {
    size_t s = eff_stride(stride);
    for (int32_t i = 0; i < count; ++i) memcpy((char*)dst + s * (size_t)i, src + 3 * (size_t)i, 3 * sizeof(float));
}

void dfm_strided_load(float* dst, const float* src, int32_t stride, int32_t count) {
    size_t s = eff_stride(stride);
    for (int32_t i = 0; i < count; ++i)
        memcpy(dst + 3 * (size_t)i, (const char*)src + s * (size_t)i, 3 * sizeof(float));
}

int32_t dfm_strided_first_nonfinite(const float* src, int32_t stride, int32_t count) {
    size_t s = eff_stride(stride);
    for (int32_t i = 0; i < count; ++i) {
        float v[3];
        memcpy(v, (const char*)src + s * (size_t)i, sizeof(v));
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) return i;
    }
    return -1;
}

dfm_result dfm_check_positions(dfm_world* w, const float* src, int32_t stride, int32_t count, int32_t first,
                               const char* what) {
    size_t s = eff_stride(stride);
    for (int32_t i = 0; i < count; ++i) {
        float v[3];
        memcpy(v, (const char*)src + s * (size_t)i, sizeof(v));
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
            return dfm_fail(w, DFM_ERROR_NON_FINITE, "%s %d is not finite", what, first + i);
        for (int k = 0; k < 3; ++k)
            if (fabsf(v[k]) > DFM_MAX_COORD)
                return dfm_fail(w, DFM_ERROR_INVALID_VALUE,
                                "%s %d has coordinate %g m, beyond DFM_MAX_COORD (%g m; float spacing there is %g m)",
                                what, first + i, (double)v[k], (double)DFM_MAX_COORD,
                                (double)(fabsf(v[k]) * FLT_EPSILON));
    }
    return DFM_OK;
}
