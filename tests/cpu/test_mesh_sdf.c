/// Mesh SDF baking (plugin/mesh_sdf.c): accuracy against analytic shapes and an independent
/// brute-force distance, sign on non-convex and hollow meshes, refusal of bad meshes,
/// determinism, and bake time. Prints grid resolution, max error and bake time per mesh.
///
/// Bounds used below (c = cell):
/// - a distance field is 1-Lipschitz, so trilinear interpolation of exact node values errs by at
///   most sqrt(3)/2 c anywhere; it is exact on planes and the error concentrates at sharp features,
///   where the field has a kink (inside a convex edge/corner) or a cone (outside it). A search over
///   all cell alignments and query points near one 90-degree corner of a box (solid x,y,z < 0)
///   gives a worst case of 0.5056 c (query at the corner itself), 0.317 c near a 90-degree edge.
///   So boxes and the L-shape are held to 0.51 c + 1e-5 m wherever all eight cell corners are
///   within the band (|d| <= band - sqrt(3) c).
/// - the icosphere adds its faceting error f = max over faces of (R - plane distance) against the
///   analytic sphere; its kinks are shallow: with t = the largest angle between the normals of
///   two faces sharing a vertex it is held to f + 0.5 t c (a kink of angle t errs by about
///   3/8 t c; 0.5 t c is looser than the 90-degree bound only beyond t = 1 rad).
///
/// Mutations tried on plugin/mesh_sdf.c (each made this test fail as noted, then reverted):
/// - edge_sign without the symbolic tie-break (0 when e == 0): "lattice box: 45 node signs
///   wrong", node error 0.25, and icosphere L4 random-point failures (its x lines hit edges too);
/// - edge_sign evaluated in the given edge direction (no canonical order, so not antisymmetric):
///   "lattice box: 127 node signs wrong", icosphere L4 failures;
/// - crossing counted at ceil(u) instead of ceil(u) - 1: box sign failures at random points;
/// - inside = winding > 0 instead of != 0: "inside-out box differs by 0.125";
/// - tri_dist2 skipping edge bc (bu < 0): box "522 value failures", estimate out of bound;
/// - distance pass with half the band in the triangle AABB or in the row slab: box ~1350 value
///   failures and node values off the exact clamped distance; half the band in the row ball:
///   icosphere L4 value failures;
/// - check_closed accepting same-direction pairs: the flipped triangle is baked (code 0);
/// - error estimate without the surface probes: "box: random points err 0.00868, estimate only
///   0.00699".
#include "dfm_test.h"
#include "mesh_sdf.h"
#include "sdf_shapes.h"

#include <time.h>

/// A triangle mesh built by the test (malloc'ed arrays).
typedef struct test_mesh {
    float* v;
    int32_t* t;
    int32_t nv, nt;
} test_mesh;

static void mesh_free(test_mesh* m) {
    free(m->v);
    free(m->t);
    memset(m, 0, sizeof(*m));
}

static test_mesh mesh_alloc(int32_t nv, int32_t nt) {
    test_mesh m;
    m.nv = nv;
    m.nt = nt;
    m.v = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    m.t = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)nt);
    return m;
}

/// Axis-aligned box centred at the origin with half extents (hx, hy, hz), 12 outward triangles.
static test_mesh make_box(float hx, float hy, float hz) {
    test_mesh m = mesh_alloc(8, 12);
    for (int i = 0; i < 8; ++i) {
        m.v[3 * i] = i & 1 ? hx : -hx;
        m.v[3 * i + 1] = i & 2 ? hy : -hy;
        m.v[3 * i + 2] = i & 4 ? hz : -hz;
    }
    static const int32_t tris[36] = {0, 2, 3, 0, 3, 1,  /* -z */
                                     4, 5, 7, 4, 7, 6,  /* +z */
                                     0, 1, 5, 0, 5, 4,  /* -y */
                                     2, 6, 7, 2, 7, 3,  /* +y */
                                     0, 4, 6, 0, 6, 2,  /* -x */
                                     1, 3, 7, 1, 7, 5}; /* +x */
    memcpy(m.t, tris, sizeof(tris));
    return m;
}

