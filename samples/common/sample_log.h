/// @file sample_log.h
/// The samples' dfm log callback: prints "[dfm level] message" to stderr.
#ifndef DFM_SAMPLE_LOG_H
#define DFM_SAMPLE_LOG_H

#include <dfm/dfm_base.h>

#ifdef __cplusplus
extern "C" {
#endif

/// dfm_log_fn for samples (user is ignored).
void dfm_sample_log(void* user, dfm_log_level level, const char* message);

#ifdef __cplusplus
}
#endif

#endif
