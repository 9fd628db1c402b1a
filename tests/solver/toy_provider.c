/// A tiny third-party solver provider, built as its own shared library: "damped-freefall" moves
/// dynamic particles under gravity with linear damping (v <- (v + h g) / (1 + h c), c = 0.5/s),
/// ignores elements and shapes, puts kinematic particles at their targets and keeps pinned ones.
/// Built with -DTOY_BAD_SIZE it hands out a table with a wrong struct_size (to be refused).
#include <dfm/dfm_solver.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOY_DAMPING 0.5f

typedef struct toy {
    int32_t particles; /* from the last import */
    int imports;
} toy;

static dfm_result toy_create(int32_t backend, void** out, char* err, size_t n) {
    if (backend != DFM_BACKEND_CPU) {
        snprintf(err, n, "damped-freefall runs on the CPU only");
        return DFM_ERROR_UNSUPPORTED;
    }
    *out = calloc(1, sizeof(toy));
    return *out ? DFM_OK : DFM_ERROR_OUT_OF_HOST_MEMORY;
}

static void toy_destroy(void* p) { free(p); }

static dfm_result toy_import(void* p, const dfm_solver_state* s, char* err, size_t n) {
    (void)err;
    (void)n;
    toy* t = (toy*)p;
    t->particles = s->particle_count;
    t->imports++;
    return DFM_OK;
}

static dfm_result toy_step(void* p, dfm_solver_state* s, float dt, char* err, size_t n) {
    toy* t = (toy*)p;
    if (t->particles != s->particle_count) {
        snprintf(err, n, "state has %d particles; imported %d", s->particle_count, t->particles);
        return DFM_ERROR_INVALID_STATE;
    }
    for (int32_t i = 0; i < s->particle_count; ++i) {
        float* x = s->x + 3 * i;
        float* v = s->v + 3 * i;
        if (s->mode[i] == DFM_VERTEX_DYNAMIC) {
            for (int a = 0; a < 3; ++a) {
                v[a] = (v[a] + dt * s->gravity[a]) / (1.0f + dt * TOY_DAMPING);
                x[a] += dt * v[a];
            }
        } else if (s->mode[i] == DFM_VERTEX_KINEMATIC) {
            for (int a = 0; a < 3; ++a) {
                v[a] = (s->kin_target[3 * i + a] - x[a]) / dt;
                x[a] = s->kin_target[3 * i + a];
            }
        } else {
            v[0] = v[1] = v[2] = 0.0f;
        }
    }
    return DFM_OK;
}

static const dfm_solver_provider_v1 g_toy = {
#ifdef TOY_BAD_SIZE
    12u,
#else
    (uint32_t)sizeof(dfm_solver_provider_v1),
#endif
    DFM_SOLVER_PROVIDER_ABI,
#ifdef TOY_BAD_SIZE
    "damped-freefall-bad",
#else
    "damped-freefall",
#endif
    "toy: gravity with linear damping, no elements, no contacts",
    DFM_SOLVER_CAP_KINEMATIC | DFM_SOLVER_CAP_DETERMINISTIC,
    DFM_SOLVER_BACKEND_CPU,
    toy_create,
    toy_destroy,
    toy_import,
    toy_step,
    NULL,
};

// clang-format off
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
dfm_result dfm_solver_provider_entry(uint32_t provider_abi, const dfm_solver_provider_v1** out);
// clang-format on

dfm_result dfm_solver_provider_entry(uint32_t provider_abi, const dfm_solver_provider_v1** out) {
    if ((provider_abi >> 16) != DFM_SOLVER_PROVIDER_ABI_MAJOR) return DFM_ERROR_ABI_MISMATCH;
    *out = &g_toy;
    return DFM_OK;
}