/// Icosphere of radius r: an icosahedron subdivided `levels` times (20 * 4^levels triangles).
static test_mesh make_icosphere(float r, int levels) {
    int32_t nt = 20, nv = 12;
    for (int l = 0; l < levels; ++l) {
        nv += nt * 3 / 2;
        nt *= 4;
    }
    test_mesh m = mesh_alloc(nv, nt);
    const double g = (1.0 + sqrt(5.0)) / 2.0;
    // clang-format off
    const double base[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                                {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
    static const int32_t faces[60] = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2,
                                      10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5,
                                      2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
    // clang-format on
    double* pos = (double*)malloc(sizeof(double) * 3 * (size_t)nv);
    for (int i = 0; i < 12; ++i) {
        double l = sqrt(base[i][0] * base[i][0] + base[i][1] * base[i][1] + base[i][2] * base[i][2]);
        for (int a = 0; a < 3; ++a) pos[3 * i + a] = base[i][a] / l;
    }
    memcpy(m.t, faces, sizeof(faces));
    int32_t cur_v = 12, cur_t = 20;
    int32_t* tmp = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)nt);
    /* Midpoint table: per edge (lo, hi) the new vertex; found by linear probing of a hash. */
    size_t cap = 1;
    while (cap < (size_t)nt * 4) cap <<= 1;
    int64_t* keys = (int64_t*)malloc(sizeof(int64_t) * cap);
    int32_t* vals = (int32_t*)malloc(sizeof(int32_t) * cap);
    for (int l = 0; l < levels; ++l) {
        for (size_t i = 0; i < cap; ++i) keys[i] = -1;
        int32_t out_t = 0;
        for (int32_t t = 0; t < cur_t; ++t) {
            int32_t c[3] = {m.t[3 * t], m.t[3 * t + 1], m.t[3 * t + 2]}, mid[3];
            for (int e = 0; e < 3; ++e) {
                int32_t a = c[e], b = c[(e + 1) % 3];
                int64_t key = a < b ? (int64_t)a * nv + b : (int64_t)b * nv + a;
                size_t h = (size_t)(key * 2654435761u) & (cap - 1);
                while (keys[h] != -1 && keys[h] != key) h = (h + 1) & (cap - 1);
                if (keys[h] == -1) {
                    keys[h] = key;
                    double q[3], len = 0.0;
                    for (int k = 0; k < 3; ++k) {
                        q[k] = pos[3 * a + k] + pos[3 * b + k];
                        len += q[k] * q[k];
                    }
                    len = sqrt(len);
                    for (int k = 0; k < 3; ++k) pos[3 * cur_v + k] = q[k] / len;
                    vals[h] = cur_v++;
                }
                mid[e] = vals[h];
            }
            int32_t sub[12] = {c[0], mid[0], mid[2], c[1],   mid[1], mid[0],
                               c[2], mid[2], mid[1], mid[0], mid[1], mid[2]};
            memcpy(tmp + 3 * out_t, sub, sizeof(sub));
            out_t += 4;
        }
        cur_t = out_t;
        memcpy(m.t, tmp, sizeof(int32_t) * 3 * (size_t)cur_t);
    }
    for (int32_t i = 0; i < nv; ++i)
        for (int a = 0; a < 3; ++a) m.v[3 * i + a] = (float)(r * pos[3 * i + a]);
    free(pos);
    free(tmp);
    free(keys);
    free(vals);
    return m;
}

/// L-shaped prism: the polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2) extruded over z in [0, 1],
/// i.e. the 2x2x1 block with the notch [1,2]x[1,2]x[0,1] removed, as one closed surface.
static test_mesh make_l_prism(void) {
    test_mesh m = mesh_alloc(12, 20);
    static const float poly[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
    for (int i = 0; i < 6; ++i) {
        m.v[3 * i] = m.v[3 * (i + 6)] = poly[i][0];
        m.v[3 * i + 1] = m.v[3 * (i + 6) + 1] = poly[i][1];
        m.v[3 * i + 2] = 0.0f;
        m.v[3 * (i + 6) + 2] = 1.0f;
    }
    int32_t n = 0;
    /* Caps: a fan from the reflex vertex 3 (counter-clockwise seen from +z). */
    static const int32_t fan[4][3] = {{3, 4, 5}, {3, 5, 0}, {3, 0, 1}, {3, 1, 2}};
    for (int f = 0; f < 4; ++f) {
        int32_t top[3] = {fan[f][0] + 6, fan[f][1] + 6, fan[f][2] + 6}, bottom[3] = {fan[f][0], fan[f][2], fan[f][1]};
        memcpy(m.t + 3 * n++, top, sizeof(top));
        memcpy(m.t + 3 * n++, bottom, sizeof(bottom));
    }
    for (int i = 0; i < 6; ++i) {
        int32_t j = (i + 1) % 6;
        int32_t a[3] = {i, j, j + 6}, b[3] = {i, j + 6, i + 6};
        memcpy(m.t + 3 * n++, a, sizeof(a));
        memcpy(m.t + 3 * n++, b, sizeof(b));
    }
    return m;
}

/// Hollow box: the outer box (half extent `outer`) and an inner box (half extent `inner`) wound
/// inward, so the cavity is outside.
static test_mesh make_hollow_box(float outer, float inner) {
    test_mesh a = make_box(outer, outer, outer), b = make_box(inner, inner, inner);
    test_mesh m = mesh_alloc(16, 24);
    memcpy(m.v, a.v, sizeof(float) * 24);
    memcpy(m.v + 24, b.v, sizeof(float) * 24);
    memcpy(m.t, a.t, sizeof(int32_t) * 36);
    for (int t = 0; t < 12; ++t) {
        m.t[36 + 3 * t] = b.t[3 * t] + 8;
        m.t[36 + 3 * t + 1] = b.t[3 * t + 2] + 8;
        m.t[36 + 3 * t + 2] = b.t[3 * t + 1] + 8;
    }
    mesh_free(&a);
    mesh_free(&b);
    return m;
}

/* ---------------------------------------------------------------------------------------------
 * Independent reference: brute-force unsigned distance (written differently from the library:
 * edge half-plane tests against the face normal, then segments).
 * ------------------------------------------------------------------------------------------- */

static void sub3(const double* a, const double* b, double* r) {
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}
static double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double* a, const double* b, double* r) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double ref_segment(const double* p, const double* a, const double* b) {
    double ab[3], ap[3];
    sub3(b, a, ab);
    sub3(p, a, ap);
    double s = dot3(ap, ab) / dot3(ab, ab);
    if (s < 0) s = 0;
    if (s > 1) s = 1;
    double d[3] = {ap[0] - s * ab[0], ap[1] - s * ab[1], ap[2] - s * ab[2]};
    return sqrt(dot3(d, d));
}

