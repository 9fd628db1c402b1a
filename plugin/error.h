/// @file error.h
/// Failing and logging (plugin/error.c): a world's last-error message (or, for a NULL world,
/// the calling thread's create error) and the world's log callback.
#ifndef DFM_PLUGIN_ERROR_H
#define DFM_PLUGIN_ERROR_H

#include <dfm/dfm.h>

/// Sets the last error, logs it and returns `code`. printf-style message.
dfm_result dfm_fail(dfm_world* world, dfm_result code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Forwards a message to the log callback when `level` is enabled.
void dfm_log(const dfm_world* world, dfm_log_level level, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Clears the last error (called at the start of every public call); NULL clears the calling
/// thread's create error (dfm_world_last_error(NULL)).
void dfm_clear_error(dfm_world* world);

#endif
