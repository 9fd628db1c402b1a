/// @file dfm_test_energy.h
/// The mechanical energy of a world's deformables, for tests that assert "energy does not grow":
/// kinetic (1/2 m |v|^2), gravitational (-m g . x) and elastic (every triangle's membrane energy,
/// every hinge's bending energy and every tet's elastic energy, the solver's own energy functions
/// of kernels/shared at the model's rest data and materials), in J.
/// Not counted: the contact penalty energy (1/2 ke pen^2 per record; a test states why it is small
/// against its tolerance) and the damping terms (they only dissipate).
/// Positions and velocities come through the ABI getters (which read the CUDA backend's state),
/// the elements from the prepared model (world_internal.h): call after the first dfm_world_step.
#ifndef DFM_TEST_ENERGY_H
#define DFM_TEST_ENERGY_H

#include <stdlib.h>

#include "vbd_bending.h"
#include "vbd_membrane.h"
#include "vbd_tet.h"
#include "world_internal.h"

/// The parts of dfm_test_energy, J.
typedef struct dfm_test_energy_parts {
    double kinetic, gravity, membrane, bending, tet;
} dfm_test_energy_parts;

/// The sum of the parts, J.
static inline double dfm_test_energy_total(const dfm_test_energy_parts* e) {
    return e->kinetic + e->gravity + e->membrane + e->bending + e->tet;
}

/// Energy of every deformable of a world whose only body is `body` (its particles are the model's
/// particles 0..n-1); gravity g (m/s^2, world frame). Exits when the world holds other bodies.
static inline dfm_test_energy_parts dfm_test_energy(dfm_world* w, dfm_body_id body, const float g[3]) {
    dfm_test_energy_parts e = {0, 0, 0, 0, 0};
    const dfm_model* m = &w->model;
    const int32_t n = m->particle_count;
    if (m->body_count != 1) {
        fprintf(stderr, "dfm_test_energy: %d bodies placed, expected 1\n", (int)m->body_count);
        exit(2);
    }
    float* x = (float*)malloc(sizeof(float) * 6 * (size_t)(n > 0 ? n : 1));
    float* v = x + 3 * (size_t)n;
    if (dfm_body_get_positions(w, body, 0, n, x, 0) != DFM_OK ||
        dfm_body_get_velocities(w, body, 0, n, v, 0) != DFM_OK) {
        fprintf(stderr, "dfm_test_energy: %s\n", dfm_world_last_error(w));
        exit(2);
    }
    for (int32_t i = 0; i < n; ++i) {
        const double mi = m->mass[i];
        for (int a = 0; a < 3; ++a) {
            e.kinetic += 0.5 * mi * (double)v[3 * i + a] * v[3 * i + a];
            e.gravity -= mi * (double)g[a] * x[3 * i + a];
        }
    }
#define P(i) dfm_v3_make(x[3 * (i)], x[3 * (i) + 1], x[3 * (i) + 2])
    for (int32_t t = 0; t < m->tri_count; ++t) {
        const int32_t* k = m->tris + 3 * t;
        const dfm_v3 p[3] = {P(k[0]), P(k[1]), P(k[2])};
        const float* mat = m->tri_material + 3 * t;
        e.membrane += dfm_membrane_energy(p, m->tri_dinv + 4 * t, m->tri_area[t], mat[0], mat[1]);
    }
    for (int32_t h = 0; h < m->edge_count; ++h) {
        const int32_t* k = m->edges + 4 * h;
        if (k[0] < 0 || k[1] < 0) continue; /* a boundary edge has no hinge */
        const dfm_v3 p[4] = {P(k[0]), P(k[1]), P(k[2]), P(k[3])};
        e.bending += dfm_bending_energy(p, m->edge_rest_angle[h], m->edge_rest_length[h], m->edge_material[2 * h]);
    }
    for (int32_t t = 0; t < m->tet_count; ++t) {
        const int32_t* k = m->tets + 4 * t;
        const dfm_v3 p[4] = {P(k[0]), P(k[1]), P(k[2]), P(k[3])};
        const float* mat = m->tet_material + 3 * t;
        e.tet += dfm_tet_energy(p, m->tet_dminv + 9 * t, m->tet_volume[t], mat[0], mat[1]);
    }
#undef P
    free(x);
    return e;
}

#endif
