/// @file mesh_read.c
/// See mesh_read.h.
#include "mesh_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dfm_pyb_mesh_free(dfm_pyb_mesh* m) {
    free(m->vertices);
    free(m->triangles);
    memset(m, 0, sizeof(*m));
}

void dfm_pyb_obj_free(dfm_pyb_obj* o) {
    free(o->vertices);
    free(o->triangles);
    free(o->part_first);
    memset(o, 0, sizeof(*o));
}

uint64_t dfm_pyb_mesh_hash(const dfm_pyb_mesh* m) {
    uint64_t h = 1469598103934665603ull;
    const unsigned char* p = (const unsigned char*)m->vertices;
    for (size_t i = 0; i < (size_t)m->vertex_count * 3 * sizeof(float); ++i) h = (h ^ p[i]) * 1099511628211ull;
    p = (const unsigned char*)m->triangles;
    for (size_t i = 0; i < (size_t)m->triangle_count * 3 * sizeof(int32_t); ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* ---- convex hull ------------------------------------------------------------------------- */

typedef struct hull_face {
    int32_t v[3]; /* counter-clockwise seen from outside */
    double n[3];  /* outward unit normal */
    double d;     /* plane: n . x = d */
    int alive;
} hull_face;

static const double* pt(const double* p, int32_t stride, int32_t i) { return p + (size_t)i * (size_t)stride; }

static void sub3(const double* a, const double* b, double* out) {
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

static void cross3(const double* a, const double* b, double* out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// Sets the face's plane; returns 0 for a degenerate face.
static int face_plane(hull_face* f, const double* p, int32_t stride) {
    double e1[3], e2[3], n[3];
    sub3(pt(p, stride, f->v[1]), pt(p, stride, f->v[0]), e1);
    sub3(pt(p, stride, f->v[2]), pt(p, stride, f->v[0]), e2);
    cross3(e1, e2, n);
    const double len = sqrt(dot3(n, n));
    if (!(len > 0.0)) return 0;
    for (int a = 0; a < 3; ++a) f->n[a] = n[a] / len;
    f->d = dot3(f->n, pt(p, stride, f->v[0]));
    f->alive = 1;
    return 1;
}

typedef struct face_array {
    hull_face* f;
    int32_t count, capacity;
} face_array;

static int push_face(face_array* fa, int32_t a, int32_t b, int32_t c, const double* p, int32_t stride) {
    if (fa->count == fa->capacity) {
        const int32_t cap = fa->capacity ? 2 * fa->capacity : 64;
        hull_face* g = (hull_face*)realloc(fa->f, (size_t)cap * sizeof(*g));
        if (!g) return -1;
        fa->f = g;
        fa->capacity = cap;
    }
    hull_face* f = &fa->f[fa->count];
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    if (!face_plane(f, p, stride)) f->alive = 0; /* a sliver on the horizon: dropped, reported by dfm if open */
    ++fa->count;
    return 0;
}

int dfm_pyb_convex_hull(const double* p, int32_t count, int32_t stride, dfm_pyb_mesh* out, char* why, size_t why_size) {
    memset(out, 0, sizeof(*out));
    if (count < 4) {
        snprintf(why, why_size, "a convex hull of %d points (at least 4 needed)", count);
        return 0;
    }
    /* Tolerance from the size of the point set: points this close to a face plane are on it (the
       hull of a box's 8 corners has 12 triangles, not slivers). */
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) lo[a] = hi[a] = p[a];
    for (int32_t i = 1; i < count; ++i)
        for (int a = 0; a < 3; ++a) {
            const double x = pt(p, stride, i)[a];
            if (!isfinite(x)) {
                snprintf(why, why_size, "hull point %d is not finite", i);
                return 0;
            }
            if (x < lo[a]) lo[a] = x;
            if (x > hi[a]) hi[a] = x;
        }
    double ext[3];
    sub3(hi, lo, ext);
    const double size = sqrt(dot3(ext, ext));
    const double eps = 1e-7 * size;
    /* Initial tetrahedron: two far-apart points, the farthest from their line, the farthest from
       their plane. */
    int32_t i0 = 0, i1 = -1, i2 = -1, i3 = -1;
    double best = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        double d[3];
        sub3(pt(p, stride, i), pt(p, stride, i0), d);
        if (dot3(d, d) > best) best = dot3(d, d), i1 = i;
    }
    if (i1 < 0 || sqrt(best) <= eps) {
        snprintf(why, why_size, "the %d hull points coincide", count);
        return 0;
    }
    double axis[3];
    sub3(pt(p, stride, i1), pt(p, stride, i0), axis);
    best = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        double d[3], c[3];
        sub3(pt(p, stride, i), pt(p, stride, i0), d);
        cross3(axis, d, c);
        if (dot3(c, c) > best) best = dot3(c, c), i2 = i;
    }
    if (i2 < 0 || sqrt(best) / sqrt(dot3(axis, axis)) <= eps) {
        snprintf(why, why_size, "the %d hull points lie on a line (no volume)", count);
        return 0;
    }
    double e2[3], n0[3];
    sub3(pt(p, stride, i2), pt(p, stride, i0), e2);
    cross3(axis, e2, n0);
    const double n0len = sqrt(dot3(n0, n0));
    best = 0.0;
    for (int32_t i = 0; i < count; ++i) {
        double d[3];
        sub3(pt(p, stride, i), pt(p, stride, i0), d);
        const double h = fabs(dot3(d, n0)) / n0len;
        if (h > best) best = h, i3 = i;
    }
    if (i3 < 0 || best <= eps) {
        snprintf(why, why_size, "the %d hull points are coplanar (no volume)", count);
        return 0;
    }
    face_array fa = {NULL, 0, 0};
    int32_t* edges = NULL; /* scratch: directed edges of the visible faces */
    int32_t edge_capacity = 0;
    {
        double d[3];
        sub3(pt(p, stride, i3), pt(p, stride, i0), d);
        const int flip = dot3(d, n0) > 0.0; /* i3 above (i0, i1, i2): that face points the other way */
        const int32_t a = i0, b = flip ? i2 : i1, c = flip ? i1 : i2;
        if (push_face(&fa, a, b, c, p, stride) || push_face(&fa, a, i3, b, p, stride) ||
            push_face(&fa, b, i3, c, p, stride) || push_face(&fa, c, i3, a, p, stride))
            goto oom;
    }
    for (int32_t i = 0; i < count; ++i) {
        if (i == i0 || i == i1 || i == i2 || i == i3) continue;
        const double* x = pt(p, stride, i);
        int32_t visible = 0;
        for (int32_t f = 0; f < fa.count; ++f) {
            hull_face* h = &fa.f[f];
            if (h->alive && dot3(h->n, x) - h->d > eps) {
                h->alive = 2; /* visible from x */
                ++visible;
            }
        }
        if (visible == 0) continue; /* inside or on the hull */
        if (3 * visible > edge_capacity) {
            int32_t* g = (int32_t*)realloc(edges, (size_t)(3 * visible) * 2 * sizeof(int32_t));
            if (!g) goto oom;
            edges = g;
            edge_capacity = 3 * visible;
        }
        int32_t ne = 0;
        for (int32_t f = 0; f < fa.count; ++f)
            if (fa.f[f].alive == 2)
                for (int k = 0; k < 3; ++k) {
                    edges[2 * ne] = fa.f[f].v[k];
                    edges[2 * ne + 1] = fa.f[f].v[(k + 1) % 3];
                    ++ne;
                }
        for (int32_t f = 0; f < fa.count; ++f)
            if (fa.f[f].alive == 2) fa.f[f].alive = 0;
        /* The horizon: visible edges whose twin is not visible. Each gets a new face to x, in the
           dead face's winding. */
        for (int32_t e = 0; e < ne; ++e) {
            int twin = 0;
            for (int32_t g = 0; g < ne && !twin; ++g)
                twin = edges[2 * g] == edges[2 * e + 1] && edges[2 * g + 1] == edges[2 * e];
            if (!twin && push_face(&fa, edges[2 * e], edges[2 * e + 1], i, p, stride)) goto oom;
        }
        { /* compact the dead faces (as cheap as the visibility pass) */
            int32_t k = 0;
            for (int32_t f = 0; f < fa.count; ++f)
                if (fa.f[f].alive) fa.f[k++] = fa.f[f];
            fa.count = k;
        }
    }
    free(edges);
    edges = NULL;
    /* Keep the corners only, renumbered. */
    int32_t* remap = (int32_t*)malloc((size_t)count * sizeof(int32_t));
    int32_t nt = 0;
    for (int32_t f = 0; f < fa.count; ++f) nt += fa.f[f].alive ? 1 : 0;
    out->triangles = (int32_t*)malloc((size_t)(nt ? nt : 1) * 3 * sizeof(int32_t));
    if (!remap || !out->triangles) {
        free(remap);
        goto oom;
    }
    for (int32_t i = 0; i < count; ++i) remap[i] = -1;
    int32_t nv = 0;
    for (int32_t f = 0; f < fa.count; ++f)
        if (fa.f[f].alive)
            for (int k = 0; k < 3; ++k)
                if (remap[fa.f[f].v[k]] < 0) remap[fa.f[f].v[k]] = nv++;
    out->vertices = (float*)malloc((size_t)nv * 3 * sizeof(float));
    if (!out->vertices) {
        free(remap);
        goto oom;
    }
    for (int32_t i = 0; i < count; ++i)
        if (remap[i] >= 0)
            for (int a = 0; a < 3; ++a) out->vertices[3 * remap[i] + a] = (float)pt(p, stride, i)[a];
    int32_t t = 0;
    for (int32_t f = 0; f < fa.count; ++f)
        if (fa.f[f].alive) {
            for (int k = 0; k < 3; ++k) out->triangles[3 * t + k] = remap[fa.f[f].v[k]];
            ++t;
        }
    out->vertex_count = nv;
    out->triangle_count = nt;
    free(remap);
    free(fa.f);
    return 1;
oom:
    free(edges);
    free(fa.f);
    dfm_pyb_mesh_free(out);
    snprintf(why, why_size, "out of host memory for the convex hull of %d points", count);
    return 0;
}

/* ---- welding ---------------------------------------------------------------------------- */

static const double* g_sort_vertices; /* qsort has no context argument; used on the calling thread only */

static int cmp_vertex(const void* a, const void* b) {
    const double* x = g_sort_vertices + 3 * (size_t)(*(const int32_t*)a);
    const double* y = g_sort_vertices + 3 * (size_t)(*(const int32_t*)b);
    for (int k = 0; k < 3; ++k) {
        if (x[k] < y[k]) return -1;
        if (x[k] > y[k]) return 1;
    }
    return 0;
}

int dfm_pyb_mesh_weld(const double* v, int32_t nv, const int32_t* tri, int32_t nt, dfm_pyb_mesh* out, char* why,
                      size_t why_size) {
    memset(out, 0, sizeof(*out));
    int32_t* order = (int32_t*)malloc((size_t)(nv ? nv : 1) * sizeof(int32_t));
    int32_t* first = (int32_t*)malloc((size_t)(nv ? nv : 1) * sizeof(int32_t)); /* vertex -> its weld representative */
    int32_t* remap = (int32_t*)malloc((size_t)(nv ? nv : 1) * sizeof(int32_t));
    out->triangles = (int32_t*)malloc((size_t)(nt ? nt : 1) * 3 * sizeof(int32_t));
    out->vertices = (float*)malloc((size_t)(nv ? nv : 1) * 3 * sizeof(float));
    if (!order || !first || !remap || !out->triangles || !out->vertices) {
        free(order);
        free(first);
        free(remap);
        dfm_pyb_mesh_free(out);
        snprintf(why, why_size, "out of host memory welding a mesh of %d vertices", nv);
        return 0;
    }
    for (int32_t i = 0; i < nv; ++i) order[i] = i;
    g_sort_vertices = v;
    qsort(order, (size_t)nv, sizeof(int32_t), cmp_vertex);
    for (int32_t k = 0; k < nv; ++k)
        first[order[k]] = (k > 0 && cmp_vertex(&order[k - 1], &order[k]) == 0) ? first[order[k - 1]] : order[k];
    for (int32_t i = 0; i < nv; ++i) remap[i] = -1;
    int32_t t = 0, n = 0;
    for (int32_t f = 0; f < nt; ++f) {
        const int32_t a = first[tri[3 * f]], b = first[tri[3 * f + 1]], c = first[tri[3 * f + 2]];
        if (a == b || b == c || a == c) continue;
        const int32_t corner[3] = {a, b, c};
        for (int k = 0; k < 3; ++k) {
            if (remap[corner[k]] < 0) {
                remap[corner[k]] = n;
                for (int x = 0; x < 3; ++x) out->vertices[3 * n + x] = (float)v[3 * (size_t)corner[k] + x];
                ++n;
            }
            out->triangles[3 * t + k] = remap[corner[k]];
        }
        ++t;
    }
    free(order);
    free(first);
    free(remap);
    out->vertex_count = n;
    out->triangle_count = t;
    if (t == 0) {
        dfm_pyb_mesh_free(out);
        snprintf(why, why_size, "the mesh has no triangle with three distinct corners");
        return 0;
    }
    return 1;
}

/* ---- Wavefront OBJ -------------------------------------------------------------------------- */

typedef struct grow {
    void* data;
    size_t count, capacity, size;
} grow;

static void* grow_push(grow* g) {
    if (g->count == g->capacity) {
        const size_t cap = g->capacity ? 2 * g->capacity : 256;
        void* d = realloc(g->data, cap * g->size);
        if (!d) return NULL;
        g->data = d;
        g->capacity = cap;
    }
    return (char*)g->data + g->size * g->count++;
}

int dfm_pyb_obj_read(const char* path, const double scale[3], dfm_pyb_obj* out, char* why, size_t why_size) {
    memset(out, 0, sizeof(*out));
    FILE* f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_size, "cannot open the mesh file \"%s\"", path);
        return 0;
    }
    grow vs = {NULL, 0, 0, 3 * sizeof(double)}, ts = {NULL, 0, 0, 3 * sizeof(int32_t)},
         parts = {NULL, 0, 0, sizeof(int32_t)};
    char line[4096];
    int ok = 1, line_no = 0;
    int32_t corners[256];
    while (ok && fgets(line, sizeof(line), f)) {
        ++line_no;
        char* s = line;
        while (*s == ' ' || *s == '\t') ++s;
        if (s[0] == 'v' && (s[1] == ' ' || s[1] == '\t')) {
            double* x = (double*)grow_push(&vs);
            if (!x) {
                ok = 0;
                snprintf(why, why_size, "out of host memory reading \"%s\"", path);
                break;
            }
            if (sscanf(s + 2, "%lf %lf %lf", &x[0], &x[1], &x[2]) != 3) {
                snprintf(why, why_size, "%s line %d: a vertex without 3 coordinates", path, line_no);
                ok = 0;
                break;
            }
            for (int a = 0; a < 3; ++a) x[a] *= scale[a];
        } else if ((s[0] == 'o' || s[0] == 'g') && (s[1] == ' ' || s[1] == '\t' || s[1] == '\n' || s[1] == '\r')) {
            /* a new part starts here, unless the current one has no faces yet (tinyobj's rule) */
            const int32_t last = parts.count ? ((int32_t*)parts.data)[parts.count - 1] : -1;
            if (last != (int32_t)ts.count) {
                int32_t* q = (int32_t*)grow_push(&parts);
                if (!q) {
                    ok = 0;
                    snprintf(why, why_size, "out of host memory reading \"%s\"", path);
                    break;
                }
                *q = (int32_t)ts.count;
            }
        } else if (s[0] == 'f' && (s[1] == ' ' || s[1] == '\t')) {
            int nc = 0;
            char* tok = strtok(s + 2, " \t\r\n");
            while (tok && ok) {
                long idx = strtol(tok, NULL, 10);
                if (idx < 0)
                    idx = (long)vs.count + idx; /* relative index */
                else
                    idx -= 1;
                if (idx < 0 || idx >= (long)vs.count) {
                    snprintf(why, why_size, "%s line %d: face index %s is out of range (%zu vertices so far)", path,
                             line_no, tok, vs.count);
                    ok = 0;
                } else if (nc < (int)(sizeof(corners) / sizeof(corners[0]))) {
                    corners[nc++] = (int32_t)idx;
                }
                tok = strtok(NULL, " \t\r\n");
            }
            if (!ok) break;
            if (parts.count == 0) {
                int32_t* q = (int32_t*)grow_push(&parts);
                if (!q) {
                    ok = 0;
                    snprintf(why, why_size, "out of host memory reading \"%s\"", path);
                    break;
                }
                *q = 0;
            }
            for (int k = 2; k < nc; ++k) { /* fan the polygon */
                int32_t* t = (int32_t*)grow_push(&ts);
                if (!t) {
                    ok = 0;
                    snprintf(why, why_size, "out of host memory reading \"%s\"", path);
                    break;
                }
                t[0] = corners[0];
                t[1] = corners[k - 1];
                t[2] = corners[k];
            }
        }
    }
    fclose(f);
    if (ok && ts.count == 0) {
        snprintf(why, why_size, "the mesh file \"%s\" has no faces (read as Wavefront OBJ)", path);
        ok = 0;
    }
    int32_t* end = ok ? (int32_t*)grow_push(&parts) : NULL;
    if (ok && !end) {
        snprintf(why, why_size, "out of host memory reading \"%s\"", path);
        ok = 0;
    }
    if (!ok) {
        free(vs.data);
        free(ts.data);
        free(parts.data);
        return 0;
    }
    *end = (int32_t)ts.count;
    out->vertices = (double*)vs.data;
    out->vertex_count = (int32_t)vs.count;
    out->triangles = (int32_t*)ts.data;
    out->triangle_count = (int32_t)ts.count;
    out->part_first = (int32_t*)parts.data;
    out->part_count = (int32_t)parts.count - 1;
    /* drop empty trailing parts (a `g` after the last face) */
    while (out->part_count > 1 && out->part_first[out->part_count - 1] == out->triangle_count) --out->part_count;
    out->part_first[out->part_count] = out->triangle_count;
    return 1;
}

