/// Signed-distance fields of the analytic shapes (sdf_shapes.h), the baked grid (sdf_grid.h) and
/// the edge/face closest-approach optimizers (sdf_features.h):
/// 1. analytic SDFs (two scales) at random points: |value| against an independent
///    double-precision distance (clamping / ternary search on the cross-section, not the header's
///    formulas), the sign against an independent inside test, the gradient against central
///    differences (skipping points where the two one-sided differences disagree by > 1e-2:
///    creases, medial axes), unit length, the value-only / gradient-only entry points bitwise
///    equal to dfm_shape_sdf, finite unit gradients at degenerate points, and the exact normal at
///    points projected onto the surface;
/// 2. a baked sphere grid: node values, interpolation error bound, gradient vs differences inside
///    cells, the outside extension, entry points bitwise equal;
/// 3. the edge optimizer against a dense sampling of u (refined around the best sample);
/// 4. both face optimizers against a dense barycentric grid (refined): weights >= 0 summing to 1,
///    phi equal to the value at the weights; nested search within 5e-4 of the shape size on every
///    family; Frank-Wolfe within the brief's 6e-3 only on the sphere with draped triangles up to
///    0.3 shape sizes, elsewhere guarded at its measured level (it zig-zags and stalls on creases);
/// 5. "post" scenes: a thin capsule across the middle of a large triangle (all vertices far) is
///    found by both face optimizers, and an edge crossing the capsule (endpoints far) by the edge one.
/// Worst errors are printed for each check.
///
/// Mutations tried (each reverted; what failed):
/// - edge search keeping the higher side (fc > fd): 228 checks, edge worst 1.8-2.7 x size.
/// - golden constant 0.5: 223 checks, edge worst 0.8-1.35 x size.
/// - Frank-Wolfe picking the corner of largest grad . corner: 78 checks (fw draped/general, post).
/// - Frank-Wolfe line search of 2 iterations: 67 checks (fw sphere, post scene phi 0.01-0.35).
/// - Frank-Wolfe weight of corner c never increased: 82 checks (fw accuracy).
/// - nested search with w0 and w1 swapped: 78 checks, worst ~2 x size.
/// - nested search with 8 iterations per level: 56 checks (worst 2-3e-2).
/// - nested search's final slice moved by 0.01: 35 checks (accuracy and weight sums).
/// - revolved-side normal sign flipped: cylinder/cone gradient checks and on-surface normals.
/// - revolved inside test `side < 0`: cylinder/cone sign (~25000 points) and gradient checks.
/// - box inside gradient -sgn: box gradient (off by 2), on-surface count, fw box.
/// - capsule segment clamped to [-h, 0]: capsule value/sign checks, post edge scene.
/// - value-only sphere with the sum reordered: bitwise entry-point check (~5000 points).
/// - finite plane gradient x without its sign: plane-finite gradient check.
/// - finite plane negative below the plane beside the rectangle: sign and gradient checks.
/// - cylinder side radius 0.1% smaller: cylinder value (8.8e-4) and sign checks.
/// - grid y gradient interpolated with t[0] instead of t[2]: grid gradient check (0.42).
/// - grid without the outside extension: grid outside check.
/// - Frank-Wolfe started at corner a: only the "not above the centroid value" check (7 cases).
/// - edge returning the bracket's low end instead of its midpoint: only the post scene (phi
///   4.27 mm vs 4 mm); elsewhere harmless (the bracket is 1e-5 of the edge).
/// - the sdf_shapes.h revision before the on-surface normal fix: cylinder/cone gradient checks and
///   on-surface normals (up to 90% of cone surface points wrong, some reversed).
/// Not caught: removing the inside flip of p - c in dfm_sdf_revolved (inside points now take the
/// side's normal; the flip only serves a closest point at a rim, which an inside point of a convex
/// section does not have), and removing Frank-Wolfe's no-increase guard or never updating the
/// phi it compares against (changes ~1e-6).
#include "dfm_test.h"
#include "sdf_features.h"

#include <stdint.h>

/* ---- deterministic random numbers ---------------------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

/// Uniform double in [0, 1) (splitmix64).
static double rnd(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/// Uniform double in [lo, hi).
static double rnd_range(double lo, double hi) { return lo + (hi - lo) * rnd(); }

/* ---- shapes under test --------------------------------------------------------------------- */

/// A shape with its name, characteristic size (errors are reported relative to it) and the
/// half extents of a box that holds it.
typedef struct test_shape {
    const char* name;
    dfm_shape_geom g;
    double size;
    double ext[3];
} test_shape;

/// Builds a test shape of the given type and parameters scaled by `scale`.
static test_shape make_shape(const char* name, int32_t type, float p0, float p1, float p2, float scale) {
    test_shape t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.g.type = type;
    t.g.params[0] = p0 * scale;
    t.g.params[1] = p1 * scale;
    t.g.params[2] = p2 * scale;
    double a = t.g.params[0], b = t.g.params[1], c = t.g.params[2];
    switch (type) {
    // clang-format off
    case DFM_GEOM_SPHERE: t.size = a; t.ext[0] = t.ext[1] = t.ext[2] = a; break;
    case DFM_GEOM_BOX:
        t.size = fmax(a, fmax(b, c));
        t.ext[0] = a; t.ext[1] = b; t.ext[2] = c;
        break;
    case DFM_GEOM_CAPSULE: t.size = a + b; t.ext[0] = t.ext[1] = a; t.ext[2] = a + b; break;
    case DFM_GEOM_CYLINDER:
    case DFM_GEOM_CONE: t.size = fmax(a, b); t.ext[0] = t.ext[1] = a; t.ext[2] = b; break;
    case DFM_GEOM_PLANE:
        if (a <= 0.0 && b <= 0.0) {
            t.size = scale;
            t.ext[0] = t.ext[1] = t.ext[2] = scale;
        } else {
            t.size = fmax(a, b);
            t.ext[0] = a; t.ext[1] = b; t.ext[2] = fmax(a, b);
        }
        break;
    default: break;
        // clang-format on
    }
    return t;
}

