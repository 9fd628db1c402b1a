/// @file contacts_cpu.c
/// CPU loops of the contact pipeline (reference for the CUDA kernels).
///
/// Parallelism review (seed 001):
/// - P1 level batching: applies-and-done — the scatter runs per color (the color is the level);
///   the gather is called inside the per-color solve loop.
/// - P2 parallel independent columns: applies-TODO — detection, penalty updates and finalization
///   are independent per record/candidate but run serially on the CPU so that records come out
///   in candidate order (deterministic); the CUDA backend runs them one thread per item.
/// - P3 loop-invariant hoisting: applies-and-done — candidate lists, features and shape
///   runtime data are built once (per topology change / per advance), not per iteration.
/// - P4 offline memory layout: applies-and-done — candidates are sorted by shape on the host
///   (seed section 2) and records are a compact prefix of the capacity.
#include "contacts_cpu.h"

#include "contact_reaction.h"

#include <string.h>

/// Number of records written this advance (count may exceed the capacity).
static int32_t active_count(const dfm_contact_view* c) { return *c->count < c->capacity ? *c->count : c->capacity; }

void dfm_cpu_contacts_detect(const dfm_contact_view* c, const dfm_detect_input* in) {
    *c->count = 0;
    for (int32_t k = 0; k < c->cand_particle_count; ++k) dfm_detect_particle(c, in, k);
    for (int32_t k = 0; k < c->cand_edge_count; ++k) dfm_detect_edge(c, in, k);
    for (int32_t k = 0; k < c->cand_face_count; ++k) dfm_detect_face(c, in, k);
}

void dfm_cpu_contacts_guess_normals(const dfm_contact_view* c, int32_t particle_count, float* guess_normal,
                                    float* guess_gap) {
    for (int32_t i = 0; i < particle_count; ++i) dfm_contact_guess_particle(c, i, guess_normal, guess_gap);
}

void dfm_cpu_contacts_build_lists(const dfm_contact_view* c, int32_t particle_count) {
    for (int32_t i = 0; i < particle_count; ++i) c->head[i] = -1;
    /* Nodes pushed in reverse so that each list comes out in ascending node (record) order: the
     * order the CUDA backend's deterministic counting sort produces. */
    for (int32_t node = 3 * active_count(c) - 1; node >= 0; --node) {
        int32_t p = c->corners[node];
        if (p < 0) continue;
        c->next[node] = c->head[p];
        c->head[p] = node;
    }
}

void dfm_cpu_contacts_update_penalties(const dfm_contact_view* c, const float* d) {
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k) dfm_contact_update_penalty(c, d, k);
}

void dfm_cpu_contacts_scatter_color(const dfm_cpu_contacts* cc, const float* d, float h,
                                    const int32_t* color_particles, int32_t begin, int32_t end, int32_t color) {
    const dfm_contact_view* c = cc->view;
    for (int32_t k = begin; k < end; ++k) {
        int32_t p = color_particles[k];
        memset(cc->acc_f + 3 * (size_t)p, 0, 3 * sizeof(float));
        memset(cc->acc_H + 9 * (size_t)p, 0, 9 * sizeof(float));
    }
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k) {
        int any = 0;
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->corners[3 * k + j];
            any |= p >= 0 && cc->particle_color[p] == color;
        }
        if (!any) continue;
        dfm_v3 f;
        dfm_m33 H;
        dfm_contact_point_force(c, d, h, k, &f, &H);
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->corners[3 * k + j];
            if (p < 0 || cc->particle_color[p] != color) continue;
            float w = c->bary[3 * k + j];
            float* af = cc->acc_f + 3 * (size_t)p;
            float* aH = cc->acc_H + 9 * (size_t)p;
            af[0] += w * f.x;
            af[1] += w * f.y;
            af[2] += w * f.z;
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) aH[3 * a + b] += w * w * H.m[a][b];
        }
    }
}

void dfm_cpu_contacts_friction(dfm_cpu_contacts* cc, const uint8_t* mode, float* x, float* d, float h,
                              int32_t color_count, const int32_t* color_offsets, const int32_t* color_particles) {
    const dfm_contact_view* c = cc->view;
    if (c->flags & DFM_DISABLE_STATIC_FRICTION) return;
    for (int32_t col = 0; col < color_count; ++col)
        for (int32_t k = color_offsets[col]; k < color_offsets[col + 1]; ++k)
            (void)dfm_contact_friction_particle(c, mode, x, d, h, color_particles[k]);
}

void dfm_cpu_contacts_finalize(dfm_cpu_contacts* cc, const dfm_vbd_view* v) {
    const dfm_contact_view* c = cc->view;
    const float h = v->h;
    int32_t n = active_count(c);
    cc->max_penetration = 0.0f;
    cc->kind_counts[0] = cc->kind_counts[1] = cc->kind_counts[2] = 0;
    for (int32_t k = 0; k < n; ++k) {
        cc->kind_counts[dfm_contact_kind_index(c, k)]++;
        float pen = dfm_contact_final_force(c, v->d, h, k, cc->record_force);
        if (pen > cc->max_penetration) cc->max_penetration = pen;
    }
    for (int32_t i = 0; i < v->particle_count; ++i) dfm_contact_reaction_particle(c, v, cc->record_force, cc->node_part, i);
    for (int32_t k = 0; k < n; ++k) {
        dfm_v3 fp, fr, tr;
        dfm_contact_record_wrench(c, v->d, cc->node_part, k, &fp, &fr, &tr);
        cc->particle_impulse[0] += (double)fp.x * h;
        cc->particle_impulse[1] += (double)fp.y * h;
        cc->particle_impulse[2] += (double)fp.z * h;
        double* imp = cc->shape_impulse + 6 * (size_t)c->shape[k];
        imp[0] += (double)fr.x * h;
        imp[1] += (double)fr.y * h;
        imp[2] += (double)fr.z * h;
        imp[3] += (double)tr.x * h;
        imp[4] += (double)tr.y * h;
        imp[5] += (double)tr.z * h;
    }
}
