/// @file host_bodies_cpu.c
/// See host_bodies_cpu.h.
#include "host_bodies_cpu.h"

void dfm_cpu_place_host_shapes(const dfm_cpu_host_solve* hs, int begin) {
    for (int32_t k = 0; k < hs->shape_count; ++k) {
        const int32_t b = hs->shape_host[k];
        if (b >= 0) dfm_host_shape_place(&hs->bodies[b], &hs->shapes[k], begin);
    }
}

void dfm_cpu_solve_host_bodies(const dfm_cpu_host_solve* hs, const dfm_contact_view* c, const float* d, float h) {
    const int32_t nb = hs->count;
    int32_t* off = hs->record_offsets;
    int32_t* cursor = hs->record_offsets + nb + 1;
    const int32_t na = c && c->count ? (*c->count < c->capacity ? *c->count : c->capacity) : 0;
    for (int32_t b = 0; b <= nb; ++b) off[b] = 0;
    for (int32_t k = 0; k < na; ++k) {
        const int32_t b = hs->shape_host[c->rec.shape[k]];
        if (b >= 0) ++off[b + 1];
    }
    for (int32_t b = 0; b < nb; ++b) {
        off[b + 1] += off[b];
        cursor[b] = off[b];
    }
    for (int32_t k = 0; k < na; ++k) {
        const int32_t b = hs->shape_host[c->rec.shape[k]];
        if (b >= 0) hs->records[cursor[b]++] = dfm_host_make_record(c, d, k, dfm_host_body_pose(&hs->bodies[b]));
    }
    for (int32_t b = 0; b < nb; ++b) {
        float q[6];
        dfm_host_body_solve(hs->records + off[b], off[b + 1] - off[b], &hs->bodies[b], h, q);
        dfm_host_body_apply(&hs->bodies[b], q);
    }
    dfm_cpu_place_host_shapes(hs, 0);
}
