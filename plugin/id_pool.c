/// @file id_pool.c
/// The generational slot table of bodies and shapes (id_pool.h).
#include "id_pool.h"

#include <stdlib.h>
#include <string.h>

int32_t dfm_id_pool_insert(dfm_id_pool* p, void* item, uint16_t* generation) {
    int32_t slot = -1;
    if (p->live < p->count)
        for (int32_t i = 0; i < p->count; ++i)
            if (!p->items[i]) {
                slot = i;
                break;
            }
    if (slot < 0) {
        if (p->count == p->capacity) {
            int32_t cap = p->capacity ? 2 * p->capacity : 8;
            void** items = (void**)realloc(p->items, (size_t)cap * sizeof(void*));
            if (!items) return -1;
            p->items = items;
            uint16_t* gens = (uint16_t*)realloc(p->generations, (size_t)cap * sizeof(uint16_t));
            if (!gens) return -1; /* items grew, capacity did not: the next insert retries */
            p->generations = gens;
            memset(p->items + p->capacity, 0, (size_t)(cap - p->capacity) * sizeof(void*));
            memset(p->generations + p->capacity, 0, (size_t)(cap - p->capacity) * sizeof(uint16_t));
            p->capacity = cap;
        }
        slot = p->count++;
    }
    p->items[slot] = item;
    p->live++;
    *generation = p->generations[slot];
    return slot;
}

void* dfm_id_pool_remove(dfm_id_pool* p, int32_t slot) {
    void* item = p->items[slot];
    p->items[slot] = NULL;
    p->generations[slot]++;
    p->live--;
    return item;
}

void* dfm_id_pool_resolve(const dfm_id_pool* p, int32_t index1, uint16_t generation, dfm_id_pool_status* status) {
    if (index1 == 0) {
        *status = DFM_ID_NULL;
        return NULL;
    }
    int32_t slot = index1 > 0 ? index1 - 1 : -1; /* INT_MIN - 1 would overflow */
    if (slot < 0 || slot >= p->count || !p->items[slot] || p->generations[slot] != generation) {
        *status = DFM_ID_STALE;
        return NULL;
    }
    *status = DFM_ID_OK;
    return p->items[slot];
}

void dfm_id_pool_free(dfm_id_pool* p) {
    free(p->items);
    free(p->generations);
    memset(p, 0, sizeof(*p));
}
