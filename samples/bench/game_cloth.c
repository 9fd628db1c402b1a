/// @file game_cloth.c
/// The game-cloth workload (workload.h): per environment one res x res-vertex cloth of 0.3 m,
/// every vertex dynamic, dropped flat from 1 cm above a 4 cm sphere whose centre lies on the top
/// of a table box; it drapes over the sphere and comes to rest on the table. The shapes never
/// move. This is the scene a game engine runs on its CPU at 60 Hz frames (issue 18); at
/// `--hz 240` it is the 24 x 24 "cloth resting on a box" measurement.
#include <dfm_scenes.h>
#include <stdlib.h>

#include "workload.h"

#define GAME_TABLE_HALF 0.25f /* table box half extents along x and y, m (0.5 m square top at z = 0) */
#define GAME_SPHERE_R 0.04f   /* the sphere's radius, m; its centre on the table top */
#define GAME_SPHERE_DX 0.05f  /* the sphere's offset from the cloth's centre along x, m */
#define GAME_CLOTH_SIZE 0.3f  /* the cloth's side, m */
#define GAME_DROP 0.01f       /* the cloth's height above the sphere's top at the start, m */

dfm_result bench_workload_body_z(bench_workload* w, double* min_z, double* centroid_z) {
    float* x = (float*)malloc(sizeof(float) * 3 * (size_t)w->vertex_count);
    if (!x) return DFM_ERROR_OUT_OF_HOST_MEMORY;
    dfm_result r = dfm_body_get_positions(w->world, w->bodies[0], 0, w->vertex_count, x, 0);
    double lo = 1e30, sum = 0.0;
    for (int32_t i = 0; r == DFM_OK && i < w->vertex_count; ++i) {
        lo = x[3 * i + 2] < lo ? x[3 * i + 2] : lo;
        sum += x[3 * i + 2];
    }
    free(x);
    *min_z = lo;
    *centroid_z = sum / (double)w->vertex_count;
    return r;
}

dfm_result bench_game_cloth_add_env(bench_workload* w, int32_t e, float ox) {
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.environment = e;
    const float z = GAME_SPHERE_R + cd.contact_radius + GAME_DROP;
    const float origin[3] = {ox - 0.5f * GAME_CLOTH_SIZE, -0.5f * GAME_CLOTH_SIZE, z};
    const float au[3] = {GAME_CLOTH_SIZE, 0, 0}, av[3] = {0, GAME_CLOTH_SIZE, 0};
    dfm_scene_grid g;
    dfm_result r = dfm_scene_grid_make(w->res, w->res, origin, au, av, &g);
    if (r == DFM_OK) r = dfm_scene_add_cloth(w->world, &g, cd, &w->bodies[e]);
    dfm_scene_grid_free(&g);
    if (r != DFM_OK) return r;
    w->contact_radius = cd.contact_radius;
    dfm_shape_def table = dfm_scene_box_def(GAME_TABLE_HALF, GAME_TABLE_HALF, 0.02f);
    dfm_shape_def sphere = dfm_scene_sphere_def(GAME_SPHERE_R);
    table.environment = sphere.environment = e;
    const dfm_shape_def* defs[2] = {&table, &sphere};
    for (int k = 0; k < 2; ++k) {
        dfm_shape_def d = *defs[k];
        d.host_body = (uint64_t)(2 * e + k + 1);
        r = dfm_world_add_shape(w->world, &d, &w->shapes[2 * e + k]);
        if (r != DFM_OK) return r;
    }
    w->states[2 * e + 0] = dfm_scene_state(ox, 0, -0.02f, NULL);
    w->states[2 * e + 1] = dfm_scene_state(ox + GAME_SPHERE_DX, 0, 0, NULL);
    return DFM_OK;
}
