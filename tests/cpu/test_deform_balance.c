/// The body-graph balance of deformable-contact pair forces (kernels/cpu/deform_balance.c, shared
/// by the CPU and CUDA backends) on hand-made graphs:
/// - edges: pairs between bodies give their sorted unique body pairs, pairs inside one body none,
///   and every cross-body pair's body pair is found by dfm_dc_balance_edge_index;
/// - stack: three bodies on a shape-supported bottom one with unconverged pair forces (5x, 3x the
///   loads): after the balance every body's contact forces (raw + changes + shapes' share) equal
///   its need within 1e-9 N, each interface carries the weight above it, and no pull check runs
///   (one support per component);
/// - pinned: a body hanging from a pinned one is balanced, the pinned one is not solved;
/// - pull: two supports in one component and a fake pull check that reports the second body: the
///   check is asked only for the supported bodies, that body's shapes leave L, and the others are
///   still balanced with its shapes reading their raw force.
#include <math.h>
#include <string.h>

#include "deform_balance.h"
#include "dfm_test.h"

static int g_pull_calls;
static uint8_t g_tested[8];

/// Reports a pull for body 1 only, and records which bodies were tested.
static int fake_pull(void* ctx, dfm_cpu_dc_body* B, int32_t n, const double* lambda) {
    (void)ctx;
    (void)lambda;
    ++g_pull_calls;
    for (int32_t b = 0; b < n && b < 8; ++b) {
        g_tested[b] |= B[b].pull_test;
        B[b].pulls = (uint8_t)(B[b].pull_test && b == 1);
    }
    return 0;
}

/// Body b's contact force along z after the balance: raw + changes of its body pairs + R + S lambda.
static double balanced_z(const dfm_cpu_dc_body* B, const dfm_cpu_dc_edge* E, int32_t ne, const double* lam, int32_t b) {
    double f = B[b].raw[2] + B[b].shape_force[2];
    if (B[b].solved && B[b].shape_on) f += B[b].shape_sum * lam[3 * b + 2];
    for (int32_t e = 0; e < ne; ++e) {
        if (E[e].hi == b) f += E[e].delta[2];
        if (E[e].lo == b) f -= E[e].delta[2];
    }
    return f;
}

/// A body with need W (z), raw pair force raw_z, shape force R and magnitude sum S.
static dfm_cpu_dc_body body(double W, double raw_z, double R, double S, int pinned) {
    dfm_cpu_dc_body b;
    memset(&b, 0, sizeof(b));
    b.need[2] = W;
    b.raw[2] = raw_z;
    b.shape_force[2] = R;
    b.shape_sum = S;
    b.pinned = (uint8_t)pinned;
    return b;
}

static dfm_cpu_dc_edge edge(int32_t lo, int32_t hi, double s) {
    dfm_cpu_dc_edge e;
    memset(&e, 0, sizeof(e));
    e.lo = lo;
    e.hi = hi;
    e.s_lo = e.s_hi = s;
    return e;
}

static void edges(void) {
    const int32_t body_of[12] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
    const dfm_dc_pair pairs[5] = {{{4, 0, 1, 2}, DFM_DC_VERTEX_TRIANGLE},
                                  {{0, 1, 2, 3}, DFM_DC_EDGE_EDGE},
                                  {{8, 9, 5, 6}, DFM_DC_EDGE_EDGE},
                                  {{5, 0, 1, 3}, DFM_DC_VERTEX_TRIANGLE},
                                  {{2, 9, 10, 11}, DFM_DC_VERTEX_TRIANGLE}};
    dfm_bvh_pair keys[5];
    dfm_cpu_dc_edge E[3];
    const int32_t ne = dfm_dc_balance_edges(pairs, 5, body_of, keys, E);
    CHECK(ne == 3, "edges: %d body pairs, expected 3 ((0,1), (0,2), (1,2))", ne);
    CHECK(ne == 3 && E[0].lo == 0 && E[0].hi == 1 && E[1].lo == 0 && E[1].hi == 2 && E[2].lo == 1 && E[2].hi == 2,
          "edges: not sorted unique (0,1) (0,2) (1,2)");
    const int32_t want[5] = {0, -1, 2, 0, 1};
    for (int p = 0; p < 5; ++p) {
        int32_t a, b;
        dfm_dc_pair_bodies(pairs + p, body_of, &a, &b);
        const int32_t got = a == b ? -1 : dfm_dc_balance_edge_index(keys, ne, a, b);
        CHECK(got == want[p], "edges: pair %d in body pair %d, expected %d", p, got, want[p]);
    }
}

