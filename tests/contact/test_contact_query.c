/// dfm_world_get_contacts and dfm_contact_stats.residual_force_max on the pinch scene (a strip
/// squeezed 1 mm by two box pads, then lifted): every record names a live shape and the strip, its
/// vertices are the strip's, its point lies on the pad's or the strip's side of the pad surface,
/// its normal is a unit vector, its normal force pushes (>= 0), its friction is tangential and
/// within Coulomb's mu f_n (2 % slack, plus mu times 1 % of the pad's mean record normal force for
/// records that separate during the projection); the two pads
/// of the symmetric squeeze each read a squeeze force far above the strip's weight, and so does
/// each pad's reaction from dfm_world_get_shape_reactions, pushing the pad outward (the pads'
/// ratio is printed, not asserted: a known asymmetry, issue 13); the residual is finite and positive; nothing is reported
/// after a shape is removed until the next step; bad arguments get their error codes. Runs on the CPU, or on
/// CUDA with DFM_TEST_BACKEND=cuda.
#include "../gpu/gpu_contact_scenes.h"

#define MAX_CONTACTS 4096

int main(void) {
    dfm_world_def def = dfm_world_def_default();
    dfm_test_pick_backend(&def);
    dfm_world* w = NULL;
    dfm_result cr = dfm_world_create(DFM_ABI_VERSION, &def, &w);
    if (cr == DFM_ERROR_DEVICE_UNAVAILABLE) {
        printf("no usable CUDA device: %s\n", dfm_world_last_error(NULL));
        return 77;
    }
    CHECK(cr == DFM_OK, "world: %s", dfm_world_last_error(NULL));
    if (cr != DFM_OK) return dfm_test_finish("test_contact_query");
    gcs_scene s;
    memset(&s, 0, sizeof(s));
    gcs_pinch(w, &s);
    static dfm_contact_point cp[MAX_CONTACTS];
    int32_t n = -1;
    CHECK_OK(w, dfm_world_get_contacts(w, cp, MAX_CONTACTS, (int32_t)sizeof(dfm_contact_point), &n));
    CHECK(n == 0, "a world that never stepped reports %d contacts", n);
    const float mu = 0.8f, half_thickness = 0.01f;
    double squeeze_min = 1e30, squeeze_max = 0.0, worst_ratio = 1.0, worst_reaction = 0.0;
    int checked = 0;
    for (int step = 0; step < 70; ++step) {
        gcs_pinch_drive(w, &s, step);
        CHECK_OK(w, dfm_world_step(w, CS_DT));
        if (step < 25) continue; /* pads closed from step 20 */
        dfm_contact_stats st = dfm_contact_stats_init();
        CHECK_OK(w, dfm_world_get_contact_stats(w, &st));
        CHECK_OK(w, dfm_world_get_contacts(w, cp, MAX_CONTACTS, (int32_t)sizeof(dfm_contact_point), &n));
        CHECK(n == st.active, "step %d: %d contacts reported, %d active", step, n, st.active);
        CHECK(isfinite(st.residual_force_max) && st.residual_force_max > 0.0f, "step %d: residual %g", step,
              st.residual_force_max);
        double pad_normal[2] = {0.0, 0.0};
        float pad_y[2];
        for (int k = 0; k < 2; ++k) { /* pad centres of this step, from the driver's closing law */
            const float r = dfm_cloth_def_default().contact_radius, closed = 0.01f + r - 0.001f;
            pad_y[k] = (k == 0 ? -1.0f : 1.0f) * closed;
        }
        /* Each pad's mean record normal force this step, for the separated records' slack below. */
        double pad_mean[2] = {0.0, 0.0};
        int pad_records[2] = {0, 0};
        for (int32_t i = 0; i < n && i < MAX_CONTACTS; ++i)
            for (int k = 0; k < 2; ++k)
                if (cp[i].shape.index1 == s.shapes[k].index1) {
                    pad_mean[k] += cp[i].normal_force;
                    pad_records[k]++;
                }
        for (int k = 0; k < 2; ++k) pad_mean[k] /= pad_records[k] > 0 ? pad_records[k] : 1;
        for (int32_t i = 0; i < n && i < MAX_CONTACTS; ++i) {
            const dfm_contact_point* p = &cp[i];
            int pad = p->shape.index1 == s.shapes[0].index1 ? 0 : (p->shape.index1 == s.shapes[1].index1 ? 1 : -1);
            CHECK(pad >= 0 && p->shape.world_tag == s.shapes[0].world_tag, "record %d names shape %d", i,
                  p->shape.index1);
            CHECK(p->body.index1 == s.body.index1 && p->body.generation == s.body.generation, "record %d body", i);
            CHECK(p->kind >= DFM_CONTACT_KIND_PARTICLE && p->kind <= DFM_CONTACT_KIND_FACE, "record %d kind %d", i,
                  p->kind);
            float wsum = 0.0f;
            for (int j = 0; j < 3; ++j) {
                int used = j < p->kind;
                CHECK(used ? (p->vertices[j] >= 0 && p->vertices[j] < s.vertex_count) : p->vertices[j] == -1,
                      "record %d vertex %d = %d", i, j, p->vertices[j]);
                if (used) wsum += p->weights[j];
            }
            CHECK(fabsf(wsum - 1.0f) < 1e-4f, "record %d weights sum to %g", i, wsum);
            float nl = sqrtf(p->normal[0] * p->normal[0] + p->normal[1] * p->normal[1] + p->normal[2] * p->normal[2]);
            CHECK(fabsf(nl - 1.0f) < 1e-3f, "record %d normal length %g", i, nl);
            CHECK(p->normal_force >= 0.0f, "record %d pulls: normal force %g N", i, p->normal_force);
            float tn = p->friction_force[0] * p->normal[0] + p->friction_force[1] * p->normal[1] +
                       p->friction_force[2] * p->normal[2];
            float tl = sqrtf(p->friction_force[0] * p->friction_force[0] + p->friction_force[1] * p->friction_force[1] +
                             p->friction_force[2] * p->friction_force[2]);
            CHECK(fabsf(tn) <= 1e-3f * (tl + 1e-6f) + 1e-6f, "record %d friction has a normal part %g N", i, tn);
            /* Known weakness (issue 13): the projection moves an edge or face record's corners one
             * after another, so a record can separate after its friction was applied and report
             * friction with no normal force: mu times the normal force it had one corner move
             * earlier, which a corner move (a small part of the contact layer) cuts to zero only
             * for a record carrying a small part of a typical record's load. Slack: mu times 1%
             * of the pad's mean record normal force this step (~70 mN at the 400 N squeeze).
             * The residues are rounding-chaotic: 4.7 to 27 mN between atan2 implementations and
             * rounding changes (docs/perf.md, issue 18 slices 1 and 3). */
            const double slack = pad >= 0 ? 0.01 * mu * pad_mean[pad] : 0.0;
            CHECK(tl <= 1.02f * mu * p->normal_force + slack, "record %d friction %g N above mu f_n = %g N + %g N", i,
                  tl, mu * p->normal_force, slack);
            if (pad >= 0) {
                /* on the pad's surface: the inner face (|y - pad y| = half thickness) or its rim */
                float off = fabsf(p->point[1] - pad_y[pad]);
                CHECK(off <= half_thickness + 1e-4f, "record %d point %g m from the pad's mid-plane", i, off);
                pad_normal[pad] += p->normal_force;
            }
            ++checked;
        }
        /* The shape reactions read each pad's own push (issue 13, finding 6): the force on pad k
         * points away from the cloth (-y for pad 0, +y for pad 1), far above the strip's weight,
         * and near the squeeze its records report. Not equal: reactions average the step's 4
         * advances, records are the last one's, and the squeeze swings between advances (the
         * worst difference is printed; 50% is asserted). */
        float react[6];
        CHECK_OK(w, dfm_world_get_shape_reactions(w, s.shapes, 2, react, NULL, 0));
        for (int k = 0; k < 2; ++k) {
            double outward = (k == 0 ? -1.0 : 1.0) * react[3 * k + 1],
                   rel = fabs(outward - pad_normal[k]) / pad_normal[k];
            CHECK(outward > 10.0 * s.weight && rel <= 0.5, "step %d: pad %d reaction %.3f N outward, squeeze %.3f N",
                  step, k, outward, pad_normal[k]);
            if (rel > worst_reaction) worst_reaction = rel;
        }
        for (int k = 0; k < 2; ++k) {
            if (pad_normal[k] < squeeze_min) squeeze_min = pad_normal[k];
            if (pad_normal[k] > squeeze_max) squeeze_max = pad_normal[k];
        }
        /* Not asserted: the symmetric squeeze reads asymmetric pads (measured down to 0.71 on the
         * GPU, 416 vs 589 N; the post-iteration friction projection breaks the symmetry), a known
         * defect of issue 13, printed so that its fix shows. */
        double ratio = pad_normal[0] > pad_normal[1] ? pad_normal[1] / pad_normal[0] : pad_normal[0] / pad_normal[1];
        if (ratio < worst_ratio) worst_ratio = ratio;
    }
    CHECK(squeeze_min > 10.0 * s.weight, "a pad's squeeze %.3f N is not far above the strip's weight %.3f N",
          squeeze_min, s.weight);
    /* count only, then a truncated copy */
    int32_t total = -1, again = -1;
    CHECK_OK(w, dfm_world_get_contacts(w, NULL, 0, 0, &total));
    CHECK(total == n, "count-only query: %d, full query %d", total, n);
    CHECK_OK(w, dfm_world_get_contacts(w, cp, 1, (int32_t)sizeof(dfm_contact_point), &again));
    CHECK(again == total, "truncated query reports %d of %d", again, total);
    /* bad arguments */
    CHECK(dfm_world_get_contacts(w, cp, 4, 3, &again) == DFM_ERROR_STRUCT_SIZE, "element size 3 accepted");
    CHECK(dfm_world_get_contacts(w, cp, 4, (int32_t)sizeof(dfm_contact_point) + 4, &again) == DFM_ERROR_STRUCT_SIZE,
          "a larger element size accepted");
    CHECK(dfm_world_get_contacts(w, cp, 4, (int32_t)sizeof(dfm_contact_point), NULL) == DFM_ERROR_NULL_POINTER,
          "NULL out_count accepted");
    CHECK(dfm_world_get_contacts(w, NULL, 4, (int32_t)sizeof(dfm_contact_point), &again) == DFM_ERROR_NULL_POINTER,
          "NULL out with capacity 4 accepted");
    CHECK(dfm_world_get_contacts(w, cp, -1, (int32_t)sizeof(dfm_contact_point), &again) == DFM_ERROR_INVALID_COUNT,
          "negative capacity accepted");
    CHECK(dfm_world_get_contacts(NULL, cp, 4, (int32_t)sizeof(dfm_contact_point), &again) == DFM_ERROR_NULL_POINTER,
          "NULL world accepted");
    /* after a topology change the last step's records are not reported (they name a gone layout) */
    CHECK_OK(w, dfm_world_remove_shape(w, s.shapes[1]));
    CHECK_OK(w, dfm_world_get_contacts(w, cp, MAX_CONTACTS, (int32_t)sizeof(dfm_contact_point), &again));
    CHECK(again == 0, "%d contacts reported after a shape was removed", again);
    printf("contact query: %d records checked over steps 25-69; pad squeeze %.2f..%.2f N per pad (strip weight "
           "%.4f N); smallest pad/pad squeeze ratio %.3f (known asymmetry, not asserted); pad reactions within %.2g "
           "of their squeeze\n",
           checked, squeeze_min, squeeze_max, s.weight, worst_ratio, worst_reaction);
    dfm_world_destroy(w);
    return dfm_test_finish("test_contact_query");
}
