/// @file solver_registry.c
/// Solver providers (dfm_solver.h): the process-wide registry (the built-in vbd and xpbd,
/// registered first through the same path as third-party tables, then registered tables), the
/// ops that run a third-party table, loading provider libraries, and swapping a world's solver at
/// run time. The swap asks the ops (solver_internal.h) what to create, export, import and what a
/// swap restarts; it never asks which provider it is.
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "solver_internal.h"
#include "world_internal.h"

/// Registered (third-party) providers at most.
#define DFM_SOLVER_EXTERNAL_MAX 16
/// Built-in providers.
#define DFM_SOLVER_BUILTIN_COUNT 2

/// One registry entry: a copy of the provider's table and its ops per backend.
typedef struct solver_entry {
    dfm_solver_provider_v1 table;
    const dfm_solver_ops* ops[DFM_BACKEND_CUDA + 1]; ///< Indexed by dfm_backend; NULL where it does not run.
    int32_t builtin;                                 ///< 1 for providers inside libdfm.
} solver_entry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_builtins_once = PTHREAD_ONCE_INIT;
static solver_entry g_entries[DFM_SOLVER_BUILTIN_COUNT + DFM_SOLVER_EXTERNAL_MAX];
static int32_t g_count = 0;

static const char* backend_name(int32_t b) { return b == DFM_BACKEND_CUDA ? "cuda" : "cpu"; }

/* ---- third-party tables: the ops that hand them the state view ------------------------------ */

/// The state view handed to third-party providers (host arrays).
static dfm_solver_state state_view(dfm_world* w) {
    dfm_solver_state s;
    memset(&s, 0, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    s.particle_count = w->model.particle_count;
    s.x = w->state.x;
    s.v = w->state.v;
    s.mass = w->model.mass;
    s.mode = w->state.mode;
    s.kin_target = w->state.kin_target;
    s.environment = w->model.environment;
    s.triangle_count = w->model.tri_count;
    s.triangles = w->model.tris;
    s.tet_count = w->model.tet_count;
    s.tets = w->model.tets;
    s.shape_count = w->shape_pool.live;
    memcpy(s.gravity, w->def.gravity, sizeof(s.gravity));
    s.substeps = w->def.substeps;
    s.iterations = w->def.iterations;
    s.model_generation = w->model_generation;
    return s;
}

static dfm_result external_create(dfm_world* w, dfm_world_solver* ws, int32_t backend) {
    char err[256] = "";
    dfm_result r = ws->table->create(backend, &ws->instance, err, sizeof(err));
    if (r != DFM_OK) return dfm_fail(w, r, "provider \"%s\" create: %s", ws->table->name, err);
    return DFM_OK;
}

static void external_destroy(dfm_world_solver* ws) { ws->table->destroy(ws->instance); }

static dfm_result external_import(dfm_world* w, dfm_world_solver* ws) {
    char err[256] = "";
    dfm_solver_state s = state_view(w);
    dfm_result r = ws->table->import_state(ws->instance, &s, err, sizeof(err));
    if (r != DFM_OK) return dfm_fail(w, r, "provider \"%s\" import_state: %s", ws->table->name, err);
    ws->imported_generation = w->model_generation;
    return DFM_OK;
}

/// Imports again when the model changed, steps the provider on the host arrays, then does the
/// bookkeeping the provider cannot: kinematic starts, shapes' previous states, no reactions, no
/// contact records, no force residual.
static dfm_result external_step(dfm_world* w, float dt) {
    dfm_world_solver* ws = w->solver;
    dfm_result r;
    if (ws->imported_generation != w->model_generation) {
        r = external_import(w, ws);
        if (r != DFM_OK) return r;
    }
    char err[256] = "";
    dfm_solver_state s = state_view(w);
    r = ws->table->step(ws->instance, &s, dt, err, sizeof(err));
    if (r != DFM_OK) return dfm_fail(w, r, "provider \"%s\" step: %s", ws->table->name, err);
    dfm_copy_floats(w->state.kin_start, w->state.kin_target, (size_t)w->model.particle_count * 3u);
    for (int32_t i = 0; i < w->shape_pool.count; ++i) {
        dfm_shape* sh = dfm_world_shape_at(w, i);
        if (!sh) continue;
        memset(sh->reaction, 0, sizeof(sh->reaction));
        sh->body_prev = sh->body_cur;
        memcpy(sh->aabb_prev, sh->aabb_cur, sizeof(sh->aabb_cur));
    }
    w->contacts.count = 0;
    w->residual_force_max = -1.0f; /* providers do not report a force residual */
    w->residual_force_sum = -1.0;
    return DFM_OK;
}

static dfm_result external_export(dfm_world* w, dfm_world_solver* ws) {
    if (!ws->table->export_state) return DFM_OK;
    char err[256] = "";
    dfm_solver_state s = state_view(w);
    dfm_result r = ws->table->export_state(ws->instance, &s, err, sizeof(err));
    if (r != DFM_OK) return dfm_fail(w, r, "provider \"%s\" export_state: %s", ws->table->name, err);
    return DFM_OK;
}

/// The ops of every registered table, on either backend (the table runs on host arrays).
static const dfm_solver_ops k_external_ops = {
    external_create,
    external_destroy,
    external_import,
    external_step,
    external_export,
    NULL, /* prepare */
    NULL, /* grow_substeps */
    NULL, /* swap_restarts: WARM_START providers are named from their capabilities */
    0,    /* guards_itself: dfm_world_step saves and rolls back */
    0,    /* reports_contacts */
};

/* ---- the registry ----------------------------------------------------------------------------- */

/// Checks a provider's name: 1..DFM_SOLVER_NAME_MAX - 1 characters of [a-z0-9_-].
static dfm_result check_name(const char* name) {
    if (!name) return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "provider name is NULL");
    size_t len = strlen(name);
    if (len == 0 || len >= DFM_SOLVER_NAME_MAX)
        return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "provider name has %zu characters; must be 1..%d", len,
                        DFM_SOLVER_NAME_MAX - 1);
    for (size_t i = 0; i < len; ++i) {
        char ch = name[i];
        if (!(islower((unsigned char)ch) || isdigit((unsigned char)ch) || ch == '_' || ch == '-'))
            return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "provider name \"%s\": character %zu is not [a-z0-9_-]",
                            name, i);
    }
    return DFM_OK;
}

