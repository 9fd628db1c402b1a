/// @file test_host_body_dynamics.c
/// dfm_coupling.h's calls: every refusal with its code and a world left unchanged, the lifetime of
/// a body's dynamics (set, update, remove), and what a correction reports before and after a step
/// (solved by vbd on the CPU and, with DFM_TEST_BACKEND=cuda, on CUDA), and a refused step rolled
/// back with the body's kick bookkeeping: the next step's correction is the one a world that never
/// took the refused step computes (bitwise on the CPU; within 1e-5 m/s on CUDA, whose default mode
/// orders records by atomics).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dfm_test.h"
#include "dfm_test_shapes.h"

static dfm_host_body_dynamics body(uint64_t id, float mass, float inertia) {
    dfm_host_body_dynamics d;
    memset(&d, 0, sizeof(d));
    d.host_body = id;
    d.mass = mass;
    d.inertia[0] = d.inertia[4] = d.inertia[8] = inertia;
    return d;
}

/// Expects `call` to return `code`, with a message.
#define EXPECT_REFUSED(w, call, code)                                                                                  \
    do {                                                                                                               \
        dfm_result r_ = (call);                                                                                        \
        CHECK(r_ == (code), "%s returned %s, expected %s (%s)", #call, dfm_result_string(r_), dfm_result_string(code), \
              dfm_world_last_error(w));                                                                                \
        CHECK(r_ == DFM_OK || strlen(dfm_world_last_error(w)) > 0, "%s left no message", #call);                       \
    } while (0)

/// A small hammock with a 1 kg box resting on it, the box integrated by a minimal host (gravity,
/// semi-implicit Euler, the corrections added after each step: every step has a kick); world
/// `refuse` takes one refused step (gravity -3e38) before the last, with the same host state as
/// the retry. Writes the last step's correction.
static void kick_case(int refuse, dfm_host_body_correction* out) {
    dfm_world* w = dfm_test_world(-9.81f, 2, 5);
    dfm_test_grid g = dfm_test_make_grid(6, 6, 0.4f, 0.4f, -0.2f, -0.2f, 0.5f);
    dfm_body_id cloth = dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    const int32_t corners[4] = {0, 5, 30, 35};
    CHECK_OK(w, dfm_body_set_vertex_mode(w, cloth, corners, 4, DFM_VERTEX_PINNED));
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_BOX;
    sd.half_extents[0] = sd.half_extents[1] = sd.half_extents[2] = 0.05f;
    sd.host_body = 3;
    float z = 0.5f + 0.05f - 0.001f, vz = 0.0f; /* 1 mm into the cloth */
    dfm_shape_id box = dfm_test_add_shape(w, sd, 0.0f, 0.0f, z, NULL);
    dfm_host_body_dynamics d = body(3, 1.0f, 1.0f * 0.1f * 0.1f / 6.0f);
    CHECK_OK(w, dfm_world_set_host_body_dynamics(w, &d, 0, 1));
    const uint64_t id = 3;
    const float dt = 1.0f / 60.0f;
    for (int t = 0; t < 8; ++t) {
        vz -= 9.81f * dt;
        z += vz * dt;
        dfm_shape_state st = dfm_scene_state(0.0f, 0.0f, z, NULL);
        st.linear_velocity[2] = vz;
        CHECK_OK(w, dfm_world_set_shape_states(w, &box, 0, &st, 0, 1));
        if (t == 7 && refuse) {
            const float huge[3] = {0.0f, 0.0f, -3e38f}, normal[3] = {0.0f, 0.0f, -9.81f};
            CHECK_OK(w, dfm_world_set_gravity(w, huge));
            const dfm_result r = dfm_world_step(w, dt);
            CHECK(r == DFM_ERROR_OUT_OF_BOUNDS || r == DFM_ERROR_NON_FINITE, "gravity -3e38: the step returned %s",
                  dfm_result_string(r));
            CHECK_OK(w, dfm_world_set_gravity(w, normal));
        }
        CHECK_OK(w, dfm_world_step(w, dt));
        CHECK_OK(w, dfm_world_get_host_body_corrections(w, &id, 1, out, 0));
        z += out->position[2];
        vz += out->linear_velocity[2];
    }
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);
}