/* ---- independent reference distances (double) ---------------------------------------------- */

/// Distance from (x, z) to the 2-D segment a-b, by ternary search on the (convex) distance along
/// the segment: independent of the header's projection formula.
static double seg2_dist_ternary(double x, double z, double ax, double az, double bx, double bz) {
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200; ++i) {
        double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
        double d1 = hypot(x - (ax + m1 * (bx - ax)), z - (az + m1 * (bz - az)));
        double d2 = hypot(x - (ax + m2 * (bx - ax)), z - (az + m2 * (bz - az)));
        if (d1 < d2)
            hi = m2;
        else
            lo = m1;
    }
    double m = 0.5 * (lo + hi);
    return hypot(x - (ax + m * (bx - ax)), z - (az + m * (bz - az)));
}

/// Unsigned distance from p to the surface of shape g and whether p is strictly inside.
static double ref_distance(const dfm_shape_geom* g, const double p[3], int* inside) {
    double a = g->params[0], b = g->params[1], c = g->params[2];
    double rho = hypot(p[0], p[1]);
    switch (g->type) {
    case DFM_GEOM_SPHERE: {
        double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        *inside = l < a;
        return fabs(l - a);
    }
    case DFM_GEOM_BOX: {
        double he[3] = {a, b, c};
        int in = 1;
        double o2 = 0.0, face = 1e300;
        for (int k = 0; k < 3; ++k) {
            double e = fabs(p[k]) - he[k];
            if (e >= 0.0) in = 0;
            if (e > 0.0) o2 += e * e;
            if (he[k] - fabs(p[k]) < face) face = he[k] - fabs(p[k]);
        }
        *inside = in;
        return in ? face : sqrt(o2);
    }
    case DFM_GEOM_CAPSULE: {
        /* Ternary search along the axis segment (convex distance). */
        double lo = -b, hi = b;
        for (int i = 0; i < 200; ++i) {
            double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
            if (hypot(rho, p[2] - m1) < hypot(rho, p[2] - m2))
                hi = m2;
            else
                lo = m1;
        }
        double l = hypot(rho, p[2] - 0.5 * (lo + hi));
        *inside = l < a;
        return fabs(l - a);
    }
    case DFM_GEOM_CYLINDER: {
        *inside = rho < a && fabs(p[2]) < b;
        double d = seg2_dist_ternary(rho, p[2], 0.0, -b, a, -b);
        d = fmin(d, seg2_dist_ternary(rho, p[2], a, -b, a, b));
        d = fmin(d, seg2_dist_ternary(rho, p[2], a, b, 0.0, b));
        return d;
    }
    case DFM_GEOM_CONE: {
        /* Radius of the cross-section at height z: a at z = -b, 0 at z = +b. */
        *inside = fabs(p[2]) < b && rho < a * (b - p[2]) / (2.0 * b);
        double d = seg2_dist_ternary(rho, p[2], 0.0, -b, a, -b);
        d = fmin(d, seg2_dist_ternary(rho, p[2], a, -b, 0.0, b));
        return d;
    }
    case DFM_GEOM_PLANE: {
        if (a <= 0.0 && b <= 0.0) {
            *inside = p[2] < 0.0;
            return fabs(p[2]);
        }
        double cx = fmin(fmax(p[0], -a), a), cy = fmin(fmax(p[1], -b), b);
        *inside = fabs(p[0]) <= a && fabs(p[1]) <= b && p[2] < 0.0;
        return sqrt((p[0] - cx) * (p[0] - cx) + (p[1] - cy) * (p[1] - cy) + p[2] * p[2]);
    }
    default: *inside = 0; return 0.0;
    }
}

/// True when the float bit patterns are equal.
static int same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

/// Random point in the shape's box inflated by `grow` times its size.
static dfm_v3 rnd_point(const test_shape* t, double grow) {
    return dfm_v3_make((float)rnd_range(-t->ext[0] - grow * t->size, t->ext[0] + grow * t->size),
                       (float)rnd_range(-t->ext[1] - grow * t->size, t->ext[1] + grow * t->size),
                       (float)rnd_range(-t->ext[2] - grow * t->size, t->ext[2] + grow * t->size));
}

/* ---- 1. analytic SDFs ---------------------------------------------------------------------- */

