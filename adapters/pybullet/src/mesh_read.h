/// @file mesh_read.h
/// Closed triangle meshes for dfm's mesh SDF shape out of what pybullet gives: a convex hull of a
/// point set (pybullet's C API returns the hull points of a convex GEOM_MESH, not its faces), a
/// Wavefront OBJ file read here (a URDF mesh's file name and scale are reported, its triangles are
/// not), and vertex welding (an OBJ lists a vertex once per face corner in some exporters; dfm needs
/// shared vertices to see a closed mesh). The C counterpart of the Bullet adapter's mesh_extract
/// (which has Bullet's btConvexHullComputer; this plugin links no Bullet code). docs/pybullet.md.
#ifndef DFM_PYB_MESH_READ_H
#define DFM_PYB_MESH_READ_H

#include <stddef.h>
#include <stdint.h>

/// An indexed triangle mesh owned by its holder (free with dfm_pyb_mesh_free).
typedef struct dfm_pyb_mesh {
    float* vertices; ///< 3 floats per vertex, m.
    int32_t vertex_count;
    int32_t* triangles; ///< 3 indices per triangle, counter-clockwise seen from outside.
    int32_t triangle_count;
} dfm_pyb_mesh;

/// A Wavefront OBJ file: its vertices (scaled) and triangles (polygons fanned), in parts split at
/// each `o` or `g` line as pybullet's tinyobj loader splits shapes (pybullet makes one convex hull
/// per part).
typedef struct dfm_pyb_obj {
    double* vertices; ///< 3 per vertex, times the scale.
    int32_t vertex_count;
    int32_t* triangles; ///< 3 per triangle, indices into vertices.
    int32_t triangle_count;
    int32_t* part_first; ///< part_first[p]: first triangle of part p; part_first[part_count] = triangle_count.
    int32_t part_count;
} dfm_pyb_obj;

/// Frees the mesh's arrays and zeroes it.
void dfm_pyb_mesh_free(dfm_pyb_mesh* m);

/// Frees the OBJ's arrays and zeroes it.
void dfm_pyb_obj_free(dfm_pyb_obj* o);

/// Triangulates the convex hull of `count` points (xyz doubles, `stride` doubles apart) into `out`
/// (incremental hull; points within 1e-7 of the point set's size of a face count as on it; a point
/// that was a corner when it came and ends on a face or edge stays a vertex there: the surface is
/// the hull's). Returns 1; 0 with the reason in `why` when the points span no volume or memory
/// runs out.
int dfm_pyb_convex_hull(const double* points, int32_t count, int32_t stride, dfm_pyb_mesh* out, char* why,
                        size_t why_size);

/// Reads the OBJ file at `path` with each coordinate multiplied by scale[axis]. Returns 1; 0 with
/// the reason in `why` (unreadable file, an index out of range, no faces).
int dfm_pyb_obj_read(const char* path, const double scale[3], dfm_pyb_obj* out, char* why, size_t why_size);

/// Builds a mesh from `vertex_count` vertices (xyz doubles) and `triangle_count` triangles: vertices
/// with identical coordinates welded, unused vertices and triangles with a repeated corner dropped.
/// Indices must be in range (the caller checks). Returns 1; 0 with the reason in `why`.
int dfm_pyb_mesh_weld(const double* vertices, int32_t vertex_count, const int32_t* triangles, int32_t triangle_count,
                      dfm_pyb_mesh* out, char* why, size_t why_size);

/// Checks what dfm's mesh SDF needs before it is handed over: every edge used once in each
/// direction (closed and consistently oriented). Returns 1; 0 with the first bad edge in `why`.
int dfm_pyb_mesh_check_closed(const dfm_pyb_mesh* m, char* why, size_t why_size);

/// FNV-1a hash of the mesh's vertices and triangles: a changed mesh gets a new dfm shape.
uint64_t dfm_pyb_mesh_hash(const dfm_pyb_mesh* m);

#endif
