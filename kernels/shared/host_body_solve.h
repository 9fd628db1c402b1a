/// @file host_body_solve.h
/// A dynamic host rigid body as one block of the VBD solve (implicit two-way coupling,
/// abi/include/dfm/dfm_coupling.h; docs/bullet.md).
///
/// The host integrated the body freely over the step; dfm adds a correction (translation c and a
/// small rotation theta about the body origin, world frame) that its contacts with the
/// deformables cause, integrated by backward Euler over each advance of length h like every
/// particle (VBD, Chen et al. 2024, eq. 1): after every sweep the body takes the correction that
/// minimises, with the particles held,
///
///   Phi = m/(2h^2) |c - y_c|^2 + 1/(2h^2) (theta - y_t)^T I (theta - y_t) + sum_k E_k
///
/// where y = correction + h * its rate at the advance start (the correction's inertia) and E_k are
/// the body's records' penalty, approach damping and Coulomb friction terms of
/// body_translation.h. The solve's unknown q = (delta, phi) moves the body by -delta and turns it
/// by -phi, so record k sees its feature move by delta + phi x arm_k relative to the shape: the
/// same terms as a deformable body's translation, mapped through the arm. Phi is convex in q (the
/// records' terms are, and the map is linear); damped Newton on the 6x6 system, lambda
/// re-evaluated at the solution, as dfm_body_translation does.
#ifndef DFM_HOST_BODY_SOLVE_H
#define DFM_HOST_BODY_SOLVE_H

#include "body_translation.h"
#include "transform.h"

/// One dynamic host body during a step (world frame).
typedef struct dfm_host_body_rt {
    float mass;          ///< kg.
    dfm_m33 inertia;     ///< kg m^2 about the body origin; zero = rotation not coupled.
    dfm_xform free_end;  ///< The host's free-motion pose at the end of the current advance.
    dfm_v3 c, theta;     ///< Correction at the current iterate: m, rotation vector (rad).
    dfm_v3 c0, theta0;   ///< ... at the start of the advance.
    dfm_v3 yc, ytheta;   ///< Inertial targets of the correction for this advance.
    dfm_v3 vc, wtheta;   ///< Rate of the correction over the last advance: m/s, rad/s.
    dfm_v3 accel, alpha; ///< The host's own acceleration over the step (its velocity change / dt: m/s^2,
                         ///< rad/s^2), spread over the advances (plugin/host_bodies.c).
} dfm_host_body_rt;

/// One contact record of a host body, frozen for its solve.
typedef struct dfm_host_record {
    dfm_body_record r; ///< Terms as for a deformable body (normal from the shape, D, pen, kp, kd, mu).
    dfm_v3 arm;        ///< Contact point on the shape relative to the body origin, m.
} dfm_host_record;

/// Rotation by the rotation vector w (exact exponential map).
DFM_HD dfm_quat dfm_quat_from_rotvec(dfm_v3 w) {
    const float a = dfm_v3_len(w);
    if (!(a > 1e-12f)) return dfm_quat_normalize(dfm_quat_make(0.5f * w.x, 0.5f * w.y, 0.5f * w.z, 1.0f));
    const float s = sinf(0.5f * a) / a;
    return dfm_quat_make(s * w.x, s * w.y, s * w.z, cosf(0.5f * a));
}

/// Pose x moved by the correction c (m) and turned by theta (rotation vector, rad) about its origin.
DFM_HD dfm_xform dfm_xform_corrected(dfm_xform x, dfm_v3 c, dfm_v3 theta) {
    dfm_xform y;
    y.t = dfm_v3_add(x.t, c);
    y.q = dfm_quat_normalize(dfm_quat_mul(dfm_quat_from_rotvec(theta), x.q));
    return y;
}

/// The body's pose at the end of the advance with the current correction.
DFM_HD dfm_xform dfm_host_body_pose(const dfm_host_body_rt* b) {
    return dfm_xform_corrected(b->free_end, b->c, b->theta);
}