static void stack(void) {
    /* weights 1, 2, 3 N bottom to top; raw interface forces 5x and 3x what they must carry */
    const double W0 = 1.0, W1 = 2.0, W2 = 3.0, F01 = 5.0 * (W1 + W2), F12 = 3.0 * W2;
    dfm_cpu_dc_body B[3] = {body(W0, -F01, 2.0, 2.0, 0), body(W1, F01 - F12, 0, 0, 0), body(W2, F12, 0, 0, 0)};
    dfm_cpu_dc_edge E[2] = {edge(0, 1, 10.0), edge(1, 2, 4.0)};
    double work[16 * 3];
    g_pull_calls = 0;
    const int32_t solved = dfm_dc_balance_solve(B, 3, E, 2, work, fake_pull, NULL);
    CHECK(solved == 3, "stack: %d bodies solved, expected 3", solved);
    CHECK(g_pull_calls == 0, "stack: %d pull checks with one support", g_pull_calls);
    const double need[3] = {W0, W1, W2};
    for (int b = 0; b < 3; ++b) {
        const double f = balanced_z(B, E, 2, work, b);
        CHECK(fabs(f - need[b]) < 1e-9, "stack: body %d's contact forces %.12g N, need %.12g N", b, f, need[b]);
    }
    CHECK(fabs(F12 + E[1].delta[2] - W2) < 1e-9, "stack: the upper interface carries %.12g N, expected %g N",
          F12 + E[1].delta[2], W2);
    CHECK(fabs(F01 + E[0].delta[2] - (W1 + W2)) < 1e-9, "stack: the lower interface carries %.12g N, expected %g N",
          F01 + E[0].delta[2], W1 + W2);
    printf("stack: interfaces %.9g N and %.9g N for %g and %g N above them\n", F01 + E[0].delta[2], F12 + E[1].delta[2],
           W1 + W2, W2);
}

static void pinned(void) {
    /* body 0 pinned, body 1 below it needs -1.5 N along z from their pairs (raw -7 N) */
    dfm_cpu_dc_body B[2] = {body(0.0, 7.0, 0, 0, 1), body(-1.5, -7.0, 0, 0, 0)};
    dfm_cpu_dc_edge E[1] = {edge(0, 1, 3.0)};
    double work[32];
    const int32_t solved = dfm_dc_balance_solve(B, 2, E, 1, work, fake_pull, NULL);
    CHECK(solved == 1 && !B[0].solved && B[1].solved, "pinned: solved %d (pinned %d, hanging %d), expected 1 (0, 1)",
          solved, B[0].solved, B[1].solved);
    const double f = balanced_z(B, E, 1, work, 1);
    CHECK(fabs(f - -1.5) < 1e-9, "pinned: the hanging body's contact forces %.12g N, need -1.5 N", f);
}

static void pull(void) {
    /* bodies 0 and 1 both on shapes, body 2 across them: one component, two supports */
    dfm_cpu_dc_body B[3] = {body(1.0, -4.0, 1.0, 1.0, 0), body(1.0, -4.0, 1.0, 1.0, 0), body(0.5, 8.0, 0, 0, 0)};
    dfm_cpu_dc_edge E[2] = {edge(0, 2, 4.0), edge(1, 2, 4.0)};
    double work[48];
    memset(g_tested, 0, sizeof(g_tested));
    g_pull_calls = 0;
    const int32_t solved = dfm_dc_balance_solve(B, 3, E, 2, work, fake_pull, NULL);
    CHECK(solved == 3, "pull: %d solved, expected 3", solved);
    CHECK(g_pull_calls >= 1, "pull: the pull check never ran with two supports");
    CHECK(g_tested[0] && g_tested[1] && !g_tested[2], "pull: tested bodies %d %d %d, expected 1 1 0", g_tested[0],
          g_tested[1], g_tested[2]);
    CHECK(!B[1].shape_on && B[0].shape_on, "pull: shapes in L %d %d, expected 1 0", B[0].shape_on, B[1].shape_on);
    const double need[3] = {1.0, 1.0, 0.5};
    for (int b = 0; b < 3; ++b) {
        const double f = balanced_z(B, E, 2, work, b);
        CHECK(fabs(f - need[b]) < 1e-9, "pull: body %d's contact forces %.12g N, need %.12g N", b, f, need[b]);
    }
}

int main(void) {
    edges();
    stack();
    pinned();
    pull();
    return dfm_test_finish("test_deform_balance");
}
