/// @file main.cpp
/// Sample 11: three soft cubes (dfm volume bodies, 6 cm, n^3 vertices each) dropped as a stack
/// onto the ground, with deformable-deformable contact on (world_def.deformable_contact_radius,
/// ABI 1.7). The sample runs on the CPU backend (DFM_BACKEND_AUTO picks the CPU for deformable
/// contact); it asks CUDA first and prints the answer (the CUDA twin is issue 16's host-assisted
/// first slice, not yet validated on a GPU: this sample does not run on it).
///
/// Verdict after --seconds (default 2 s) of simulated time at 60 Hz, all of:
/// - stacked: each cube's centroid above the one below by H + r (H the cube's height, r the
///   contact radius: they rest about r apart) within --stack-tol (default 15% of H: the default
///   solver's steady sag squeezes the lower cubes, docs/physics.md);
/// - no interpenetration: the smallest vertex gap (lowest vertex of the upper cube minus highest of
///   the lower one, from positions) >= 0 at every step after the drop;
/// - the ground's reaction averaged over the last 1/3 s carries the three weights within 1% (at
///   rest the reaction is the stack's momentum balance: the bound leaves room for the remaining
///   motion; res 5 reads 0.04%);
/// - every vertex's speed at the end below 0.02 m/s.
/// It prints the figures and exits 1 when any fails. The ground read 83% of the weights (5.30 N for
/// 6.36 N) until the deformable pair forces were balanced over the graph of bodies
/// (kernels/cpu/deform_contact_cpu.h): one scale per cube along its net pair force had scaled the
/// middle cube's lower interface by the middle cube's own net, not by the two weights above it.
/// --no-contact (radius 0) must fail (the cubes fall into each other): the CTest
/// sample_11_soft_stack_no_contact_fails is WILL_FAIL.
/// Writes OBJ frames (every --every steps) and final.png into --out (default out/11_soft_stack).
#include <dfm/dfm.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "dfm_scenes.h"
#include "obj_writer.h"
#include "png_render.hpp"
#include "sample_log.h"

