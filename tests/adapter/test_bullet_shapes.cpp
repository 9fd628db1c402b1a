/// Shape translation against Bullet's own geometry (built once per Bullet precision).
///
/// For every supported Bullet shape (sphere; box; capsule, cylinder and cone on X, Y and Z; static
/// plane; convex hull; closed triangle mesh; compound children with rotated local frames; scaled
/// box, cylinder, compound, btUniformScalingShape and btScaledBvhTriangleMeshShape) placed at a
/// rotated, translated pose, dfm's contact distance (SDF minus margin, evaluated by the contact
/// code itself through tests/adapter/shape_probe.c) is compared at 400 (meshes 1500) pseudo-random points around
/// each leaf with Bullet's:
/// - convex shapes: btGjkEpaSolver2::SignedDistance (GJK outside, EPA inside), i.e. the distance to
///   Bullet's collision surface (core shape inflated by its margin);
/// - plane: Bullet's plane equation n.x - c;
/// - triangle meshes: the smallest GJK distance to Bullet's btTriangleShape of each triangle, signed
///   by the parity of btCollisionWorld::rayTestSingle hits (majority of three rays).
/// Asserts: the signs agree at every point farther than the tolerance from the surface, and
/// |dfm - Bullet| <= tolerance (+ 2.5 mm inside: EPA's own accuracy, see k_epa_slack), where tolerance = 5e-4 m (GJK/EPA accuracy) plus, for box and
/// cylinder, (sqrt(3) - 1) x Bullet margin (GJK rounds their edges and corners by the margin, dfm
/// keeps them sharp as Bullet's box-box detector does), and for meshes the SDF grid error that dfm
/// measured at bake time (distance compared inside the exact band only; sign everywhere).
/// Also: an unsupported shape (btMultiSphereShape) and an open mesh are skipped, counted and
/// logged once, and a scalar_size mismatch is refused.
#include <dfm/dfm_bullet.h>

#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btTriangleShape.h>
#include <BulletCollision/CollisionShapes/btUniformScalingShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bullet_scene.hpp"
#include "shape_probe.h"

static int g_failures = 0;
#define EXPECT(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: EXPECT(%s) failed: ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                                             \
            std::fprintf(stderr, "\n");                                                    \
            ++g_failures;                                                                  \
        }                                                                                  \
    } while (0)

namespace {

/// EPA (the penetration depth inside convex shapes) expands a polytope and stops at its own
/// tolerance, so on curved rounded shapes (cone, cylinder rims) it reports depths up to ~2 mm off
/// (measured: 1.3 mm cone, 2.3 mm cylinder); inside points get this much extra tolerance.
const double k_epa_slack = 2.5e-3;

/// Deterministic pseudo-random numbers in [0, 1).
struct Lcg {
    uint64_t s = 0x9E3779B97F4A7C15ull;
    double next() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (double)(s >> 11) * (1.0 / 9007199254740992.0);
    }
};

/// What a dfm leaf is compared with.
struct Reference {
    enum Kind { CONVEX, PLANE, MESH } kind;
    const btCollisionShape* shape;    ///< Convex shape, plane or mesh shape (for AABB and rays).
    btTransform local;                ///< Its frame in the object frame.
    double rounding;                  ///< Bullet margin rounding to tolerate (box, cylinder).
    std::vector<btVector3> triangles; ///< MESH: 3 object-frame vertices per triangle.
};

struct Case {
    std::string name;
    btCollisionObject* object;
    std::vector<Reference> leaves;
};