/// Start of an advance of length h (backward Euler on the correction, like every particle): the
/// correction starts from its inertial target c + h (vc + h accel) (and likewise theta), and
/// free_end is the host's free-motion pose at the advance's end (its shapes' staged body_end).
DFM_HD void dfm_host_body_begin_advance(dfm_host_body_rt* b, dfm_xform free_end, float h) {
    b->c0 = b->c;
    b->theta0 = b->theta;
    b->yc = dfm_v3_madd(b->c, dfm_v3_madd(b->vc, b->accel, h), h);
    b->ytheta = dfm_v3_madd(b->theta, dfm_v3_madd(b->wtheta, b->alpha, h), h);
    b->c = b->yc;
    b->theta = b->ytheta;
    b->free_end = free_end;
}

/// End of an advance of length h: the correction's rate over it.
DFM_HD void dfm_host_body_end_advance(dfm_host_body_rt* b, float h) {
    b->vc = dfm_v3_scale(dfm_v3_sub(b->c, b->c0), 1.0f / h);
    b->wtheta = dfm_v3_scale(dfm_v3_sub(b->theta, b->theta0), 1.0f / h);
}

/// Places shape s of body b at the body's current correction (its end pose). begin = 1 at the
/// advance's start: marks it coupled and corrects its start pose by the correction it began with.
DFM_HD void dfm_host_shape_place(const dfm_host_body_rt* b, dfm_shape_rt* s, int begin) {
    if (begin) {
        s->coupled = 1;
        s->body_start = dfm_xform_corrected(s->body_start, b->c0, b->theta0);
    }
    s->body_end = dfm_host_body_pose(b);
}

/// Record k of the contact view frozen for its host body (whose pose `body` the record's shape
/// follows), at the particles' displacements d.
DFM_HD dfm_host_record dfm_host_make_record(const dfm_contact_view* c, const float* d, int32_t k, dfm_xform body) {
    dfm_host_record h;
    h.r = dfm_body_make_record(c, d, k);
    h.arm = dfm_v3_sub(dfm_contact_geometry(c, d, k).b, body.t);
    return h;
}

/// The record's feature shift for q = (delta, phi): delta + phi x arm.
DFM_HD dfm_v3 dfm_host_record_shift(const dfm_host_record* r, const float* q) {
    const dfm_v3 dl = dfm_v3_make(q[0], q[1], q[2]), ph = dfm_v3_make(q[3], q[4], q[5]);
    return dfm_v3_add(dl, dfm_v3_cross(ph, r->arm));
}

/// The inertia part of Phi at q: sets e, its gradient G and Hessian H (row-major 6x6, double).
/// rotational = 0 keeps phi out (H's rotation block is then the identity and G's zero, so the
/// solve leaves phi at 0).
DFM_HD void dfm_host_phi_inertia(const dfm_host_body_rt* b, float h, int rotational, const float* q, double* e,
                                 double* G, double* H) {
    const float ih2 = 1.0f / (h * h);
    for (int i = 0; i < 36; ++i) H[i] = 0.0;
    /* inertia: c = c_cur - delta, theta = theta_cur - phi */
    const dfm_v3 dl = dfm_v3_make(q[0], q[1], q[2]), ph = dfm_v3_make(q[3], q[4], q[5]);
    const dfm_v3 ec = dfm_v3_sub(dfm_v3_sub(b->c, dl), b->yc);
    *e = 0.5 * (double)(b->mass * ih2) * (double)dfm_v3_dot(ec, ec);
    const dfm_v3 gl = dfm_v3_scale(ec, -b->mass * ih2);
    G[0] = gl.x, G[1] = gl.y, G[2] = gl.z;
    for (int i = 0; i < 3; ++i) H[6 * i + i] = (double)(b->mass * ih2);
    if (rotational) {
        const dfm_v3 et = dfm_v3_sub(dfm_v3_sub(b->theta, ph), b->ytheta);
        const dfm_v3 It = dfm_m33_mul_v3(b->inertia, et);
        *e += 0.5 * (double)ih2 * (double)dfm_v3_dot(et, It);
        G[3] = -(double)(ih2 * It.x), G[4] = -(double)(ih2 * It.y), G[5] = -(double)(ih2 * It.z);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) H[6 * (3 + i) + 3 + j] = (double)(ih2 * b->inertia.m[i][j]);
    } else {
        G[3] = G[4] = G[5] = 0.0;
        for (int i = 3; i < 6; ++i) H[6 * i + i] = 1.0;
    }
}

