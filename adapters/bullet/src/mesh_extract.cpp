/// @file mesh_extract.cpp
/// See mesh_extract.hpp.
#include "mesh_extract.hpp"

#include <LinearMath/btConvexHullComputer.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

namespace dfm_bullet_impl {

bool extract_convex_hull(const btConvexHullShape* hull, btScalar scale, std::vector<float>& vertices,
                         std::vector<int32_t>& triangles, std::string& why) {
    const int n = hull->getNumPoints();
    if (n < 4) {
        why = "convex hull has fewer than 4 points";
        return false;
    }
    std::vector<btScalar> pts((size_t)n * 3);
    for (int i = 0; i < n; ++i) {
        btVector3 p = hull->getScaledPoint(i) * scale;
        for (int a = 0; a < 3; ++a) pts[(size_t)i * 3 + a] = p[a];
    }
    btConvexHullComputer ch;
    ch.compute(pts.data(), (int)(3 * sizeof(btScalar)), n, 0, 0);
    if (ch.faces.size() < 4 || ch.vertices.size() < 4) {
        why = "convex hull points are coplanar (no volume)";
        return false;
    }
    vertices.clear();
    triangles.clear();
    for (int i = 0; i < ch.vertices.size(); ++i)
        for (int a = 0; a < 3; ++a) vertices.push_back((float)ch.vertices[i][a]);
    for (int f = 0; f < ch.faces.size(); ++f) {
        const btConvexHullComputer::Edge* first = &ch.edges[ch.faces[f]];
        const int v0 = first->getSourceVertex();
        const btConvexHullComputer::Edge* e = first->getNextEdgeOfFace();
        while (e->getTargetVertex() != v0) {
            triangles.push_back(v0);
            triangles.push_back(e->getSourceVertex());
            triangles.push_back(e->getTargetVertex());
            e = e->getNextEdgeOfFace();
        }
    }
    return true;
}

namespace {

/// Reads index `k` of a triangle from a locked index base.
bool read_index(const unsigned char* tri, PHY_ScalarType type, int k, int32_t& out) {
    switch (type) {
    case PHY_INTEGER: {
        int v;
        std::memcpy(&v, tri + k * sizeof(int), sizeof(int));
        out = v;
        return true;
    }
    case PHY_SHORT: {
        unsigned short v;
        std::memcpy(&v, tri + k * sizeof(unsigned short), sizeof(v));
        out = v;
        return true;
    }
    case PHY_UCHAR: out = tri[k]; return true;
    default: return false;
    }
}

/// Merges vertices with identical coordinates (btTriangleMesh::addTriangle without duplicate
/// removal stores three fresh vertices per triangle; dfm needs shared vertices to see a closed mesh).
void weld_vertices(std::vector<float>& vertices, std::vector<int32_t>& triangles) {
    std::map<std::tuple<float, float, float>, int32_t> first;
    std::vector<int32_t> remap(vertices.size() / 3);
    std::vector<float> out;
    for (size_t v = 0; v < remap.size(); ++v) {
        auto key = std::make_tuple(vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]);
        auto it = first.find(key);
        if (it == first.end()) {
            it = first.emplace(key, (int32_t)(out.size() / 3)).first;
            out.insert(out.end(), {vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]});
        }
        remap[v] = it->second;
    }
    for (int32_t& t : triangles) t = remap[(size_t)t];
    vertices.swap(out);
}

} // namespace

bool extract_triangle_mesh(const btStridingMeshInterface* mesh, const btVector3& scale, std::vector<float>& vertices,
                           std::vector<int32_t>& triangles, std::string& why) {
    vertices.clear();
    triangles.clear();
    const btVector3 s = mesh->getScaling() * scale;
    for (int part = 0; part < mesh->getNumSubParts(); ++part) {
        const unsigned char* vbase = nullptr;
        const unsigned char* ibase = nullptr;
        int nverts = 0, vstride = 0, istride = 0, ntris = 0;
        PHY_ScalarType vtype = PHY_FLOAT, itype = PHY_INTEGER;
        mesh->getLockedReadOnlyVertexIndexBase(&vbase, nverts, vtype, vstride, &ibase, istride, ntris, itype, part);
        bool ok = vtype == PHY_FLOAT || vtype == PHY_DOUBLE;
        const int32_t offset = (int32_t)(vertices.size() / 3);
        for (int v = 0; ok && v < nverts; ++v) {
            const unsigned char* p = vbase + (size_t)v * vstride;
            for (int a = 0; a < 3; ++a) {
                double c;
                if (vtype == PHY_FLOAT) {
                    float f;
                    std::memcpy(&f, p + a * sizeof(float), sizeof(f));
                    c = f;
                } else {
                    std::memcpy(&c, p + a * sizeof(double), sizeof(c));
                }
                vertices.push_back((float)(c * s[a]));
            }
        }
        for (int t = 0; ok && t < ntris; ++t)
            for (int k = 0; k < 3 && ok; ++k) {
                int32_t idx = 0;
                ok = read_index(ibase + (size_t)t * istride, itype, k, idx) && idx >= 0 && idx < nverts;
                triangles.push_back(offset + idx);
            }
        mesh->unLockReadOnlyVertexBase(part);
        if (!ok) {
            char buf[128];
            std::snprintf(buf, sizeof(buf),
                          "mesh subpart %d has an unsupported vertex/index type or an index out of range", part);
            why = buf;
            return false;
        }
    }
    if (triangles.empty()) {
        why = "triangle mesh is empty";
        return false;
    }
    weld_vertices(vertices, triangles);
    return true;
}

} // namespace dfm_bullet_impl