/// Bullet's signed distance from world point p to the reference leaf (object at `obj`).
double bullet_distance(const Reference& r, const btTransform& obj, const btVector3& p, btCollisionWorld* ray_world,
                       btCollisionObject* ray_object) {
    const btTransform xf = obj * r.local;
    if (r.kind == Reference::CONVEX) {
        btGjkEpaSolver2::sResults res;
        return (double)btGjkEpaSolver2::SignedDistance(p, 0, static_cast<const btConvexShape*>(r.shape), xf, res);
    }
    if (r.kind == Reference::PLANE) {
        const btStaticPlaneShape* pl = static_cast<const btStaticPlaneShape*>(r.shape);
        btVector3 q = xf.invXform(p);
        return (double)(pl->getPlaneNormal().dot(q) - pl->getPlaneConstant());
    }
    double best = 1e30;
    for (size_t t = 0; t < r.triangles.size(); t += 3) {
        btTriangleShape tri(obj * r.triangles[t], obj * r.triangles[t + 1], obj * r.triangles[t + 2]);
        tri.setMargin(0);
        btGjkEpaSolver2::sResults res;
        btTransform id = btTransform::getIdentity();
        double d = (double)btGjkEpaSolver2::SignedDistance(p, 0, &tri, id, res);
        if (std::fabs(d) < best) best = std::fabs(d);
    }
    /* Inside when rays from p cross the surface an odd number of times (majority of three rays,
     * so a ray grazing an edge, which Bullet may count twice or not at all, cannot decide it). */
    ray_object->setWorldTransform(obj);
    const btVector3 dirs[3] = {btVector3(7.31, 5.17, 3.93), btVector3(-4.11, 6.67, -5.29),
                               btVector3(3.07, -5.83, 6.41)};
    int odd = 0;
    for (const btVector3& dir : dirs) {
        const btVector3 to = p + dir;
        btCollisionWorld::AllHitsRayResultCallback cb(p, to);
        ray_world->rayTestSingle(btTransform(btQuaternion::getIdentity(), p),
                                 btTransform(btQuaternion::getIdentity(), to), ray_object,
                                 ray_object->getCollisionShape(), obj, cb);
        odd += cb.m_hitFractions.size() % 2;
    }
    return odd >= 2 ? -best : best;
}

/// Object-frame triangles of a striding mesh times `scale`.
std::vector<btVector3> mesh_triangles(const btTriangleMesh* m, const btVector3& scale) {
    std::vector<btVector3> out;
    const IndexedMeshArray& parts = m->getIndexedMeshArray();
    for (int p = 0; p < parts.size(); ++p) {
        const btIndexedMesh& im = parts[p];
        for (int t = 0; t < im.m_numTriangles; ++t)
            for (int k = 0; k < 3; ++k) {
                const int idx = ((const int*)(im.m_triangleIndexBase + t * im.m_triangleIndexStride))[k];
                const btScalar* v = (const btScalar*)(im.m_vertexBase + idx * im.m_vertexStride);
                out.push_back(btVector3(v[0], v[1], v[2]) * scale);
            }
    }
    return out;
}

/// A closed L-shaped prism (non-convex): 12 vertices, 20 triangles, outward winding.
btTriangleMesh* make_l_prism() {
    const btScalar pts[6][2] = {{0, 0}, {0.4, 0}, {0.4, 0.15}, {0.15, 0.15}, {0.15, 0.4}, {0, 0.4}};
    const btScalar h = 0.2;
    auto* m = new btTriangleMesh(true, false);
    auto v = [&](int i, int top) { return btVector3(pts[i][0] - 0.2, pts[i][1] - 0.2, top ? h : -h); };
    /* caps: fan around the reflex-free split into two quads: (0,1,2,3) and (0,3,4,5) */
    const int quads[2][4] = {{0, 1, 2, 3}, {0, 3, 4, 5}};
    for (const auto& q : quads) {
        m->addTriangle(v(q[0], 1), v(q[1], 1), v(q[2], 1));
        m->addTriangle(v(q[0], 1), v(q[2], 1), v(q[3], 1));
        m->addTriangle(v(q[0], 0), v(q[2], 0), v(q[1], 0));
        m->addTriangle(v(q[0], 0), v(q[3], 0), v(q[2], 0));
    }
    for (int i = 0; i < 6; ++i) {
        int j = (i + 1) % 6;
        m->addTriangle(v(i, 0), v(j, 0), v(j, 1));
        m->addTriangle(v(i, 0), v(j, 1), v(i, 1));
    }
    return m;
}

std::vector<std::string> g_log;
void capture_log(void*, dfm_log_level, const char* message) { g_log.push_back(message); }

} // namespace

