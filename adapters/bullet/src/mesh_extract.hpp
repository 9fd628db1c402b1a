/// @file mesh_extract.hpp
/// Indexed triangles out of Bullet's mesh-bearing shapes, for dfm's mesh SDF.
#ifndef DFM_BULLET_MESH_EXTRACT_HPP
#define DFM_BULLET_MESH_EXTRACT_HPP

#include <btBulletCollisionCommon.h>

#include <string>
#include <vector>

namespace dfm_bullet_impl {

/// Triangulates the convex hull of a btConvexHullShape's scaled points (times `scale`) with
/// btConvexHullComputer (each hull face fanned from its first vertex, counter-clockwise seen
/// from outside). Returns false with a reason when the points span no volume.
bool extract_convex_hull(const btConvexHullShape* hull, btScalar scale, std::vector<float>& vertices,
                         std::vector<int32_t>& triangles, std::string& why);

/// Copies every subpart of a striding mesh (float or double vertices; 32-, 16- or 8-bit indices)
/// into one indexed list (vertices with identical coordinates welded), vertices multiplied by the interface's own scaling and by `scale`.
/// Returns false with a reason for empty meshes or unsupported index/vertex types.
bool extract_triangle_mesh(const btStridingMeshInterface* mesh, const btVector3& scale, std::vector<float>& vertices,
                           std::vector<int32_t>& triangles, std::string& why);

} // namespace dfm_bullet_impl

#endif