/// Value, sign, gradient and entry-point checks for one shape at random points.
static void check_analytic(const test_shape* t) {
    const int n = 40000;
    const double value_tol = 2e-6; /* relative to max(size, |p|) */
    const float h = 2e-3f * (float)t->size;
    double worst_val = 0.0, worst_grad = 0.0, worst_unit = 0.0;
    int sign_bad = 0, bits_bad = 0, fd_checked = 0, fd_skipped = 0, sign_checked = 0;
    for (int i = 0; i < n; ++i) {
        /* Half the points tight around the shape (many near the surface), half farther out. */
        dfm_v3 p = rnd_point(t, i % 2 ? 0.15 : 1.0);
        double pd[3] = {p.x, p.y, p.z};
        int inside;
        double ref = ref_distance(&t->g, pd, &inside);
        dfm_v3 g;
        float v = dfm_shape_sdf(&t->g, p, &g);
        double mag = fmax(t->size, sqrt(pd[0] * pd[0] + pd[1] * pd[1] + pd[2] * pd[2]));
        double e = fabs(fabs((double)v) - ref) / mag;
        if (e > worst_val) worst_val = e;
        if (ref > 1e-5 * t->size) {
            ++sign_checked;
            if ((v < 0.0f) != (inside != 0)) {
                if (sign_bad < 5)
                    fprintf(stderr, "  %s: sign at (%g %g %g): sdf %g, reference %s %g\n", t->name, pd[0], pd[1], pd[2],
                            (double)v, inside ? "inside" : "outside", ref);
                ++sign_bad;
            }
        }
        /* (c) the split entry points agree bitwise with the combined one. */
        float v_only = dfm_shape_sdf_value(&t->g, p);
        float v_null = dfm_shape_sdf(&t->g, p, (dfm_v3*)0);
        dfm_v3 g_only = dfm_shape_sdf_grad(&t->g, p);
        if (!same_bits(v_only, v) || !same_bits(v_null, v) || !same_bits(g_only.x, g.x) || !same_bits(g_only.y, g.y) ||
            !same_bits(g_only.z, g.z))
            ++bits_bad;
        /* (b) unit gradient, and gradient vs central differences where the field is smooth. */
        double u = fabs(sqrt((double)g.x * g.x + (double)g.y * g.y + (double)g.z * g.z) - 1.0);
        if (u > worst_unit) worst_unit = u;
        double fd[3], jump[3], gv[3] = {g.x, g.y, g.z};
        int smooth = 1;
        for (int k = 0; k < 3; ++k) {
            float q[3] = {p.x, p.y, p.z};
            q[k] = pd[k] + h;
            float fp = dfm_shape_sdf_value(&t->g, dfm_v3_load(q));
            q[k] = pd[k] - h;
            float fm = dfm_shape_sdf_value(&t->g, dfm_v3_load(q));
            /* Actual steps after rounding the offset coordinates. */
            double hp = (double)(float)(pd[k] + h) - pd[k], hm = pd[k] - (double)(float)(pd[k] - h);
            double fwd = ((double)fp - v) / hp, bwd = ((double)v - fm) / hm;
            jump[k] = fabs(fwd - bwd);
            if (jump[k] > 1e-2) smooth = 0;
            fd[k] = ((double)fp - fm) / (hp + hm);
        }
        if (!smooth) {
            ++fd_skipped;
            continue;
        }
        ++fd_checked;
        for (int k = 0; k < 3; ++k) {
            /* The SDF of a convex shape is convex, so where its second derivative jumps (C1 seams
               such as the boundary between a box face region and an edge region) the central
               difference is off by at most half the one-sided disagreement: that part is allowed,
               the rest is measured. */
            double ge = fmax(fabs(fd[k] - gv[k]) - 0.5 * jump[k], 0.0);
            if (ge > worst_grad) {
                worst_grad = ge;
                if (ge > 3e-4)
                    fprintf(stderr, "  %s: gradient at (%g %g %g): analytic (%g %g %g), fd (%g %g %g)\n", t->name,
                            pd[0], pd[1], pd[2], gv[0], gv[1], gv[2], fd[0], fd[1], fd[2]);
            }
        }
    }
    printf("  %-14s size %-6g value %.2e  grad-fd %.2e  unit %.2e  sign bad %d/%d  fd checked %d skipped %d  "
           "bits bad %d\n",
           t->name, t->size, worst_val, worst_grad, worst_unit, sign_bad, sign_checked, fd_checked, fd_skipped,
           bits_bad);
    CHECK(worst_val <= value_tol, "%s: |value| vs reference distance off by %g (relative)", t->name, worst_val);
    CHECK(sign_bad == 0, "%s: %d points with the wrong sign", t->name, sign_bad);
    CHECK(worst_grad <= 3e-4, "%s: gradient vs finite differences off by %g", t->name, worst_grad);
    CHECK(worst_unit <= 1e-5, "%s: gradient length off by %g", t->name, worst_unit);
    CHECK(fd_checked >= n * 8 / 10, "%s: only %d of %d gradients checked", t->name, fd_checked, n);
    CHECK(bits_bad == 0, "%s: %d points where split entry points differ from dfm_shape_sdf", t->name, bits_bad);
}

/// Degenerate points (centres, axes, apex, on the surface) give a finite unit gradient.
static void check_degenerate(const test_shape* t) {
    const float a = t->g.params[0], b = t->g.params[1];
    dfm_v3 pts[8];
    int n = 0;
    pts[n++] = dfm_v3_zero();
    pts[n++] = dfm_v3_make(0.0f, 0.0f, 0.5f * b);
    pts[n++] = dfm_v3_make(0.0f, 0.0f, -0.5f * b);
    pts[n++] = dfm_v3_make(0.0f, 0.0f, b);
    pts[n++] = dfm_v3_make(0.0f, 0.0f, -b);
    pts[n++] = dfm_v3_make(a, 0.0f, 0.0f);
    pts[n++] = dfm_v3_make(0.0f, 0.0f, 2.0f * b + a);
    pts[n++] = dfm_v3_make(a, 0.0f, -b);
    for (int i = 0; i < n; ++i) {
        dfm_v3 g;
        float v = dfm_shape_sdf(&t->g, pts[i], &g);
        double l = dfm_v3_len(g);
        CHECK(isfinite(v) && dfm_v3_isfinite(g) && fabs(l - 1.0) < 1e-5, "%s: degenerate point %d: value %g |grad| %g",
              t->name, i, (double)v, l);
    }
}

