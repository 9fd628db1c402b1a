/// Checks the pybullet plugin's mesh helpers (adapters/pybullet/src/mesh_read.c), which turn what
/// pybullet gives (hull points, OBJ files, vertex lists) into closed meshes for dfm's mesh SDF:
/// - the convex hull of a unit cube's corners plus points on its faces, edges and inside (given
///   first, so they are corners of the early hulls) is closed, a sphere-like triangulation
///   (triangles = 2 vertices - 4), has the 8 cube corners among its vertices and none inside,
///   encloses volume 1 (divergence theorem, to 1e-6) and has every input point on or behind every
///   face (to 1e-9 m). (Points that were corners when they came and end on a face or edge stay
///   vertices of it: the surface is the hull's, which is what the SDF needs.)
/// - the hull of 400 seeded random points in a 0.1 m ball and 200 on its sphere is closed,
///   outward (volume 0.8 to 1 of the ball's), has at least 150 of the 200 sphere points as corners
///   and every point inside or on it (2e-7 m: its float32 corners round by up to 3e-8 m);
/// - coplanar, collinear and too few points are refused with a reason;
/// - an OBJ file with two parts (`o`), quads, v/vt/vn corners and negative indices reads as 2 parts
///   of 12 and 4 triangles with the scale applied per axis; a face index out of range is refused;
/// - welding a 24-corner cube (a vertex per face corner) gives 8 vertices and a closed mesh; the
///   closedness check finds an open edge when a triangle is dropped and a flipped triangle.
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "mesh_read.h"

