/// A soft tet cube standing on its pinned bottom layer sags under gravity and keeps its volume:
/// |V/V0 - 1| < 0.5% (nu = lambda / (2 (lambda + mu)) = 0.45), no tet inverts, the top moves down
/// and the motion settles.
#include "dfm_test.h"

static double tet_volume(const float* x, const int32_t* t) {
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = x[3 * t[1] + k] - x[3 * t[0] + k];
        b[k] = x[3 * t[2] + k] - x[3 * t[0] + k];
        c[k] = x[3 * t[3] + k] - x[3 * t[0] + k];
    }
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) /
           6.0;
}

int main(void) {
    const int32_t n = 5;
    int32_t nv, nt;
    dfm_tet_box_counts(n, n, n, &nv, &nt);
    float* x0 = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    int32_t* tets = (int32_t*)malloc(sizeof(int32_t) * 4 * (size_t)nt);
    float lo[3] = {0, 0, 0}, hi[3] = {0.1f, 0.1f, 0.1f};
    dfm_tet_box_generate(n, n, n, lo, hi, x0, tets);
    dfm_world* w = dfm_test_world(-9.81f, 4, 10);
    dfm_volume_def vd = dfm_volume_def_default();
    vd.positions = x0;
    vd.vertex_count = nv;
    vd.tets = tets;
    vd.tet_count = nt;
    vd.mu = 2e4f;
    vd.lambda = 1.8e5f;
    vd.damping = 20.0f;
    dfm_body_id id;
    CHECK_OK(w, dfm_world_add_volume(w, &vd, &id));
    int32_t pins[25], np = 0;
    for (int32_t i = 0; i < nv; ++i)
        if (x0[3 * i + 2] == 0.0f) pins[np++] = i;
    CHECK(np == n * n, "bottom layer has %d vertices", np);
    CHECK_OK(w, dfm_body_set_vertex_mode(w, id, pins, np, DFM_VERTEX_PINNED));
    double v0 = 0;
    for (int32_t t = 0; t < nt; ++t) v0 += tet_volume(x0, tets + 4 * t);
    double worst = 0.0, min_tet = 1e30, top0 = 0.0, top = 0.0;
    for (int32_t i = 0; i < nv; ++i)
        if (x0[3 * i + 2] > 0.099f) top0 += x0[3 * i + 2];
    for (int s = 0; s < 180; ++s) {
        CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
        CHECK_OK(w, dfm_body_get_positions(w, id, 0, nv, x, 0));
        double v = 0;
        for (int32_t t = 0; t < nt; ++t) {
            double vt = tet_volume(x, tets + 4 * t);
            if (vt < min_tet) min_tet = vt;
            v += vt;
        }
        double dev = fabs(v / v0 - 1.0);
        if (!(dev <= worst)) worst = dev;
    }
    top = 0.0;
    for (int32_t i = 0; i < nv; ++i)
        if (x0[3 * i + 2] > 0.099f) top += x[3 * i + 2];
    double sag = (top0 - top) / (n * n);
    float* vel = (float*)malloc(sizeof(float) * 3 * (size_t)nv);
    CHECK_OK(w, dfm_body_get_velocities(w, id, 0, nv, vel, 0));
    double vmax = 0;
    for (int32_t i = 0; i < 3 * nv; ++i) vmax = fmax(vmax, fabs(vel[i]));
    printf("tet cube: max |V/V0 - 1| = %.4g, mean top sag = %.4g mm, min tet volume %.3g m^3, final max |v| %.3g m/s\n",
           worst, sag * 1e3, min_tet, vmax);
    CHECK(worst < 0.005, "volume changed by %.3f%%", 100 * worst);
    CHECK(min_tet > 0.0, "a tet inverted");
    CHECK(sag > 1e-5 && sag < 0.01, "top sagged %.3g m", sag);
    CHECK(vmax < 1e-2, "still moving at %.3g m/s", vmax);
    free(vel);
    free(x0);
    free(x);
    free(tets);
    dfm_world_destroy(w);
    return dfm_test_finish("test_tet_volume");
}
