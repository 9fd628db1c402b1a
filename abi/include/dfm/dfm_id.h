/// @file dfm_id.h
/// Value ids of objects inside a world. Stand-alone so adapters can store ids cheaply.
#ifndef DFM_ID_H
#define DFM_ID_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Id of a deformable body (cloth or volume) inside a world.
/// `index1` is the slot index plus one (0 means "no body"), `generation` changes each time the
/// slot is reused (so a removed body's id becomes stale), `world_tag` identifies the world that
/// issued the id (so an id from another world is caught). Compare ids with dfm_body_id_equal().
typedef struct dfm_body_id {
    int32_t index1;      ///< Slot index + 1; 0 is the null id.
    uint16_t generation; ///< Slot generation when the id was issued.
    uint16_t world_tag;  ///< Tag of the issuing world (never 0 for a valid id).
} dfm_body_id;

/// The null body id (all zero).
// clang-format off
#define DFM_NULL_BODY_ID {0, 0, 0}
// clang-format on

/// Id of a rigid shape registered by the host (same layout and rules as dfm_body_id).
typedef struct dfm_shape_id {
    int32_t index1;      ///< Slot index + 1; 0 is the null id.
    uint16_t generation; ///< Slot generation when the id was issued.
    uint16_t world_tag;  ///< Tag of the issuing world.
} dfm_shape_id;

/// The null shape id (all zero).
// clang-format off
#define DFM_NULL_SHAPE_ID {0, 0, 0}
// clang-format on

/// True when the id is the null id. Says nothing about whether a non-null id is still alive.
static inline int dfm_body_id_is_null(dfm_body_id id) { return id.index1 == 0; }

/// True when two ids are identical.
static inline int dfm_body_id_equal(dfm_body_id a, dfm_body_id b) {
    return a.index1 == b.index1 && a.generation == b.generation && a.world_tag == b.world_tag;
}

#ifdef __cplusplus
}
#endif

#endif
