/// @file b3_api.c
/// Run-time resolution of the b3 C API out of the pybullet module (see b3_api.h): Python loads
/// the module RTLD_LOCAL, so its b3* symbols are not in the global scope and a plugin linked
/// against them fails to load ("undefined symbol: b3GetStatusType").
#define _GNU_SOURCE
#include "b3_api.h"

#include <dlfcn.h>
#include <stdio.h>

int dfm_pyb_b3_resolve(b3_client client, b3_api* out, char* message, size_t message_size) {
    if (!client) {
        snprintf(message, message_size, "the plugin context has no physics client");
        return -1;
    }
    /* The client is a C++ PhysicsDirect object: its first word is the vtable pointer (Itanium C++
       ABI), and the vtable lives in the module that implements the C API (docs/pybullet.md). */
    void* vtable = *(void**)client;
    Dl_info info;
    if (!dladdr(vtable, &info) || !info.dli_fname) {
        snprintf(message, message_size, "dladdr found no module holding the physics client's code");
        return -1;
    }
    void* module = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!module) {
        snprintf(message, message_size, "dlopen(RTLD_NOLOAD) of %s failed: %s", info.dli_fname, dlerror());
        return -1;
    }
#define DFM_PYB_B3_RESOLVE(ret, name, params)                                                                  \
    *(void**)(&out->name) = dlsym(module, #name);                                                              \
    if (!out->name) {                                                                                          \
        snprintf(message, message_size, "%s does not export %s (pybullet 3.2.7 does)", info.dli_fname, #name); \
        dlclose(module);                                                                                       \
        return -1;                                                                                             \
    }
    DFM_PYB_B3_FUNCTIONS(DFM_PYB_B3_RESOLVE)
#undef DFM_PYB_B3_RESOLVE
    /* The module stays loaded as long as Python holds it; drop the reference RTLD_NOLOAD added. */
    dlclose(module);
    return 0;
}
