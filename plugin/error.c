/// @file error.c
/// Last-error messages and the log callback.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "world_internal.h"

/// Last error of a failed dfm_world_create on this thread.
static _Thread_local char g_create_error[512];

static void log_forward(const dfm_world* world, dfm_log_level level, const char* msg) {
    if (world && world->def.log_fn && (int32_t)level <= world->def.log_level)
        world->def.log_fn(world->def.log_user, level, msg);
}

dfm_result dfm_fail(dfm_world* world, dfm_result code, const char* fmt, ...) {
    char* buf = world ? world->last_error : g_create_error;
    size_t cap = world ? sizeof(world->last_error) : sizeof(g_create_error);
    int n = snprintf(buf, cap, "%s: ", dfm_result_string(code));
    if (n < 0) n = 0;
    if ((size_t)n < cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    log_forward(world, DFM_LOG_ERROR, buf);
    return code;
}

void dfm_log(const dfm_world* world, dfm_log_level level, const char* fmt, ...) {
    if (!world || !world->def.log_fn || (int32_t)level > world->def.log_level) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    log_forward(world, level, buf);
}

void dfm_clear_error(dfm_world* world) {
    if (world)
        world->last_error[0] = '\0';
    else
        g_create_error[0] = '\0';
}

const char* dfm_world_last_error(const dfm_world* world) { return world ? world->last_error : g_create_error; }

const char* dfm_result_string(dfm_result r) {
    switch (r) {
    case DFM_OK: return "DFM_OK";
    case DFM_INCOMPLETE: return "DFM_INCOMPLETE";
    case DFM_ERROR_NULL_POINTER: return "DFM_ERROR_NULL_POINTER";
    case DFM_ERROR_INVALID_COUNT: return "DFM_ERROR_INVALID_COUNT";
    case DFM_ERROR_INDEX_OUT_OF_RANGE: return "DFM_ERROR_INDEX_OUT_OF_RANGE";
    case DFM_ERROR_NON_FINITE: return "DFM_ERROR_NON_FINITE";
    case DFM_ERROR_DEGENERATE_ELEMENT: return "DFM_ERROR_DEGENERATE_ELEMENT";
    case DFM_ERROR_INVERTED_ELEMENT: return "DFM_ERROR_INVERTED_ELEMENT";
    case DFM_ERROR_STALE_ID: return "DFM_ERROR_STALE_ID";
    case DFM_ERROR_FOREIGN_ID: return "DFM_ERROR_FOREIGN_ID";
    case DFM_ERROR_STRUCT_SIZE: return "DFM_ERROR_STRUCT_SIZE";
    case DFM_ERROR_ABI_MISMATCH: return "DFM_ERROR_ABI_MISMATCH";
    case DFM_ERROR_INVALID_VALUE: return "DFM_ERROR_INVALID_VALUE";
    case DFM_ERROR_OUT_OF_HOST_MEMORY: return "DFM_ERROR_OUT_OF_HOST_MEMORY";
    case DFM_ERROR_CAPACITY: return "DFM_ERROR_CAPACITY";
    case DFM_ERROR_INVALID_STATE: return "DFM_ERROR_INVALID_STATE";
    case DFM_ERROR_OUT_OF_DEVICE_MEMORY: return "DFM_ERROR_OUT_OF_DEVICE_MEMORY";
    case DFM_ERROR_DEVICE_UNAVAILABLE: return "DFM_ERROR_DEVICE_UNAVAILABLE";
    case DFM_ERROR_UNSUPPORTED: return "DFM_ERROR_UNSUPPORTED";
    case DFM_ERROR_INVALID_ENUM: return "DFM_ERROR_INVALID_ENUM";
    case DFM_ERROR_UNKNOWN_SOLVER: return "DFM_ERROR_UNKNOWN_SOLVER";
    case DFM_ERROR_OUT_OF_BOUNDS: return "DFM_ERROR_OUT_OF_BOUNDS";
    default: return "DFM_RESULT_UNKNOWN";
    }
}