/// Points on the surface (projected there as x - phi grad from random points, so within rounding
/// of it, on either side) get the surface normal: the gradient at a point a little outside along
/// that normal. Points whose normal is not smooth there (creases, rims) are skipped: the
/// gradient a little inside must agree too.
static void check_surface_normals(const test_shape* t) {
    const float off = 1e-3f * (float)t->size;
    int checked = 0, bad = 0;
    double worst = 0.0;
    for (int i = 0; i < 20000; ++i) {
        dfm_v3 x = rnd_point(t, 0.5), g;
        float phi = dfm_shape_sdf(&t->g, x, &g);
        dfm_v3 p = dfm_v3_madd(x, g, -phi);
        dfm_v3 n_out = dfm_shape_sdf_grad(&t->g, dfm_v3_madd(p, g, off));
        dfm_v3 n_in = dfm_shape_sdf_grad(&t->g, dfm_v3_madd(p, g, -off));
        if (dfm_v3_dot(n_out, n_in) < 0.999999f || dfm_v3_dot(n_out, g) < 0.999999f) continue;
        ++checked;
        double e = 1.0 - dfm_v3_dot(dfm_shape_sdf_grad(&t->g, p), n_out);
        if (e > worst) worst = e;
        if (e > 1e-5) {
            if (bad < 3) {
                dfm_v3 gp = dfm_shape_sdf_grad(&t->g, p);
                fprintf(stderr, "  %s: on-surface point (%g %g %g): gradient (%g %g %g), normal (%g %g %g)\n", t->name,
                        (double)p.x, (double)p.y, (double)p.z, (double)gp.x, (double)gp.y, (double)gp.z,
                        (double)n_out.x, (double)n_out.y, (double)n_out.z);
            }
            ++bad;
        }
    }
    printf("  %-14s on-surface normals: %d checked, worst 1 - cos %.1e\n", t->name, checked, worst);
    CHECK(checked > 5000 && bad == 0, "%s: %d of %d on-surface points with a wrong normal (worst 1 - cos %g)", t->name,
          bad, checked, worst);
}

/* ---- 2. baked grid ------------------------------------------------------------------------- */

/// A sphere of radius 0.3 baked on a 33^3 grid over [-0.5, 0.5]^3: node values are reproduced,
/// interpolated values stay within the trilinear error of the exact sphere, the gradient matches
/// central differences of the sampled value inside cells, outside the grid the distance to the
/// box is added, and the split entry points agree bitwise.
static void check_grid(void) {
    enum { N = 33 };
    static float vals[N * N * N];
    const float cell = 1.0f / (float)(N - 1), r = 0.3f;
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < N; ++j)
            for (int i = 0; i < N; ++i) {
                double x = -0.5 + i * (double)cell, y = -0.5 + j * (double)cell, z = -0.5 + k * (double)cell;
                vals[i + N * (j + N * k)] = (float)(sqrt(x * x + y * y + z * z) - r);
            }
    dfm_shape_geom s;
    memset(&s, 0, sizeof s);
    s.type = DFM_GEOM_MESH;
    s.grid.origin[0] = s.grid.origin[1] = s.grid.origin[2] = -0.5f;
    s.grid.cell = cell;
    s.grid.dims[0] = s.grid.dims[1] = s.grid.dims[2] = N;
    s.grid.values = vals;
    int node_bad = 0, bits_bad = 0, checked = 0;
    double worst_val = 0.0, worst_grad = 0.0, worst_out = 0.0;
    for (int n = 0; n < 200; ++n) {
        int i = (int)(rnd() * N), j = (int)(rnd() * N), k = (int)(rnd() * N);
        dfm_v3 p = dfm_v3_make(-0.5f + (float)i * cell, -0.5f + (float)j * cell, -0.5f + (float)k * cell);
        if (fabsf(dfm_shape_sdf_value(&s, p) - vals[i + N * (j + N * k)]) > 1e-6f) ++node_bad;
    }
    const float h = 0.05f * cell;
    for (int n = 0; n < 20000; ++n) {
        dfm_v3 p = dfm_v3_make((float)rnd_range(-0.45, 0.45), (float)rnd_range(-0.45, 0.45),
                               (float)rnd_range(-0.45, 0.45));
        dfm_v3 g;
        float v = dfm_shape_sdf(&s, p, &g);
        dfm_v3 go = dfm_shape_sdf_grad(&s, p);
        if (!same_bits(dfm_shape_sdf_value(&s, p), v) || !same_bits(go.x, g.x) || !same_bits(go.y, g.y) ||
            !same_bits(go.z, g.z))
            ++bits_bad;
        /* Trilinear interpolation error of |x| - r: at most cell^2 / 8 times the trace of the
           Hessian (2 / |x|) over the cell; measured relative to that bound, away from the centre. */
        double pl = dfm_v3_len(p);
        if (pl > 0.1) {
            double e = fabs((double)v - (pl - r)) / (cell * cell / (4.0 * (pl - 0.87 * cell)) + 1e-6);
            if (e > worst_val) worst_val = e;
        }
        /* Central differences of the sampled (trilinear) field, away from cell faces, normalized:
           exact for a multilinear function up to rounding. */
        float pc[3] = {p.x, p.y, p.z};
        int near_face = 0;
        for (int a = 0; a < 3; ++a) {
            float u = (pc[a] + 0.5f) / cell;
            float f = u - floorf(u);
            if (f < 0.06f || f > 0.94f) near_face = 1;
        }
        if (near_face) continue;
        double fd[3], l = 0.0;
        for (int a = 0; a < 3; ++a) {
            float q[3] = {p.x, p.y, p.z};
            q[a] = pc[a] + h;
            float fp = dfm_shape_sdf_value(&s, dfm_v3_load(q));
            double hp = (double)q[a] - pc[a];
            q[a] = pc[a] - h;
            float fm = dfm_shape_sdf_value(&s, dfm_v3_load(q));
            double hm = (double)pc[a] - q[a];
            fd[a] = ((double)fp - fm) / (hp + hm);
            l += fd[a] * fd[a];
        }
        l = sqrt(l);
        if (l < 0.1) continue;
        ++checked;
        double ge = fabs(fd[0] / l - g.x) + fabs(fd[1] / l - g.y) + fabs(fd[2] / l - g.z);
        if (ge > worst_grad) worst_grad = ge;
    }
    /* Outside the grid: the value at the clamped point plus the distance to the box; the gradient
       points away from the box. */
    for (int n = 0; n < 1000; ++n) {
        dfm_v3 p = dfm_v3_make((float)rnd_range(-1.0, 1.0), (float)rnd_range(-1.0, 1.0), (float)rnd_range(-1.0, 1.0));
        dfm_v3 c = dfm_v3_make(fminf(fmaxf(p.x, -0.5f), 0.5f), fminf(fmaxf(p.y, -0.5f), 0.5f),
                               fminf(fmaxf(p.z, -0.5f), 0.5f));
        double out = dfm_v3_len(dfm_v3_sub(p, c));
        if (out <= 0.0) continue;
        double e = fabs((double)dfm_shape_sdf_value(&s, p) - ((double)dfm_shape_sdf_value(&s, c) + out));
        dfm_v3 g = dfm_shape_sdf_grad(&s, p);
        double dir = dfm_v3_dot(g, dfm_v3_sub(p, c)) / out;
        if (e > worst_out) worst_out = e;
        CHECK(dir > 0.999, "grid: outside gradient (%g %g %g) not along the box normal", (double)g.x, (double)g.y,
              (double)g.z);
    }
    printf("  %-14s node bad %d  value vs sphere %.2f of bound  grad-fd %.2e (%d)  outside %.2e  bits bad %d\n",
           "grid-sphere", node_bad, worst_val, worst_grad, checked, worst_out, bits_bad);
    CHECK(node_bad == 0, "grid: %d node values not reproduced", node_bad);
    CHECK(worst_val <= 1.0, "grid: value off the sphere by %g of the interpolation bound", worst_val);
    CHECK(checked > 3000 && worst_grad <= 1e-4, "grid: gradient vs fd off by %g (%d checked)", worst_grad, checked);
    CHECK(worst_out <= 1e-5, "grid: outside extension off by %g", worst_out);
    CHECK(bits_bad == 0, "grid: %d points where split entry points differ", bits_bad);
}