static double ref_distance(const test_mesh* m, const double* p) {
    double best = INFINITY;
    for (int32_t t = 0; t < m->nt; ++t) {
        double q[3][3];
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) q[k][a] = m->v[3 * m->t[3 * t + k] + a];
        double e1[3], e2[3], n[3];
        sub3(q[1], q[0], e1);
        sub3(q[2], q[0], e2);
        cross3(e1, e2, n);
        int inside = 1;
        for (int k = 0; k < 3 && inside; ++k) {
            double e[3], w[3], c[3];
            sub3(q[(k + 1) % 3], q[k], e);
            sub3(p, q[k], w);
            cross3(e, w, c);
            inside = dot3(c, n) >= 0;
        }
        double d;
        if (inside) {
            double w[3];
            sub3(p, q[0], w);
            d = fabs(dot3(w, n)) / sqrt(dot3(n, n));
        } else {
            d = fmin(ref_segment(p, q[0], q[1]), fmin(ref_segment(p, q[1], q[2]), ref_segment(p, q[2], q[0])));
        }
        if (d < best) best = d;
    }
    return best;
}

/* --------------------------------------------------------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
/// Uniform in [0, 1) from a fixed-seed xorshift (deterministic across runs).
static double rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static double now_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static dfm_sdf_grid_view view_of(const dfm_mesh_sdf* s) {
    dfm_sdf_grid_view v;
    memcpy(v.origin, s->origin, sizeof(v.origin));
    v.cell = s->cell;
    memcpy(v.dims, s->dims, sizeof(v.dims));
    v.values = s->values;
    return v;
}

/// Bakes, prints the summary line, returns the code.
static int bake(const char* name, const test_mesh* m, float cell, float margin, int64_t max_nodes, dfm_mesh_sdf* out) {
    char err[256];
    double t0 = now_s();
    int rc = dfm_mesh_sdf_bake(m->v, m->nv, m->t, m->nt, cell, margin, max_nodes, out, err, sizeof(err));
    double ms = 1e3 * (now_s() - t0);
    if (rc == 0)
        printf("%-16s %6d tris  grid %dx%dx%d  cell %.5f m  band %.4f m  max error %.6f m (%.3f cells)  bake %.1f ms\n",
               name, (int)m->nt, (int)out->dims[0], (int)out->dims[1], (int)out->dims[2], (double)out->cell,
               (double)out->band, (double)out->max_error_estimate, (double)(out->max_error_estimate / out->cell), ms);
    else
        printf("%-16s bake failed (%d): %s\n", name, rc, err);
    return rc;
}

/// Signed reference distance for random-point checks.
typedef double (*ref_fn)(const void* ctx, const double* p);

/// Samples `count` random points in the grid box; those with |ref| <= band - sqrt(3) cell are
/// compared: |grid - ref| <= bound, and the signs agree where |ref| > bound. Returns max error.
static double compare_random(const char* name, const dfm_mesh_sdf* s, ref_fn ref, const void* ctx, int count,
                             double bound) {
    dfm_sdf_grid_view v = view_of(s);
    double limit = (double)s->band - sqrt(3.0) * (double)s->cell;
    double worst = 0.0;
    int used = 0, bad_sign = 0, bad_value = 0;
    for (int n = 0; n < count; ++n) {
        double p[3];
        for (int a = 0; a < 3; ++a) p[a] = (double)s->origin[a] + rnd() * (double)s->cell * (double)(s->dims[a] - 1);
        double r = ref(ctx, p);
        if (fabs(r) > limit) continue;
        ++used;
        double g = (double)dfm_sdf_grid_sample(&v, dfm_v3_make((float)p[0], (float)p[1], (float)p[2]), NULL);
        double e = fabs(g - r);
        if (e > worst) worst = e;
        if (e > bound && bad_value++ < 3)
            CHECK(0, "%s: at (%g %g %g) grid %g, reference %g (|diff| %g > %g)", name, p[0], p[1], p[2], g, r, e,
                  bound);
        if (fabs(r) > bound && (g < 0) != (r < 0) && bad_sign++ < 3)
            CHECK(0, "%s: sign at (%g %g %g): grid %g, reference %g", name, p[0], p[1], p[2], g, r);
    }
    CHECK(used > count / 20, "%s: only %d of %d points fell in the band", name, used, count);
    CHECK(bad_value == 0 && bad_sign == 0, "%s: %d value and %d sign failures", name, bad_value, bad_sign);
    printf("%-16s %d band points: max |grid - reference| %.6f m (bound %.6f m)\n", name, used, worst, bound);
    return worst;
}

/// Node signs against a reference: every node with |ref| > tol must carry its sign.
static void compare_node_signs(const char* name, const dfm_mesh_sdf* s, ref_fn ref, const void* ctx, double tol) {
    int bad = 0;
    for (int32_t k = 0; k < s->dims[2]; ++k)
        for (int32_t j = 0; j < s->dims[1]; ++j)
            for (int32_t i = 0; i < s->dims[0]; ++i) {
                double p[3] = {(double)s->origin[0] + i * (double)s->cell, (double)s->origin[1] + j * (double)s->cell,
                               (double)s->origin[2] + k * (double)s->cell};
                double r = ref(ctx, p);
                float g = s->values[i + s->dims[0] * (j + s->dims[1] * k)];
                if (fabs(r) > tol && (g < 0) != (r < 0) && bad++ < 3)
                    CHECK(0, "%s: node (%d %d %d) sign: grid %g, reference %g", name, (int)i, (int)j, (int)k, (double)g,
                          r);
            }
    CHECK(bad == 0, "%s: %d node signs wrong", name, bad);
}

/// Node values against an exact reference: |value - ref| <= tol within the band, +-band beyond.
static void compare_nodes_exact(const char* name, const dfm_mesh_sdf* s, ref_fn ref, const void* ctx, double tol) {
    int bad = 0;
    double worst = 0.0;
    for (int32_t k = 0; k < s->dims[2]; ++k)
        for (int32_t j = 0; j < s->dims[1]; ++j)
            for (int32_t i = 0; i < s->dims[0]; ++i) {
                double p[3] = {(double)s->origin[0] + i * (double)s->cell, (double)s->origin[1] + j * (double)s->cell,
                               (double)s->origin[2] + k * (double)s->cell};
                double r = ref(ctx, p);
                double want = fabs(r) < (double)s->band ? r : (r < 0 ? -(double)s->band : (double)s->band);
                double g = (double)s->values[i + s->dims[0] * (j + s->dims[1] * k)];
                double e = fabs(g - want);
                worst = fmax(worst, e);
                if (e > tol && bad++ < 3)
                    CHECK(0, "%s: node (%d %d %d) = %g, exact (clamped) %g", name, (int)i, (int)j, (int)k, g, want);
            }
    CHECK(bad == 0, "%s: %d node values off by more than %g", name, bad, tol);
    printf("%-16s nodes vs exact clamped distance: max |diff| %.2e m\n", name, worst);
}

static double ref_shape(const void* ctx, const double* p) {
    return (double)dfm_shape_sdf((const dfm_shape_geom*)ctx, dfm_v3_make((float)p[0], (float)p[1], (float)p[2]), NULL);
}

/// Exact L-prism distance: brute force on its mesh, sign from the solid's definition.
static double ref_l(const void* ctx, const double* p) {
    double d = ref_distance((const test_mesh*)ctx, p);
    int in_z = p[2] > 0 && p[2] < 1;
    int in_a = p[0] > 0 && p[0] < 2 && p[1] > 0 && p[1] < 1;
    int in_b = p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 2;
    return in_z && (in_a || in_b) ? -d : d;
}

/// Exact distance to a convex closed mesh: brute force, inside when behind every face plane.
static double ref_convex(const void* ctx, const double* p) {
    const test_mesh* m = (const test_mesh*)ctx;
    int inside = 1;
    for (int32_t t = 0; t < m->nt && inside; ++t) {
        double q[3][3], e1[3], e2[3], n[3], w[3];
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) q[k][a] = m->v[3 * m->t[3 * t + k] + a];
        sub3(q[1], q[0], e1);
        sub3(q[2], q[0], e2);
        cross3(e1, e2, n);
        sub3(p, q[0], w);
        inside = dot3(w, n) < 0;
    }
    double d = ref_distance(m, p);
    return inside ? -d : d;
}

static float sample_at(const dfm_mesh_sdf* s, float x, float y, float z) {
    dfm_sdf_grid_view v = view_of(s);
    return dfm_sdf_grid_sample(&v, dfm_v3_make(x, y, z), NULL);
}

static void test_box(void) {
    test_mesh m = make_box(0.5f, 0.3f, 0.2f);
    dfm_mesh_sdf s;
    if (bake("box", &m, 0.0f, 0.05f, 0, &s) != 0) {
        CHECK(0, "box bake failed");
        mesh_free(&m);
        return;
    }
    CHECK(fabsf(s.cell - 1.0f / 48.0f) < 1e-6f, "auto cell %g, want 1/48", (double)s.cell);
    CHECK(s.band >= 3.0f * s.cell && s.band >= 0.05f, "band %g", (double)s.band);
    dfm_shape_geom box;
    memset(&box, 0, sizeof(box));
    box.type = DFM_GEOM_BOX;
    box.params[0] = 0.5f;
    box.params[1] = 0.3f;
    box.params[2] = 0.2f;
    double bound = 0.51 * (double)s.cell + 1e-5;
    double worst = compare_random("box", &s, ref_shape, &box, 200000, bound);
    /* The estimate probes the surface where the worst errors are: it must not miss much. */
    CHECK(worst <= 1.1 * (double)s.max_error_estimate, "box: random points err %g, estimate only %g", worst,
          (double)s.max_error_estimate);
    compare_node_signs("box", &s, ref_shape, &box, 1e-6);
    compare_nodes_exact("box", &s, ref_shape, &box, 2e-6);
    CHECK(s.max_error_estimate <= bound && s.max_error_estimate > 0.0f, "box max error estimate %g (bound %g)",
          (double)s.max_error_estimate, bound);

    /* Determinism. */
    dfm_mesh_sdf s2;
    char err[128];
    CHECK(dfm_mesh_sdf_bake(m.v, m.nv, m.t, m.nt, 0.0f, 0.05f, 0, &s2, err, sizeof(err)) == 0, "rebake: %s", err);
    if (s2.values) {
        size_t n = (size_t)s.dims[0] * (size_t)s.dims[1] * (size_t)s.dims[2];
        CHECK(memcmp(s.values, s2.values, n * sizeof(float)) == 0, "two bakes differ");
        CHECK(s.max_error_estimate == s2.max_error_estimate, "two error estimates differ");
    }
    dfm_mesh_sdf_free(&s2);

    /* The same box wound inside out gives the same field (nonzero winding rule). */
    for (int32_t t = 0; t < m.nt; ++t) {
        int32_t x = m.t[3 * t + 1];
        m.t[3 * t + 1] = m.t[3 * t + 2];
        m.t[3 * t + 2] = x;
    }
    CHECK(dfm_mesh_sdf_bake(m.v, m.nv, m.t, m.nt, 0.0f, 0.05f, 0, &s2, err, sizeof(err)) == 0, "inverted: %s", err);
    if (s2.values) {
        size_t n = (size_t)s.dims[0] * (size_t)s.dims[1] * (size_t)s.dims[2];
        float diff = 0.0f;
        for (size_t i = 0; i < n; ++i) diff = fmaxf(diff, fabsf(s.values[i] - s2.values[i]));
        CHECK(diff < 1e-6f, "inside-out box differs by %g", (double)diff);
    }
    dfm_mesh_sdf_free(&s2);
    dfm_mesh_sdf_free(&s);
    dfm_mesh_sdf_free(&s); /* freeing twice is fine */
    mesh_free(&m);
}

