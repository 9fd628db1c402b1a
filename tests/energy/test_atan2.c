/// Checks dfm_atan2f (kernels/shared/dfm_atan2.h), the hinge angle's atan2 on the CPU (issue 18,
/// slice 3): its error against the double-precision atan2 rounded to float, and that the same body
/// instantiated over a 4-lane GCC vector (as kernels/cpu/vbd_simd_lanes.h does at 4 and 8 lanes)
/// gives bitwise the scalar values. Bound: 2 ulp of the float result (the header's stated error).
/// Inputs (fixed-seed splitmix64): t = |y| / |x| swept over every 256th float in [0, 1] with
/// |x| or |y| = 1, in all four quadrants and both argument orders; 4 * 10^6 random pairs of
/// random signs, mantissas and exponents in [-40, 40] (the division's rounding included); the
/// special values of the body's comment (zeros, infinities, NaN). One line per check; exit code 1
/// if any check fails.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dfm_atan2.h"

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));

static inline v4 v4_sel(i4 m, v4 a, v4 b) { return (v4)(((i4)a & m) | ((i4)b & ~m)); }
static inline v4 v4_abs(v4 a) { return (v4)((i4)a & 0x7fffffff); }
static inline i4 v4_signbit(v4 a) { return (i4)a < 0; }
static inline v4 v4_copysign(v4 a, v4 b) { return (v4)(((i4)a & 0x7fffffff) | ((i4)b & INT32_MIN)); }

#define DFM_ATAN2_FN atan2_v4
#define DFM_ATAN2_DECL static inline
#define DFM_ATAN2_T v4
#define DFM_ATAN2_SEL(m, a, b) v4_sel((m), (a), (b))
#define DFM_ATAN2_SPLAT(c) ((v4){0} + (c))
#define DFM_ATAN2_ABS(a) v4_abs(a)
#define DFM_ATAN2_NEG(a) v4_signbit(a)
#define DFM_ATAN2_COPYSIGN(a, b) v4_copysign((a), (b))
#include "dfm_atan2_body.h"

static uint64_t g_rng = 0x18a18a18a18aULL;
static uint64_t next_u64(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// Random float: random sign and mantissa, exponent in [-40, 40].
static float rand_float(void) {
    uint64_t r = next_u64();
    uint32_t bits = (uint32_t)(r & 0x807fffffu) | ((uint32_t)(127 - 40 + (int)((r >> 32) % 81u)) << 23);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/// |got - ref| in units of the last place of ref rounded to float (the float's binade).
static double ulp_error(float got, double ref) {
    float rf = (float)ref;
    /* zero and subnormals: the subnormal spacing (ilogbf(0) is FP_ILOGB0, INT_MIN here) */
    const double u = (rf == 0.0f || fabsf(rf) < 1.17549435e-38f) ? ldexp(1.0, -149) : ldexp(1.0, ilogbf(rf) - 23);
    return fabs((double)got - ref) / u;
}

typedef struct stats {
    double worst;
    float wy, wx;
    long n, bit_mismatch;
    float by[4], bx[4]; /* pending vector batch */
    int nb;
} stats;

static void flush(stats* s) {
    if (s->nb == 0) return;
    v4 y = {0}, x = {0};
    for (int l = 0; l < s->nb; ++l) {
        y[l] = s->by[l];
        x[l] = s->bx[l];
    }
    v4 r = atan2_v4(y, x);
    for (int l = 0; l < s->nb; ++l) {
        float a = dfm_atan2f(s->by[l], s->bx[l]), b = r[l];
        if (memcmp(&a, &b, sizeof a) != 0) s->bit_mismatch++;
    }
    s->nb = 0;
}

static void check(stats* s, float y, float x) {
    double e = ulp_error(dfm_atan2f(y, x), atan2((double)y, (double)x));
    if (e > s->worst) {
        s->worst = e;
        s->wy = y;
        s->wx = x;
    }
    s->n++;
    s->by[s->nb] = y;
    s->bx[s->nb] = x;
    if (++s->nb == 4) flush(s);
}

static int report(const char* name, stats* s) {
    flush(s);
    int ok = s->worst <= 2.0 && s->bit_mismatch == 0;
    printf("%s %s: %ld pairs, max error %.3f ulp (bound 2) at atan2(%a, %a), %ld vector/scalar bit mismatches\n",
           ok ? "PASS" : "FAIL", name, s->n, s->worst, (double)s->wy, (double)s->wx, s->bit_mismatch);
    return ok;
}

int main(void) {
    int ok = 1;
    stats sweep = {0};
    for (uint32_t b = 0; b <= 0x3f800000u; b += 256u) {
        float t;
        memcpy(&t, &b, sizeof t);
        for (int q = 0; q < 4; ++q) {
            float y = (q & 1) ? -t : t, x = (q & 2) ? -1.0f : 1.0f;
            check(&sweep, y, x);
            check(&sweep, x, y);
        }
    }
    ok &= report("sweep of t = |y|/|x| in [0, 1]", &sweep);

    stats rnd = {0};
    for (long i = 0; i < 4000000; ++i) {
        float y = rand_float(), x = rand_float();
        check(&rnd, y, x);
    }
    ok &= report("random pairs", &rnd);

    /* Special values: exact expectations (libm's where the body's comment says so). */
    const float pi = 3.14159274f, pio2 = 1.57079637f, inf = INFINITY;
    struct {
        float y, x, want;
    } sp[] = {{0.0f, 0.0f, 0.0f},        {-0.0f, 0.0f, -0.0f},      {0.0f, -0.0f, pi},  {-0.0f, -0.0f, -pi},
              {0.0f, -1.0f, pi},         {-0.0f, -1.0f, -pi},       {1.0f, 0.0f, pio2}, {-1.0f, 0.0f, -pio2},
              {1.0f, inf, 0.0f},         {1.0f, -inf, pi},          {inf, 1.0f, pio2},  {-inf, -1.0f, -pio2},
              {1.0f, 1.0f, 0.78539819f}, {1.0f, -1.0f, 2.35619450f}};
    int sp_ok = 1;
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; ++i) {
        float got = dfm_atan2f(sp[i].y, sp[i].x);
        if (memcmp(&got, &sp[i].want, sizeof got) != 0) {
            printf("  atan2(%g, %g) = %a, want %a\n", (double)sp[i].y, (double)sp[i].x, (double)got,
                   (double)sp[i].want);
            sp_ok = 0;
        }
    }
    sp_ok &= isnan(dfm_atan2f(NAN, 1.0f)) && isnan(dfm_atan2f(1.0f, NAN)) && isnan(dfm_atan2f(NAN, NAN));
    printf("%s special values (zeros, infinities, NaN)\n", sp_ok ? "PASS" : "FAIL");
    ok &= sp_ok;
    return ok ? 0 : 1;
}
