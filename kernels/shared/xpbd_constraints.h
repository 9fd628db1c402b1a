/// @file xpbd_constraints.h
/// XPBD constraints of the "xpbd" solver (Macklin, Mueller, Chentanez 2016, "XPBD: position-based
/// simulation of compliant constrained dynamics"), shared by its loops: value C and gradient of
/// each constraint, and the compliant projection step.
///
/// Constraints (the same models and materials as VBD; see plugin/solver_xpbd.c for how the
/// compliances are derived from the materials):
/// - distance: C = |xa - xb| - L0 (the edges of cloth triangles and of tetrahedra);
/// - dihedral bending: C = wrap(theta - theta0), theta the hinge angle of vbd_bending.h (its
///   closed-form gradient), so 1/(2 alpha) C^2 is exactly the VBD bending energy with alpha =
///   1 / (ke L0);
/// - tet volume: C = V / V0 - 1 with V = (x1 - x0) . ((x2 - x0) x (x3 - x0)) / 6 (Macklin and
///   Mueller 2021's hydrostatic constraint for a rest state J = 1);
/// - contact (inequality, C >= 0): C = phi(sum_j w_j x_j) - r, phi the shape's SDF at the current
///   contact point and r = radius + margin (dfm_xpbd_contact_sdf; dfm_xpbd_contact is its
///   linearization with a fixed normal).
/// The projection of one constraint with compliance alpha and damping beta over a step h, for a
/// multiplier starting at zero (one Gauss-Seidel pass per small step):
///   alpha~ = alpha / h^2,  gamma = alpha beta / h,
///   dlambda = (-C - gamma grad C . (x - x_prev)) / ((1 + gamma) sum_j w_j |grad_j C|^2 + alpha~),
///   x_j += w_j dlambda grad_j C   (w_j inverse masses).
#ifndef DFM_XPBD_CONSTRAINTS_H
#define DFM_XPBD_CONSTRAINTS_H

#include "sdf_shapes.h"
#include "transform.h"
#include "vbd_bending.h"

/// Distance constraint between xa and xb (m): returns C = |xa - xb| - L0 (m) and writes
/// dC/dxa into *ga (dC/dxb = -ga). Returns 0 with *ga = 0 when the points coincide.
DFM_HD float dfm_xpbd_distance(dfm_v3 xa, dfm_v3 xb, float rest_length, dfm_v3* ga) {
    dfm_v3 d = dfm_v3_sub(xa, xb);
    float l = dfm_v3_len(d);
    if (!(l > 0.0f)) {
        *ga = dfm_v3_zero();
        return 0.0f;
    }
    *ga = dfm_v3_scale(d, 1.0f / l);
    return l - rest_length;
}

/// Wraps an angle difference into (-pi, pi].
DFM_HD float dfm_xpbd_wrap_angle(float a) {
    const float pi = 3.14159265358979f;
    while (a > pi) a -= 2.0f * pi;
    while (a <= -pi) a += 2.0f * pi;
    return a;
}

/// Bending constraint of a hinge x[0] = o0, x[1] = o1, x[2] = v0, x[3] = v1 (vbd_bending.h
/// convention): writes C = wrap(theta - rest_angle) (rad) and dC/dx_k (1/m) into grad[4].
/// Returns 0 (outputs untouched) for a degenerate hinge.
DFM_HD int dfm_xpbd_bending(const dfm_v3 x[4], float rest_angle, float* C, dfm_v3 grad[4]) {
    float th;
    if (!dfm_bending_geom_(x, &th, grad)) return 0;
    *C = dfm_xpbd_wrap_angle(th - rest_angle);
    return 1;
}

/// Volume constraint of a tet (x in m, rest volume v0 in m^3 > 0): returns C = V / V0 - 1
/// (dimensionless, V signed) and writes dC/dx_k (1/m) into grad[4].
DFM_HD float dfm_xpbd_volume(const dfm_v3 x[4], float v0, dfm_v3 grad[4]) {
    dfm_v3 a = dfm_v3_sub(x[1], x[0]), b = dfm_v3_sub(x[2], x[0]), c = dfm_v3_sub(x[3], x[0]);
    float s = 1.0f / (6.0f * v0);
    grad[1] = dfm_v3_scale(dfm_v3_cross(b, c), s);
    grad[2] = dfm_v3_scale(dfm_v3_cross(c, a), s);
    grad[3] = dfm_v3_scale(dfm_v3_cross(a, b), s);
    grad[0] = dfm_v3_neg(dfm_v3_add(dfm_v3_add(grad[1], grad[2]), grad[3]));
    return dfm_v3_dot(a, dfm_v3_cross(b, c)) * s - 1.0f;
}

