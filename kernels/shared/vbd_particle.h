/// @file vbd_particle.h
/// Per-particle stages of a VBD advance (Chen et al. 2024), shared by both backends:
/// predict (inertia target), the one-Newton-step local solve of a particle with its incident
/// elements, and the velocity update. Each function touches only particle i's outputs, so all
/// particles of one color (and all particles for predict/velocity) can run in parallel.
#ifndef DFM_VBD_PARTICLE_H
#define DFM_VBD_PARTICLE_H

#include "mat33.h"
#include "vbd_bending.h"
#include "vbd_membrane.h"
#include "vbd_tet.h"
#include "vbd_view.h"

/// Where the element visits take their per-step coefficients (vbd_coef.h) from: the view's
/// tables when these are 1 and the table is not NULL, else computed per visit (the same
/// expressions, bitwise the same values). The CPU reads its tables. On CUDA the solve is bound by
/// memory, and loading costs more than computing for triangles and hinges (H200, session 10,
/// docs/perf.md: cloth-lift's solve 36.7 -> 40.0 ms per step with the tables loaded); tets load
/// theirs when DFM_CUDA_TET_COEF_LOAD is 1 (the CUDA backend then fills only the tet table).
/// The element's positions are loaded before its coefficients are computed: the division in
/// them ends a basic block on CUDA, and loads issued after it wait for it (session 10).
#ifndef DFM_CUDA_TET_COEF_LOAD
#define DFM_CUDA_TET_COEF_LOAD 1
#endif
#if defined(__CUDA_ARCH__)
#define DFM_VBD_TRI_COEF_TABLE 0
#define DFM_VBD_EDGE_COEF_TABLE 0
#define DFM_VBD_TET_COEF_TABLE DFM_CUDA_TET_COEF_LOAD
#else
#define DFM_VBD_TRI_COEF_TABLE 1
#define DFM_VBD_EDGE_COEF_TABLE 1
#define DFM_VBD_TET_COEF_TABLE 1
#endif

/// Relative determinant safeguard of the 3x3 solve: the step is skipped when
/// |det H| <= DFM_VBD_DET_EPS * (max |H_kk|)^3 (H numerically singular).
#define DFM_VBD_DET_EPS 1e-9f

/// Predict for particle i at the start of a substep. The iterate is kept as a displacement d
/// from x_prev (x = x_prev + d at all times) so that velocities v = d / h and the inertia term
/// m/h^2 (y - d) never subtract two nearby positions (float cancellation at large coordinates).
/// dynamic: inertia displacement y = h v + h^2 g, initial guess d = y;
/// pinned: y = d = 0; kinematic: y = d = lerp(kin_start, kin_target, alpha) - x_prev, alpha being
/// the fraction of the host step reached at the end of this substep.
DFM_HD void dfm_vbd_predict(const dfm_vbd_view* v, int32_t i, float alpha) {
    dfm_v3 x = dfm_v3_load(v->x + 3 * i);
    dfm_v3_store(x, v->x_prev + 3 * i);
    dfm_v3 y;
    if (v->mode[i] == 0) {
        dfm_v3 vel = dfm_v3_load(v->v + 3 * i);
        dfm_v3 g = dfm_v3_make(v->gravity[0], v->gravity[1], v->gravity[2]);
        y = dfm_v3_scale(dfm_v3_madd(vel, g, v->h), v->h);
    } else if (v->mode[i] == 2) {
        dfm_v3 a = dfm_v3_load(v->kin_start + 3 * i), b = dfm_v3_load(v->kin_target + 3 * i);
        y = dfm_v3_sub(dfm_v3_madd(a, dfm_v3_sub(b, a), alpha), x);
    } else {
        y = dfm_v3_zero();
    }
    dfm_v3_store(y, v->y + 3 * i);
    /* Initial guess: y, except that a particle near a shape does not start inside it: the part of
     * y along -n (n = its contact normal from this advance's detection) is cut at the distance to
     * contact. Only
     * the starting iterate changes, not the inertia target. Measured: with the plain guess y the
     * resting-contact forces were 1.9x the weight at 4 substeps x 10 iterations (Gauss-Seidel
     * cannot push the h^2 g penetration back through the stiff membrane in 10 sweeps); with
     * this guess 1.00x. A guess without the tangential part of y too (the VBD paper's adaptive
     * initialization) stalls sliding instead: the solver then cannot move the whole patch. */
    dfm_v3 d = y;
    if (v->guess_normal && v->mode[i] == 0) {
        dfm_v3 n = dfm_v3_load(v->guess_normal + 3 * i);
        float into = dfm_v3_dot(n, y), allowed = -v->guess_gap[i];
        if (into < allowed) d = dfm_v3_madd(y, n, allowed - into);
    }
    dfm_v3_store(d, v->d + 3 * i);
    dfm_v3_store(dfm_v3_add(x, d), v->x + 3 * i);
}

