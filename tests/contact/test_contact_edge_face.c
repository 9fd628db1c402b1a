/// Edge and face contacts: contacts between a shape and the interior of a cloth edge or triangle,
/// where no vertex is near the shape.
///
/// Edge: a coarse strip of 6 x 2 vertices (0.25 m x 0.04 m, 5 cm between vertex columns, at
/// x = +-0.025, +-0.075, +-0.125) is dropped from 1 cm onto a thin capsule (radius 1 cm < half the
/// column spacing) lying across it along y at x = 0, between the two middle vertex columns. Only
/// the edges (and triangles) that span x = 0 can touch the capsule.
/// - default flags: the strip is held up (it hangs over the capsule like a towel on a rod): after
///   2 s its highest vertex is above the capsule's axis, and the cloth's edges (segments, in the
///   x-z projection: the capsule is longer than the strip is wide) come no closer to the axis
///   than capsule radius + r - 1 mm and no farther than + 1 mm (they rest on it, edge records
///   carrying it: > 0 of them), while every vertex stayed farther than radius + r from the axis
///   (no vertex touched it; particle records within the speculative distance may exist and are
///   printed);
/// - DFM_DISABLE_EDGE_CONTACTS | DFM_DISABLE_FACE_CONTACTS: nothing can touch the capsule and
///   the strip falls through: after 1 s its highest point is more than 0.5 m below the capsule.
///
/// Face: a 2 x 2 quad (two triangles, 0.4 m) at z = 0.5 with all four vertices pinned; a sphere of
/// radius 2 cm rises from below at 0.6 m/s (its state moved each step) towards the centroid of one
/// triangle, far from every vertex and from the diagonal, until its top is 5 mm past the quad.
/// - default: dfm_contact_stats.face_contacts > 0 once it reaches the quad, and the sphere's
///   reaction points down (the pinned cloth pushes it back): F_z < -1 N (5 mm + r = 7 mm of
///   penetration at ke 1e4 N/m is 70 N);
/// - DFM_DISABLE_FACE_CONTACTS: no face record, no particle record, and a zero reaction.
///
/// Squeeze: edge and face records must not destabilize a pinch. The contact_scenes.h pinch (a
/// vertical 12 x 6 strip whose top row is squeezed 1 mm deep between two box pads, mu 0.8, held
/// 10 steps, then lifted at 0.3 m/s) with one top-row vertex moved 1 um towards a pad (a real
/// grip is never exactly symmetric). Over 60 steps the top row (the squeezed vertices) must stay
/// with the pads: within 1 mm of their centre height (the friction capacity, 0.8 x 10 N per
/// vertex and side, is ~10^4 times the strip's 0.01 N weight: it must not slip) and within 1 mm
/// of the mid-plane, and move no faster than 0.6 m/s (twice the lift speed; the rows below may
/// swing). The same run with particle records only (DFM_DISABLE_EDGE_CONTACTS |
/// DFM_DISABLE_FACE_CONTACTS) is the control and must pass too.
///
/// Deliberate breaks (made in a scratch copy of the library) seen to fail:
/// - contact_detect.h: edge detection returns at once: no edge records (face records still
///   hold the strip);
/// - contact_detect.h: face detection returns at once: no face record, zero sphere reaction.
/// Seen failing: while the friction projection also acted on edge and face records, the 1 um
/// asymmetry made the top row slip 6-9 mm (speeds 0.7-1.2 m/s); friction now projects particle
/// records only and both runs hold.
#include "contact_scenes.h"

#define CAP_Z 0.5f
#define CAP_R 0.01f

typedef struct edge_result {
    float top;        /* final highest vertex z */
    float min_axis;   /* smallest vertex distance to the capsule axis over the run */
    float edge_axis;  /* final smallest distance of a cloth edge to the axis */
    int edge_records; /* max edge records in a step */
    int particle_records;
} edge_result;

