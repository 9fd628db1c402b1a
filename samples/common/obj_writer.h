/// @file obj_writer.h
/// Writes triangle meshes as Wavefront OBJ files (samples only).
#ifndef DFM_SAMPLE_OBJ_WRITER_H
#define DFM_SAMPLE_OBJ_WRITER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes `vertex_count` positions (3 floats each, m) and `triangle_count` triangles (0-based
/// indices) to `path`. Returns 0, or -1 when the file cannot be written.
int dfm_sample_write_obj(const char* path, const float* positions, int32_t vertex_count, const int32_t* triangles,
                         int32_t triangle_count);

/// Writes axis-aligned boxes (centre[3], half[3] per box, m) as one OBJ file of 12 triangles each.
/// Returns 0, or -1 when the file cannot be written.
int dfm_sample_write_boxes_obj(const char* path, const float* centres, const float* halves, int32_t box_count);

/// Creates directory `path` (and its parents) if missing. Returns 0 on success.
int dfm_sample_make_dir(const char* path);

#ifdef __cplusplus
}
#endif

#endif