/// Contact constraint of a record: corners' positions x[k] with weights w[k] (count corners),
/// world normal n, surface point b (m) and offset r = radius + margin (m). Returns
/// C = n . (sum w_k x_k - b) - r (m; < 0 = penetrating); dC/dx_k = w_k n.
DFM_HD float dfm_xpbd_contact(const dfm_v3* x, const float* w, int count, dfm_v3 n, dfm_v3 b, float r) {
    dfm_v3 p = dfm_v3_zero();
    for (int k = 0; k < count; ++k) p = dfm_v3_madd(p, x[k], w[k]);
    return dfm_v3_dot(n, dfm_v3_sub(p, b)) - r;
}

/// Contact constraint against the shape's SDF at the current contact point (what the solver
/// uses: the normal follows the point around edges and corners instead of staying lagged from
/// detection): p = sum w_k x_k, q = pose^-1 p, C = phi(q) - r; dC/dx_k = w_k R grad phi(q)
/// (R = pose rotation). Writes the world normal into *n_out (may be NULL). `pose` is the shape
/// frame in the world.
DFM_HD float dfm_xpbd_contact_sdf(const dfm_shape_geom* g, dfm_xform pose, const dfm_v3* x, const float* w, int count,
                                  float r, dfm_v3* n_out) {
    dfm_v3 p = dfm_v3_zero();
    for (int k = 0; k < count; ++k) p = dfm_v3_madd(p, x[k], w[k]);
    dfm_v3 gl;
    float phi = dfm_shape_sdf(g, dfm_xform_point_inv(pose, p), &gl);
    if (n_out) *n_out = dfm_quat_rotate(pose.q, gl);
    return phi - r;
}

/// The multiplier increment of one compliant projection (file comment): C the constraint value,
/// wg = sum_j w_j |grad_j C|^2, cdot = grad C . (x - x_prev) (the constraint's change over the
/// step), alpha (compliance, units of C^2 / J), beta (damping, J s / units of C^2), h (s).
/// Returns 0 when nothing can move (wg = 0 and alpha = 0).
DFM_HD float dfm_xpbd_dlambda(float C, float wg, float cdot, float alpha, float beta, float h) {
    float at = alpha / (h * h);
    float gamma = alpha * beta / h;
    float den = (1.0f + gamma) * wg + at;
    if (!(den > 0.0f)) return 0.0f;
    return (-C - gamma * cdot) / den;
}

/// Standard gravity (m/s^2): the floor of the gravity that sets the depenetration speed.
#define DFM_XPBD_DEPENETRATION_G 9.81f

/// Fraction [0, 1] of a contact correction to apply in this small step. The correction moves
/// the contact point `push` (m, >= 0) along the normal; `dn` (m) is the point's normal motion
/// relative to the shape over the small step so far (< 0 = approaching). The correction may
/// leave the point moving outward at no more than v_max = sqrt(2 g r) (g = max(|gravity|,
/// standard gravity), r = radius + margin, m): it takes back all of the approach (a resting
/// contact keeps its compliant depth, a falling one stops), and penetration the small step
/// started with leaves at v_max at most, fast enough to lift the particle its contact radius
/// and no higher. Without the bound a record detected 1 mm deep (an edge chord across a box
/// rim, see DFM_CONTACT_FEATURE_DEPTH) left at 1 mm / h = 3 m/s and threw the cloth of
/// samples/05_solver_swap off its table (docs/physics.md). Moving x_prev with the correction
/// instead (pre-stabilization) adds no velocity at once, but the particle's jump stretches its
/// stiff edges, which give the energy back as velocity: that cloth's kinetic + potential energy
/// then still rose 3.4 mJ above its running minimum (0.1 mJ with this bound, vbd 0.2 mJ).
DFM_HD float dfm_xpbd_contact_depenetration(float push, float dn, float gravity, float r, float h) {
    if (!(push > 0.0f)) return 1.0f;
    float g = gravity > DFM_XPBD_DEPENETRATION_G ? gravity : DFM_XPBD_DEPENETRATION_G;
    float allowed = sqrtf(2.0f * g * (r > 0.0f ? r : 0.0f)) * h - dn;
    if (!(allowed > 0.0f)) return 0.0f;
    return allowed >= push ? 1.0f : allowed / push;
}

#endif
