/// @file obj_writer.c
/// See obj_writer.h.
#include "obj_writer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int dfm_sample_write_obj(const char* path, const float* p, int32_t nv, const int32_t* tris, int32_t nt) {
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "# dfm sample output: %d vertices, %d triangles (m)\n", nv, nt);
    for (int32_t i = 0; i < nv; ++i) fprintf(f, "v %.6f %.6f %.6f\n", p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    for (int32_t t = 0; t < nt; ++t)
        fprintf(f, "f %d %d %d\n", tris[3 * t] + 1, tris[3 * t + 1] + 1, tris[3 * t + 2] + 1);
    return fclose(f) == 0 ? 0 : -1;
}

int dfm_sample_make_dir(const char* path) {
    char buf[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(buf)) return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
            buf[i] = c;
        }
    }
    return 0;
}

int dfm_sample_write_boxes_obj(const char* path, const float* c, const float* he, int32_t n) {
    static const int faces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                     {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "# dfm sample output: %d boxes (m)\n", n);
    for (int32_t b = 0; b < n; ++b)
        for (int k = 0; k < 8; ++k)
            fprintf(f, "v %.6f %.6f %.6f\n", c[3 * b] + ((k & 1) ? he[3 * b] : -he[3 * b]),
                    c[3 * b + 1] + ((k & 2) ? he[3 * b + 1] : -he[3 * b + 1]),
                    c[3 * b + 2] + ((k & 4) ? he[3 * b + 2] : -he[3 * b + 2]));
    for (int32_t b = 0; b < n; ++b)
        for (int t = 0; t < 12; ++t)
            fprintf(f, "f %d %d %d\n", 8 * b + faces[t][0] + 1, 8 * b + faces[t][1] + 1, 8 * b + faces[t][2] + 1);
    return fclose(f) == 0 ? 0 : -1;
}
