/// @file solver_xpbd.c
/// The built-in "xpbd" solver on the CPU, with its registry table and ops (solver_internal.h):
/// XPBD (Macklin et al. 2016) with small steps (Macklin et al. 2019): every host step runs
/// `substeps` advances; each detects contacts once (the same detection as VBD,
/// kernels/shared/contact_detect.h) and then runs `iterations` small steps of one Gauss-Seidel
/// constraint pass each (multipliers start at zero every small step).
///
/// Constraints and compliances, derived from the same materials as VBD:
/// - cloth triangles: distance constraints on their edges; each triangle (area A, Lame mu and
///   lambda in N/m, damping kd) gives each of its edges stiffness (4/3)(lambda + mu) A / L0^2
///   (this matches the membrane's energy under a uniform in-plane dilation) and damping
///   (4/3) kd A / L0^2; an edge shared by two triangles sums both; compliance = 1 / stiffness;
/// - bending hinges: dihedral constraint, compliance 1 / (bend_stiffness L0), damping
///   bend_damping L0 (the VBD hinge energy 1/2 ke L0 (theta - theta0)^2 exactly);
/// - tetrahedra: distance constraints on the 6 edges with stiffness mu V0 / L0^2 each (matching
///   the deviatoric share 3 mu of the Neo-Hookean dilation stiffness) and damping kd V0 / L0^2,
///   plus the volume constraint V / V0 - 1 with compliance 1 / (lambda V0), damping kd V0;
/// - contacts: each detection record is an inequality n . (p - b) >= radius + margin with
///   compliance 1 / ke (the shape's), damping kd on approach, then position-level Coulomb
///   friction (static when the needed multiplier is within mu times the normal one). A correction
///   may leave the contact point moving outward at no more than sqrt(2 g r): penetration a small
///   step starts with (a record detected deep, a state handed over by another solver) leaves
///   over several small steps instead of at C / h (dfm_xpbd_contact_depenetration).
/// Rest lengths come from the rest data (D^-1, Dm^-1), not from current positions, so a swap in
/// the middle of a run keeps the bodies' rest shapes.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contacts_cpu.h"
#include "error.h"
#include "mat33.h"
#include "solver_internal.h"
#include "step.h"
#include "world_internal.h"
#include "xpbd_cpu.h"

/// Constraint data of one model generation.
typedef struct xpbd_instance {
    int64_t generation; ///< Model generation prepared (-1 = none).
    int32_t particle_count;
    float* inv_mass; ///< Per particle, refreshed every step (modes may change).
    int32_t dist_count;
    int32_t* dist;
    float *dist_rest, *dist_alpha, *dist_beta;
    int32_t bend_count;
    float *bend_alpha, *bend_beta;
    int32_t vol_count;
    float *vol_alpha, *vol_beta;
    double* impulses; ///< 6 per shape.
    int32_t impulse_capacity;
} xpbd_instance;

/// An element edge before merging: particles a < b, rest length, stiffness and damping.
typedef struct xpbd_edge {
    int32_t a, b;
    float rest, k, beta;
} xpbd_edge;

static int edge_cmp(const void* pa, const void* pb) {
    const xpbd_edge *x = (const xpbd_edge*)pa, *y = (const xpbd_edge*)pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return 0;
}

static void free_constraints(xpbd_instance* s) {
    free(s->inv_mass);
    free(s->dist);
    free(s->dist_rest);
    free(s->dist_alpha);
    free(s->dist_beta);
    free(s->bend_alpha);
    free(s->bend_beta);
    free(s->vol_alpha);
    free(s->vol_beta);
    s->inv_mass = NULL;
    s->dist = NULL;
    s->dist_rest = s->dist_alpha = s->dist_beta = NULL;
    s->bend_alpha = s->bend_beta = s->vol_alpha = s->vol_beta = NULL;
    s->dist_count = s->bend_count = s->vol_count = 0;
    s->generation = -1;
}

static dfm_result xpbd_create(dfm_world* w, dfm_world_solver* ws, int32_t backend) {
    (void)backend; /* cpu only (the registry checked) */
    xpbd_instance* s = (xpbd_instance*)calloc(1, sizeof(xpbd_instance));
    if (!s) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating xpbd");
    s->generation = -1;
    ws->instance = s;
    return DFM_OK;
}

