/// @file deform_contacts.h
/// The world's deformable-deformable contact state (issue 16): broad-phase primitives and body
/// filters of the placed bodies, the two trees, the pair buffers sized at prepare time, and the
/// figures the stats report. Rebuilt when the model is (plugin/deform_contacts.c).
#ifndef DFM_PLUGIN_DEFORM_CONTACTS_H
#define DFM_PLUGIN_DEFORM_CONTACTS_H

#include <dfm/dfm.h>

#include "deform_contact_cpu.h"

/// Deformable contact of one world; all zero when world_def.deformable_contact_radius is 0.
typedef struct dfm_deform_contacts {
    int64_t generation; ///< Model generation the buffers were built for (-1: none yet).
    dfm_bvh_prim *points, *edges, *tris;
    dfm_bvh_filter* filter;
    uint8_t* surface;
    dfm_cpu_bvh tri_tree, edge_tree;
    dfm_cpu_dc cpu; ///< The CPU advance's view of the above (and its scratch).
    int32_t last_pairs, last_candidates;
    int64_t dropped_last_step, dropped_total;
} dfm_deform_contacts;

/// Builds the state for the current model when deformable contact is on and it is stale. Fails
/// with DFM_ERROR_OUT_OF_HOST_MEMORY (the world unchanged otherwise).
dfm_result dfm_deform_contacts_ensure(dfm_world* world);

/// Releases everything (c zeroed, generation -1).
void dfm_deform_contacts_free(dfm_deform_contacts* c);

/// After a step: the figures of its last advance and the candidates it dropped (`dropped`,
/// summed over its advances), with a warning when any were.
void dfm_deform_contacts_finish_step(dfm_world* world, int64_t dropped);

#endif