/* ---- 3. edge optimizer --------------------------------------------------------------------- */

/// Brute-force minimum of phi along p-q: 4096 samples, then 4096 more around the best, twice.
static float edge_brute(const dfm_shape_geom* s, dfm_v3 p, dfm_v3 q) {
    double lo = 0.0, hi = 1.0;
    float best = 3e38f;
    for (int level = 0; level < 3; ++level) {
        const int m = 4096;
        double best_u = lo;
        for (int i = 0; i <= m; ++i) {
            double u = lo + (hi - lo) * i / m;
            float v = dfm_shape_sdf_value(s, dfm_sdf_lerp(p, q, (float)u));
            if (v < best) {
                best = v;
                best_u = u;
            }
        }
        double w = 2.0 * (hi - lo) / m;
        lo = fmax(0.0, best_u - w);
        hi = fmin(1.0, best_u + w);
    }
    return best;
}

/// A random segment: both ends anywhere around the shape, or a short one through the near field.
static void rnd_segment(const test_shape* t, int i, dfm_v3* p, dfm_v3* q) {
    if (i % 2 == 0) {
        *p = rnd_point(t, 1.0);
        *q = rnd_point(t, 1.0);
    } else {
        dfm_v3 m = rnd_point(t, 0.2);
        dfm_v3 d = dfm_v3_make((float)rnd_range(-1, 1), (float)rnd_range(-1, 1), (float)rnd_range(-1, 1));
        d = dfm_v3_scale(dfm_v3_normalize(d), (float)(t->size * rnd_range(0.05, 1.5)));
        double f = rnd();
        *p = dfm_v3_madd(m, d, (float)-f);
        *q = dfm_v3_madd(m, d, (float)(1.0 - f));
    }
}

/// Edge optimizer vs brute force on one shape; returns the worst (phi - brute) / size.
static double check_edge(const test_shape* t) {
    const int n = 400;
    double worst = 0.0;
    int bad_u = 0, bad_phi = 0;
    for (int i = 0; i < n; ++i) {
        dfm_v3 p, q;
        rnd_segment(t, i, &p, &q);
        float phi;
        float u = dfm_sdf_edge_min(&t->g, p, q, DFM_SDF_EDGE_ITERS, &phi);
        if (!(u >= 0.0f && u <= 1.0f)) ++bad_u;
        /* Equal up to rounding (bitwise unless the compiler contracts to FMA differently at
           the two inlined sites). */
        if (!(fabsf(phi - dfm_shape_sdf_value(&t->g, dfm_sdf_lerp(p, q, u))) <= 2e-6f * (float)t->size)) ++bad_phi;
        float brute = edge_brute(&t->g, p, q);
        double e = ((double)phi - brute) / t->size;
        if (e > worst) worst = e;
    }
    printf("  edge  %-14s worst (phi - brute)/size %.2e\n", t->name, worst);
    CHECK(worst <= 1e-4, "%s: edge optimizer above the brute-force minimum by %g (relative)", t->name, worst);
    CHECK(bad_u == 0, "%s: %d edge parameters outside [0, 1]", t->name, bad_u);
    CHECK(bad_phi == 0, "%s: %d edge results whose phi is not the value at u", t->name, bad_phi);
    return worst;
}

/* ---- 4. face optimizer --------------------------------------------------------------------- */

