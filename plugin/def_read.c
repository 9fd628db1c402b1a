/// @file def_read.c
/// See def_read.h.
#include "def_read.h"

#include <string.h>

#include "error.h"

dfm_result dfm_def_read(dfm_world* world, const void* def, size_t full_size, size_t min_size, const char* name,
                        void* inout_defaults) {
    if (!def) return dfm_fail(world, DFM_ERROR_NULL_POINTER, "%s is NULL", name);
    uint32_t size;
    memcpy(&size, def, sizeof(size));
    if (size < min_size || size > full_size)
        return dfm_fail(world, DFM_ERROR_STRUCT_SIZE,
                        "%s.struct_size is %u; this library accepts %zu..%zu bytes (initialize it from the default)",
                        name, size, min_size, full_size);
    memcpy(inout_defaults, def, size);
    memcpy(inout_defaults, &(uint32_t){(uint32_t)full_size}, sizeof(uint32_t));
    return DFM_OK;
}
