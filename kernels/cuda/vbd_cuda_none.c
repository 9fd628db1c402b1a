/// @file vbd_cuda_none.c
/// The CUDA backend's interface in builds without CUDA: every call reports that no device is usable.
#include <stdio.h>
#include <string.h>

#include <dfm/dfm_base.h>

#include "vbd_cuda_api.h"

static int unavailable(char* err, size_t n) {
    snprintf(err, n, "this build of dfm has no CUDA backend (configured without a CUDA compiler)");
    return DFM_ERROR_DEVICE_UNAVAILABLE;
}

int dfm_cuda_backend_create(int device, void* stream, dfm_cuda_backend** out, char* err, size_t n) {
    (void)device;
    (void)stream;
    *out = NULL;
    return unavailable(err, n);
}

void dfm_cuda_backend_destroy(dfm_cuda_backend* b) { (void)b; }

int dfm_cuda_backend_upload_model(dfm_cuda_backend* b, const dfm_cuda_model_desc* d, char* err, size_t n) {
    (void)b;
    (void)d;
    return unavailable(err, n);
}

int dfm_cuda_backend_upload_state(dfm_cuda_backend* b, const dfm_vbd_view* h, char* err, size_t n) {
    (void)b;
    (void)h;
    return unavailable(err, n);
}

int dfm_cuda_backend_download_state(dfm_cuda_backend* b, float* x, float* v, char* err, size_t n) {
    (void)b;
    (void)x;
    (void)v;
    return unavailable(err, n);
}

int dfm_cuda_backend_set_profiling(dfm_cuda_backend* b, int enabled, char* err, size_t n) {
    (void)b;
    (void)enabled;
    return unavailable(err, n);
}

int dfm_cuda_backend_shape_staging(dfm_cuda_backend* b, int32_t substeps, dfm_shape_rt** out, char* err,
                                   size_t err_size) {
    (void)b;
    (void)substeps;
    *out = NULL;
    return unavailable(err, err_size);
}

int dfm_cuda_backend_phase_times(const dfm_cuda_backend* b, float out_ms[DFM_PHASE_COUNT]) {
    (void)b;
    for (int k = 0; k < DFM_PHASE_COUNT; ++k) out_ms[k] = 0.0f;
    return 0;
}

int64_t dfm_cuda_backend_device_bytes(const dfm_cuda_backend* b) {
    (void)b;
    return 0;
}

int dfm_cuda_backend_sweep_info(dfm_cuda_backend* b, int32_t body, dfm_cuda_sweep_info* out, char* err, size_t n) {
    (void)b;
    (void)body;
    memset(out, 0, sizeof(*out));
    return unavailable(err, n);
}

int dfm_cuda_backend_upload_contacts(dfm_cuda_backend* b, const dfm_cuda_contacts_desc* d, char* err, size_t n) {
    (void)b;
    (void)d;
    return unavailable(err, n);
}

int dfm_cuda_backend_step(dfm_cuda_backend* b, const dfm_cuda_step_desc* d, dfm_cuda_step_results* out, char* err,
                          size_t n) {
    (void)b;
    (void)d;
    (void)out;
    return unavailable(err, n);
}

int dfm_cuda_backend_download_contacts(dfm_cuda_backend* b, int32_t count, const dfm_contact_records* host,
                                       float* record_force, float* node_friction, char* err, size_t n) {
    (void)b;
    (void)count;
    (void)host;
    (void)record_force;
    (void)node_friction;
    return unavailable(err, n);
}

int dfm_cuda_backend_upload_deform(dfm_cuda_backend* b, const struct dfm_cpu_dc* s, int64_t generation, char* err,
                                   size_t n) {
    (void)b;
    (void)s;
    (void)generation;
    return unavailable(err, n);
}