static void xpbd_destroy(dfm_world_solver* ws) {
    xpbd_instance* s = (xpbd_instance*)ws->instance;
    if (!s) return;
    free_constraints(s);
    free(s->impulses);
    free(s);
}

static void push_edge(xpbd_edge* e, int32_t* n, int32_t a, int32_t b, float rest, float k, float beta) {
    if (!(rest > 0.0f) || !(k > 0.0f)) return;
    xpbd_edge* o = &e[(*n)++];
    o->a = a < b ? a : b;
    o->b = a < b ? b : a;
    o->rest = rest;
    o->k = k;
    o->beta = beta;
}

/// Derives the constraints of the world's current model.
static dfm_result prepare(dfm_world* w, xpbd_instance* s) {
    const dfm_model* m = &w->model;
    free_constraints(s);
    size_t cap = 3u * (size_t)m->tri_count + 6u * (size_t)m->tet_count + 1u;
    xpbd_edge* e = (xpbd_edge*)malloc(cap * sizeof(xpbd_edge));
    size_t np = (size_t)m->particle_count + 1u, ne = (size_t)m->edge_count + 1u, nt = (size_t)m->tet_count + 1u;
    s->inv_mass = (float*)malloc(np * sizeof(float));
    s->bend_alpha = (float*)malloc(ne * sizeof(float));
    s->bend_beta = (float*)malloc(ne * sizeof(float));
    s->vol_alpha = (float*)malloc(nt * sizeof(float));
    s->vol_beta = (float*)malloc(nt * sizeof(float));
    if (!e || !s->inv_mass || !s->bend_alpha || !s->bend_beta || !s->vol_alpha || !s->vol_beta) {
        free(e);
        free_constraints(s);
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "xpbd: out of host memory for constraints");
    }
    int32_t n = 0;
    for (int32_t t = 0; t < m->tri_count; ++t) {
        const float* mat = m->tri_material + 3 * t;
        float stiff = mat[0] + mat[1];
        if (!(stiff > 0.0f)) continue;
        const float* di = m->tri_dinv + 4 * t;
        /* Rest edge matrix D = (D^-1)^-1; its columns are x1 - x0 and x2 - x0 in the plane. */
        float det = di[0] * di[3] - di[1] * di[2];
        float d00 = di[3] / det, d01 = -di[1] / det, d10 = -di[2] / det, d11 = di[0] / det;
        float l01 = sqrtf(d00 * d00 + d10 * d10), l02 = sqrtf(d01 * d01 + d11 * d11);
        float l12 = sqrtf((d01 - d00) * (d01 - d00) + (d11 - d10) * (d11 - d10));
        const int32_t* v = m->tris + 3 * t;
        float c = (4.0f / 3.0f) * m->tri_area[t];
        push_edge(e, &n, v[0], v[1], l01, c * stiff / (l01 * l01), c * mat[2] / (l01 * l01));
        push_edge(e, &n, v[0], v[2], l02, c * stiff / (l02 * l02), c * mat[2] / (l02 * l02));
        push_edge(e, &n, v[1], v[2], l12, c * stiff / (l12 * l12), c * mat[2] / (l12 * l12));
    }
    for (int32_t t = 0; t < m->tet_count; ++t) {
        const float* mat = m->tet_material + 3 * t;
        float vol = m->tet_volume[t];
        dfm_m33 dminv, dm = dfm_m33_zero(); /* zero: some compilers cannot see that dm is only read after a
                                               successful inverse */
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) dminv.m[a][b] = m->tet_dminv[9 * t + 3 * a + b];
        int ok = dfm_m33_inverse(dminv, 0.0f, &dm);
        s->vol_alpha[t] = mat[1] > 0.0f ? 1.0f / (mat[1] * vol) : INFINITY;
        s->vol_beta[t] = mat[2] * vol;
        if (!ok || !(mat[0] > 0.0f)) continue;
        dfm_v3 col[3];
        for (int j = 0; j < 3; ++j) col[j] = dfm_v3_make(dm.m[0][j], dm.m[1][j], dm.m[2][j]);
        const int32_t* v = m->tets + 4 * t;
        static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
        for (int k = 0; k < 6; ++k) {
            int i = pairs[k][0], j = pairs[k][1];
            dfm_v3 d = i == 0 ? col[j - 1] : dfm_v3_sub(col[j - 1], col[i - 1]);
            float l = dfm_v3_len(d);
            push_edge(e, &n, v[i], v[j], l, mat[0] * vol / (l * l), mat[2] * vol / (l * l));
        }
    }
    qsort(e, (size_t)n, sizeof(xpbd_edge), edge_cmp);
    int32_t u = 0;
    for (int32_t k = 0; k < n; ++k) {
        if (u > 0 && e[u - 1].a == e[k].a && e[u - 1].b == e[k].b) {
            e[u - 1].k += e[k].k;
            e[u - 1].beta += e[k].beta;
        } else {
            e[u++] = e[k];
        }
    }
    size_t nu = (size_t)u + 1u;
    s->dist = (int32_t*)malloc(2u * nu * sizeof(int32_t));
    s->dist_rest = (float*)malloc(nu * sizeof(float));
    s->dist_alpha = (float*)malloc(nu * sizeof(float));
    s->dist_beta = (float*)malloc(nu * sizeof(float));
    if (!s->dist || !s->dist_rest || !s->dist_alpha || !s->dist_beta) {
        free(e);
        free_constraints(s);
        return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "xpbd: out of host memory for constraints");
    }
    for (int32_t k = 0; k < u; ++k) {
        s->dist[2 * k] = e[k].a;
        s->dist[2 * k + 1] = e[k].b;
        s->dist_rest[k] = e[k].rest;
        s->dist_alpha[k] = 1.0f / e[k].k;
        s->dist_beta[k] = e[k].beta;
    }
    free(e);
    s->dist_count = u;
    for (int32_t k = 0; k < m->edge_count; ++k) {
        float ke = m->edge_material[2 * k], kd = m->edge_material[2 * k + 1], l0 = m->edge_rest_length[k];
        s->bend_alpha[k] = ke > 0.0f && l0 > 0.0f ? 1.0f / (ke * l0) : INFINITY;
        s->bend_beta[k] = kd * l0;
    }
    s->bend_count = m->edge_count;
    s->vol_count = m->tet_count;
    s->particle_count = m->particle_count;
    s->generation = w->model_generation;
    return DFM_OK;
}