/// Registry index of `name`, or -1. Caller holds the lock.
static int32_t find_locked(const char* name) {
    for (int32_t i = 0; i < g_count; ++i)
        if (!strcmp(g_entries[i].table.name, name)) return i;
    return -1;
}

/// Appends a checked table with its ops (built-in or third-party). Caller holds the lock.
static dfm_result add_locked(const dfm_solver_provider_v1* p, const dfm_solver_ops* const ops[DFM_BACKEND_CUDA + 1],
                             int32_t builtin) {
    if (find_locked(p->name) >= 0)
        return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "a provider named \"%s\" is already registered", p->name);
    if (g_count >= DFM_SOLVER_BUILTIN_COUNT + DFM_SOLVER_EXTERNAL_MAX)
        return dfm_fail(NULL, DFM_ERROR_CAPACITY, "%d providers are registered already (the most)",
                        DFM_SOLVER_EXTERNAL_MAX);
    solver_entry* e = &g_entries[g_count];
    memcpy(&e->table, p, sizeof(dfm_solver_provider_v1));
    e->table.struct_size = (uint32_t)sizeof(dfm_solver_provider_v1);
    memcpy(e->ops, ops, sizeof(e->ops));
    e->builtin = builtin;
    ++g_count;
    return DFM_OK;
}

/// Registers the built-in providers (once per process), ahead of any registered table.
static void register_builtins(void) {
    const dfm_solver_builtin* const builtins[DFM_SOLVER_BUILTIN_COUNT] = {&dfm_solver_vbd, &dfm_solver_xpbd};
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < DFM_SOLVER_BUILTIN_COUNT; ++i)
        if (check_name(builtins[i]->table.name) == DFM_OK) (void)add_locked(&builtins[i]->table, builtins[i]->ops, 1);
    pthread_mutex_unlock(&g_lock);
}

/// Takes the registry lock (registering the built-ins first when this is the first use).
static void lock_registry(void) {
    pthread_once(&g_builtins_once, register_builtins);
    pthread_mutex_lock(&g_lock);
}

int32_t dfm_solver_count(void) {
    lock_registry();
    int32_t n = g_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}