/// Boundary triangles of a tet mesh: faces used by exactly one tet.
static std::vector<int32_t> boundary_faces(const int32_t* tets, int32_t tet_count) {
    std::map<std::vector<int32_t>, std::pair<int, std::vector<int32_t>>> faces;
    static const int f[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (int32_t t = 0; t < tet_count; ++t)
        for (int k = 0; k < 4; ++k) {
            std::vector<int32_t> tri = {tets[4 * t + f[k][0]], tets[4 * t + f[k][1]], tets[4 * t + f[k][2]]};
            std::vector<int32_t> key = tri;
            std::sort(key.begin(), key.end());
            auto& e = faces[key];
            e.first++;
            e.second = tri;
        }
    std::vector<int32_t> out;
    for (auto& kv : faces)
        if (kv.second.first == 1) out.insert(out.end(), kv.second.second.begin(), kv.second.second.end());
    return out;
}

int main(int argc, char** argv) {
    int n = 5, every = 30;
    float seconds = 2.0f, radius = 0.005f, stack_tol = 0.15f;
    std::string out = "out/11_soft_stack", backend = "auto";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--res" && i + 1 < argc)
            n = std::atoi(argv[++i]);
        else if (a == "--every" && i + 1 < argc)
            every = std::atoi(argv[++i]);
        else if (a == "--seconds" && i + 1 < argc)
            seconds = (float)std::atof(argv[++i]);
        else if (a == "--stack-tol" && i + 1 < argc)
            stack_tol = (float)std::atof(argv[++i]);
        else if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--backend" && i + 1 < argc)
            backend = argv[++i];
        else if (a == "--no-contact")
            radius = 0.0f;
        else {
            std::fprintf(stderr,
                         "usage: %s [--res N] [--seconds S] [--every K] [--stack-tol F] [--backend auto|cpu] "
                         "[--no-contact] [--out DIR]\n",
                         argv[0]);
            return 2;
        }
    }
    if (backend != "auto" && backend != "cpu") {
        std::fprintf(stderr, "11_soft_stack: this sample runs on the CPU only (--backend auto or cpu)\n");
        return 2;
    }
    if (dfm_sample_make_dir(out.c_str()) != 0) {
        std::fprintf(stderr, "cannot create %s\n", out.c_str());
        return 1;
    }
    /* CUDA first: what it answers (a world, or not built / no device here); the run stays on the CPU. */
    {
        dfm_world_def def = dfm_world_def_default();
        def.backend = DFM_BACKEND_CUDA;
        def.deformable_contact_radius = 0.005f;
        dfm_world* cw = NULL;
        dfm_result r = dfm_world_create(DFM_ABI_VERSION, &def, &cw);
        std::printf("backend: CUDA with deformable contact -> %s (%s); running on %s\n", dfm_result_string(r),
                    dfm_world_last_error(NULL), backend == "auto" ? "auto, which falls back to the CPU" : "the CPU");
        dfm_world_destroy(cw);
    }
    dfm_world_def def = dfm_world_def_default();
    def.backend = backend == "cpu" ? DFM_BACKEND_CPU : DFM_BACKEND_AUTO;
    def.deformable_contact_radius = radius;
    def.log_fn = dfm_sample_log;
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, &def, &w) != DFM_OK) {
        std::fprintf(stderr, "world: %s\n", dfm_world_last_error(NULL));
        return 1;
    }
    /* the ground: the table box, top face at z = 0 */
    dfm_shape_def gd = dfm_scene_table_def();
    dfm_shape_id ground = DFM_NULL_SHAPE_ID;
    if (dfm_scene_add_shape(w, &gd, 0, 0, DFM_SCENE_TABLE_Z, NULL, &ground) != DFM_OK) {
        std::fprintf(stderr, "ground: %s\n", dfm_world_last_error(w));
        return 1;
    }
    const int kCubes = 3;
    const float H = 0.06f, drop = 0.02f, spacing = 0.015f; /* 2 cm above the ground, 1.5 cm apart */
    dfm_scene_tets box[kCubes];
    dfm_body_id id[kCubes];
    double mass[kCubes];
    if (dfm_scene_add_cube_stack(w, kCubes, n, H, drop, spacing, dfm_volume_def_default(), box, id) != DFM_OK) {
        std::fprintf(stderr, "cubes: %s\n", dfm_world_last_error(w));
        return 1;
    }
    for (int c = 0; c < kCubes; ++c) {
        dfm_body_info info = dfm_body_info_init();
        dfm_body_get_info(w, id[c], &info);
        mass[c] = info.total_mass;
    }
    const int32_t nv = box[0].vertex_count;
    const std::vector<int32_t> tris = boundary_faces(box[0].tets, box[0].tet_count);
    std::vector<float> x[kCubes], v(3 * (size_t)nv);
    for (int c = 0; c < kCubes; ++c) x[c].resize(3 * (size_t)nv);
    const double g = 9.81, weight = (mass[0] + mass[1] + mass[2]) * g;
    const int steps = (int)std::lround(seconds * 60.0f), window = 20;
    double Rz = 0.0, min_gap = 1e30;
    int frame = 0;
    for (int s = 0; s < steps; ++s) {
        if (dfm_world_step(w, 1.0f / 60.0f) != DFM_OK) {
            std::fprintf(stderr, "step %d: %s\n", s, dfm_world_last_error(w));
            return 1;
        }
        for (int c = 0; c < kCubes; ++c) dfm_body_get_positions(w, id[c], 0, nv, x[c].data(), 0);
        for (int c = 0; c + 1 < kCubes; ++c)
            min_gap = std::fmin(min_gap, (double)dfm_scene_z_gap(x[c].data(), nv, x[c + 1].data(), nv));
        if (s >= steps - window) {
            float f[3];
            dfm_world_get_shape_reactions(w, &ground, 1, f, NULL, 0);
            Rz -= f[2] / window; /* the deformables' force on the ground; the ground carries -f */
        }
        if (every > 0 && (s % every == 0 || s == steps - 1)) {
            std::vector<float> all;
            std::vector<int32_t> all_t;
            for (int c = 0; c < kCubes; ++c) {
                for (int32_t t : tris) all_t.push_back(t + c * nv);
                all.insert(all.end(), x[c].begin(), x[c].end());
            }
            char path[1024];
            std::snprintf(path, sizeof path, "%s/frame_%04d.obj", out.c_str(), frame++);
            dfm_sample_write_obj(path, all.data(), kCubes * nv, all_t.data(), (int32_t)(all_t.size() / 3));
        }
    }
    double cz[kCubes], vmax = 0.0;
    for (int c = 0; c < kCubes; ++c) {
        cz[c] = 0.0;
        for (int32_t i = 0; i < nv; ++i) cz[c] += x[c][3 * i + 2] / nv;
        dfm_body_get_velocities(w, id[c], 0, nv, v.data(), 0);
        for (int32_t i = 0; i < nv; ++i)
            vmax = std::fmax(vmax, std::sqrt((double)v[3 * i] * v[3 * i] + (double)v[3 * i + 1] * v[3 * i + 1] +
                                             (double)v[3 * i + 2] * v[3 * i + 2]));
    }
    bool stacked = true;
    double worst_dev = 0.0;
    for (int c = 0; c + 1 < kCubes; ++c) {
        double dev = std::fabs((cz[c + 1] - cz[c]) - (H + radius));
        worst_dev = std::fmax(worst_dev, dev);
        if (dev > stack_tol * H) stacked = false;
    }
    /* bottom cube's centroid above the ground by about H/2, and all cubes over the ground's centre */
    if (std::fabs(cz[0] - 0.5 * H) > stack_tol * H) stacked = false;
    const double reaction_err = std::fabs(Rz - weight) / weight;
    const bool through_ok = min_gap >= 0.0, reaction_ok = reaction_err <= 0.01, rest_ok = vmax < 0.02;
    const bool ok = stacked && through_ok && reaction_ok && rest_ok;
    {
        std::vector<RenderMesh> meshes(kCubes + 1);
        static const uint8_t rgb[3][3] = {{200, 70, 60}, {70, 160, 80}, {70, 90, 200}};
        for (int c = 0; c < kCubes; ++c) {
            meshes[c].vertices = x[c];
            meshes[c].triangles = tris;
            std::memcpy(meshes[c].rgb, rgb[c], 3);
        }
        const float half[3] = {0.15f, 0.15f, 0.01f}, rot[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, pos[3] = {0, 0, -0.01f};
        append_box(meshes[kCubes], half, rot, pos);
        meshes[kCubes].rgb[0] = meshes[kCubes].rgb[1] = meshes[kCubes].rgb[2] = 150;
        RenderCamera cam{{0.35f, -0.45f, 0.22f}, {0.0f, 0.0f, 0.1f}, {0, 0, 1}, 40.0f};
        std::string why;
        if (!render_png(out + "/final.png", meshes, cam, 800, 600, &why)) {
            std::fprintf(stderr, "picture: %s\n", why.c_str());
            return 1;
        }
    }
    std::printf("11_soft_stack: 3 cubes of %d^3 vertices, %.2f s, contact radius %.4f m; centroids z %.4f %.4f %.4f m "
                "(spacing %.4f / %.4f m, expected H + r = %.4f, worst deviation %.4f m, tolerance %.4f); smallest "
                "vertex gap between cubes %.5f m; ground reaction %.4f N for weights %.4f N (error %.3f%%, limit "
                "1%%); max speed at the end %.4f m/s (limit 0.02) -> %s (%s/final.png)\n",
                n, (double)seconds, (double)radius, cz[0], cz[1], cz[2], cz[1] - cz[0], cz[2] - cz[1],
                (double)(H + radius), worst_dev, (double)(stack_tol * H), min_gap, Rz, weight, 100.0 * reaction_err,
                vmax, ok ? "PASS" : "FAIL", out.c_str());
    for (int c = 0; c < kCubes; ++c) dfm_scene_tets_free(&box[c]);
    dfm_world_destroy(w);
    return ok ? 0 : 1;
}
