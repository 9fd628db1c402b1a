/// @file shape_translate.hpp
/// Translation of one Bullet collision shape (recursing into compounds and scaling wrappers)
/// into dfm shape defs in the frame of the collision object that owns it.
#ifndef DFM_BULLET_SHAPE_TRANSLATE_HPP
#define DFM_BULLET_SHAPE_TRANSLATE_HPP

#include <btBulletCollisionCommon.h>
#include <dfm/dfm_defaults.h>

#include <string>
#include <vector>

namespace dfm_bullet_impl {

/// One translated leaf: a dfm shape def plus the mesh arrays it borrows, and what the adapter
/// needs to compute the leaf's world AABB each tick.
struct LeafShape {
    dfm_shape_def def;              ///< Dimensions, local frame and margin; contact material filled later.
    std::vector<float> vertices;    ///< Mesh shapes: 3 floats per vertex, dfm shape frame, m.
    std::vector<int32_t> triangles; ///< Mesh shapes: 3 indices per triangle.
    /// Bullet shape whose getAabb bounds this leaf (nullptr: let dfm compute).
    const btCollisionShape* aabb_shape = nullptr;
    btTransform aabb_local; ///< Frame of aabb_shape in the object frame.
};

/// A leaf that could not be translated, with the reason.
struct SkippedShape {
    std::string name; ///< Bullet's shape name (getName()).
    std::string reason;
};

/// Translates `shape`, placed at `local` in the object frame, appending leaves and skipped shapes.
/// Never throws for unsupported input: it records it in `skipped` instead.
void translate_shape(const btCollisionShape* shape, const btTransform& local, std::vector<LeafShape>& leaves,
                     std::vector<SkippedShape>& skipped);

} // namespace dfm_bullet_impl

#endif