/// One host step of the world's xpbd instance.
static dfm_result xpbd_step(dfm_world* w, float dt) {
    xpbd_instance* s = (xpbd_instance*)w->solver->instance;
    dfm_result r = dfm_contacts_ensure(w);
    if (r != DFM_OK) return r;
    if (s->generation != w->model_generation) {
        r = prepare(w, s);
        if (r != DFM_OK) return r;
    }
    dfm_contacts* c = &w->contacts;
    int use_contacts = c->shape_count > 0 && c->capacity > 0;
    if (use_contacts && s->impulse_capacity < c->shape_count) {
        double* p = (double*)realloc(s->impulses, (size_t)c->shape_count * 6u * sizeof(double));
        if (!p) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "xpbd: out of host memory for reactions");
        s->impulses = p;
        s->impulse_capacity = c->shape_count;
    }
    if (use_contacts) memset(s->impulses, 0, (size_t)c->shape_count * 6u * sizeof(double));
    const dfm_model* m = &w->model;
    dfm_state* st = &w->state;
    for (int32_t i = 0; i < m->particle_count; ++i)
        s->inv_mass[i] = st->mode[i] == 0 && m->mass[i] > 0.0f ? 1.0f / m->mass[i] : 0.0f;
    dfm_xpbd_view v;
    memset(&v, 0, sizeof(v));
    v.particle_count = m->particle_count;
    v.inv_mass = s->inv_mass;
    v.drag = m->drag;
    v.mass = m->mass;
    v.mode = st->mode;
    v.x = st->x;
    v.v = st->v;
    v.x_prev = st->x_prev;
    v.d = st->d;
    v.kin_start = st->kin_start;
    v.kin_target = st->kin_target;
    v.dist_count = s->dist_count;
    v.dist = s->dist;
    v.dist_rest = s->dist_rest;
    v.dist_alpha = s->dist_alpha;
    v.dist_beta = s->dist_beta;
    v.bend_count = s->bend_count;
    v.bends = m->edges;
    v.bend_rest = m->edge_rest_angle;
    v.bend_alpha = s->bend_alpha;
    v.bend_beta = s->bend_beta;
    v.vol_count = s->vol_count;
    v.tets = m->tets;
    v.vol_rest = m->tet_volume;
    v.vol_alpha = s->vol_alpha;
    v.vol_beta = s->vol_beta;
    memcpy(v.gravity, w->def.gravity, sizeof(v.gravity));
    dfm_contact_view cv = dfm_world_contact_view(w);

    const int32_t substeps = w->def.substeps, smalls = w->def.iterations;
    const float H = dt / (float)substeps, h = H / (float)smalls;
    int32_t* emitted = (int32_t*)calloc((size_t)substeps, sizeof(int32_t));
    if (!emitted) return dfm_fail(w, DFM_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for contact counts");
    int32_t kinds[3] = {0, 0, 0};
    double particle_impulse[3] = {0, 0, 0};
    float deepest = 0.0f;
    for (int32_t a = 0; a < substeps; ++a) {
        float a0 = (float)a / (float)substeps, a1 = (float)(a + 1) / (float)substeps;
        if (use_contacts) {
            dfm_step_fill_shapes(w, a0, a1, w->contacts.rt);
            dfm_detect_input in;
            in.x = st->x;
            in.v = st->v;
            in.radius = m->radius;
            in.h = H;
            dfm_cpu_contacts_detect(&cv, &in);
            dfm_cpu_contacts_build_lists(&cv, m->particle_count);
            emitted[a] = c->count;
            int32_t nrec = c->count < c->capacity ? c->count : c->capacity;
            kinds[0] = kinds[1] = kinds[2] = 0;
            for (int32_t k = 0; k < nrec; ++k)
                kinds[c->rec.corners[3 * k + 1] < 0 ? 0 : (c->rec.corners[3 * k + 2] < 0 ? 1 : 2)]++;
        }
        for (int32_t j = 0; j < smalls; ++j) {
            float u0 = (float)j / (float)smalls, u1 = (float)(j + 1) / (float)smalls;
            dfm_cpu_xpbd_predict(&v, h, a0 + (a1 - a0) * u1);
            dfm_cpu_xpbd_solve_elements(&v, h);
            if (use_contacts) deepest = dfm_cpu_xpbd_contacts(&cv, &v, h, u0, u1, s->impulses, particle_impulse);
            dfm_cpu_xpbd_velocity(&v, h);
        }
    }
    /* Kinematic vertices reached their targets: the next step starts from there. */
    dfm_copy_floats(st->kin_start, st->kin_target, (size_t)m->particle_count * 3u);
    dfm_step_finish_contacts(w, dt, use_contacts ? s->impulses : NULL, emitted, substeps, particle_impulse, kinds,
                             deepest, 0.0f);
    free(emitted);
    /* XPBD solves constraints, not a force balance: no residual to report */
    w->residual_force_max = -1.0f;
    w->residual_force_sum = -1.0;
    return DFM_OK;
}