/// Brute-force minimum of phi over triangle abc: a 160-step barycentric grid, then three finer
/// local grids (each 1/8 the spacing) around the best point.
static float face_brute(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c) {
    const int m = 160;
    float best = 3e38f;
    double bw0 = 1.0 / 3.0, bw1 = 1.0 / 3.0;
    for (int i = 0; i <= m; ++i)
        for (int j = 0; i + j <= m; ++j) {
            double w0 = (double)i / m, w1 = (double)j / m;
            float v = dfm_shape_sdf_value(s, dfm_sdf_bary_point(a, b, c, (float)w0, (float)w1, (float)(1.0 - w0 - w1)));
            if (v < best) {
                best = v;
                bw0 = w0;
                bw1 = w1;
            }
        }
    double step = 1.0 / m;
    for (int level = 0; level < 3; ++level) {
        double c0 = bw0, c1 = bw1;
        step /= 8.0;
        for (int i = -16; i <= 16; ++i)
            for (int j = -16; j <= 16; ++j) {
                double w0 = c0 + i * step, w1 = c1 + j * step;
                if (w0 < 0.0 || w1 < 0.0 || w0 + w1 > 1.0) continue;
                float v = dfm_shape_sdf_value(
                    s, dfm_sdf_bary_point(a, b, c, (float)w0, (float)w1, (float)(1.0 - w0 - w1)));
                if (v < best) {
                    best = v;
                    bw0 = w0;
                    bw1 = w1;
                }
            }
    }
    return best;
}

/// A face optimizer (both in sdf_features.h have this signature).
typedef float (*face_fn)(const dfm_shape_geom* s, dfm_v3 a, dfm_v3 b, dfm_v3 c, float w[3]);

/// Random triangle near a shape. general = 1: a third with vertices anywhere around the shape,
/// the rest centred in the near field with vertices up to 1.5 shape sizes away (many cross the
/// shape). general = 0: "draped": a triangle of radius `tri` shape sizes about a surface point,
/// tilted up to ~17 degrees off the tangent plane and offset -2% .. +5% along the normal.
static void rnd_triangle(const test_shape* t, int i, int general, double tri, dfm_v3 v[3]) {
    if (general && i % 3 == 0) {
        for (int k = 0; k < 3; ++k) v[k] = rnd_point(t, 1.0);
    } else if (general) {
        dfm_v3 m = rnd_point(t, 0.3);
        for (int k = 0; k < 3; ++k) {
            dfm_v3 d = dfm_v3_make((float)rnd_range(-1, 1), (float)rnd_range(-1, 1), (float)rnd_range(-1, 1));
            v[k] = dfm_v3_madd(m, d, (float)(t->size * rnd_range(0.1, 1.5)));
        }
    } else {
        dfm_v3 x = rnd_point(t, 0.3), g;
        float phi = dfm_shape_sdf(&t->g, x, &g);
        dfm_v3 tilt = dfm_v3_make((float)rnd_range(-0.3, 0.3), (float)rnd_range(-0.3, 0.3),
                                  (float)rnd_range(-0.3, 0.3));
        dfm_v3 n = dfm_v3_normalize(dfm_v3_add(g, tilt));
        dfm_v3 c = dfm_v3_madd(dfm_v3_madd(x, g, -phi), n, (float)(t->size * rnd_range(-0.02, 0.05)));
        dfm_v3 e1 = dfm_v3_normalize(dfm_v3_cross(n, dfm_v3_make(0.3f, 0.5f, 0.8f))), e2 = dfm_v3_cross(n, e1);
        for (int k = 0; k < 3; ++k) {
            double ang = 2.0943951 * k + rnd_range(-0.5, 0.5), r = t->size * tri * rnd_range(0.5, 1.0);
            v[k] = dfm_v3_add(
                c, dfm_v3_add(dfm_v3_scale(e1, (float)(r * cos(ang))), dfm_v3_scale(e2, (float)(r * sin(ang)))));
        }
    }
}

/// A face optimizer vs brute force on one shape and triangle family: checks the worst
/// (phi - brute) / size against `tol` (and the mean against `mean_tol`), weights >= 0 summing to
/// 1, phi equal to the value at the weights; `monotone`: phi no higher than at the centroid.
static double check_face(const char* label, face_fn fn, const test_shape* t, int general, double tri, double tol,
                         double mean_tol, int monotone) {
    const int n = 300;
    double worst = 0.0, sum_err = 0.0;
    int bad_w = 0, bad_phi = 0, bad_mono = 0;
    for (int i = 0; i < n; ++i) {
        dfm_v3 v[3];
        rnd_triangle(t, i, general, tri, v);
        float w[3];
        float phi = fn(&t->g, v[0], v[1], v[2], w);
        if (!(w[0] >= 0.0f && w[1] >= 0.0f && w[2] >= 0.0f) || fabs((double)w[0] + w[1] + w[2] - 1.0) > 1e-6) ++bad_w;
        float at_w = dfm_shape_sdf_value(&t->g, dfm_sdf_bary_point(v[0], v[1], v[2], w[0], w[1], w[2]));
        if (!(fabsf(phi - at_w) <= 2e-6f * (float)t->size)) ++bad_phi; /* rounding only (see check_edge) */
        float third = 1.0f / 3.0f;
        if (monotone && phi > dfm_shape_sdf_value(&t->g, dfm_sdf_bary_point(v[0], v[1], v[2], third, third, third)))
            ++bad_mono;
        float brute = face_brute(&t->g, v[0], v[1], v[2]);
        double e = ((double)phi - brute) / t->size;
        sum_err += fmax(e, 0.0);
        if (e > worst) worst = e;
    }
    char fam[32];
    if (general)
        snprintf(fam, sizeof fam, "general");
    else
        snprintf(fam, sizeof fam, "draped %.1f", tri);
    printf("  %-6s %-10s %-11s worst (phi - brute)/size %.2e  mean %.2e  (tolerance %.0e, mean %.0e)\n", label, t->name,
           fam, worst, sum_err / n, tol, mean_tol);
    CHECK(worst <= tol, "%s %s %s: above the brute-force minimum by %g (relative)", label, t->name, fam, worst);
    CHECK(sum_err / n <= mean_tol, "%s %s %s: mean excess %g (relative)", label, t->name, fam, sum_err / n);
    CHECK(bad_w == 0, "%s %s: %d results with weights < 0 or not summing to 1", label, t->name, bad_w);
    CHECK(bad_phi == 0, "%s %s: %d results whose phi is not the value at the weights", label, t->name, bad_phi);
    CHECK(bad_mono == 0, "%s %s: %d results above the centroid value", label, t->name, bad_mono);
    return worst;
}

