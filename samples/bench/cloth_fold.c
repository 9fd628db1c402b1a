/// @file cloth_fold.c
/// The cloth-fold workload (workload.h, issue 16): per environment one cloth of res x 2 (res / 2)
/// vertices, 0.3 m wide, already folded onto itself as the fold test
/// (tests/physics/test_physics_deform_contact.c `fold`) builds it (scenes/dfm_scene_fold.h): rows
/// 0..h-1 (h = res / 2) are the lower half lying flat 6 mm above a table box going +y, rows h..2h-1
/// the upper half running back over it 2 cm higher (the fold is the strip between rows h-1 and h).
/// Every vertex is dynamic: the upper half falls onto the lower one and both come to rest on the
/// table. Deformable contact is on (world deformable_contact_radius 5 mm, the test's radius); the body's
/// self_collision is 1, or 0 with --no-self-collision (the identical scene, for the ratio). The CPU
/// backend by default; --backend cuda runs it on CUDA (issue 16's host-assisted first slice).
#include <dfm_scenes.h>
#include <stdlib.h>

#include "workload.h"

dfm_result bench_cloth_fold_add_env(bench_workload* w, int32_t e, float ox, int32_t self_collision) {
    dfm_scene_grid fold;
    dfm_result r = dfm_scene_fold_make(w->res, w->res / 2, ox, &fold);
    if (r != DFM_OK) return r;
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.self_collision = self_collision;
    cd.environment = e;
    r = dfm_scene_add_cloth(w->world, &fold, cd, &w->bodies[e]);
    if (e == 0 && r == DFM_OK) { /* environment 0's mesh, for the physical check */
        w->fold = fold;
        fold.positions = NULL;
        fold.triangles = NULL;
    }
    dfm_scene_grid_free(&fold);
    if (r != DFM_OK) return r;
    w->contact_radius = cd.contact_radius;
    dfm_shape_def table = dfm_scene_table_def();
    table.environment = e;
    table.host_body = (uint64_t)(e + 1);
    r = dfm_world_add_shape(w->world, &table, &w->shapes[e]);
    w->states[e] = dfm_scene_state(ox, 0, DFM_SCENE_TABLE_Z, NULL);
    return r;
}

dfm_result bench_cloth_fold_min_signed_distance(bench_workload* w, double* out) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)w->vertex_count);
    if (!x) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    dfm_result r = dfm_body_get_positions(w->world, w->bodies[0], 0, w->vertex_count, x, 0);
    /* upper-half vertices away from the fold row against every lower-half triangle: O(upper
     * vertices x lower triangles), once at the end */
    *out = r == DFM_OK ? dfm_scene_fold_min_distance(&w->fold, x) : 1e30;
    free(x);
    return r;
}
