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
    memset(guess_normal, 0, (size_t)particle_count * 3u * sizeof(float));
    for (int32_t i = 0; i < particle_count; ++i) guess_gap[i] = 3.0e38f;
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k) {
        float gap = fmaxf(-c->pen0[k], 0.0f);
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->corners[3 * k + j];
            if (p < 0 || c->bary[3 * k + j] < 0.5f || gap >= guess_gap[p]) continue;
            guess_gap[p] = gap;
            memcpy(guess_normal + 3 * (size_t)p, c->normal + 3 * (size_t)k, 3 * sizeof(float));
        }
    }
}

void dfm_cpu_contacts_build_lists(const dfm_contact_view* c, int32_t particle_count) {
    for (int32_t i = 0; i < particle_count; ++i) c->head[i] = -1;
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k)
        for (int j = 0; j < 3; ++j) {
            int32_t p = c->corners[3 * k + j];
            if (p < 0) continue;
            int32_t node = 3 * k + j;
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

void dfm_cpu_contacts_friction(dfm_cpu_contacts* cc, const uint8_t* mode, float* x, float* d, float h) {
    const dfm_contact_view* c = cc->view;
    if (c->flags & DFM_DISABLE_STATIC_FRICTION) return;
    int32_t n = active_count(c);
    for (int32_t k = 0; k < n; ++k) (void)dfm_contact_friction_project(c, mode, x, d, h, k);
}

void dfm_cpu_contacts_finalize(dfm_cpu_contacts* cc, const dfm_vbd_view* v) {
    const dfm_contact_view* c = cc->view;
    const float h = v->h;
    int32_t n = active_count(c);
    cc->max_penetration = 0.0f;
    cc->kind_counts[0] = cc->kind_counts[1] = cc->kind_counts[2] = 0;
    /* 1. Each record's force at the final iterate: its geometric share of the contact load. */
    for (int32_t k = 0; k < n; ++k) {
        int kind = c->corners[3 * k + 1] < 0 ? 0 : (c->corners[3 * k + 2] < 0 ? 1 : 2);
        cc->kind_counts[kind]++;
        dfm_v3 f;
        dfm_m33 H;
        dfm_contact_point_force(c, v->d, h, k, &f, &H);
        dfm_v3_store(f, cc->record_force + 3 * (size_t)k);
        dfm_v3_store(dfm_v3_zero(), cc->record_reaction + 3 * (size_t)k);
        float pen = dfm_contact_geometry(c, v->d, k).pen;
        if (pen > cc->max_penetration) cc->max_penetration = pen;
    }
    /* 2. Per touching particle, the contact force its final state actually needs (the residual of
     * its local balance: m/h^2 (d - y) - f_elastic + c d / h, friction included since the
     * projection already moved d), split over its records by their shares |w f|. Pinned and
     * kinematic corners keep their records' shares w f. */
    for (int32_t i = 0; i < v->particle_count; ++i) {
        if (c->head[i] < 0) continue;
        float total = 0.0f;
        int32_t nodes = 0;
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            int32_t k = node / 3;
            total += c->bary[node] * dfm_v3_len(dfm_v3_load(cc->record_force + 3 * (size_t)k));
            ++nodes;
        }
        dfm_v3 need;
        if (v->mode[i] == 0) {
            dfm_v3 fel = dfm_v3_zero();
            dfm_m33 Hel = dfm_m33_zero();
            dfm_vbd_accumulate_elements(v, i, &fel, &Hel);
            dfm_v3 d = dfm_v3_load(v->d + 3 * i);
            need = dfm_v3_sub(dfm_v3_scale(dfm_v3_sub(d, dfm_v3_load(v->y + 3 * i)), v->mass[i] / (h * h)), fel);
            need = dfm_v3_madd(need, d, v->drag[i] / h);
        }
        for (int32_t node = c->head[i]; node >= 0; node = c->next[node]) {
            int32_t k = node / 3;
            dfm_v3 fk = dfm_v3_load(cc->record_force + 3 * (size_t)k);
            dfm_v3 part;
            if (v->mode[i] != 0) part = dfm_v3_scale(fk, c->bary[node]);
            else if (total > 0.0f) part = dfm_v3_scale(need, c->bary[node] * dfm_v3_len(fk) / total);
            else part = dfm_v3_scale(need, 1.0f / (float)nodes);
            dfm_v3_store(dfm_v3_add(dfm_v3_load(cc->record_reaction + 3 * (size_t)k), part),
                         cc->record_reaction + 3 * (size_t)k);
        }
    }
    /* 3. Opposite force and its torque about the host body origin on each record's shape. */
    for (int32_t k = 0; k < n; ++k) {
        dfm_v3 f = dfm_v3_load(cc->record_reaction + 3 * (size_t)k);
        cc->particle_impulse[0] += (double)f.x * h;
        cc->particle_impulse[1] += (double)f.y * h;
        cc->particle_impulse[2] += (double)f.z * h;
        const dfm_shape_rt* sh = &c->shapes[c->shape[k]];
        dfm_v3 b = dfm_contact_geometry(c, v->d, k).b;
        dfm_v3 fr = dfm_v3_neg(f);
        dfm_v3 tr = dfm_v3_cross(dfm_v3_sub(b, sh->body_end.t), fr);
        double* imp = cc->shape_impulse + 6 * (size_t)c->shape[k];
        imp[0] += (double)fr.x * h;
        imp[1] += (double)fr.y * h;
        imp[2] += (double)fr.z * h;
        imp[3] += (double)tr.x * h;
        imp[4] += (double)tr.y * h;
        imp[5] += (double)tr.z * h;
    }
}