/* ---- 5. post scenes ------------------------------------------------------------------------ */

/// A thin capsule (radius 1 cm, half length 0.5 m, along local z) lies across the middle of a
/// large triangle held `gap` = 4 mm off its side, every vertex metres away and the centroid
/// beyond the contact distance: both face optimizers report phi ~= gap (under the 1 cm contact
/// distance); the edge optimizer finds an edge that crosses the capsule at the same gap while
/// both endpoint values are more than 20 times the contact distance.
static void check_post(void) {
    dfm_shape_geom s;
    memset(&s, 0, sizeof s);
    s.type = DFM_GEOM_CAPSULE;
    s.params[0] = 0.01f;
    s.params[1] = 0.5f;
    const float gap = 0.004f, threshold = 0.01f, x0 = -(0.01f + gap);
    double worst_face[2] = {0.0, 0.0}, worst_edge = 0.0;
    for (int i = 0; i < 64; ++i) {
        /* A large triangle in the plane x = x0, rotated in-plane by a random angle and shifted so
           that it still covers the capsule's axis segment. */
        double ang = rnd_range(0.0, 6.283185307179586), ca = cos(ang), sa = sin(ang);
        double sy = rnd_range(-0.3, 0.3), sz = rnd_range(-0.3, 0.3);
        double tri[3][2] = {{-3.0, -3.0}, {3.0, -3.0}, {0.0, 3.0}};
        dfm_v3 v[3];
        float vmin = 3e38f;
        for (int k = 0; k < 3; ++k) {
            double y = ca * tri[k][0] - sa * tri[k][1] + sy, z = sa * tri[k][0] + ca * tri[k][1] + sz;
            v[k] = dfm_v3_make(x0, (float)y, (float)z);
            vmin = fminf(vmin, dfm_shape_sdf_value(&s, v[k]));
        }
        CHECK(vmin > 1.0f, "post: a triangle vertex is within %g of the capsule", (double)vmin);
        float centroid = dfm_shape_sdf_value(
            &s, dfm_sdf_bary_point(v[0], v[1], v[2], 1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f));
        CHECK(centroid > threshold, "post: the centroid is already within %g", (double)centroid);
        for (int m = 0; m < 2; ++m) {
            float w[3];
            float phi = m == 0 ? dfm_sdf_face_min(&s, v[0], v[1], v[2], w)
                               : dfm_sdf_face_min_nested(&s, v[0], v[1], v[2], w);
            CHECK(phi < threshold && fabsf(phi - gap) < 2e-4f, "post: face optimizer %d found phi %g (gap %g)", m,
                  (double)phi, (double)gap);
            if (fabs((double)phi - gap) > worst_face[m]) worst_face[m] = fabs((double)phi - gap);
        }

        /* An edge 4 m long crossing the capsule's axis at a random height and angle in the plane
           x = x0; its endpoints are ~2 m from the capsule. */
        double eang = rnd_range(0.35, 2.8), zc = rnd_range(-0.4, 0.4);
        dfm_v3 dir = dfm_v3_make(0.0f, (float)cos(eang), (float)sin(eang));
        dfm_v3 mid = dfm_v3_make(x0, 0.0f, (float)zc);
        double f = rnd_range(0.3, 0.7);
        dfm_v3 p = dfm_v3_madd(mid, dir, (float)(-4.0 * f)), q = dfm_v3_madd(mid, dir, (float)(4.0 * (1.0 - f)));
        float fp = dfm_shape_sdf_value(&s, p), fq = dfm_shape_sdf_value(&s, q);
        CHECK(fp > 0.2f && fq > 0.2f, "post: edge endpoints too close (%g, %g)", (double)fp, (double)fq);
        float ephi;
        float u = dfm_sdf_edge_min(&s, p, q, DFM_SDF_EDGE_ITERS, &ephi);
        CHECK(ephi < threshold && fabsf(ephi - gap) < 1e-4f, "post: edge optimizer found phi %g at u %g (gap %g)",
              (double)ephi, (double)u, (double)gap);
        if (fabs((double)ephi - gap) > worst_edge) worst_edge = fabs((double)ephi - gap);
    }
    printf(
        "  post  capsule r 1 cm: face |phi - gap| worst %.2e m (dfm_sdf_face_min: exact), %.2e m (nested), edge %.2e m\n",
        worst_face[0], worst_face[1], worst_edge);
}

