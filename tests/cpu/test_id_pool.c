/// The generational slot table behind body and shape ids (plugin/id_pool.h): lowest free slot
/// reused, generation bumped on removal so old ids go stale, hostile index1 values (0, negative,
/// INT_MIN, past the table) resolved safely, growth past the first capacity.
#include <limits.h>

#include "dfm_test.h"
#include "id_pool.h"

int main(void) {
    dfm_id_pool p;
    memset(&p, 0, sizeof(p));
    int items[20];
    uint16_t gen[20];
    int32_t slot[20];
    for (int i = 0; i < 20; ++i) { /* past the first capacity (8) twice */
        slot[i] = dfm_id_pool_insert(&p, &items[i], &gen[i]);
        CHECK(slot[i] == i && gen[i] == 0, "insert %d: slot %d gen %u", i, slot[i], gen[i]);
    }
    CHECK(p.live == 20 && p.count == 20, "live %d count %d", p.live, p.count);
    dfm_id_pool_status st;
    for (int i = 0; i < 20; ++i)
        CHECK(dfm_id_pool_resolve(&p, slot[i] + 1, gen[i], &st) == &items[i] && st == DFM_ID_OK, "resolve %d", i);
    /* remove 3 and 11: ids go stale; the lowest free slot (3) is reused first, with a new generation */
    CHECK(dfm_id_pool_remove(&p, 11) == &items[11] && dfm_id_pool_remove(&p, 3) == &items[3], "remove");
    CHECK(p.live == 18, "live %d after two removals", p.live);
    CHECK(!dfm_id_pool_resolve(&p, 4, gen[3], &st) && st == DFM_ID_STALE, "removed id 4 resolves (status %d)", st);
    uint16_t g = 0;
    int32_t s = dfm_id_pool_insert(&p, &items[3], &g);
    CHECK(s == 3 && g == 1, "reinsert took slot %d gen %u (want 3, 1)", s, g);
    CHECK(!dfm_id_pool_resolve(&p, 4, 0, &st) && st == DFM_ID_STALE, "the old generation resolves again");
    CHECK(dfm_id_pool_resolve(&p, 4, 1, &st) == &items[3], "the new id does not resolve");
    s = dfm_id_pool_insert(&p, &items[11], &g);
    CHECK(s == 11 && g == 1, "second reinsert took slot %d gen %u (want 11, 1)", s, g);
    s = dfm_id_pool_insert(&p, &items[0], &g);
    CHECK(s == 20 && g == 0, "no free slot: appended at %d gen %u (want 20, 0)", s, g);
    /* hostile index1 */
    const int32_t bad[5] = {0, -1, INT_MIN, 22, INT_MAX};
    for (int k = 0; k < 5; ++k) {
        void* got = dfm_id_pool_resolve(&p, bad[k], 0, &st);
        CHECK(!got && st == (bad[k] == 0 ? DFM_ID_NULL : DFM_ID_STALE), "index1 %d resolved (status %d)", bad[k], st);
    }
    dfm_id_pool_free(&p);
    CHECK(p.items == NULL && p.count == 0 && p.capacity == 0, "free left a table");
    return dfm_test_finish("test_id_pool");
}
