/// @file error_tls.h
/// Access to the calling thread's create-error buffer (used before a world exists).
#ifndef DFM_ERROR_TLS_H
#define DFM_ERROR_TLS_H

/// The calling thread's buffer for dfm_world_create errors (512 bytes).
char* dfm_create_error_buffer(void);

#endif