int main(void) {
    dfm_world* w = dfm_test_world(-9.81f, 2, 5);
    const uint64_t five = 5;
    dfm_host_body_correction c;
    /* refusals */
    dfm_host_body_dynamics d = body(5, 1.0f, 0.01f);
    CHECK(dfm_world_set_host_body_dynamics(NULL, &d, 0, 1) == DFM_ERROR_NULL_POINTER, "NULL world accepted");
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, NULL, 0, 1), DFM_ERROR_NULL_POINTER);
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, &d, 0, 0), DFM_ERROR_INVALID_COUNT);
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, &d, 0, -3), DFM_ERROR_INVALID_COUNT);
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, &d, 4, 1), DFM_ERROR_INVALID_VALUE);
    dfm_host_body_dynamics bad[2] = {body(5, 1.0f, 0.01f), body(6, NAN, 0.01f)};
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, bad, 0, 2), DFM_ERROR_NON_FINITE);
    bad[1] = body(6, -1.0f, 0.01f);
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, bad, 0, 2), DFM_ERROR_INVALID_VALUE);
    bad[1] = body(6, 2e9f, 0.01f);
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, bad, 0, 2), DFM_ERROR_INVALID_VALUE);
    bad[1] = body(6, 1.0f, 0.01f);
    bad[1].inertia[1] = 0.005f; /* not symmetric */
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, bad, 0, 2), DFM_ERROR_INVALID_VALUE);
    bad[1] = body(6, 1.0f, -0.01f); /* not positive definite */
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, bad, 0, 2), DFM_ERROR_INVALID_VALUE);
    bad[1] = body(6, 1.0f, 0.01f);
    bad[1].inertia[4] = INFINITY;
    EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, bad, 0, 2), DFM_ERROR_NON_FINITE);
    /* nothing of a refused batch was kept: body 5 (valid, first in it) has no dynamics */
    EXPECT_REFUSED(w, dfm_world_get_host_body_corrections(w, &five, 1, &c, 0), DFM_ERROR_INVALID_VALUE);
    {
        const int32_t n = 65537; /* above DFM_MAX_HOST_BODIES */
        dfm_host_body_dynamics* many = (dfm_host_body_dynamics*)calloc((size_t)n, sizeof(*many));
        for (int32_t i = 0; i < n; ++i) many[i] = body((uint64_t)i + 100u, 1.0f, 0.0f);
        EXPECT_REFUSED(w, dfm_world_set_host_body_dynamics(w, many, 0, n), DFM_ERROR_CAPACITY);
        free(many);
    }
    EXPECT_REFUSED(w, dfm_world_get_host_body_corrections(w, NULL, 1, &c, 0), DFM_ERROR_NULL_POINTER);
    EXPECT_REFUSED(w, dfm_world_get_host_body_corrections(w, &five, 0, &c, 0), DFM_ERROR_INVALID_COUNT);

    /* set, read before any step: known, not solved */
    dfm_host_body_dynamics ok[2] = {body(5, 1.0f, 0.01f), body(9, 2.0f, 0.0f)}; /* 9: translation only */
    CHECK_OK(w, dfm_world_set_host_body_dynamics(w, ok, 0, 2));
    memset(&c, 0x7f, sizeof(c));
    CHECK_OK(w, dfm_world_get_host_body_corrections(w, &five, 1, &c, 0));
    CHECK(c.host_body == 5 && c.solved == 0 && c.position[2] == 0.0f && c.linear_velocity[2] == 0.0f,
          "before a step: host body %llu solved %d", (unsigned long long)c.host_body, c.solved);

    /* a body far from a falling cloth: solved, zero correction */
    dfm_test_grid g = dfm_test_make_grid(4, 4, 0.3f, 0.3f, 0, 0, 1.0f);
    dfm_test_add_cloth(w, &g, dfm_cloth_def_default());
    dfm_shape_def sd = dfm_shape_def_default();
    sd.type = DFM_SHAPE_SPHERE;
    sd.radius = 0.1f;
    sd.host_body = 5;
    dfm_test_add_shape(w, sd, 5.0f, 5.0f, 0.0f, NULL);
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f));
    const uint64_t both[2] = {9, 5};
    dfm_host_body_correction cs[2];
    CHECK_OK(w, dfm_world_get_host_body_corrections(w, both, 2, cs, 0));
    const int cuda = dfm_test_on_cuda();
    for (int i = 0; i < 2; ++i) {
        CHECK(cs[i].host_body == both[i], "corrections[%d] is for host body %llu", i,
              (unsigned long long)cs[i].host_body);
        CHECK(cs[i].solved == 1, "host body %llu: solved %d on %s", (unsigned long long)both[i], cs[i].solved,
              cuda ? "CUDA" : "the CPU");
        float sum = 0.0f;
        for (int a = 0; a < 3; ++a)
            sum += fabsf(cs[i].position[a]) + fabsf(cs[i].rotation[a]) + fabsf(cs[i].linear_velocity[a]) +
                   fabsf(cs[i].angular_velocity[a]);
        CHECK(sum == 0.0f, "host body %llu, untouched, was corrected by %g", (unsigned long long)both[i], sum);
    }
    /* a strided read (stride a multiple of 8 above the struct) */
    struct {
        dfm_host_body_correction c;
        double pad;
    } strided[2];
    CHECK_OK(w, dfm_world_get_host_body_corrections(w, both, 2, &strided[0].c, (int32_t)sizeof(strided[0])));
    CHECK(strided[1].c.host_body == 5, "strided read: %llu", (unsigned long long)strided[1].c.host_body);

    /* remove: mass 0 */
    dfm_host_body_dynamics gone = body(5, 0.0f, 0.0f);
    CHECK_OK(w, dfm_world_set_host_body_dynamics(w, &gone, 0, 1));
    EXPECT_REFUSED(w, dfm_world_get_host_body_corrections(w, &five, 1, &c, 0), DFM_ERROR_INVALID_VALUE);
    CHECK_OK(w, dfm_world_step(w, 1.0f / 60.0f)); /* still steps */
    dfm_test_free_grid(&g);
    dfm_world_destroy(w);

    /* a refused step leaves the kick bookkeeping as it found it */
    dfm_host_body_correction plain, refused;
    kick_case(0, &plain);
    kick_case(1, &refused);
    double worst = 0.0;
    for (int a = 0; a < 3; ++a)
        worst = fmax(worst, fmax(fabs((double)plain.linear_velocity[a] - refused.linear_velocity[a]),
                                 fabs((double)plain.angular_velocity[a] - refused.angular_velocity[a])));
    printf("after a refused step: correction velocity z %.6g m/s (never refused: %.6g m/s), largest difference %.3g\n",
           refused.linear_velocity[2], plain.linear_velocity[2], worst);
    CHECK(plain.solved && refused.solved, "kick case not solved (%d, %d)", plain.solved, refused.solved);
    CHECK(plain.linear_velocity[2] != 0.0f, "the kick case's box is not in contact (correction 0)");
    CHECK(cuda ? worst < 1e-5 : memcmp(&plain, &refused, sizeof(plain)) == 0,
          "after a refused step the correction differs by %.3g from a world that never took it", worst);
    return dfm_test_finish("test_host_body_dynamics");
}