static edge_result run_edge(uint32_t flags, int steps) {
    cs_world_opts o = cs_opts();
    o.disable_flags = flags;
    dfm_world* w = cs_world(o);
    const float r = dfm_cloth_def_default().contact_radius;
    dfm_test_grid g = dfm_test_make_grid(6, 2, 0.25f, 0.04f, -0.125f, -0.02f, CAP_Z + CAP_R + r + 0.01f);
    dfm_body_id cloth = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_shape_def sd = cs_shape_def(DFM_SHAPE_CAPSULE, 0.0f);
    sd.radius = CAP_R;
    sd.half_height = 0.05f;
    const float q[4] = {0.70710678f, 0.0f, 0.0f, 0.70710678f}; /* local z (axis) -> world y */
    dfm_test_add_shape(w, sd, 0, 0, CAP_Z, q);
    edge_result e;
    memset(&e, 0, sizeof(e));
    e.min_axis = 1e30f;
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)g.vertex_count);
    for (int s = 0; s < steps; ++s) {
        CHECK_OK(w, dfm_world_step(w, CS_DT));
        CHECK_OK(w, dfm_body_get_positions(w, cloth, 0, g.vertex_count, x, 0));
        for (int32_t i = 0; i < g.vertex_count; ++i) {
            float d = hypotf(x[3 * i], x[3 * i + 2] - CAP_Z);
            if (d < e.min_axis) e.min_axis = d;
        }
        dfm_contact_stats st = cs_stats(w);
        if (st.edge_contacts > e.edge_records) e.edge_records = st.edge_contacts;
        if (st.particle_contacts > e.particle_records) e.particle_records = st.particle_contacts;
    }
    float lo;
    dfm_test_z_range(w, cloth, g.vertex_count, &lo, &e.top);
    /* distance from the axis (x = 0, z = CAP_Z) to each triangle edge, in the x-z projection */
    e.edge_axis = 1e30f;
    for (int32_t t = 0; t < g.triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            const float* a = x + 3 * g.triangles[3 * t + k];
            const float* b = x + 3 * g.triangles[3 * t + (k + 1) % 3];
            float ax = a[0], az = a[2] - CAP_Z, bx = b[0] - a[0], bz = b[2] - a[2];
            float len2 = bx * bx + bz * bz;
            float u = len2 > 0.0f ? fminf(fmaxf(-(ax * bx + az * bz) / len2, 0.0f), 1.0f) : 0.0f;
            float d = hypotf(ax + u * bx, az + u * bz);
            if (d < e.edge_axis) e.edge_axis = d;
        }
    free(x);
    dfm_world_destroy(w);
    dfm_test_free_grid(&g);
    return e;
}

typedef struct face_result {
    int face_records, edge_records, particle_records; /* max per step while pushed in */
    float min_fz;                                     /* most negative reaction z */
} face_result;

static face_result run_face(uint32_t flags) {
    cs_world_opts o = cs_opts();
    o.disable_flags = flags;
    dfm_world* w = cs_world(o);
    dfm_test_grid g = dfm_test_make_grid(2, 2, 0.4f, 0.4f, -0.2f, -0.2f, 0.5f);
    dfm_body_id cloth = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    const int32_t all[4] = {0, 1, 2, 3};
    CHECK_OK(w, dfm_body_set_vertex_mode(w, cloth, all, 4, DFM_VERTEX_PINNED));
    /* centroid of triangle 0: 0.4 * sqrt(2) / 3 = 0.19 m from its vertices, 0.047 m from the
     * diagonal; the sphere (2 cm + 2 mm contact radius + 5 mm gap) stays clear of both */
    float c[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 3; ++a) c[a] += g.positions[3 * g.triangles[k] + a] / 3.0f;
    dfm_shape_def sd = cs_shape_def(DFM_SHAPE_SPHERE, 0.0f);
    sd.radius = 0.02f;
    float z = 0.5f - 0.1f;
    const float z_end = 0.5f - 0.02f + 0.005f; /* sphere top 5 mm past the quad */
    dfm_shape_id sh = dfm_test_add_shape(w, sd, c[0], c[1], z, NULL);
    face_result f;
    memset(&f, 0, sizeof(f));
    for (int s = 0; s < 30; ++s) {
        z = fminf(z + 0.6f * CS_DT, z_end);
        dfm_test_move_shape(w, sh, c[0], c[1], z, NULL);
        CHECK_OK(w, dfm_world_step(w, CS_DT));
        dfm_contact_stats st = cs_stats(w);
        float F[3];
        CHECK_OK(w, dfm_world_get_shape_reactions(w, &sh, 1, F, NULL, 0));
        if (st.face_contacts > f.face_records) f.face_records = st.face_contacts;
        if (st.edge_contacts > f.edge_records) f.edge_records = st.edge_contacts;
        if (st.particle_contacts > f.particle_records) f.particle_records = st.particle_contacts;
        if (F[2] < f.min_fz) f.min_fz = F[2];
    }
    dfm_world_destroy(w);
    dfm_test_free_grid(&g);
    return f;
}

typedef struct pinch_result {
    float worst_dz, worst_x, max_speed; /* top row over the run: |z - pad centre|, |x|, speed */
    int worst_step;
} pinch_result;

static pinch_result run_pinch(uint32_t flags) {
    cs_world_opts o = cs_opts();
    o.disable_flags = flags;
    cs_scene s = cs_scene_make(CS_SCENE_PINCH, o);
    const int32_t n = s.g.vertex_count, top0 = n - s.g.nu;
    float p[3];
    CHECK_OK(s.w, dfm_body_get_positions(s.w, s.cloth, top0 + 3, 1, p, 0));
    p[0] += 1e-6f;
    CHECK_OK(s.w, dfm_body_set_positions(s.w, s.cloth, top0 + 3, 1, p, 0));
    pinch_result r;
    memset(&r, 0, sizeof(r));
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    float* vel = (float*)malloc(sizeof(float) * 3 * (size_t)n);
    for (int step = 0; step < 60; ++step) {
        cs_scene_step(&s, CS_SCENE_PINCH, step);
        float pad_z = 0.5f + (step < CS_PINCH_HOLD ? 0.0f : (float)(step + 1 - CS_PINCH_HOLD) * CS_PINCH_LIFT * CS_DT);
        CHECK_OK(s.w, dfm_body_get_positions(s.w, s.cloth, 0, n, x, 0));
        CHECK_OK(s.w, dfm_body_get_velocities(s.w, s.cloth, 0, n, vel, 0));
        for (int32_t i = top0; i < n; ++i) {
            float dx = fabsf(x[3 * i]), dz = fabsf(x[3 * i + 2] - pad_z);
            const float* v = vel + 3 * i;
            float sp = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (!(dx <= r.worst_x)) r.worst_x = dx;
            if (!(sp <= r.max_speed)) r.max_speed = sp;
            if (!(dz <= r.worst_dz)) {
                r.worst_dz = dz;
                r.worst_step = step;
            }
        }
    }
    free(vel);
    free(x);
    cs_scene_free(&s);
    return r;
}

