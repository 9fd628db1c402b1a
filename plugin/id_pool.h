/// @file id_pool.h
/// One generational slot table for every id kind (bodies and shapes): slot i holds an object
/// and a generation that changes each time the slot is emptied, so an id {slot + 1, generation}
/// names one object for its whole life and is stale afterwards. Objects are inserted into the
/// lowest free slot (the world lays bodies out in slot order, so this keeps the model layout of a
/// given add/remove sequence fixed).
#ifndef DFM_ID_POOL_H
#define DFM_ID_POOL_H

#include <stdint.h>

/// The table. Zero-initialised is an empty pool.
typedef struct dfm_id_pool {
    void** items;          ///< Per slot: the object, NULL when free.
    uint16_t* generations; ///< Per slot: bumped on every removal.
    int32_t count;         ///< Slots in use or freed (the high-water mark).
    int32_t capacity;      ///< Slots allocated.
    int32_t live;          ///< Slots holding an object.
} dfm_id_pool;

/// Outcome of dfm_id_pool_resolve.
typedef enum dfm_id_pool_status {
    DFM_ID_OK = 0,    ///< The id names a live object.
    DFM_ID_NULL = 1,  ///< index1 is 0.
    DFM_ID_STALE = 2, ///< No such slot, the slot is empty, or its generation moved on.
} dfm_id_pool_status;

/// Puts `item` (not NULL) into the lowest free slot, growing the table when none is free.
/// Returns the slot and writes its generation, or -1 when host memory is short (nothing changed).
int32_t dfm_id_pool_insert(dfm_id_pool* pool, void* item, uint16_t* generation);

/// Empties `slot` (which must hold an object), bumps its generation and returns the object.
void* dfm_id_pool_remove(dfm_id_pool* pool, int32_t slot);

/// Resolves an id's index1 (slot + 1) and generation: the object, or NULL with *status saying
/// why. Any index1 is safe (negative, INT_MIN, beyond the table).
void* dfm_id_pool_resolve(const dfm_id_pool* pool, int32_t index1, uint16_t generation, dfm_id_pool_status* status);

/// Frees the table (not the objects).
void dfm_id_pool_free(dfm_id_pool* pool);

#endif
