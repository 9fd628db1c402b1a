/// Downstream program: creates a world, adds a cloth, steps once (checks the installed ABI).
#include <dfm/dfm.h>
#include <stdio.h>

int main(void) {
    dfm_world* w = NULL;
    if (dfm_world_create(DFM_ABI_VERSION, NULL, &w) != DFM_OK) return 1;
    float x[12];
    int32_t t[6];
    const float o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
    dfm_cloth_grid_generate(2, 2, o, u, v, x, t);
    dfm_cloth_def cd = dfm_cloth_def_default();
    cd.positions = x;
    cd.vertex_count = 4;
    cd.triangles = t;
    cd.triangle_count = 2;
    dfm_body_id id;
    if (dfm_world_add_cloth(w, &cd, &id) != DFM_OK || dfm_world_step(w, 0.01f) != DFM_OK) return 1;
    printf("consumer: dfm %s works\n", dfm_version());
    dfm_world_destroy(w);
    return 0;
}