/// Adds record r's part of Phi at q (lambda taken at q_lag) to e, G and H.
DFM_HD void dfm_host_phi_add_record(const dfm_host_record* r, float h, int rotational, const float* q, const float* lag,
                                    double* e, double* G, double* H) {
    double ek = 0.0;
    dfm_v3 g = dfm_v3_zero();
    dfm_m33 A = dfm_m33_zero();
    dfm_body_record_terms(&r->r, h, dfm_host_record_shift(r, q), dfm_host_record_shift(r, lag), &ek, &g, &A);
    *e += ek;
    G[0] += g.x, G[1] += g.y, G[2] += g.z;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) H[6 * i + j] += (double)A.m[i][j];
    if (!rotational) return;
    /* shift = delta + phi x arm = delta - [arm]x phi: J = [I, -[arm]x], J^T = [I; [arm]x] */
    const dfm_v3 tg = dfm_v3_cross(r->arm, g);
    G[3] += tg.x, G[4] += tg.y, G[5] += tg.z;
    dfm_v3 AJ[3]; /* column j of A J_phi = -A (arm x e_j) */
    for (int j = 0; j < 3; ++j) {
        const dfm_v3 ej = dfm_v3_make(j == 0 ? 1.0f : 0.0f, j == 1 ? 1.0f : 0.0f, j == 2 ? 1.0f : 0.0f);
        AJ[j] = dfm_v3_neg(dfm_m33_mul_v3(A, dfm_v3_cross(r->arm, ej)));
    }
    for (int j = 0; j < 3; ++j) {
        const dfm_v3 col = AJ[j];
        /* translation-rotation block: H[i][3+j] = (A J)_ij, and its transpose */
        H[6 * 0 + 3 + j] += (double)col.x, H[6 * 1 + 3 + j] += (double)col.y, H[6 * 2 + 3 + j] += (double)col.z;
        H[6 * (3 + j) + 0] += (double)col.x, H[6 * (3 + j) + 1] += (double)col.y, H[6 * (3 + j) + 2] += (double)col.z;
        /* rotation block: J^T (A J) column j = [arm]x col = arm x col */
        const dfm_v3 rr = dfm_v3_cross(r->arm, col);
        H[6 * 3 + 3 + j] += (double)rr.x, H[6 * 4 + 3 + j] += (double)rr.y, H[6 * 5 + 3 + j] += (double)rr.z;
    }
}

/// Phi at q (up to a constant) with its gradient G and a positive semidefinite Hessian H
/// (row-major 6x6, double), lambda taken at q_lag: the inertia, then the records in order.
DFM_HD double dfm_host_phi(const dfm_host_record* rec, int32_t count, const dfm_host_body_rt* b, float h,
                           int rotational, const float* q, const float* lag, double* G, double* H) {
    double e = 0.0;
    dfm_host_phi_inertia(b, h, rotational, q, &e, G, H);
    for (int32_t k = 0; k < count; ++k) dfm_host_phi_add_record(rec + k, h, rotational, q, lag, &e, G, H);
    return e;
}

/// Whether the solve moves the body's rotation (an inertia was given).
DFM_HD int dfm_host_body_rotational(const dfm_host_body_rt* b) { return dfm_m33_trace(b->inertia) > 0.0f; }

