/// @file sample_log.c
/// See sample_log.h.
#include "sample_log.h"

#include <stdio.h>

void dfm_sample_log(void* user, dfm_log_level level, const char* message) {
    (void)user;
    fprintf(stderr, "[dfm %s] %s\n", level == DFM_LOG_ERROR ? "error" : (level == DFM_LOG_WARNING ? "warn" : "info"),
            message);
}
