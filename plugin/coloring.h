/// @file coloring.h
/// Graph coloring of particles: two particles that share an element (triangle, bending edge
/// with its opposite vertices, tetrahedron) never share a color, so all particles of one color
/// can be solved in parallel (VBD).
#ifndef DFM_COLORING_H
#define DFM_COLORING_H

#include <stdint.h>

/// A coloring of `vertex_count` particles.
typedef struct dfm_coloring {
    int32_t vertex_count;
    int32_t color_count;
    int32_t* color; ///< Color per vertex, 0..color_count-1.
} dfm_coloring;

/// Colors the particle graph of the given elements: greedy in order of decreasing degree
/// (ties by index), smallest free color, then balanced by moving particles from the largest
/// color to the smallest while no neighbour forbids it, until max/min size <= 1.1, the sizes
/// differ by <= 2, or no particle can move. Deterministic. Returns 0, or -1 on OOM.
int dfm_coloring_compute(dfm_coloring* out, int32_t vertex_count, const int32_t* tris, int32_t tri_count,
                         const int32_t* edges, int32_t edge_count, const int32_t* tets, int32_t tet_count);

/// Returns -1 if the coloring is valid (no element has two corners of one color), else the index
/// of the first offending element counted over tris, then edges, then tets.
int32_t dfm_coloring_first_conflict(const dfm_coloring* c, const int32_t* tris, int32_t tri_count, const int32_t* edges,
                                    int32_t edge_count, const int32_t* tets, int32_t tet_count);

/// Frees the color array (and zeroes the struct).
void dfm_coloring_free(dfm_coloring* c);

#endif
