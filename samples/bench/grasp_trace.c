/// dfm_grasp_trace: one environment of a benchmark workload on the CPU, traced every 0.1 s: the
/// gripper's lift, the body's centroid height, each pad's squeeze (the normal forces of its
/// contact records, dfm_world_get_contacts) and reaction (dfm_world_get_shape_reactions), and
/// the cloth's most stretched grid edge; at the end each shape's peak reaction. The figures of
/// docs/bench.md and docs/physics.md about the benchmark's grasp come from it.
///
/// Usage: dfm_grasp_trace [cloth-lift|soft-lift] [steps] (defaults: cloth-lift, 90 steps of 1/60 s)
#include <dfm/dfm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static double norm3(const float* f) { return sqrt((double)f[0] * f[0] + (double)f[1] * f[1] + (double)f[2] * f[2]); }

int main(int argc, char** argv) {
    bench_options o;
    memset(&o, 0, sizeof(o));
    o.kind = argc > 1 && !strcmp(argv[1], "soft-lift") ? BENCH_SOFT_LIFT : BENCH_CLOTH_LIFT;
    o.envs = 1;
    o.res = o.kind == BENCH_CLOTH_LIFT ? 24 : 6;
    o.substeps = 4;
    o.iterations = 10;
    o.backend = DFM_BACKEND_CPU;
    const int steps = argc > 2 ? atoi(argv[2]) : 90;
    bench_workload w;
    if (bench_workload_build(&o, &w) != DFM_OK) {
        fprintf(stderr, "dfm_grasp_trace: %s\n", dfm_world_last_error(w.world));
        return 1;
    }
    const int32_t cap = 1 << 16;
    dfm_contact_point* cp = (dfm_contact_point*)malloc(sizeof(dfm_contact_point) * (size_t)cap);
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)w.vertex_count);
    const float dt = 1.0f / 60.0f;
    double t = 0.0, peak[4] = {0, 0, 0, 0}, worst = 1.0;
    const char* names[4] = {"table", "pad -y", "pad +y", "palm"};
    for (int s = 0; s < steps; ++s) {
        t += dt;
        if (bench_workload_drive(&w, t) != DFM_OK || dfm_world_step(w.world, dt) != DFM_OK) {
            fprintf(stderr, "dfm_grasp_trace: %s\n", dfm_world_last_error(w.world));
            return 1;
        }
        float f[12];
        dfm_world_get_shape_reactions(w.world, w.shapes, 4, f, NULL, 0);
        for (int k = 0; k < 4; ++k)
            if (norm3(f + 3 * k) > peak[k]) peak[k] = norm3(f + 3 * k);
        int32_t n = 0;
        dfm_world_get_contacts(w.world, cp, cap, (int32_t)sizeof(dfm_contact_point), &n);
        double squeeze[4] = {0, 0, 0, 0};
        for (int32_t i = 0; i < n && i < cap; ++i)
            for (int k = 0; k < 4; ++k)
                if (cp[i].shape.index1 == w.shapes[k].index1) squeeze[k] += cp[i].normal_force;
        dfm_body_get_positions(w.world, w.bodies[0], 0, w.vertex_count, x, 0);
        double zc = 0.0, stretch = 1.0;
        for (int32_t i = 0; i < w.vertex_count; ++i) zc += x[3 * i + 2] / w.vertex_count;
        const int32_t r = w.res;
        for (int32_t i = 0; o.kind == BENCH_CLOTH_LIFT && i < r * r; ++i)
            for (int dj = 0; dj < 2; ++dj) {
                int32_t j = dj ? i + 1 : i + r;
                if ((dj && i % r == r - 1) || j >= r * r) continue;
                double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1], dz = x[3 * i + 2] - x[3 * j + 2];
                double l = sqrt(dx * dx + dy * dy + dz * dz) / (0.3 / (r - 1));
                if (l > stretch) stretch = l;
            }
        if (stretch > worst) worst = stretch;
        if ((s + 1) % 6 == 0)
            printf("t %.2f s  lift %.3f m  centroid z %.4f m  squeeze %.3f / %.3f N  reactions pads %.3f / %.3f N "
                   "table %.3f N  max edge stretch %.3f\n",
                   t, bench_workload_lift(&w, t), zc, squeeze[1], squeeze[2], norm3(f + 3), norm3(f + 6), norm3(f),
                   stretch);
    }
    for (int k = 0; k < 4; ++k) printf("peak reaction %s: %.3f N\n", names[k], peak[k]);
    if (o.kind == BENCH_CLOTH_LIFT) printf("largest grid edge stretch over the run: %.3f x rest\n", worst);
    free(cp);
    free(x);
    bench_workload_free(&w);
    return 0;
}
