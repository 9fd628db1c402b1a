/// @file worst_contacts.c
/// See worst_contacts.h.
#include "worst_contacts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dfm_worst_contacts_offer(dfm_worst_contacts* w, dfm_world* world, double t, double score, const float* reactions,
                              int32_t shape_count) {
    if (!(score > w->score) && w->records) return;
    int32_t n = 0;
    if (dfm_world_get_contacts(world, NULL, 0, (int32_t)sizeof(dfm_contact_point), &n) != DFM_OK) return;
    if (n > w->capacity) {
        dfm_contact_point* r = (dfm_contact_point*)realloc(w->records, (size_t)n * sizeof(*r));
        if (!r) return;
        w->records = r;
        w->capacity = n;
    }
    if (!w->records) {
        w->records = (dfm_contact_point*)malloc(sizeof(dfm_contact_point));
        w->capacity = 1;
    }
    if (dfm_world_get_contacts(world, w->records, w->capacity, (int32_t)sizeof(dfm_contact_point), &n) != DFM_OK)
        return;
    w->count = n < w->capacity ? n : w->capacity;
    w->score = score;
    w->t = t;
    if (shape_count > DFM_WORST_CONTACTS_SHAPES) shape_count = DFM_WORST_CONTACTS_SHAPES;
    memcpy(w->reactions, reactions, 3 * (size_t)shape_count * sizeof(float));
}

static int same_shape(dfm_shape_id a, dfm_shape_id b) { return a.index1 == b.index1 && a.generation == b.generation; }

/// Force of record c on the deformable (normal and friction parts), N.
static void record_force(const dfm_contact_point* c, double f[3]) {
    for (int a = 0; a < 3; ++a) f[a] = (double)c->normal_force * c->normal[a] + c->friction_force[a];
}

static double norm3(const double f[3]) { return sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]); }

/// Records of one shape, for sorting by force.
typedef struct ranked {
    int32_t k;
    double f;
} ranked;

static int by_force_desc(const void* a, const void* b) {
    const double fa = ((const ranked*)a)->f, fb = ((const ranked*)b)->f;
    return fa < fb ? 1 : (fa > fb ? -1 : 0);
}

/// Per kind, the sum of the forces the records applied to the shape, split by whether the normal
/// lies along a world axis (a face of an axis-aligned box) or is oblique (its rims and corners).
static void print_kinds(const dfm_worst_contacts* w, dfm_shape_id id) {
    static const char* names[] = {"particle", "edge", "face"};
    double sum[3][2][3] = {{{0}}};
    for (int32_t k = 0; k < w->count; ++k) {
        const dfm_contact_point* c = &w->records[k];
        if (!same_shape(c->shape, id) || c->kind < 1 || c->kind > 3) continue;
        const float m = fmaxf(fabsf(c->normal[0]), fmaxf(fabsf(c->normal[1]), fabsf(c->normal[2])));
        double f[3];
        record_force(c, f);
        for (int a = 0; a < 3; ++a) sum[c->kind - 1][m < 0.999f][a] -= f[a];
    }
    for (int kind = 0; kind < 3; ++kind)
        printf(
            "    %s records applied (%.2f, %.2f, %.2f) N along axis normals, (%.2f, %.2f, %.2f) N along oblique ones\n",
            names[kind], sum[kind][0][0], sum[kind][0][1], sum[kind][0][2], sum[kind][1][0], sum[kind][1][1],
            sum[kind][1][2]);
}

void dfm_worst_contacts_print(const dfm_worst_contacts* w, const dfm_shape_id* ids, const char* const* names,
                              int32_t shape_count, double weight, double min_force, int32_t max_lines) {
    static const char* kinds[] = {"?", "particle", "edge", "face"};
    if (!w->records) return;
    ranked* order = (ranked*)malloc((size_t)(w->count > 0 ? w->count : 1) * sizeof(ranked));
    if (!order) return;
    printf("worst step: t %.4f s, score %.3f, %d records (last advance of the step)\n", w->t, w->score, w->count);
    for (int32_t s = 0; s < shape_count && s < DFM_WORST_CONTACTS_SHAPES; ++s) {
        double sum[3] = {0, 0, 0};
        int32_t n = 0;
        for (int32_t k = 0; k < w->count; ++k) {
            const dfm_contact_point* c = &w->records[k];
            if (!same_shape(c->shape, ids[s])) continue;
            double f[3];
            record_force(c, f);
            for (int a = 0; a < 3; ++a) sum[a] -= f[a];
            order[n].k = k;
            order[n++].f = norm3(f);
        }
        const float* R = w->reactions + 3 * s;
        printf(
            "  %s: reaction (%.3f, %.3f, %.3f) N = (%.2f, %.2f, %.2f) W; its %d records applied (%.3f, %.3f, %.3f) N\n",
            names[s], (double)R[0], (double)R[1], (double)R[2], R[0] / weight, R[1] / weight, R[2] / weight, n, sum[0],
            sum[1], sum[2]);
        if (n == 0) continue;
        print_kinds(w, ids[s]);
        qsort(order, (size_t)n, sizeof(ranked), by_force_desc);
        for (int32_t j = 0; j < n && j < max_lines && order[j].f >= min_force; ++j) {
            const dfm_contact_point* c = &w->records[order[j].k];
            printf("    %-8s v (%d %d %d) w (%.2f %.2f %.2f) at (%.4f, %.4f, %.4f) n (%.3f, %.3f, %.3f) fn %.3f N "
                   "friction (%.3f, %.3f, %.3f) N\n",
                   kinds[c->kind >= 1 && c->kind <= 3 ? c->kind : 0], c->vertices[0], c->vertices[1], c->vertices[2],
                   (double)c->weights[0], (double)c->weights[1], (double)c->weights[2], (double)c->point[0],
                   (double)c->point[1], (double)c->point[2], (double)c->normal[0], (double)c->normal[1],
                   (double)c->normal[2], (double)c->normal_force, (double)c->friction_force[0],
                   (double)c->friction_force[1], (double)c->friction_force[2]);
        }
    }
    free(order);
}

void dfm_worst_contacts_free(dfm_worst_contacts* w) {
    free(w->records);
    memset(w, 0, sizeof(*w));
}
