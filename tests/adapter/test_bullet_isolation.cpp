/// Environments and collision filtering through the Bullet adapter (built once per precision).
///
/// One Bullet world, one dfm world with 2 environments. Two 0.2 m cloths start at the same place
/// (y = 0.45), one in environment 0 and one in environment 1, above three static Bullet boxes:
/// - box E1 (user index 3 = 1, top at y = 0.35): only the environment-1 cloth may land on it;
/// - box F (user index 3 = -1 = shared, top at y = 0.25) in a collision filter group that the
///   adapter's filter_mask excludes: no cloth may see it;
/// - box E0 (user index 3 = 0, top at y = 0.05): the environment-0 cloth lands on it, after falling
///   through E1 and F.
/// Asserts after 0.8 s: the environment-1 cloth rests on E1 (centroid within 3 cm above its top),
/// the environment-0 cloth rests on E0 (same), F was filtered out (no dfm shapes, counted).
#include <dfm/dfm_bullet.h>

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "bullet_scene.hpp"
#include "dfm_test.h"

int main() {
    BulletScene s(btVector3(0, -9.81, 0));
    auto* slab = s.keep(new btBoxShape(btVector3(0.3, 0.05, 0.3)));
    const int kFilteredGroup = 64;
    btCollisionObject* e0 = s.add_static(slab, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.0, 0)));
    btCollisionObject* f = s.add_static(slab, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.2, 0)),
                                        kFilteredGroup);
    btCollisionObject* e1 = s.add_static(slab, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.3, 0)));
    e0->setUserIndex3(0);
    f->setUserIndex3(-1);
    e1->setUserIndex3(1);

    dfm_world_def wd = dfm_world_def_default();
    wd.backend = DFM_BACKEND_CPU;
    wd.environment_count = 2;
    wd.substeps = 4;
    dfm_world* w = nullptr;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &w) != DFM_OK) return 2;
    dfm_body_id cloth[2];
    dfm_test_grid g = dfm_test_make_grid(8, 8, 0.2f, 0.2f, -0.1f, -0.1f, 0.0f);
    for (int32_t i = 0; i < g.vertex_count; ++i) { /* the grid lies in x-y; turn it into the x-z plane at y = 0.45 */
        float* p = &g.positions[3 * i];
        p[2] = p[1];
        p[1] = 0.45f;
    }
    for (int e = 0; e < 2; ++e) {
        dfm_cloth_def cd = dfm_cloth_def_default();
        cd.environment = e;
        cloth[e] = dfm_test_add_cloth(w, &g, cd);
    }
    dfm_bullet_def bd = dfm_bullet_def_default();
    bd.world = w;
    bd.dynamics_world = &s.world;
    bd.scalar_size = sizeof(btScalar);
    bd.environment_source = DFM_BULLET_ENV_USER_INDEX3;
    bd.filter_mask = ~kFilteredGroup;
    dfm_bullet* ad = nullptr;
    if (dfm_bullet_attach(&bd, &ad) != DFM_OK) {
        std::fprintf(stderr, "attach: %s\n", dfm_bullet_last_error(nullptr));
        return 1;
    }
    int32_t n = -1;
    dfm_shape_id id;
    dfm_bullet_get_object_shapes(ad, f, &id, 1, &n);
    CHECK(n == 0, "filtered box got %d dfm shapes", n);
    for (int k = 0; k < 48; ++k) s.world.stepSimulation(btScalar(1.0 / 60), 1, btScalar(1.0 / 60));
    dfm_bullet_stats st = dfm_bullet_stats_init();
    dfm_bullet_get_stats(ad, &st);
    CHECK(st.tick_errors == 0, "tick errors: %s", dfm_bullet_last_error(ad));
    CHECK(st.objects_filtered == 1 && st.objects_tracked == 2, "filtered %d, tracked %d (expected 1, 2)",
          st.objects_filtered, st.objects_tracked);
    const double top[2] = {0.05, 0.35};
    for (int e = 0; e < 2; ++e) {
        std::vector<float> x((size_t)g.vertex_count * 3);
        dfm_body_get_positions(w, cloth[e], 0, g.vertex_count, x.data(), 0);
        double cy = 0;
        for (int32_t i = 0; i < g.vertex_count; ++i) cy += x[3 * (size_t)i + 1];
        cy /= g.vertex_count;
        std::printf("test_bullet_isolation: environment %d cloth centroid y %.4f m (its box top %.2f m)\n", e, cy,
                    top[e]);
        CHECK(cy > top[e] && cy < top[e] + 0.03, "environment %d cloth at y %.4f, expected within 3 cm above %.2f", e,
              cy, top[e]);
    }
    dfm_bullet_detach(ad);
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
    return dfm_test_finish("test_bullet_isolation");
}