int main() {
    std::printf("test_bullet_shapes: btScalar is %zu bytes, adapter built with %u\n", sizeof(btScalar),
                dfm_bullet_scalar_size());
    EXPECT(dfm_bullet_scalar_size() == sizeof(btScalar), "adapter and test disagree on btScalar");
    BulletScene s(btVector3(0, -9.81, 0));
    dfm_world_def wd = dfm_world_def_default();
    wd.backend = DFM_BACKEND_CPU;
    dfm_world* w = nullptr;
    if (dfm_world_create(DFM_ABI_VERSION, &wd, &w) != DFM_OK) return 2;

    const btTransform pose(btQuaternion(btVector3(1, 2, 3).normalized(), btScalar(0.7)), btVector3(0.3, 1.2, -0.4));
    std::vector<Case> cases;
    auto convex = [&](const std::string& name, btCollisionShape* sh, double rounding) {
        Case c{name, s.add_static(sh, pose), {}};
        c.leaves.push_back({Reference::CONVEX, sh, btTransform::getIdentity(), rounding, {}});
        cases.push_back(c);
    };
    auto box = s.keep(new btBoxShape(btVector3(0.2, 0.3, 0.4)));
    convex("sphere", s.keep(new btSphereShape(0.3)), 0);
    convex("box", box, box->getMargin());
    convex("capsule Y", s.keep(new btCapsuleShape(0.15, 0.5)), 0);
    convex("capsule X", s.keep(new btCapsuleShapeX(0.15, 0.5)), 0);
    convex("capsule Z", s.keep(new btCapsuleShapeZ(0.15, 0.5)), 0);
    for (int axis = 0; axis < 3; ++axis) {
        btCollisionShape* cyl = axis == 0   ? (btCollisionShape*)new btCylinderShapeX(btVector3(0.3, 0.2, 0.2))
                                : axis == 1 ? (btCollisionShape*)new btCylinderShape(btVector3(0.2, 0.3, 0.2))
                                            : (btCollisionShape*)new btCylinderShapeZ(btVector3(0.2, 0.2, 0.3));
        convex(std::string("cylinder ") + "XYZ"[axis], s.keep(cyl), cyl->getMargin());
        btCollisionShape* cone = axis == 0   ? (btCollisionShape*)new btConeShapeX(0.25, 0.6)
                                 : axis == 1 ? (btCollisionShape*)new btConeShape(0.25, 0.6)
                                             : (btCollisionShape*)new btConeShapeZ(0.25, 0.6);
        convex(std::string("cone ") + "XYZ"[axis], s.keep(cone), 0);
    }
    {
        auto* hull = s.keep(new btConvexHullShape());
        Lcg r;
        for (int i = 0; i < 40; ++i) {
            double u = 2 * M_PI * r.next(), v = std::acos(2 * r.next() - 1);
            hull->addPoint(
                btVector3(0.3 * std::sin(v) * std::cos(u), 0.2 * std::sin(v) * std::sin(u), 0.25 * std::cos(v)),
                i == 39);
        }
        convex("convex hull", hull, 0);
    }
    {
        auto* plane = s.keep(new btStaticPlaneShape(btVector3(0.3, 1, 0.2).normalized(), 0.1));
        Case c{"static plane", s.add_static(plane, pose), {}};
        c.leaves.push_back({Reference::PLANE, plane, btTransform::getIdentity(), 0, {}});
        cases.push_back(c);
    }
    btTriangleMesh* lmesh = make_l_prism();
    s.meshes.emplace_back(lmesh);
    auto* bvh = s.keep(new btBvhTriangleMeshShape(lmesh, true));
    {
        Case c{"triangle mesh (L prism)", s.add_static(bvh, pose), {}};
        c.leaves.push_back(
            {Reference::MESH, bvh, btTransform::getIdentity(), 0, mesh_triangles(lmesh, btVector3(1, 1, 1))});
        cases.push_back(c);
        const btVector3 sc(1.5, 0.8, 2.0);
        auto* scaled = s.keep(new btScaledBvhTriangleMeshShape(bvh, sc));
        Case d{"scaled triangle mesh", s.add_static(scaled, pose), {}};
        d.leaves.push_back({Reference::MESH, scaled, btTransform::getIdentity(), 0, mesh_triangles(lmesh, sc)});
        cases.push_back(d);
    }
    {
        auto* comp = s.keep(new btCompoundShape());
        auto* cb = s.keep(new btBoxShape(btVector3(0.1, 0.2, 0.05)));
        auto* cs = s.keep(new btSphereShape(0.12));
        auto* cc = s.keep(new btCapsuleShapeZ(0.08, 0.3));
        const btTransform t0(btQuaternion(btVector3(0, 0, 1), 0.5), btVector3(0.3, 0, 0));
        const btTransform t1(btQuaternion::getIdentity(), btVector3(-0.2, 0.1, 0));
        const btTransform t2(btQuaternion(btVector3(1, 0, 0), 1.1), btVector3(0, -0.3, 0.1));
        comp->addChildShape(t0, cb);
        comp->addChildShape(t1, cs);
        comp->addChildShape(t2, cc);
        Case c{"compound (box, sphere, capsule Z)", s.add_static(comp, pose), {}};
        c.leaves.push_back({Reference::CONVEX, cb, t0, cb->getMargin(), {}});
        c.leaves.push_back({Reference::CONVEX, cs, t1, 0, {}});
        c.leaves.push_back({Reference::CONVEX, cc, t2, 0, {}});
        cases.push_back(c);
        /* The same compound type, scaled: Bullet rescales the children and their offsets. */
        auto* comp2 = s.keep(new btCompoundShape());
        auto* cb2 = s.keep(new btBoxShape(btVector3(0.1, 0.2, 0.05)));
        auto* cy2 = s.keep(new btCylinderShapeZ(btVector3(0.1, 0.1, 0.15)));
        comp2->addChildShape(t0, cb2);
        comp2->addChildShape(t2, cy2);
        comp2->setLocalScaling(btVector3(1.5, 0.7, 1.2));
        Case d{"scaled compound (box, cylinder Z)", s.add_static(comp2, pose), {}};
        d.leaves.push_back({Reference::CONVEX, cb2, comp2->getChildTransform(0), cb2->getMargin(), {}});
        d.leaves.push_back({Reference::CONVEX, cy2, comp2->getChildTransform(1), cy2->getMargin(), {}});
        cases.push_back(d);
    }
    {
        auto* sb = s.keep(new btBoxShape(btVector3(0.2, 0.3, 0.1)));
        sb->setLocalScaling(btVector3(1.5, 0.5, 2.0));
        convex("scaled box", sb, sb->getMargin());
        auto* sy = s.keep(new btCylinderShapeX(btVector3(0.3, 0.15, 0.15)));
        sy->setLocalScaling(btVector3(0.5, 1.3, 1.3));
        convex("scaled cylinder X", sy, sy->getMargin());
        auto* cone = s.keep(new btConeShapeZ(0.2, 0.4));
        convex("uniform-scaled cone", s.keep(new btUniformScalingShape(cone, 1.5)), 0);
    }
    /* Not translatable: a multi-sphere, and an open mesh (one triangle). */
    const btVector3 centres[2] = {btVector3(0, 0, 0), btVector3(0.2, 0, 0)};
    const btScalar radii[2] = {0.1, 0.1};
    btCollisionObject* multi = s.add_static(s.keep(new btMultiSphereShape(centres, radii, 2)), pose);
    auto* open = new btTriangleMesh();
    open->addTriangle(btVector3(0, 0, 0), btVector3(1, 0, 0), btVector3(0, 1, 0));
    s.meshes.emplace_back(open);
    btCollisionObject* open_obj = s.add_static(s.keep(new btBvhTriangleMeshShape(open, true)), pose);

    dfm_bullet_def bd = dfm_bullet_def_default();
    bd.world = w;
    bd.dynamics_world = &s.world;
    bd.scalar_size = sizeof(btScalar) == 4 ? 8 : 4;
    dfm_bullet* ad = nullptr;
    EXPECT(dfm_bullet_attach(&bd, &ad) == DFM_ERROR_ABI_MISMATCH && !ad, "wrong scalar_size accepted");
    std::printf("  refused mismatch: %s\n", dfm_bullet_last_error(nullptr));
    bd.scalar_size = sizeof(btScalar);
    bd.log_fn = capture_log;
    if (dfm_bullet_attach(&bd, &ad) != DFM_OK) {
        std::fprintf(stderr, "attach failed: %s\n", dfm_bullet_last_error(nullptr));
        return 1;
    }
    dfm_bullet_stats st = dfm_bullet_stats_init();
    dfm_bullet_get_stats(ad, &st);
    EXPECT(st.shapes_skipped == 2, "skipped %d shapes, expected 2 (multi-sphere, open mesh)", st.shapes_skipped);
    EXPECT(g_log.size() == 2, "%zu log lines, expected 2", g_log.size());
    for (const std::string& m : g_log) std::printf("  log: %s\n", m.c_str());
    int32_t n = -1;
    dfm_shape_id ids[8];
    dfm_bullet_get_object_shapes(ad, multi, ids, 8, &n);
    EXPECT(n == 0, "multi-sphere got %d shapes", n);
    dfm_bullet_get_object_shapes(ad, open_obj, ids, 8, &n);
    EXPECT(n == 0, "open mesh got %d shapes", n);
    /* A second sync (and a step) must not log the skipped shapes again. */
    s.world.stepSimulation(btScalar(1.0 / 60), 1, btScalar(1.0 / 60));
    EXPECT(g_log.size() == 2, "skipped shapes logged again (%zu lines)", g_log.size());

    btCollisionWorld* ray_world = &s.world;
    Lcg rng;
    for (const Case& c : cases) {
        dfm_bullet_get_object_shapes(ad, c.object, ids, 8, &n);
        EXPECT(n == (int32_t)c.leaves.size(), "%s: %d dfm shapes, expected %zu", c.name.c_str(), n, c.leaves.size());
        if (n != (int32_t)c.leaves.size()) continue;
        const btTransform obj = c.object->getWorldTransform();
        for (size_t l = 0; l < c.leaves.size(); ++l) {
            const Reference& r = c.leaves[l];
            dfm_shape_info info = dfm_shape_info_init();
            dfm_shape_get_info(w, ids[l], &info);
            double tol = 5e-4 + (std::sqrt(3.0) - 1.0) * r.rounding;
            double band = 1e30;
            if (info.sdf_cell_size > 0) { /* triangle meshes and convex hulls */
                tol += info.sdf_max_error;
                band = 3 * info.sdf_cell_size - std::sqrt(3.0) * info.sdf_cell_size;
            }
            btVector3 lo, hi;
            if (r.kind == Reference::PLANE) {
                lo = btVector3(-0.5, -0.5, -0.5);
                hi = btVector3(0.5, 0.5, 0.5);
            } else {
                r.shape->getAabb(r.local, lo, hi);
                lo -= btVector3(0.1, 0.1, 0.1);
                hi += btVector3(0.1, 0.1, 0.1);
            }
            double worst = 0, worst_in = 0;
            int sign_bad = 0, compared = 0, inside = 0;
            const int samples = r.kind == Reference::MESH ? 1500 : 400;
            for (int k = 0; k < samples; ++k) {
                btVector3 q(lo.x() + (hi.x() - lo.x()) * rng.next(), lo.y() + (hi.y() - lo.y()) * rng.next(),
                            lo.z() + (hi.z() - lo.z()) * rng.next());
                const btVector3 p = obj * q;
                const double ref = bullet_distance(r, obj, p, ray_world, c.object);
                if (ref > 1e29) continue; /* GJK/EPA gave up (never seen; counted as not compared) */
                const float qb[3] = {(float)q.x(), (float)q.y(), (float)q.z()};
                float d = 0;
                dfm_probe_shape_distance(w, ids[l], qb, &d);
                if (std::fabs(ref) > tol && (ref < 0) != (d < 0)) {
                    ++sign_bad;
                    std::printf("    sign mismatch at object-frame (%.4f %.4f %.4f): dfm %.5f, bullet %.5f\n", qb[0],
                                qb[1], qb[2], (double)d, ref);
                }
                inside += ref < 0;
                if (std::fabs(ref) <= band) {
                    if (ref < 0)
                        worst_in = std::fmax(worst_in, std::fabs(d - ref) - k_epa_slack);
                    else
                        worst = std::fmax(worst, std::fabs(d - ref));
                    ++compared;
                }
            }
            std::printf(
                "  %-34s leaf %zu: %3d points (%3d inside), %d sign mismatches, max |dfm - bullet| %.5f m outside, "
                "%.5f m inside beyond EPA slack (tolerance %.5f m)\n",
                c.name.c_str(), l, compared, inside, sign_bad, worst, worst_in, tol);
            EXPECT(sign_bad == 0, "%s leaf %zu: %d sign mismatches", c.name.c_str(), l, sign_bad);
            EXPECT(worst <= tol, "%s leaf %zu: distance off by %.5f m > %.5f m", c.name.c_str(), l, worst, tol);
            EXPECT(inside > 10 || r.kind == Reference::PLANE, "%s: too few inside points (%d)", c.name.c_str(), inside);
        }
    }
    dfm_bullet_detach(ad);
    dfm_world_destroy(w);
    if (g_failures) {
        std::fprintf(stderr, "test_bullet_shapes: %d check(s) failed\n", g_failures);
        return 1;
    }
    std::printf("test_bullet_shapes: all checks passed\n");
    return 0;
}