static const dfm_solver_ops k_xpbd_ops = {
    xpbd_create,
    xpbd_destroy,
    NULL, /* import_state: constraints are derived from the model at the first step of each generation */
    xpbd_step,
    NULL, /* export_state: x and v live in the world */
    NULL, /* prepare */
    NULL, /* grow_substeps */
    "xpbd multipliers (per small step)",
    0, /* guards_itself: dfm_world_step saves and rolls back */
    0, /* reports_contacts: dfm_world_get_contacts reports the vbd solver's records */
};

const dfm_solver_builtin dfm_solver_xpbd = {
    {(uint32_t)sizeof(dfm_solver_provider_v1), DFM_SOLVER_PROVIDER_ABI, "xpbd",
     "XPBD with small steps (Macklin et al. 2016/2019): compliant distance, bending, volume and contact "
     "constraints",
     DFM_SOLVER_CAP_CLOTH | DFM_SOLVER_CAP_BENDING | DFM_SOLVER_CAP_VOLUME | DFM_SOLVER_CAP_CONTACTS |
         DFM_SOLVER_CAP_FRICTION | DFM_SOLVER_CAP_REACTIONS | DFM_SOLVER_CAP_KINEMATIC | DFM_SOLVER_CAP_DETERMINISTIC,
     DFM_SOLVER_BACKEND_CPU, NULL, NULL, NULL, NULL, NULL},
    {NULL, &k_xpbd_ops, NULL},
};
