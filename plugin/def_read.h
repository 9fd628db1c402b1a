/// @file def_read.h
/// Reading caller defs of any supported size over the library's defaults.
#ifndef DFM_DEF_READ_H
#define DFM_DEF_READ_H

#include <dfm/dfm.h>
#include <stddef.h>

/// Copies the first `struct_size` bytes of `def` (a struct whose first field is uint32_t
/// struct_size) over `inout_defaults` (the library's full default, `full_size` bytes), so fields
/// an older caller does not know keep their defaults. Fails with DFM_ERROR_STRUCT_SIZE when the
/// size is below `min_size` (the ABI 1.0 layout) or above `full_size` (a newer header than this
/// library), and with DFM_ERROR_NULL_POINTER when def is NULL. `name` names the struct in errors.
dfm_result dfm_def_read(dfm_world* world, const void* def, size_t full_size, size_t min_size, const char* name,
                        void* inout_defaults);

#endif