/// Solves A x = b for a symmetric positive definite 6x6 A (row-major, overwritten by its
/// Cholesky factor); 0 when A is not positive definite.
DFM_HD int dfm_spd6_solve(double* A, const double* b, double* x) {
    for (int j = 0; j < 6; ++j) {
        double s = A[6 * j + j];
        for (int k = 0; k < j; ++k) s -= A[6 * j + k] * A[6 * j + k];
        if (!(s > 0.0)) return 0;
        const double l = sqrt(s);
        A[6 * j + j] = l;
        for (int i = j + 1; i < 6; ++i) {
            double t = A[6 * i + j];
            for (int k = 0; k < j; ++k) t -= A[6 * i + k] * A[6 * j + k];
            A[6 * i + j] = t / l;
        }
    }
    for (int i = 0; i < 6; ++i) { /* L y = b */
        double t = b[i];
        for (int k = 0; k < i; ++k) t -= A[6 * i + k] * x[k];
        x[i] = t / A[6 * i + i];
    }
    for (int i = 5; i >= 0; --i) { /* L^T x = y */
        double t = x[i];
        for (int k = i + 1; k < 6; ++k) t -= A[6 * k + i] * x[k];
        x[i] = t / A[6 * i + i];
    }
    return 1;
}

/// The q = (delta, phi) minimising Phi for the body's records (DFM_BODY_OUTER lambda passes of
/// damped Newton with an Armijo line search, as dfm_body_translation), written to q; zero when
/// nothing finite comes out.
DFM_HD void dfm_host_body_solve(const dfm_host_record* rec, int32_t count, const dfm_host_body_rt* b, float h,
                                float* q) {
    const int rotational = dfm_host_body_rotational(b);
    for (int i = 0; i < 6; ++i) q[i] = 0.0f;
    if (!(b->mass > 0.0f)) return;
    double G[6], H[36], Gt[6], Ht[36], step[6];
    float lag[6], trial[6];
    for (int outer = 0; outer < DFM_BODY_OUTER; ++outer) {
        for (int i = 0; i < 6; ++i) lag[i] = q[i];
        for (int it = 0; it < DFM_BODY_NEWTON_MAX; ++it) {
            const double e = dfm_host_phi(rec, count, b, h, rotational, q, lag, G, H);
            double ng[6];
            for (int i = 0; i < 6; ++i) ng[i] = -G[i];
            if (!dfm_spd6_solve(H, ng, step)) break;
            double slope = 0.0, len2 = 0.0;
            for (int i = 0; i < 6; ++i) slope += G[i] * step[i], len2 += step[i] * step[i];
            if (!(slope < 0.0) || !(sqrt(len2) > (double)DFM_BODY_STEP_TOL)) break;
            float a = 1.0f;
            for (int ls = 0; ls < 12; ++ls, a *= 0.5f) {
                for (int i = 0; i < 6; ++i) trial[i] = q[i] + a * (float)step[i];
                if (dfm_host_phi(rec, count, b, h, rotational, trial, lag, Gt, Ht) <= e + 1e-4 * (double)a * slope)
                    break;
            }
            for (int i = 0; i < 6; ++i) q[i] += a * (float)step[i];
        }
    }
    for (int i = 0; i < 6; ++i)
        if (!isfinite(q[i])) {
            for (int j = 0; j < 6; ++j) q[j] = 0.0f;
            return;
        }
}

/// Applies q to the body's correction: c -= delta, theta -= phi.
DFM_HD void dfm_host_body_apply(dfm_host_body_rt* b, const float* q) {
    b->c = dfm_v3_sub(b->c, dfm_v3_make(q[0], q[1], q[2]));
    b->theta = dfm_v3_sub(b->theta, dfm_v3_make(q[3], q[4], q[5]));
}

#endif