/// Hoisted per advance (P3): the step-start angle of bending edge e (after predict, x_prev is final).
DFM_HD void dfm_vbd_edge_start_angle(const dfm_vbd_view* v, int32_t e) {
    dfm_v3 xn[4];
    for (int c = 0; c < 4; ++c) xn[c] = dfm_v3_load(v->x_prev + 3 * v->edges[4 * e + c]);
    v->edge_start_angle[e] = dfm_bending_start_angle(xn);
}

/// Adds the membrane force/Hessian of particle i's incident triangles number first, first + step,
/// ... of its adjacency list (first = 0, step = 1: all, in list order). Inactive materials add
/// nothing (not even zeros).
DFM_HD void dfm_vbd_accumulate_tris(const dfm_vbd_view* v, int32_t i, int32_t first, int32_t step, dfm_v3* f,
                                    dfm_m33* H) {
    for (int32_t k = v->v_tri_offsets[i] + first; k < v->v_tri_offsets[i + 1]; k += step) {
        int32_t t = v->v_tri_items[2 * k], corner = v->v_tri_items[2 * k + 1];
        const float* mat = v->tri_material + 3 * t;
        if (mat[0] <= 0.0f && mat[1] <= 0.0f) continue;
        dfm_v3 x[3], xn[3];
        for (int c = 0; c < 3; ++c) {
            int32_t p = v->tris[3 * t + c];
            x[c] = dfm_v3_load(v->x + 3 * p);
            xn[c] = dfm_v3_load(v->x_prev + 3 * p); /* read only with damping; loaded early (faster on CUDA) */
        }
        float coef[3];
        if (DFM_VBD_TRI_COEF_TABLE && v->tri_coef)
            for (int c = 0; c < 3; ++c) coef[c] = v->tri_coef[3 * t + c];
        else
            dfm_membrane_coef(v->tri_area[t], mat[0], mat[1], mat[2], v->h, coef);
        dfm_membrane_force_hessian_coef(x, xn, v->tri_dinv + 4 * t, v->tri_area[t], mat[0], coef, corner, f, H);
    }
}

/// Same for the bending hinges of particle i's adjacency list.
DFM_HD void dfm_vbd_accumulate_edges(const dfm_vbd_view* v, int32_t i, int32_t first, int32_t step, dfm_v3* f,
                                     dfm_m33* H) {
    for (int32_t k = v->v_edge_offsets[i] + first; k < v->v_edge_offsets[i + 1]; k += step) {
        int32_t e = v->v_edge_items[2 * k], corner = v->v_edge_items[2 * k + 1];
        const float* mat = v->edge_material + 2 * e;
        if (mat[0] <= 0.0f) continue;
        dfm_v3 x[4];
        for (int c = 0; c < 4; ++c) x[c] = dfm_v3_load(v->x + 3 * v->edges[4 * e + c]);
        float coef[2];
        if (DFM_VBD_EDGE_COEF_TABLE && v->edge_coef)
            for (int c = 0; c < 2; ++c) coef[c] = v->edge_coef[2 * e + c];
        else
            dfm_bending_coef(v->edge_rest_length[e], mat[0], mat[1], v->h, coef);
        /* The step-start angle: hoisted per advance when the view has it, else from the step-start
         * positions, loaded only then (12 loads per visit that the damping-free or hoisted case
         * does not need: session 10 found them costing the CUDA cloth solve). */
        float thn = NAN;
        if (v->edge_start_angle) {
            thn = v->edge_start_angle[e];
        } else if (coef[1] != 0.0f) {
            dfm_v3 xn[4];
            for (int c = 0; c < 4; ++c) xn[c] = dfm_v3_load(v->x_prev + 3 * v->edges[4 * e + c]);
            thn = dfm_bending_start_angle(xn);
        }
        dfm_bending_force_hessian_coef(x, thn, v->edge_rest_angle[e], coef, corner, f, H);
    }
}

/// Same for the tetrahedra of particle i's adjacency list.
DFM_HD void dfm_vbd_accumulate_tets(const dfm_vbd_view* v, int32_t i, int32_t first, int32_t step, dfm_v3* f,
                                    dfm_m33* H) {
    for (int32_t k = v->v_tet_offsets[i] + first; k < v->v_tet_offsets[i + 1]; k += step) {
        int32_t t = v->v_tet_items[2 * k], corner = v->v_tet_items[2 * k + 1];
        const float* mat = v->tet_material + 3 * t;
        if (mat[0] <= 0.0f && mat[1] <= 0.0f) continue;
        dfm_v3 x[4], xn[4];
        for (int c = 0; c < 4; ++c) {
            int32_t p = v->tets[4 * t + c];
            x[c] = dfm_v3_load(v->x + 3 * p);
            xn[c] = dfm_v3_load(v->x_prev + 3 * p);
        }
        float coef[3];
        if (DFM_VBD_TET_COEF_TABLE && v->tet_coef)
            for (int c = 0; c < 3; ++c) coef[c] = v->tet_coef[3 * t + c];
        else
            dfm_tet_coef(v->tet_volume[t], mat[0], mat[1], mat[2], v->h, coef);
        dfm_tet_force_hessian_coef(x, xn, v->tet_dminv + 9 * t, v->tet_volume[t], mat[0], coef, corner, f, H);
    }
}

