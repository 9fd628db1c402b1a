/// @file bvh_morton.h
/// 30-bit Morton codes of box centroids normalised in the scene bounds (the bounds of all
/// centroids): 10 bits per axis, interleaved x-y-z from the most significant bit, as in
/// Karras 2012 ("Maximizing parallelism in the construction of BVHs, octrees, and k-d trees",
/// HPG 2012, sec. 4). Host and device; the float math is plain multiplies and adds, and
/// kernels/cuda/bvh_cuda.cu is compiled without FMA contraction, so the codes are bitwise equal
/// on both backends.
#ifndef DFM_BVH_MORTON_H
#define DFM_BVH_MORTON_H

#include "bvh_box.h"

/// Spreads the low 10 bits of v so that two zero bits sit between any two of them.
DFM_HD uint32_t dfm_bvh_expand_bits(uint32_t v) {
    v &= 0x3FFu;
    v = (v * 0x00010001u) & 0xFF0000FFu;
    v = (v * 0x00000101u) & 0x0F00F00Fu;
    v = (v * 0x00000011u) & 0xC30C30C3u;
    v = (v * 0x00000005u) & 0x49249249u;
    return v;
}

/// Quantises t (expected in [0, 1]; clamped, NaN gives 0) to 0..1023.
DFM_HD uint32_t dfm_bvh_quantise(float t) {
    float s = t * 1024.0f;
    if (!(s > 0.0f)) return 0u;
    if (s >= 1023.0f) return 1023u;
    return (uint32_t)s;
}

/// Morton code of the centroid of box b in the scene bounds `scene` (a box, world frame, m).
/// An axis on which the scene is flat maps to 0.
DFM_HD uint32_t dfm_bvh_morton(dfm_bvh_box b, const dfm_bvh_box* scene) {
    uint32_t code = 0u;
    for (int k = 0; k < 3; ++k) {
        float c = (b.lo[k] + b.hi[k]) * 0.5f;
        float ext = scene->hi[k] - scene->lo[k];
        float t = ext > 0.0f ? (c - scene->lo[k]) / ext : 0.0f;
        code |= dfm_bvh_expand_bits(dfm_bvh_quantise(t)) << (2 - k);
    }
    return code;
}

#endif