/// A box whose faces, edges and face diagonals lie exactly on grid nodes and lines: every tie
/// of the winding count is exercised, and the node signs must still be exact.
static void test_lattice_box(void) {
    test_mesh m = make_box(0.5f, 0.25f, 0.375f);
    dfm_mesh_sdf s;
    if (bake("lattice box", &m, 0.0625f, 0.125f, 0, &s) != 0) {
        CHECK(0, "lattice box bake failed");
        mesh_free(&m);
        return;
    }
    CHECK(s.origin[0] == -0.625f && s.origin[1] == -0.375f && s.origin[2] == -0.5f, "origin %g %g %g",
          (double)s.origin[0], (double)s.origin[1], (double)s.origin[2]);
    dfm_shape_geom box;
    memset(&box, 0, sizeof(box));
    box.type = DFM_GEOM_BOX;
    box.params[0] = 0.5f;
    box.params[1] = 0.25f;
    box.params[2] = 0.375f;
    compare_node_signs("lattice box", &s, ref_shape, &box, 0.0);
    /* Nodes on the surface are exactly 0, the others exact within float rounding. */
    float worst = 0.0f;
    for (int32_t k = 0; k < s.dims[2]; ++k)
        for (int32_t j = 0; j < s.dims[1]; ++j)
            for (int32_t i = 0; i < s.dims[0]; ++i) {
                dfm_v3 p = dfm_v3_make(s.origin[0] + (float)i * s.cell, s.origin[1] + (float)j * s.cell,
                                       s.origin[2] + (float)k * s.cell);
                float r = dfm_shape_sdf(&box, p, NULL), g = s.values[i + s.dims[0] * (j + s.dims[1] * k)];
                if (fabsf(r) < s.band) worst = fmaxf(worst, fabsf(g - r));
            }
    CHECK(worst < 1e-6f, "lattice box node error %g", (double)worst);
    dfm_mesh_sdf_free(&s);
    mesh_free(&m);
}