int main(void) {
    printf("analytic SDFs (value relative to max(size, |p|)):\n");
    for (int si = 0; si < 2; ++si) {
        float sc = si == 0 ? 1.0f : 0.02f;
        test_shape shapes[7];
        shapes[0] = make_shape("sphere", DFM_GEOM_SPHERE, 0.5f, 0.0f, 0.0f, sc);
        shapes[1] = make_shape("box", DFM_GEOM_BOX, 0.4f, 0.25f, 0.15f, sc);
        shapes[2] = make_shape("capsule", DFM_GEOM_CAPSULE, 0.2f, 0.35f, 0.0f, sc);
        shapes[3] = make_shape("cylinder", DFM_GEOM_CYLINDER, 0.3f, 0.2f, 0.0f, sc);
        shapes[4] = make_shape("cone", DFM_GEOM_CONE, 0.35f, 0.3f, 0.0f, sc);
        shapes[5] = make_shape("plane-infinite", DFM_GEOM_PLANE, 0.0f, 0.0f, 0.0f, sc);
        shapes[6] = make_shape("plane-finite", DFM_GEOM_PLANE, 0.5f, 0.3f, 0.0f, sc);
        for (int i = 0; i < 7; ++i) {
            check_analytic(&shapes[i]);
            check_degenerate(&shapes[i]);
            check_surface_normals(&shapes[i]);
        }
    }
    printf("baked grid:\n");
    check_grid();

    test_shape sphere = make_shape("sphere", DFM_GEOM_SPHERE, 0.5f, 0.0f, 0.0f, 1.0f);
    test_shape box = make_shape("box", DFM_GEOM_BOX, 0.4f, 0.25f, 0.15f, 1.0f);
    test_shape capsule = make_shape("capsule", DFM_GEOM_CAPSULE, 0.2f, 0.35f, 0.0f, 1.0f);
    test_shape cylinder = make_shape("cylinder", DFM_GEOM_CYLINDER, 0.3f, 0.2f, 0.0f, 1.0f);
    test_shape cone = make_shape("cone", DFM_GEOM_CONE, 0.35f, 0.3f, 0.0f, 1.0f);
    test_shape small_box = make_shape("box (2 cm)", DFM_GEOM_BOX, 0.4f, 0.25f, 0.15f, 0.05f);
    printf("edge optimizer (%d iterations) vs brute force:\n", DFM_SDF_EDGE_ITERS);
    /* The sphere's edge minimum is the centre's clamped projection (sdf_features.h): exact up to
       rounding, where the golden-section search of the other shapes stops at its bracket. */
    const double sphere_edge = check_edge(&sphere);
    CHECK(sphere_edge <= 1e-6, "sphere: the exact edge minimum is above brute force by %g (relative)", sphere_edge);
    check_edge(&box);
    const double capsule_edge = check_edge(&capsule);
    CHECK(capsule_edge <= 1e-6, "capsule: the exact edge minimum is above brute force by %g (relative)", capsule_edge);
    check_edge(&cylinder);
    check_edge(&cone);
    check_edge(&small_box);
    printf("face optimizers vs brute force (relative to the shape size):\n");
    /* Nested golden-section search: every family within the brief's tolerances (2e-3 box,
       6e-3 sphere / cone), checked here at 5e-4. */
    const test_shape* all[6] = {&box, &sphere, &cone, &capsule, &cylinder, &small_box};
    for (int i = 0; i < 6; ++i) check_face("nested", dfm_sdf_face_min_nested, all[i], 1, 0.0, 5e-4, 1e-4, 0);
    check_face("nested", dfm_sdf_face_min_nested, &box, 0, 0.6, 5e-4, 1e-4, 0);
    check_face("nested", dfm_sdf_face_min_nested, &cone, 0, 0.6, 5e-4, 1e-4, 0);
    /* The sphere takes the exact closest point (sdf_features.h, session 14; Frank-Wolfe stopped up
       to 6e-3 above the minimum on draped triangles of 0.3 sizes and 0.3 on general ones): within
       rounding of brute force on every family (brute force itself lies at or above the minimum). */
    check_face("exact", dfm_sdf_face_min, &sphere, 0, 0.3, 1e-6, 1e-7, 1);
    check_face("exact", dfm_sdf_face_min, &sphere, 0, 0.1, 1e-6, 1e-7, 1);
    check_face("exact", dfm_sdf_face_min, &sphere, 1, 0.0, 1e-6, 1e-7, 1);
    test_shape small_sphere = make_shape("sphere (4 cm)", DFM_GEOM_SPHERE, 0.5f, 0.0f, 0.0f, 0.08f);
    check_face("exact", dfm_sdf_face_min, &small_sphere, 0, 0.3, 1e-6, 1e-7, 1);
    check_face("exact", dfm_sdf_face_min, &small_sphere, 1, 0.0, 1e-6, 1e-7, 1);
    /* The capsule likewise (the axis crossing, the axis ends' closest points, the edge-axis pairs). */
    check_face("exact", dfm_sdf_face_min, &capsule, 0, 0.3, 1e-6, 1e-7, 1);
    check_face("exact", dfm_sdf_face_min, &capsule, 0, 0.1, 1e-6, 1e-7, 1);
    check_face("exact", dfm_sdf_face_min, &capsule, 1, 0.0, 1e-6, 1e-7, 1);
    /* Frank-Wolfe (the specified algorithm, every other shape): it zig-zags or stalls on creases
       (box, cone), so these bounds only guard the measured behaviour (see the header's "Known
       limits"). */
    check_face("fw", dfm_sdf_face_min, &box, 0, 0.1, 3e-2, 3e-3, 1);
    check_face("fw", dfm_sdf_face_min, &cone, 0, 0.1, 3e-2, 3e-3, 1);
    check_face("fw", dfm_sdf_face_min, &box, 1, 0.0, 0.6, 5e-2, 1);
    check_face("fw", dfm_sdf_face_min, &cone, 1, 0.0, 0.6, 5e-2, 1);
    printf("post scenes:\n");
    check_post();
    return dfm_test_finish("test_sdf");
}
