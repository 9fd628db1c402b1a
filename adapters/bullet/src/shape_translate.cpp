/// @file shape_translate.cpp
/// Bullet shape -> dfm shape def (see shape_translate.hpp). Conventions bridged here:
/// - Bullet's capsule, cylinder and cone have an up axis (X, Y = default, Z); dfm's are along local
///   z, so the leaf frame gets a fixed rotation taking z to that axis.
/// - Bullet's cone has its apex at +height/2 on the up axis, like dfm's.
/// - btStaticPlaneShape is n.x = c in the object frame; dfm's plane is z = 0 with normal +z.
/// - Margins: box and cylinder dimensions already include Bullet's margin, and the sphere and
///   capsule radius is their margin, so those get dfm margin 0. Cone, convex hull and triangle mesh
///   collide in Bullet as the core shape inflated by its margin, which is what dfm's margin does.
/// - Local scaling is already applied by Bullet inside every primitive's accessors, compound child
///   transforms and btScaledBvhTriangleMeshShape / btUniformScalingShape are applied here.
#include "mesh_extract.hpp"
#include "shape_translate.hpp"

#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btUniformScalingShape.h>

#include <cstdio>

namespace dfm_bullet_impl {
namespace {

/// Rotation taking local +z to Bullet axis `axis` (0 = x, 1 = y, 2 = z).
btQuaternion z_to_axis(int axis) {
    if (axis == 0) return btQuaternion(btVector3(0, 1, 0), SIMD_HALF_PI);
    if (axis == 1) return btQuaternion(btVector3(1, 0, 0), -SIMD_HALF_PI);
    return btQuaternion(0, 0, 0, 1);
}

/// Writes `frame` into the def's local position/rotation.
void set_frame(dfm_shape_def& d, const btTransform& frame) {
    const btVector3& o = frame.getOrigin();
    btQuaternion q = frame.getRotation();
    for (int a = 0; a < 3; ++a) d.local_position[a] = (float)o[a];
    d.local_rotation[0] = (float)q.x();
    d.local_rotation[1] = (float)q.y();
    d.local_rotation[2] = (float)q.z();
    d.local_rotation[3] = (float)q.w();
}

/// A leaf for `shape` at `local` (AABB from the shape itself).
LeafShape make_leaf(const btCollisionShape* aabb_shape, const btTransform& aabb_local, int type) {
    LeafShape leaf;
    leaf.def = dfm_shape_def_default();
    leaf.def.type = type;
    leaf.aabb_shape = aabb_shape;
    leaf.aabb_local = aabb_local;
    set_frame(leaf.def, aabb_local);
    return leaf;
}

/// Translates a non-compound shape scaled uniformly by `s` (1 except under btUniformScalingShape).
/// `aabb_shape`/`aabb_local` is the outermost shape that bounds it (the wrapper when scaled).
void translate_leaf(const btCollisionShape* shape, const btTransform& local, btScalar s,
                    const btCollisionShape* aabb_shape, std::vector<LeafShape>& leaves,
                    std::vector<SkippedShape>& skipped) {
    const float fs = (float)s;
    switch (shape->getShapeType()) {
    case SPHERE_SHAPE_PROXYTYPE: {
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_SPHERE);
        leaf.def.radius = (float)static_cast<const btSphereShape*>(shape)->getRadius() * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case BOX_SHAPE_PROXYTYPE: {
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_BOX);
        btVector3 he = static_cast<const btBoxShape*>(shape)->getHalfExtentsWithMargin();
        for (int a = 0; a < 3; ++a) leaf.def.half_extents[a] = (float)he[a] * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case CAPSULE_SHAPE_PROXYTYPE: {
        const btCapsuleShape* c = static_cast<const btCapsuleShape*>(shape);
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_CAPSULE);
        set_frame(leaf.def, local * btTransform(z_to_axis(c->getUpAxis())));
        leaf.def.radius = (float)c->getRadius() * fs;
        leaf.def.half_height = (float)c->getHalfHeight() * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case CYLINDER_SHAPE_PROXYTYPE: {
        const btCylinderShape* c = static_cast<const btCylinderShape*>(shape);
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_CYLINDER);
        int up = c->getUpAxis();
        set_frame(leaf.def, local * btTransform(z_to_axis(up)));
        leaf.def.radius = (float)c->getRadius() * fs;
        leaf.def.half_height = (float)c->getHalfExtentsWithMargin()[up] * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case CONE_SHAPE_PROXYTYPE: {
        const btConeShape* c = static_cast<const btConeShape*>(shape);
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_CONE);
        set_frame(leaf.def, local * btTransform(z_to_axis(c->getConeUpIndex())));
        leaf.def.radius = (float)c->getRadius() * fs;
        leaf.def.half_height = 0.5f * (float)c->getHeight() * fs;
        leaf.def.margin = (float)c->getMargin() * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case STATIC_PLANE_PROXYTYPE: {
        const btStaticPlaneShape* p = static_cast<const btStaticPlaneShape*>(shape);
        btVector3 n = p->getPlaneNormal();
        if (!(n.length2() > 0)) {
            skipped.push_back({shape->getName(), "plane normal is zero"});
            return;
        }
        n.normalize();
        btVector3 z(0, 0, 1);
        btVector3 axis = z.cross(n);
        btQuaternion q(0, 0, 0, 1);
        if (axis.length2() > btScalar(1e-20))
            q = btQuaternion(axis.normalized(), btAcos(btMax(btScalar(-1), btMin(btScalar(1), z.dot(n)))));
        else if (n.z() < 0)
            q = btQuaternion(btVector3(1, 0, 0), SIMD_PI);
        LeafShape leaf = make_leaf(nullptr, local, DFM_SHAPE_PLANE); /* infinite: dfm bounds it */
        set_frame(leaf.def, local * btTransform(q, n * (p->getPlaneConstant() * s)));
        leaves.push_back(std::move(leaf));
        return;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_MESH);
        std::string why;
        if (!extract_convex_hull(static_cast<const btConvexHullShape*>(shape), s, leaf.vertices, leaf.triangles, why)) {
            skipped.push_back({shape->getName(), why});
            return;
        }
        leaf.def.margin = (float)shape->getMargin() * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case TRIANGLE_MESH_SHAPE_PROXYTYPE:
    case SCALED_TRIANGLE_MESH_SHAPE_PROXYTYPE: {
        LeafShape leaf = make_leaf(aabb_shape, local, DFM_SHAPE_MESH);
        const btBvhTriangleMeshShape* mesh = nullptr;
        btVector3 scale(s, s, s);
        if (shape->getShapeType() == SCALED_TRIANGLE_MESH_SHAPE_PROXYTYPE) {
            const btScaledBvhTriangleMeshShape* sc = static_cast<const btScaledBvhTriangleMeshShape*>(shape);
            mesh = sc->getChildShape();
            scale *= sc->getLocalScaling();
        } else {
            mesh = static_cast<const btBvhTriangleMeshShape*>(shape);
        }
        std::string why;
        if (!extract_triangle_mesh(mesh->getMeshInterface(), scale, leaf.vertices, leaf.triangles, why)) {
            skipped.push_back({shape->getName(), why});
            return;
        }
        leaf.def.margin = (float)mesh->getMargin() * fs;
        leaves.push_back(std::move(leaf));
        return;
    }
    case UNIFORM_SCALING_SHAPE_PROXYTYPE: {
        const btUniformScalingShape* u = static_cast<const btUniformScalingShape*>(shape);
        translate_leaf(u->getChildShape(), local, s * u->getUniformScalingFactor(), aabb_shape, leaves, skipped);
        return;
    }
    default: {
        char why[96];
        std::snprintf(why, sizeof(why), "shape type %d has no dfm translation", shape->getShapeType());
        skipped.push_back({shape->getName(), why});
        return;
    }
    }
}

} // namespace

void translate_shape(const btCollisionShape* shape, const btTransform& local, std::vector<LeafShape>& leaves,
                     std::vector<SkippedShape>& skipped) {
    if (!shape) {
        skipped.push_back({"(null)", "collision object has no collision shape"});
        return;
    }
    if (shape->getShapeType() == COMPOUND_SHAPE_PROXYTYPE) {
        const btCompoundShape* c = static_cast<const btCompoundShape*>(shape);
        for (int i = 0; i < c->getNumChildShapes(); ++i)
            translate_shape(c->getChildShape(i), local * c->getChildTransform(i), leaves, skipped);
        return;
    }
    translate_leaf(shape, local, btScalar(1), shape, leaves, skipped);
}

} // namespace dfm_bullet_impl
