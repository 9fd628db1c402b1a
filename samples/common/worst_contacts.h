/// @file worst_contacts.h
/// A probe for the samples' force bound (issue 13): keeps the contact records
/// (dfm_world_get_contacts) of the step whose reactions were furthest past the bound, and prints
/// them per shape: kind, vertices, point, normal, normal and friction force, next to the shape's
/// reaction of that step. World frame, metres, newtons.
#ifndef DFM_SAMPLE_WORST_CONTACTS_H
#define DFM_SAMPLE_WORST_CONTACTS_H

#include <dfm/dfm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most shapes the probe keeps reactions for.
#define DFM_WORST_CONTACTS_SHAPES 8

/// The worst step seen so far.
typedef struct dfm_worst_contacts {
    double score;                                   ///< Its score (the caller's: e.g. peak / bound), larger is worse.
    double t;                                       ///< Its end time, s.
    float reactions[3 * DFM_WORST_CONTACTS_SHAPES]; ///< Each shape's reaction force that step, N, world.
    dfm_contact_point* records;                     ///< Its contact records (owned).
    int32_t count;                                  ///< Records kept.
    int32_t capacity;                               ///< Room in `records`.
} dfm_worst_contacts;

/// Offers the step just taken (end time t, score, reactions of `shape_count` shapes as 3 floats
/// each): kept, with a copy of the world's contact records, when its score is the largest so far.
void dfm_worst_contacts_offer(dfm_worst_contacts* w, dfm_world* world, double t, double score, const float* reactions,
                              int32_t shape_count);

/// Prints the kept step: per shape (names[k], ids[k]) its reaction, the sum of the forces its
/// records applied to it (the opposite of their forces on the deformable, dfm_contact_point), that
/// sum per record kind split into records whose normal lies along a world axis (the faces of an
/// axis-aligned box) and oblique ones (its rims), and its records with |force| >= min_force N,
/// largest first (at most `max_lines` per shape). Forces in N; reactions also in units of
/// `weight` (N).
void dfm_worst_contacts_print(const dfm_worst_contacts* w, const dfm_shape_id* ids, const char* const* names,
                              int32_t shape_count, double weight, double min_force, int32_t max_lines);

/// Frees the kept records.
void dfm_worst_contacts_free(dfm_worst_contacts* w);

#ifdef __cplusplus
}
#endif

#endif