dfm_result dfm_solver_get_info(int32_t index, dfm_solver_info* out) {
    if (!out) return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "solver info output is NULL");
    if (out->struct_size < offsetof(dfm_solver_info, description) + sizeof(const char*) ||
        out->struct_size > sizeof(dfm_solver_info))
        return dfm_fail(NULL, DFM_ERROR_STRUCT_SIZE, "solver_info.struct_size is %u; this library knows %u",
                        out->struct_size, (unsigned)sizeof(dfm_solver_info));
    lock_registry();
    int32_t n = g_count;
    if (index < 0 || index >= n) {
        pthread_mutex_unlock(&g_lock);
        return dfm_fail(NULL, DFM_ERROR_INDEX_OUT_OF_RANGE, "solver index %d; %d providers are known", index, n);
    }
    const solver_entry* e = &g_entries[index];
    dfm_solver_info s;
    memset(&s, 0, sizeof(s));
    s.struct_size = out->struct_size;
    snprintf(s.name, sizeof(s.name), "%s", e->table.name);
    s.capabilities = e->table.capabilities;
    s.backends = e->table.backends;
    s.builtin = e->builtin;
    s.description = e->table.description ? e->table.description : "";
    pthread_mutex_unlock(&g_lock);
    memcpy(out, &s, out->struct_size);
    return DFM_OK;
}

dfm_result dfm_register_solver(const dfm_solver_provider_v1* p) {
    if (!p) return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "provider table is NULL");
    if (p->struct_size < sizeof(dfm_solver_provider_v1))
        return dfm_fail(NULL, DFM_ERROR_STRUCT_SIZE,
                        "provider table struct_size is %u; the version 1 layout needs at least %u", p->struct_size,
                        (unsigned)sizeof(dfm_solver_provider_v1));
    if ((p->provider_abi >> 16) != DFM_SOLVER_PROVIDER_ABI_MAJOR)
        return dfm_fail(NULL, DFM_ERROR_ABI_MISMATCH, "provider was built for provider ABI %u.%u; dfm implements %u.%u",
                        p->provider_abi >> 16, p->provider_abi & 0xFFFFu, (unsigned)DFM_SOLVER_PROVIDER_ABI_MAJOR,
                        (unsigned)DFM_SOLVER_PROVIDER_ABI_MINOR);
    dfm_result r = check_name(p->name);
    if (r != DFM_OK) return r;
    if (!p->create || !p->destroy || !p->import_state || !p->step)
        return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE,
                        "provider \"%s\" lacks a required function (create, destroy, import_state, step)", p->name);
    if (!(p->backends & (DFM_SOLVER_BACKEND_CPU | DFM_SOLVER_BACKEND_CUDA)))
        return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "provider \"%s\" names no backend it runs on", p->name);
    const dfm_solver_ops* const ops[DFM_BACKEND_CUDA + 1] = {
        NULL,
        (p->backends & DFM_SOLVER_BACKEND_CPU) ? &k_external_ops : NULL,
        (p->backends & DFM_SOLVER_BACKEND_CUDA) ? &k_external_ops : NULL,
    };
    lock_registry();
    r = add_locked(p, ops, 0);
    pthread_mutex_unlock(&g_lock);
    return r;
}

dfm_result dfm_register_solver_library(const char* path, const char** out_name) {
    if (out_name) *out_name = NULL;
    if (!path) return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "library path is NULL");
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "cannot load solver library: %s", dlerror());
    dfm_solver_entry_fn entry;
    *(void**)&entry = dlsym(lib, "dfm_solver_provider_entry");
    if (!entry) {
        dlclose(lib);
        return dfm_fail(NULL, DFM_ERROR_INVALID_VALUE, "%s exports no dfm_solver_provider_entry", path);
    }
    const dfm_solver_provider_v1* table = NULL;
    dfm_result r = entry(DFM_SOLVER_PROVIDER_ABI, &table);
    if (r != DFM_OK || !table) {
        dlclose(lib);
        if (r == DFM_OK)
            return dfm_fail(NULL, DFM_ERROR_NULL_POINTER, "%s: dfm_solver_provider_entry gave no table", path);
        return dfm_fail(NULL, r == DFM_ERROR_ABI_MISMATCH ? r : DFM_ERROR_INVALID_VALUE,
                        "%s: dfm_solver_provider_entry refused provider ABI %u.%u (%s)", path,
                        (unsigned)DFM_SOLVER_PROVIDER_ABI_MAJOR, (unsigned)DFM_SOLVER_PROVIDER_ABI_MINOR,
                        dfm_result_string(r));
    }
    r = dfm_register_solver(table);
    if (r != DFM_OK) {
        dlclose(lib);
        return r;
    }
    if (out_name) *out_name = table->name; /* the library stays loaded for the life of the process */
    return DFM_OK;
}

