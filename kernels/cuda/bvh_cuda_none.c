/// @file bvh_cuda_none.c
/// The CUDA broad phase in builds without CUDA: every call reports that no device is usable.
#include <stdio.h>

#include <dfm/dfm_base.h>

#include "bvh_cuda.h"

static int unavailable(char* err, size_t n) {
    snprintf(err, n, "this build of dfm has no CUDA backend (configured without a CUDA compiler)");
    return DFM_ERROR_DEVICE_UNAVAILABLE;
}

int dfm_cuda_bvh_create(const dfm_cuda_bvh_caps* caps, dfm_cuda_bvh** out, char* err, size_t n) {
    (void)caps;
    *out = NULL;
    return unavailable(err, n);
}

void dfm_cuda_bvh_destroy(dfm_cuda_bvh* b) { (void)b; }

int dfm_cuda_bvh_build(dfm_cuda_bvh* b, const dfm_bvh_input* in, char* err, size_t n) {
    (void)b;
    (void)in;
    return unavailable(err, n);
}

int dfm_cuda_bvh_refit(dfm_cuda_bvh* b, const dfm_bvh_input* in, char* err, size_t n) {
    (void)b;
    (void)in;
    return unavailable(err, n);
}

int dfm_cuda_bvh_query(dfm_cuda_bvh* b, const dfm_bvh_input* in, dfm_bvh_pair* pairs, int64_t capacity,
                       int64_t* out_count, char* err, size_t n) {
    (void)b;
    (void)in;
    (void)pairs;
    (void)capacity;
    *out_count = 0;
    return unavailable(err, n);
}

int dfm_cuda_bvh_download_tree(dfm_cuda_bvh* b, dfm_bvh_box* boxes, int32_t* leaf_prim, char* err, size_t n) {
    (void)b;
    (void)boxes;
    (void)leaf_prim;
    return unavailable(err, n);
}
