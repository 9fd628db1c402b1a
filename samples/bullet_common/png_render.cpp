/// @file png_render.cpp
/// See png_render.hpp.
#include "png_render.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {

struct V3 {
    float x, y, z;
};
V3 sub(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 norm(V3 a) {
    float l = std::sqrt(dot(a, a));
    return l > 0 ? V3{a.x / l, a.y / l, a.z / l} : a;
}

} // namespace

void append_box(RenderMesh& mesh, const float half[3], const float rot[9], const float pos[3]) {
    const int32_t base = (int32_t)(mesh.vertices.size() / 3);
    for (int i = 0; i < 8; ++i) {
        const float l[3] = {i & 1 ? half[0] : -half[0], i & 2 ? half[1] : -half[1], i & 4 ? half[2] : -half[2]};
        for (int r = 0; r < 3; ++r)
            mesh.vertices.push_back(pos[r] + rot[r] * l[0] + rot[3 + r] * l[1] + rot[6 + r] * l[2]);
    }
    static const int32_t tris[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    for (int32_t t : tris) mesh.triangles.push_back(base + t);
}

bool render_png(const std::string& path, const std::vector<RenderMesh>& meshes, const RenderCamera& cam, int width,
                int height, std::string* why) {
    const V3 eye{cam.eye[0], cam.eye[1], cam.eye[2]};
    const V3 fwd = norm(sub(V3{cam.target[0], cam.target[1], cam.target[2]}, eye));
    const V3 right = norm(cross(fwd, V3{cam.up[0], cam.up[1], cam.up[2]}));
    const V3 up = cross(right, fwd);
    const float f = 0.5f * (float)height / std::tan(0.5f * cam.fov_deg * 3.14159265f / 180.0f);
    std::vector<uint8_t> rgb((size_t)width * height * 3);
    std::vector<float> depth((size_t)width * height, 1e30f);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float s = (float)y / (float)height;
            uint8_t* p = &rgb[((size_t)y * width + x) * 3];
            p[0] = (uint8_t)(235 - 60 * s);
            p[1] = (uint8_t)(240 - 55 * s);
            p[2] = (uint8_t)(250 - 40 * s);
        }
    const V3 key = norm(V3{-0.4f * right.x + 0.8f * up.x - 0.4f * fwd.x, -0.4f * right.y + 0.8f * up.y - 0.4f * fwd.y,
                           -0.4f * right.z + 0.8f * up.z - 0.4f * fwd.z});
    for (int pass = 0; pass < 2; ++pass)
        for (const RenderMesh& m : meshes) {
            if (m.see_through != (pass == 1)) continue;
            const size_t nv = m.vertices.size() / 3;
            std::vector<V3> cs(nv); /* camera space: x right, y up, z forward */
            for (size_t i = 0; i < nv; ++i) {
                const V3 d = sub(V3{m.vertices[3 * i], m.vertices[3 * i + 1], m.vertices[3 * i + 2]}, eye);
                cs[i] = V3{dot(d, right), dot(d, up), dot(d, fwd)};
            }
            for (size_t t = 0; t + 2 < m.triangles.size(); t += 3) {
                const V3 a = cs[(size_t)m.triangles[t]], b = cs[(size_t)m.triangles[t + 1]],
                         c = cs[(size_t)m.triangles[t + 2]];
                if (a.z < 0.01f || b.z < 0.01f || c.z < 0.01f) continue;
                V3 n = norm(cross(sub(b, a), sub(c, a)));
                if (n.z > 0) n = V3{-n.x, -n.y, -n.z}; /* face the camera (two-sided) */
                const V3 key_cs{dot(key, right), dot(key, up), dot(key, fwd)};
                const float light = 0.35f + 0.4f * std::fabs(n.z) + 0.35f * std::max(0.0f, dot(n, key_cs));
                const float px[3] = {0.5f * width + f * a.x / a.z, 0.5f * width + f * b.x / b.z,
                                     0.5f * width + f * c.x / c.z};
                const float py[3] = {0.5f * height - f * a.y / a.z, 0.5f * height - f * b.y / b.z,
                                     0.5f * height - f * c.y / c.z};
                const float pz[3] = {a.z, b.z, c.z};
                const float area = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
                if (std::fabs(area) < 1e-12f) continue;
                const int x0 = std::max(0, (int)std::floor(std::min({px[0], px[1], px[2]})));
                const int x1 = std::min(width - 1, (int)std::ceil(std::max({px[0], px[1], px[2]})));
                const int y0 = std::max(0, (int)std::floor(std::min({py[0], py[1], py[2]})));
                const int y1 = std::min(height - 1, (int)std::ceil(std::max({py[0], py[1], py[2]})));
                for (int y = y0; y <= y1; ++y)
                    for (int x = x0; x <= x1; ++x) {
                        const float sx = (float)x + 0.5f, sy = (float)y + 0.5f;
                        const float w0 = ((px[1] - sx) * (py[2] - sy) - (px[2] - sx) * (py[1] - sy)) / area;
                        const float w1 = ((px[2] - sx) * (py[0] - sy) - (px[0] - sx) * (py[2] - sy)) / area;
                        const float w2 = 1.0f - w0 - w1;
                        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
                        const float z = w0 * pz[0] + w1 * pz[1] + w2 * pz[2];
                        float& dz = depth[(size_t)y * width + x];
                        uint8_t* p = &rgb[((size_t)y * width + x) * 3];
                        if (z >= dz) {
                            if (m.see_through) /* hidden: half over what hides it */
                                for (int k = 0; k < 3; ++k)
                                    p[k] = (uint8_t)(0.5f * p[k] + 0.5f * std::min(255.0f, m.rgb[k] * light));
                            continue;
                        }
                        dz = z;
                        for (int k = 0; k < 3; ++k) p[k] = (uint8_t)std::min(255.0f, m.rgb[k] * light);
                    }
            }
        }
    png_image img;
    std::memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)width;
    img.height = (png_uint_32)height;
    img.format = PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&img, path.c_str(), 0, rgb.data(), width * 3, nullptr)) {
        if (why) *why = std::string("libpng: ") + img.message;
        png_image_free(&img);
        return false;
    }
    return true;
}