/// Registry entry `index` (the pointer stays valid: entries are never removed).
static const solver_entry* entry_at(int32_t index) {
    lock_registry();
    const solver_entry* e = index >= 0 && index < g_count ? &g_entries[index] : NULL;
    pthread_mutex_unlock(&g_lock);
    return e;
}

/* ---- a world's provider ----------------------------------------------------------------------- */

/// Fills the new record `ws` for provider `index` on `backend` and creates its instance.
static dfm_result init_world_solver(dfm_world* w, dfm_world_solver* ws, int32_t index, int32_t backend) {
    const solver_entry* e = entry_at(index);
    ws->index = index;
    ws->table = &e->table;
    ws->ops = e->ops[backend];
    ws->imported_generation = -1;
    return ws->ops->create ? ws->ops->create(w, ws, backend) : DFM_OK;
}

/// Destroys a provider record and its instance (no export).
static void free_world_solver(dfm_world_solver* ws) {
    if (ws->ops->destroy) ws->ops->destroy(ws);
    ws->instance = NULL;
    free(ws);
}

dfm_result dfm_solver_world_init(dfm_world* w) {
    lock_registry();
    int32_t index = find_locked(dfm_solver_vbd.table.name);
    pthread_mutex_unlock(&g_lock);
    dfm_world_solver* ws = (dfm_world_solver*)calloc(1, sizeof(dfm_world_solver));
    if (!ws) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory allocating the world");
    dfm_result r = init_world_solver(w, ws, index, w->cuda ? DFM_BACKEND_CUDA : DFM_BACKEND_CPU);
    if (r != DFM_OK) {
        free(ws);
        return r;
    }
    w->solver = ws;
    return DFM_OK;
}

void dfm_solver_world_release(dfm_world* w) {
    if (!w->solver) return;
    free_world_solver(w->solver);
    w->solver = NULL;
}

dfm_result dfm_world_get_solver(dfm_world* w, const char** out_name, int32_t* out_backend) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (out_name) *out_name = w->solver->table->name;
    if (out_backend) *out_backend = w->cuda ? DFM_BACKEND_CUDA : DFM_BACKEND_CPU;
    return DFM_OK;
}