int main(void) {
    const float r = dfm_cloth_def_default().contact_radius;
    edge_result held = run_edge(0u, 120);
    edge_result ef = run_edge(DFM_DISABLE_EDGE_CONTACTS, 120);
    edge_result fell = run_edge(DFM_DISABLE_EDGE_CONTACTS | DFM_DISABLE_FACE_CONTACTS, 60);
    printf("edge: default: strip top %.5f (axis at %.2f), closest edge to the axis %.5f m (capsule radius + r = "
           "%.4f), max edge records %d, particle records %d, closest vertex to the axis %.4f m\n",
           held.top, CAP_Z, held.edge_axis, CAP_R + r, held.edge_records, held.particle_records, held.min_axis);
    /* Information only: with edges off, whether faces alone catch this line contact depends on
     * where Frank-Wolfe lands: the distance over a triangle is smallest on a whole segment that
     * reaches the triangle's edges, and boundary points are left to the (disabled) edge records
     * (seen both ways across library versions). */
    printf("edge: edges off (faces only): strip top %.4f after 2 s; edges and faces off: strip top %.4f after 1 s "
           "(capsule at %.2f)\n",
           ef.top, fell.top, CAP_Z);
    CHECK(held.top > CAP_Z, "default: strip top at %.5f, fell past the capsule", held.top);
    CHECK(fabsf(held.edge_axis - (CAP_R + r)) < 1e-3f, "default: closest edge %.5f m from the axis, want %.4f +- 1 mm",
          held.edge_axis, CAP_R + r);
    CHECK(held.edge_records > 0, "default: no edge records");
    CHECK(held.min_axis > CAP_R + r, "a vertex came %.4f m from the axis: the premise (no vertex touches) is broken",
          held.min_axis);
    CHECK(fell.top < CAP_Z - 0.5f, "edges and faces off: strip top %.4f, want it fallen through", fell.top);

    face_result fd = run_face(0u), fo = run_face(DFM_DISABLE_FACE_CONTACTS);
    printf("face: default: max face records %d (edge %d, particle %d), sphere reaction z down to %.3f N; faces off: "
           "face %d edge %d particle %d, reaction z %.3f N\n",
           fd.face_records, fd.edge_records, fd.particle_records, fd.min_fz, fo.face_records, fo.edge_records,
           fo.particle_records, fo.min_fz);
    CHECK(fd.face_records > 0, "default: no face record");
    CHECK(fd.min_fz < -1.0f, "default: sphere reaction z %.3f N, want < -1 N", fd.min_fz);
    CHECK(fd.edge_records == 0 && fd.particle_records == 0,
          "default: %d edge / %d particle records (the sphere should "
          "only reach the triangle's interior)",
          fd.edge_records, fd.particle_records);
    CHECK(fo.face_records == 0 && fo.edge_records == 0 && fo.particle_records == 0 && fo.min_fz == 0.0f,
          "faces off: records %d/%d/%d, reaction z %.3f N", fo.face_records, fo.edge_records, fo.particle_records,
          fo.min_fz);

    pinch_result pd = run_pinch(0u), pp = run_pinch(DFM_DISABLE_EDGE_CONTACTS | DFM_DISABLE_FACE_CONTACTS);
    printf("squeeze (1 um asymmetry): default: top row off the pads' centre by up to %.5f m (step %d), |x| up to "
           "%.5f m, speed up to %.3f m/s; particle records only: %.5f m (step %d), |x| %.5f m, %.3f m/s\n",
           pd.worst_dz, pd.worst_step, pd.worst_x, pd.max_speed, pp.worst_dz, pp.worst_step, pp.worst_x, pp.max_speed);
    CHECK(pp.worst_dz < 1e-3f && pp.worst_x < 1e-3f && pp.max_speed < 0.6f,
          "control (particles only): the pinch did not hold: dz %.5f, x %.5f, speed %.3f", pp.worst_dz, pp.worst_x,
          pp.max_speed);
    CHECK(pd.worst_dz < 1e-3f && pd.worst_x < 1e-3f && pd.max_speed < 0.6f,
          "default flags: the pinch did not hold a 1 um asymmetry: top row %.5f m off the pads (step %d), |x| %.5f "
          "m, speed %.3f m/s",
          pd.worst_dz, pd.worst_step, pd.worst_x, pd.max_speed);
    return dfm_test_finish("test_contact_edge_face");
}