#include <dfm_test.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Signed volume enclosed by a triangle mesh (positive when its triangles face outward).
static double volume(const dfm_pyb_mesh* m) {
    double v = 0.0;
    for (int32_t t = 0; t < m->triangle_count; ++t) {
        const float* a = &m->vertices[3 * m->triangles[3 * t]];
        const float* b = &m->vertices[3 * m->triangles[3 * t + 1]];
        const float* c = &m->vertices[3 * m->triangles[3 * t + 2]];
        v += (double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
             (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
             (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return v / 6.0;
}

/// Largest height of a point above a face plane of the mesh (<= 0: inside).
static double worst_outside(const dfm_pyb_mesh* m, const double* pts, int n) {
    double worst = -1e30;
    for (int32_t t = 0; t < m->triangle_count; ++t) {
        const float* a = &m->vertices[3 * m->triangles[3 * t]];
        const float* b = &m->vertices[3 * m->triangles[3 * t + 1]];
        const float* c = &m->vertices[3 * m->triangles[3 * t + 2]];
        const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        const double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        for (int i = 0; i < n; ++i) {
            const double h = ((pts[3 * i] - a[0]) * nrm[0] + (pts[3 * i + 1] - a[1]) * nrm[1] +
                              (pts[3 * i + 2] - a[2]) * nrm[2]) /
                             len;
            if (h > worst) worst = h;
        }
    }
    return worst;
}

static void test_cube_hull(void) {
    double pts[3 * 64];
    int n = 0;
    /* corners last, so the hull starts from non-corner points */
    const double extra[][3] = {{0.5, 0.5, 0.5}, {0.5, 0.5, 0}, {0, 0.5, 0.5}, {1, 0.5, 0.5}, {0.5, 0, 1},
                               {0.25, 0.25, 1}, {1, 1, 0.5},   {0.5, 1, 1},   {0.1, 0.9, 0}};
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); ++i, ++n) memcpy(&pts[3 * n], extra[i], sizeof(extra[i]));
    for (int c = 0; c < 8; ++c, ++n) {
        pts[3 * n] = c & 1;
        pts[3 * n + 1] = (c >> 1) & 1;
        pts[3 * n + 2] = (c >> 2) & 1;
    }
    dfm_pyb_mesh m;
    char why[256] = "";
    CHECK(dfm_pyb_convex_hull(pts, n, 3, &m, why, sizeof(why)), "cube hull: %s", why);
    printf("cube hull: %d vertices, %d triangles, volume %.9f\n", m.vertex_count, m.triangle_count, volume(&m));
    CHECK(m.triangle_count == 2 * m.vertex_count - 4, "%d vertices, %d triangles", m.vertex_count, m.triangle_count);
    int corners = 0, interior = 0;
    for (int32_t i = 0; i < m.vertex_count; ++i) {
        const float* x = &m.vertices[3 * i];
        int on = 0;
        for (int a = 0; a < 3; ++a) on += x[a] == 0.0f || x[a] == 1.0f;
        corners += on == 3;
        interior += on == 0;
    }
    CHECK(corners == 8 && interior == 0, "%d cube corners and %d interior points among the vertices", corners,
          interior);
    CHECK(fabs(volume(&m) - 1.0) < 1e-6, "volume %.9f", volume(&m));
    CHECK(dfm_pyb_mesh_check_closed(&m, why, sizeof(why)), "cube hull not closed: %s", why);
    CHECK(worst_outside(&m, pts, n) < 1e-9, "a point %.3g m outside", worst_outside(&m, pts, n));
    dfm_pyb_mesh_free(&m);
}

static void test_random_hull(void) {
    enum { N = 600 };
    static double pts[3 * N];
    unsigned s = 12345u;
    for (int i = 0; i < N; ++i) {
        double p[3], r2;
        do {
            for (int a = 0; a < 3; ++a) {
                s = s * 1103515245u + 12345u;
                p[a] = 2.0 * ((s >> 8) & 0xFFFF) / 65535.0 - 1.0;
            }
            r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        } while (r2 > 1.0 || r2 < 1e-6);
        const double k = i < 200 ? 1.0 / sqrt(r2) : 1.0;                   /* the first 200 on the sphere */
        for (int a = 0; a < 3; ++a) pts[3 * i + a] = 0.1 * k * p[a] + 0.3; /* 0.1 m ball off the origin */
    }
    dfm_pyb_mesh m;
    char why[256] = "";
    CHECK(dfm_pyb_convex_hull(pts, N, 3, &m, why, sizeof(why)), "random hull: %s", why);
    const double v = volume(&m), ball = 4.0 / 3.0 * 3.14159265358979 * 1e-3;
    printf("random hull: %d vertices, %d triangles, volume %.3g m^3 (ball %.3g), worst outside %.3g m\n",
           m.vertex_count, m.triangle_count, v, ball, worst_outside(&m, pts, N));
    CHECK(dfm_pyb_mesh_check_closed(&m, why, sizeof(why)), "random hull not closed: %s", why);
    CHECK(v > 0.8 * ball && v < ball, "volume %.4g of the ball's %.4g", v, ball);
    CHECK(worst_outside(&m, pts, N) < 2e-7, "a point %.3g m outside", worst_outside(&m, pts, N));
    CHECK(m.vertex_count >= 150, "only %d hull vertices of 200 on the sphere", m.vertex_count);
    dfm_pyb_mesh_free(&m);
}

static void test_degenerate_hulls(void) {
    const double flat[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0};
    const double line[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    dfm_pyb_mesh m;
    char why[256] = "";
    CHECK(!dfm_pyb_convex_hull(flat, 5, 3, &m, why, sizeof(why)) && strstr(why, "coplanar"), "flat: %s", why);
    CHECK(!dfm_pyb_convex_hull(line, 4, 3, &m, why, sizeof(why)) && strstr(why, "line"), "line: %s", why);
    CHECK(!dfm_pyb_convex_hull(line, 3, 3, &m, why, sizeof(why)) && strstr(why, "at least 4"), "3 points: %s", why);
}

static void test_obj(void) {
    char path[] = "/tmp/dfm_pyb_obj_XXXXXX";
    const int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp failed");
    if (fd < 0) return;
    FILE* f = fdopen(fd, "w");
    fputs("# two parts\nmtllib x.mtl\no cube\n"
          "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nvt 0 0\nvn 0 0 1\n"
          "f 1/1/1 4/1/1 3/1/1 2/1/1\nf 5//1 6//1 7//1 8//1\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
          "o tetra\nv 2 0 0\nv 3 0 0\nv 2 1 0\nv 2 0 1\nf -4 -2 -3\nf -4 -3 -1\nf -3 -2 -1\nf -4 -1 -2\ng empty\n",
          f);
    fclose(f);
    const double scale[3] = {2, 3, 4};
    dfm_pyb_obj o;
    char why[512] = "";
    CHECK(dfm_pyb_obj_read(path, scale, &o, why, sizeof(why)), "obj: %s", why);
    printf("obj: %d vertices, %d triangles, %d parts\n", o.vertex_count, o.triangle_count, o.part_count);
    CHECK(o.vertex_count == 12 && o.triangle_count == 16 && o.part_count == 2, "%d vertices %d triangles %d parts",
          o.vertex_count, o.triangle_count, o.part_count);
    if (o.part_count == 2)
        CHECK(o.part_first[1] == 12 && o.part_first[2] == 16, "parts %d %d", o.part_first[1], o.part_first[2]);
    CHECK(o.vertices[3 * 6] == 2 && o.vertices[3 * 6 + 1] == 3 && o.vertices[3 * 6 + 2] == 4, "scale not applied");
    dfm_pyb_mesh m;
    CHECK(dfm_pyb_mesh_weld(o.vertices, o.vertex_count, o.triangles, 12, &m, why, sizeof(why)), "weld: %s", why);
    CHECK(dfm_pyb_mesh_check_closed(&m, why, sizeof(why)), "obj cube open: %s", why);
    CHECK(fabs(volume(&m) - 24.0) < 1e-5, "obj cube volume %.6f (24 expected)", volume(&m));
    dfm_pyb_mesh_free(&m);
    dfm_pyb_obj_free(&o);
    f = fopen(path, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", f);
    fclose(f);
    CHECK(!dfm_pyb_obj_read(path, scale, &o, why, sizeof(why)) && strstr(why, "out of range"), "bad index: %s", why);
    remove(path);
    CHECK(!dfm_pyb_obj_read(path, scale, &o, why, sizeof(why)) && strstr(why, "cannot open"), "missing: %s", why);
}

static void test_weld_and_closed(void) {
    /* A unit cube with its own 4 corners per face (24 vertices), 2 triangles per face. */
    double v[24 * 3];
    int32_t t[36];
    int nv = 0, nt = 0;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            const int base = nv;
            const double quad[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            for (int k = 0; k < 4; ++k, ++nv) {
                v[3 * nv + axis] = side;
                v[3 * nv + u] = quad[k][0];
                v[3 * nv + w] = quad[k][1];
            }
            /* (u, w, axis) is right-handed: counter-clockwise in (u, w) faces +axis */
            const int32_t a = base, b = side ? base + 1 : base + 3, c = base + 2, d = side ? base + 3 : base + 1;
            t[3 * nt] = a, t[3 * nt + 1] = b, t[3 * nt + 2] = c, ++nt;
            t[3 * nt] = a, t[3 * nt + 1] = c, t[3 * nt + 2] = d, ++nt;
        }
    dfm_pyb_mesh m;
    char why[256] = "";
    CHECK(dfm_pyb_mesh_weld(v, nv, t, nt, &m, why, sizeof(why)), "weld: %s", why);
    CHECK(m.vertex_count == 8 && m.triangle_count == 12, "welded to %d vertices, %d triangles", m.vertex_count,
          m.triangle_count);
    CHECK(dfm_pyb_mesh_check_closed(&m, why, sizeof(why)), "welded cube open: %s", why);
    CHECK(fabs(volume(&m) - 1.0) < 1e-6, "welded cube volume %.6f", volume(&m));
    m.triangle_count = 11; /* drop one */
    CHECK(!dfm_pyb_mesh_check_closed(&m, why, sizeof(why)) && strstr(why, "no opposite edge"), "open: %s", why);
    m.triangle_count = 12;
    const int32_t keep = m.triangles[1]; /* flip one */
    m.triangles[1] = m.triangles[2];
    m.triangles[2] = keep;
    CHECK(!dfm_pyb_mesh_check_closed(&m, why, sizeof(why)) && strstr(why, "twice"), "flipped: %s", why);
    dfm_pyb_mesh_free(&m);
}

int main(void) {
    test_cube_hull();
    test_random_hull();
    test_degenerate_hulls();
    test_obj();
    test_weld_and_closed();
    return dfm_test_finish("test_pyb_mesh_read");
}