static void test_sphere(int levels, float cell, float margin, int timed) {
    const float radius = 0.5f;
    test_mesh m = make_icosphere(radius, levels);
    char name[32];
    snprintf(name, sizeof(name), "icosphere L%d", levels);
    double t0 = now_s();
    dfm_mesh_sdf s;
    int rc = bake(name, &m, cell, margin, 0, &s);
    double seconds = now_s() - t0;
    if (rc != 0) {
        CHECK(0, "%s bake failed", name);
        mesh_free(&m);
        return;
    }
    if (timed) CHECK(seconds < 5.0, "%s: bake took %.2f s (a nodes x triangles loop?)", name, seconds);
    /* Faceting error: the largest gap between a face's plane and the sphere. */
    double facet = 0.0;
    for (int32_t t = 0; t < m.nt; ++t) {
        double q[3][3], e1[3], e2[3], n[3];
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) q[k][a] = m.v[3 * m.t[3 * t + k] + a];
        sub3(q[1], q[0], e1);
        sub3(q[2], q[0], e2);
        cross3(e1, e2, n);
        double plane = fabs(dot3(q[0], n)) / sqrt(dot3(n, n));
        facet = fmax(facet, (double)radius - plane);
    }
    /* Largest angle between the normals of two triangles sharing a vertex (covers the edges). */
    double kink = 0.0;
    {
        double* nrm = (double*)malloc(sizeof(double) * 3 * (size_t)m.nt);
        for (int32_t t = 0; t < m.nt; ++t) {
            double q[3][3], e1[3], e2[3];
            for (int k = 0; k < 3; ++k)
                for (int a = 0; a < 3; ++a) q[k][a] = m.v[3 * m.t[3 * t + k] + a];
            sub3(q[1], q[0], e1);
            sub3(q[2], q[0], e2);
            cross3(e1, e2, nrm + 3 * t);
            double l = sqrt(dot3(nrm + 3 * t, nrm + 3 * t));
            for (int a = 0; a < 3; ++a) nrm[3 * t + a] /= l;
        }
        /* Corners linked per vertex, then every pair of triangles around each vertex. */
        int32_t* first = (int32_t*)malloc(sizeof(int32_t) * (size_t)m.nv);
        int32_t* next = (int32_t*)malloc(sizeof(int32_t) * 3 * (size_t)m.nt);
        for (int32_t i = 0; i < m.nv; ++i) first[i] = -1;
        for (int32_t c = 0; c < 3 * m.nt; ++c) {
            next[c] = first[m.t[c]];
            first[m.t[c]] = c;
        }
        for (int32_t vtx = 0; vtx < m.nv; ++vtx)
            for (int32_t c0 = first[vtx]; c0 >= 0; c0 = next[c0])
                for (int32_t c1 = next[c0]; c1 >= 0; c1 = next[c1]) {
                    double cosang = dot3(nrm + 3 * (c0 / 3), nrm + 3 * (c1 / 3));
                    kink = fmax(kink, acos(fmin(1.0, cosang)));
                }
        free(first);
        free(next);
        free(nrm);
    }
    dfm_shape_geom sphere;
    memset(&sphere, 0, sizeof(sphere));
    sphere.type = DFM_GEOM_SPHERE;
    sphere.params[0] = radius;
    double bound = facet + 0.5 * kink * (double)s.cell + 1e-5;
    printf("%-16s faceting error %.6f m, largest normal angle at a vertex %.4f rad\n", name, facet, kink);
    compare_random(name, &s, ref_shape, &sphere, 100000, bound);
    compare_node_signs(name, &s, ref_shape, &sphere, facet + 1e-6);
    CHECK(s.max_error_estimate <= 0.5 * kink * (double)s.cell, "%s: max error estimate %g > %g", name,
          (double)s.max_error_estimate, 0.5 * kink * (double)s.cell);
    if (m.nt <= 500) {
        /* Against the mesh's own exact field (brute force): the estimate must not miss much. */
        char exact_name[48];
        snprintf(exact_name, sizeof(exact_name), "%s exact", name);
        double worst = compare_random(exact_name, &s, ref_convex, &m, 20000, 0.5 * kink * (double)s.cell + 1e-5);
        CHECK(worst <= 1.1 * (double)s.max_error_estimate, "%s: random points err %g, estimate only %g", name, worst,
              (double)s.max_error_estimate);
    }
    dfm_mesh_sdf_free(&s);
    mesh_free(&m);
}

