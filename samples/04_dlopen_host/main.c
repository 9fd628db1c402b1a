/// Sample 04 (headless): a host that loads libdfm at run time with dlopen, without linking to it,
/// resolves only `dfm_get_api`, and runs a hanging cloth through the returned table. It first
/// asks for an ABI major the library does not implement and prints the refusal. Exits non-zero
/// if loading fails, the refusal is not a clean DFM_ERROR_ABI_MISMATCH with a message, or the
/// scene does not run.
///
/// Usage: 04_dlopen_host [path/to/libdfm.so]   (default: libdfm.so.1 from the loader's path)
#include <dfm/dfm_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "libdfm.so.1";
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
        return 1;
    }
    dfm_get_api_fn get_api;
    *(void**)&get_api = dlsym(lib, "dfm_get_api");
    if (!get_api) {
        fprintf(stderr, "dlsym(dfm_get_api): %s\n", dlerror());
        return 1;
    }
    const void* table = NULL;
    const char* message = NULL;
    dfm_result r = get_api(DFM_ABI_VERSION + (41u << 16), &table, &message);
    printf("asked for ABI major %u: %d (%s)\n", DFM_ABI_VERSION_MAJOR + 41u, (int)r,
           message ? message : "(no message)");
    if (r != DFM_ERROR_ABI_MISMATCH || table != NULL || !message || !strstr(message, "ABI")) {
        fprintf(stderr, "an unknown ABI major was not refused cleanly\n");
        return 1;
    }
    r = get_api(DFM_ABI_VERSION, &table, &message);
    const dfm_api_v1* api = (const dfm_api_v1*)table;
    if (r != DFM_OK || !api || api->struct_size < sizeof(dfm_api_v1)) {
        fprintf(stderr, "ABI %u refused: %s\n", DFM_ABI_VERSION_MAJOR, message);
        return 1;
    }
    printf("loaded dfm %s (ABI %u.%u) from %s through dfm_get_api\n", api->version(), api->library_abi >> 16,
           api->library_abi & 0xFFFFu, path);
    dfm_world* w = NULL;
    if (api->world_create(DFM_ABI_VERSION, NULL, &w) != DFM_OK) {
        fprintf(stderr, "world: %s\n", api->world_last_error(NULL));
        return 1;
    }
    float x[3 * 64];
    int32_t tris[6 * 49];
    const float o[3] = {0, 0, 1}, u[3] = {0.3f, 0, 0}, v[3] = {0, 0.3f, 0};
    api->cloth_grid_generate(8, 8, o, u, v, x, tris);
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.positions = x;
    cd.vertex_count = 64;
    cd.triangles = tris;
    cd.triangle_count = 98;
    dfm_body_id id;
    int32_t pins[2] = {56, 63};
    if (api->world_add_cloth(w, &cd, &id) != DFM_OK ||
        api->body_set_vertex_mode(w, id, pins, 2, DFM_VERTEX_PINNED) != DFM_OK) {
        fprintf(stderr, "cloth: %s\n", api->world_last_error(w));
        return 1;
    }
    for (int s = 0; s < 60; ++s)
        if (api->world_step(w, 1.0f / 60.0f) != DFM_OK) {
            fprintf(stderr, "step: %s\n", api->world_last_error(w));
            return 1;
        }
    float p[3];
    api->body_get_positions(w, id, 0, 1, p, 0);
    printf("04_dlopen_host: 60 steps through the table; free corner at z %.3f m (started at 1.000)\n", p[2]);
    api->world_destroy(w);
    dlclose(lib);
    return isfinite(p[2]) && p[2] < 0.95f ? 0 : 1;
}