/// Adds the elastic and damping force/Hessian of every element incident to particle i, serially:
/// triangles, hinges, tets, each in adjacency order.
DFM_HD void dfm_vbd_accumulate_elements(const dfm_vbd_view* v, int32_t i, dfm_v3* f, dfm_m33* H) {
    dfm_vbd_accumulate_tris(v, i, 0, 1, f, H);
    dfm_vbd_accumulate_edges(v, i, 0, 1, f, H);
    dfm_vbd_accumulate_tets(v, i, 0, 1, f, H);
}

/// The inertia, air-drag and extra (contact) part of particle i's local system: force
/// f_extra + m/h^2 (y - d) - (c/h) d and Hessian H_extra + (m/h^2 + c/h) I.
DFM_HD void dfm_vbd_particle_base(const dfm_vbd_view* v, int32_t i, dfm_v3 f_extra, dfm_m33 H_extra, dfm_v3* f_out,
                                  dfm_m33* H_out) {
    float m_h2 = v->mass[i] / (v->h * v->h);
    dfm_v3 d = dfm_v3_load(v->d + 3 * i);
    dfm_v3 f = dfm_v3_add(f_extra, dfm_v3_scale(dfm_v3_sub(dfm_v3_load(v->y + 3 * i), d), m_h2));
    /* Linear air drag -c v with v = d / h (implicit in d). */
    float c_h = v->drag[i] / v->h;
    *f_out = dfm_v3_madd(f, d, -c_h);
    *H_out = dfm_m33_add(H_extra, dfm_m33_diag(m_h2 + c_h));
}

/// The Newton step of particle i with its complete local force f and Hessian H: d += H^-1 f,
/// skipped when H is numerically singular (relative determinant safeguard) or the step is not
/// finite. Returns 1 when x_i moved.
DFM_HD int dfm_vbd_particle_newton(const dfm_vbd_view* v, int32_t i, dfm_v3 f, dfm_m33 H) {
    float s = dfm_fmaxf(fabsf(H.m[0][0]), dfm_fmaxf(fabsf(H.m[1][1]), fabsf(H.m[2][2])));
    dfm_m33 Hinv;
    if (!dfm_m33_inverse(H, DFM_VBD_DET_EPS * s * s * s, &Hinv)) return 0;
    dfm_v3 dx = dfm_m33_mul_v3(Hinv, f);
    if (!dfm_v3_isfinite(dx)) return 0;
    dfm_v3 d = dfm_v3_add(dfm_v3_load(v->d + 3 * i), dx);
    dfm_v3_store(d, v->d + 3 * i);
    dfm_v3_store(dfm_v3_add(dfm_v3_load(v->x_prev + 3 * i), d), v->x + 3 * i);
    return 1;
}

/// Solves the 3x3 Newton step of particle i given the extra (contact) force and Hessian.
/// Returns 1 when x_i moved, 0 when the particle is not dynamic or H was singular.
DFM_HD int dfm_vbd_solve_particle(const dfm_vbd_view* v, int32_t i, dfm_v3 f_extra, dfm_m33 H_extra) {
    if (v->mode[i] != 0) return 0;
    dfm_v3 f;
    dfm_m33 H;
    dfm_vbd_particle_base(v, i, f_extra, H_extra, &f, &H);
    dfm_vbd_accumulate_elements(v, i, &f, &H);
    return dfm_vbd_particle_newton(v, i, f, H);
}

/// The force particle i's balance still needs at the current iterate, with no contact force:
/// m/h^2 (d - y) - f_elastic + (c/h) d (N; zero for pinned and kinematic particles). Its norm,
/// less the contact forces the particle receives, is the local force residual (zero at a
/// converged step); summed over a body's dynamic particles it is the contact force the body's
/// motion needs (elements' forces cancel among its particles).
DFM_HD dfm_v3 dfm_vbd_particle_need(const dfm_vbd_view* v, int32_t i) {
    if (v->mode[i] != 0) return dfm_v3_zero();
    const float h = v->h;
    dfm_v3 fel = dfm_v3_zero();
    dfm_m33 Hel = dfm_m33_zero();
    dfm_vbd_accumulate_elements(v, i, &fel, &Hel);
    dfm_v3 d = dfm_v3_load(v->d + 3 * i);
    dfm_v3 need = dfm_v3_sub(dfm_v3_scale(dfm_v3_sub(d, dfm_v3_load(v->y + 3 * i)), v->mass[i] / (h * h)), fel);
    return dfm_v3_madd(need, d, v->drag[i] / h);
}

/// Velocity update at the end of a substep: v = d / h, the displacement over the substep.
DFM_HD void dfm_vbd_update_velocity(const dfm_vbd_view* v, int32_t i) {
    dfm_v3 vel = dfm_v3_scale(dfm_v3_load(v->d + 3 * i), 1.0f / v->h);
    dfm_v3_store(vel, v->v + 3 * i);
}

#endif