static void test_l_prism(void) {
    test_mesh m = make_l_prism();
    dfm_mesh_sdf s;
    if (bake("L prism", &m, 0.0f, 0.1f, 0, &s) != 0) {
        CHECK(0, "L prism bake failed");
        mesh_free(&m);
        return;
    }
    double bound = 0.51 * (double)s.cell + 1e-5;
    double worst = compare_random("L prism", &s, ref_l, &m, 20000, bound);
    CHECK(worst <= 1.1 * (double)s.max_error_estimate, "L prism: random points err %g, estimate only %g", worst,
          (double)s.max_error_estimate);
    compare_node_signs("L prism", &s, ref_l, &m, 1e-6);
    compare_nodes_exact("L prism", &s, ref_l, &m, 2e-6);
    CHECK(s.max_error_estimate <= bound, "L prism max error estimate %g", (double)s.max_error_estimate);
    /* Named points: in the notch (outside), in the material, around the reflex edge x = y = 1
       (from the notch the nearest points are on the walls, from the material on the edge). */
    float notch = sample_at(&s, 1.5f, 1.5f, 0.5f), material = sample_at(&s, 0.5f, 0.5f, 0.5f);
    CHECK(notch == s.band, "notch centre %g, want +band %g", (double)notch, (double)s.band);
    CHECK(material == -s.band, "material centre %g, want -band", (double)material);
    float tol = (float)bound;
    float a = sample_at(&s, 1.5f, 1.05f, 0.5f), b = sample_at(&s, 1.5f, 0.95f, 0.5f);
    float c = sample_at(&s, 1.05f, 1.05f, 0.5f), d = sample_at(&s, 0.95f, 0.95f, 0.5f);
    float e = sample_at(&s, 1.05f, 1.5f, 0.5f);
    CHECK(fabsf(a - 0.05f) <= tol, "notch wall outside %g, want 0.05", (double)a);
    CHECK(fabsf(b + 0.05f) <= tol, "notch wall inside %g, want -0.05", (double)b);
    CHECK(fabsf(c - 0.05f) <= tol, "in the notch by the reflex edge %g, want 0.05 (to either wall)", (double)c);
    CHECK(fabsf(d + 0.0707107f) <= tol, "in the material by the reflex edge %g, want -0.0707 (to the edge)", (double)d);
    CHECK(fabsf(e - 0.05f) <= tol, "other notch wall %g, want 0.05", (double)e);
    dfm_mesh_sdf_free(&s);
    mesh_free(&m);
}