dfm_result dfm_world_set_solver(dfm_world* w, const char* name, int32_t backend) {
    if (!w) return DFM_ERROR_NULL_POINTER;
    dfm_clear_error(w);
    if (!name) return dfm_fail(w, DFM_ERROR_NULL_POINTER, "solver name is NULL");
    lock_registry();
    int32_t index = find_locked(name);
    int32_t count = g_count;
    pthread_mutex_unlock(&g_lock);
    if (index < 0)
        return dfm_fail(w, DFM_ERROR_UNKNOWN_SOLVER,
                        "no solver provider named \"%s\" (%d known; see dfm_solver_get_info)", name, count);
    if (backend < DFM_BACKEND_AUTO || backend > DFM_BACKEND_CUDA)
        return dfm_fail(w, DFM_ERROR_INVALID_ENUM, "backend is %d; not a dfm_backend", backend);
    const solver_entry* e = entry_at(index);
    const int32_t cur_backend = w->cuda ? DFM_BACKEND_CUDA : DFM_BACKEND_CPU;
    if (backend == DFM_BACKEND_AUTO)
        backend = (e->table.backends & (1u << cur_backend))      ? cur_backend
                  : (e->table.backends & DFM_SOLVER_BACKEND_CPU) ? DFM_BACKEND_CPU
                                                                 : DFM_BACKEND_CUDA;
    if (!(e->table.backends & (1u << backend)) || !e->ops[backend])
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED, "solver \"%s\" does not run on the %s backend (it runs on:%s%s)",
                        name, backend_name(backend), (e->table.backends & DFM_SOLVER_BACKEND_CPU) ? " cpu" : "",
                        (e->table.backends & DFM_SOLVER_BACKEND_CUDA) ? " cuda" : "");
    if (w->def.deformable_contact_radius > 0.0f && strcmp(e->table.name, "vbd") != 0)
        return dfm_fail(w, DFM_ERROR_UNSUPPORTED,
                        "solver %s/%s: the world has deformable-deformable contact (deformable_contact_radius %g m), "
                        "which only vbd (cpu and cuda) implements (issue 16)",
                        name, backend_name(backend), (double)w->def.deformable_contact_radius);
    dfm_world_solver* cur = w->solver;
    if (cur->index == index && cur_backend == backend) {
        dfm_log(w, DFM_LOG_INFO, "solver %s/%s is already in use", name, backend_name(backend));
        return DFM_OK;
    }
    dfm_result r = dfm_world_ensure_model(w);
    if (r != DFM_OK) return r;

    /* 1. Prepare the new side; on any failure the world stays as it was. */
    char err[256] = "";
    dfm_cuda_backend* new_cuda = NULL;
    if (backend == DFM_BACKEND_CUDA && !w->cuda) {
        int rc = dfm_cuda_backend_create(w->def.device_index, w->def.cuda_stream, &new_cuda, err, sizeof(err));
        if (rc != 0)
            return dfm_fail(w, (dfm_result)rc, "solver %s/cuda: %s; the world stays on %s/%s", name, err,
                            cur->table->name, backend_name(cur_backend));
    }
    dfm_world_solver* ns = (dfm_world_solver*)calloc(1, sizeof(dfm_world_solver));
    if (!ns) {
        dfm_cuda_backend_destroy(new_cuda);
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory swapping solvers");
    }
    r = init_world_solver(w, ns, index, backend);
    if (r != DFM_OK) {
        free(ns);
        dfm_cuda_backend_destroy(new_cuda);
        return r;
    }
    /* 2. Bring the newest state to the host (CUDA download, the old provider's export). */
    if (w->cuda) {
        r = dfm_world_sync_host(w);
        if (r == DFM_OK) /* kinematic vertices start the next step where they are now */
            dfm_copy_floats(w->state.kin_start, w->state.x, (size_t)w->model.particle_count * 3u);
    }
    if (r == DFM_OK && cur->ops->export_state) r = cur->ops->export_state(w, cur);
    /* 3. Hand the state to the new provider. */
    if (r == DFM_OK && ns->ops->import_state) r = ns->ops->import_state(w, ns);
    if (r != DFM_OK) {
        free_world_solver(ns);
        dfm_cuda_backend_destroy(new_cuda);
        return r;
    }
    /* 4. Commit: retire the old side, install the new one. */
    const dfm_solver_provider_v1* cur_table = cur->table; /* registry storage: outlives the record */
    const char* cur_restarts = cur->ops->swap_restarts;
    dfm_solver_world_release(w);
    w->solver = ns;
    if (backend == DFM_BACKEND_CUDA) {
        if (new_cuda) w->cuda = new_cuda;
        w->uploaded_generation = -1; /* upload model, state and contacts at the next step */
        w->uploaded_contacts = -1;
        w->host_dirty = 1;
        w->device_newer = 0;
    } else if (w->cuda) {
        dfm_cuda_backend_destroy(w->cuda);
        w->cuda = NULL;
        w->uploaded_generation = -1;
        w->uploaded_contacts = -1;
        w->device_newer = 0;
    }
    w->def.backend = backend;
    /* 5. Say what carried over and what did not. */
    char lost[384] = "";
    size_t n = 0;
#define LOST(...) (n += (size_t)snprintf(lost + n, n < sizeof(lost) ? sizeof(lost) - n : 0, __VA_ARGS__))
    if (cur_backend == DFM_BACKEND_CUDA && backend != DFM_BACKEND_CUDA)
        LOST("; dropped: device buffers and the captured CUDA graph");
    if (cur_restarts) LOST("; restarted: %s", cur_restarts);
    if (cur_table->capabilities & DFM_SOLVER_CAP_WARM_START) LOST("; dropped: %s warm-start data", cur_table->name);
    if (w->shape_pool.live > 0 && !(e->table.capabilities & DFM_SOLVER_CAP_CONTACTS))
        LOST("; %s has no contacts: the %d shapes are ignored and report no reactions", name, w->shape_pool.live);
    if (!(e->table.capabilities & DFM_SOLVER_CAP_KINEMATIC))
        LOST("; %s does not declare pinned/kinematic support", name);
    if (w->model.tet_count > 0 && !(e->table.capabilities & DFM_SOLVER_CAP_VOLUME))
        LOST("; %s does not simulate tetrahedra (%d ignored)", name, w->model.tet_count);
    if (w->model.tri_count > 0 && !(e->table.capabilities & DFM_SOLVER_CAP_CLOTH))
        LOST("; %s does not simulate cloth membranes (%d triangles ignored)", name, w->model.tri_count);
#undef LOST
    dfm_log(w, DFM_LOG_INFO,
            "solver %s/%s -> %s/%s at step %lld: carried over positions, velocities, pins, kinematic targets, "
            "materials, shapes and environments%s",
            cur_table->name, backend_name(cur_backend), name, backend_name(backend), (long long)w->step_count, lost);
    return DFM_OK;
}
