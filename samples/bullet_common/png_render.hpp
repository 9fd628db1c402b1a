/// @file png_render.hpp
/// A small software rasterizer for the Bullet samples' final-state pictures: flat-shaded
/// triangle meshes seen through a perspective camera, written as PNG with libpng.
#ifndef DFM_SAMPLE_PNG_RENDER_HPP
#define DFM_SAMPLE_PNG_RENDER_HPP

#include <cstdint>
#include <string>
#include <vector>

/// One mesh to draw: positions (3 floats per vertex, m, world frame), triangles, colour.
struct RenderMesh {
    std::vector<float> vertices;
    std::vector<int32_t> triangles;
    uint8_t rgb[3];
    /// Drawn after the other meshes and seen through them: where it is hidden its colour is
    /// blended half over what hides it (pads inside a cloth that wraps them stay visible).
    bool see_through = false;
};

/// Camera: eye and target in world coordinates (m), `up` the world up direction, vertical field
/// of view in degrees.
struct RenderCamera {
    float eye[3], target[3], up[3];
    float fov_deg = 40.0f;
};

/// Renders the meshes (both triangle sides lit by a head light plus a key light, depth-tested;
/// see-through meshes last, blended where hidden)
/// into a width x height PNG at `path`. Returns false (with the reason in *why) on failure.
bool render_png(const std::string& path, const std::vector<RenderMesh>& meshes, const RenderCamera& camera, int width,
                int height, std::string* why);

/// Appends the 12 triangles of a box (half extents `half`, m) posed by a column-major 3x3
/// rotation `rot` and translation `pos` to `mesh`.
void append_box(RenderMesh& mesh, const float half[3], const float rot[9], const float pos[3]);

#endif
