/// @file sample_log.h
/// The samples' dfm log callback: prints "[dfm level] message" to stderr.
#ifndef DFM_SAMPLE_LOG_H
#define DFM_SAMPLE_LOG_H

#include <dfm/dfm_base.h>

/// dfm_log_fn for samples (user is ignored).
void dfm_sample_log(void* user, dfm_log_level level, const char* message);

#endif