/* ---- closedness -------------------------------------------------------------------------- */

static int cmp_u64(const void* a, const void* b) {
    const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

int dfm_pyb_mesh_check_closed(const dfm_pyb_mesh* m, char* why, size_t why_size) {
    const size_t ne = (size_t)m->triangle_count * 3;
    uint64_t* e = (uint64_t*)malloc((ne ? ne : 1) * sizeof(uint64_t));
    if (!e) {
        snprintf(why, why_size, "out of host memory checking a mesh of %d triangles", m->triangle_count);
        return 0;
    }
    for (int32_t t = 0; t < m->triangle_count; ++t)
        for (int k = 0; k < 3; ++k)
            e[3 * (size_t)t + k] = ((uint64_t)(uint32_t)m->triangles[3 * t + k] << 32) |
                                   (uint32_t)m->triangles[3 * t + (k + 1) % 3];
    qsort(e, ne, sizeof(uint64_t), cmp_u64);
    int ok = 1;
    for (size_t i = 0; i < ne && ok; ++i) {
        const uint32_t a = (uint32_t)(e[i] >> 32), b = (uint32_t)e[i];
        if (i + 1 < ne && e[i + 1] == e[i]) {
            snprintf(why, why_size,
                     "edge %u-%u is used twice in the same direction (the triangles are not consistently oriented, "
                     "or more than two meet at it)",
                     a, b);
            ok = 0;
        } else {
            const uint64_t twin = ((uint64_t)b << 32) | a;
            if (!bsearch(&twin, e, ne, sizeof(uint64_t), cmp_u64)) {
                snprintf(why, why_size, "edge %u-%u has no opposite edge (the mesh is open; dfm needs a closed one)", a,
                         b);
                ok = 0;
            }
        }
    }
    free(e);
    return ok;
}