static void test_hollow_box(void) {
    test_mesh m = make_hollow_box(0.5f, 0.4f);
    dfm_mesh_sdf s;
    if (bake("hollow box", &m, 0.0f, 0.05f, 0, &s) != 0) {
        CHECK(0, "hollow box bake failed");
        mesh_free(&m);
        return;
    }
    float cavity = sample_at(&s, 0.0f, 0.0f, 0.0f), wall = sample_at(&s, 0.42f, 0.0f, 0.0f);
    float near_in = sample_at(&s, 0.38f, 0.0f, 0.0f), out = sample_at(&s, 0.53f, 0.0f, 0.0f);
    CHECK(cavity == s.band, "cavity centre %g, want +band", (double)cavity);
    CHECK(fabsf(wall + 0.02f) < 1e-4f, "in the wall %g, want -0.02", (double)wall);
    CHECK(fabsf(near_in - 0.02f) < 1e-4f, "in the cavity near the wall %g, want 0.02", (double)near_in);
    CHECK(fabsf(out - 0.03f) < 1e-4f, "outside %g, want 0.03", (double)out);
    dfm_mesh_sdf_free(&s);
    mesh_free(&m);
}

/// Expects a refusal with `code` and a message containing `needle`.
static void expect_refusal(const char* what, const test_mesh* m, float cell, int64_t max_nodes, int code,
                           const char* needle) {
    char err[256];
    dfm_mesh_sdf s;
    memset(&s, 0x5A, sizeof(s));
    int rc = dfm_mesh_sdf_bake(m->v, m->nv, m->t, m->nt, cell, 0.0f, max_nodes, &s, err, sizeof(err));
    printf("%-16s refused (%d): %s\n", what, rc, err);
    CHECK(rc == code, "%s: code %d, want %d (%s)", what, rc, code, err);
    CHECK(strstr(err, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, err, needle);
    CHECK(s.values == NULL && s.dims[0] == 0, "%s: output not zeroed", what);
}

static void test_refusals(void) {
    /* A single square of two triangles: open. */
    test_mesh sq = mesh_alloc(4, 2);
    static const float sqv[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const int32_t sqt[6] = {0, 1, 2, 0, 2, 3};
    memcpy(sq.v, sqv, sizeof(sqv));
    memcpy(sq.t, sqt, sizeof(sqt));
    expect_refusal("open square", &sq, 0.0f, 0, DFM_MESH_SDF_NOT_CLOSED, "edge (0, 1) of triangle 0");
    mesh_free(&sq);

    /* A box missing triangle 4: the first open edge belongs to triangle 5. */
    test_mesh box = make_box(0.5f, 0.5f, 0.5f);
    test_mesh open = mesh_alloc(8, 11);
    memcpy(open.v, box.v, sizeof(float) * 24);
    memcpy(open.t, box.t, sizeof(int32_t) * 12);
    memcpy(open.t + 12, box.t + 15, sizeof(int32_t) * 21);
    expect_refusal("open box", &open, 0.0f, 0, DFM_MESH_SDF_NOT_CLOSED,
                   "edge (0, 1) of triangle 1 belongs to no other");
    mesh_free(&open);

    /* Triangle 7 flipped. */
    test_mesh flip = make_box(0.5f, 0.5f, 0.5f);
    int32_t x = flip.t[3 * 7 + 1];
    flip.t[3 * 7 + 1] = flip.t[3 * 7 + 2];
    flip.t[3 * 7 + 2] = x;
    expect_refusal("flipped", &flip, 0.0f, 0, DFM_MESH_SDF_NOT_CLOSED, "triangle 7 is flipped");

    /* A duplicated triangle: its edges are shared by three triangles. */
    test_mesh dup = mesh_alloc(8, 13);
    memcpy(dup.v, box.v, sizeof(float) * 24);
    memcpy(dup.t, box.t, sizeof(int32_t) * 36);
    memcpy(dup.t + 36, box.t + 3 * 2, sizeof(int32_t) * 3);
    expect_refusal("non-manifold", &dup, 0.0f, 0, DFM_MESH_SDF_NOT_CLOSED, "shared by 3 triangles (2, ");
    mesh_free(&dup);

    /* Degenerate input: repeated vertex, index out of range, non-finite coordinate, zero area. */
    test_mesh bad = make_box(0.5f, 0.5f, 0.5f);
    bad.t[3 * 5 + 1] = bad.t[3 * 5];
    expect_refusal("repeated vertex", &bad, 0.0f, 0, DFM_MESH_SDF_DEGENERATE, "triangle 5 repeats");
    memcpy(bad.t, box.t, sizeof(int32_t) * 36);
    bad.t[3 * 9 + 2] = 8;
    expect_refusal("bad index", &bad, 0.0f, 0, DFM_MESH_SDF_DEGENERATE, "triangle 9: vertex index 8");
    memcpy(bad.t, box.t, sizeof(int32_t) * 36);
    bad.v[3 * 6] = NAN;
    expect_refusal("NaN vertex", &bad, 0.0f, 0, DFM_MESH_SDF_DEGENERATE, "vertex 6 has a non-finite");
    /* Vertex 2 moved onto the midpoint of vertices 0 and 3: triangle 0 (0, 2, 3) is collinear. */
    memcpy(bad.v, box.v, sizeof(float) * 24);
    bad.v[3 * 2] = 0.0f; /* vertex 2 = midpoint of 0 (-,-,-) and 3 (+,+,-) */
    bad.v[3 * 2 + 1] = 0.0f;
    expect_refusal("zero area", &bad, 0.0f, 0, DFM_MESH_SDF_DEGENERATE, "triangle 0 (0, 2, 3) has zero area");
    mesh_free(&bad);

    /* Grid limits: an explicit tiny cell is refused; the automatic cell coarsens to fit. */
    expect_refusal("too many nodes", &box, 0.001f, 1000000, DFM_MESH_SDF_TOO_MANY_NODES, "exceeds the limit");
    dfm_mesh_sdf s;
    char err[128];
    CHECK(dfm_mesh_sdf_bake(box.v, box.nv, box.t, box.nt, 0.0f, 0.0f, 20000, &s, err, sizeof(err)) == 0, "%s", err);
    if (s.values) {
        int64_t n = (int64_t)s.dims[0] * s.dims[1] * s.dims[2];
        printf("%-16s grid %dx%dx%d (%lld <= 20000 nodes), cell %.4f m\n", "coarsened box", (int)s.dims[0],
               (int)s.dims[1], (int)s.dims[2], (long long)n, (double)s.cell);
        CHECK(n <= 20000 && n > 10000, "coarsened grid has %lld nodes", (long long)n);
    }
    dfm_mesh_sdf_free(&s);
    mesh_free(&flip);
    mesh_free(&box);
}

int main(void) {
    test_box();
    test_lattice_box();
    test_sphere(2, 0.0f, 0.0f, 0);
    test_sphere(4, 1.0f / 56.0f, 4.0f / 56.0f, 1); /* 5120 triangles at 65^3 */
    test_l_prism();
    test_hollow_box();
    test_refusals();
    return dfm_test_finish("test_mesh_sdf");
}
