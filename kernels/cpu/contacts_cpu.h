/// @file contacts_cpu.h
/// CPU loops of the contact pipeline over the shared per-record functions.
#ifndef DFM_CONTACTS_CPU_H
#define DFM_CONTACTS_CPU_H

#include "contact_detect.h"
#include "contact_response.h"
#include "vbd_particle.h"

#ifdef __cplusplus
extern "C" { /* the CUDA backend's host-assisted coarse step calls the patch path (kernels/cuda/coarse_cuda.cu) */
#endif

/// Contact work attached to one CPU advance (NULL in dfm_cpu_vbd_advance = no contacts).
typedef struct dfm_cpu_contacts {
    const dfm_contact_view* view;
    int gather;                    ///< 1: per-particle lists (gather); 0: legacy per-color scatter.
    const int32_t* particle_color; ///< Color of each particle (scatter path).
    float* acc_f;                  ///< Scatter accumulators: 3 per particle.
    float* acc_H;                  ///< 9 per particle.
    float* guess_normal;           ///< 3 per particle: contact normal for the initial guess (written by detection).
    float* guess_gap;              ///< Per particle: distance to contact along guess_normal (m, >= 0).
    float* record_force;           ///< Scratch, 3 per record: force at the final iterate.
    float* node_part;              ///< Scratch, 9 per record (3 per node): force attributed to each corner's node.
    float* residual;               ///< Scratch, 3 per particle (reaction pass 2a).
    const float* deform_force;     ///< NULL, or 3 per particle: the deformable-contact force on each at the final
                                   ///< iterate, taken out of its residual (pass 2a): shapes then read what the
                                   ///< other deformables do not carry (a cube under a cube carries both).
    float* node_friction;          ///< 9 per record (3 per node): friction force of the projection on each node's
                                   ///< particle, N.
    float* body_extra;             ///< Scratch, 3 per body (reaction pass 2b).
    float* node_body_friction;     ///< NULL (no patch decision), or 9 per record (3 per node): the share of its
                                   ///< patch's friction force on each node's particle (contact_patch_friction.h), N.
    uint8_t* particle_slides;      ///< With node_body_friction: per particle, 1 = it touches a sliding patch (the
                                   ///< same array as the view's particle_slides).
    int coarse_friction; ///< 1: the coarse steps carry Coulomb friction per patch (coarse_friction.h); set only where
                         ///< the friction after the iterations reads their result (the CPU's patch path,
                         ///< dfm_cpu_contacts_patch_friction), else a slide would be braked twice.
    int32_t body_count;
    const int32_t* body_offsets;        ///< body_count + 1.
    const int32_t* particle_body;       ///< Body of each particle.
    const dfm_contact_records* scratch; ///< Optional: room for a record per candidate, for the parallel
                                        ///< detection (NULL = serial detection).
    int threads;                        ///< OpenMP workers for the parallel detection.
    int64_t* detect_work;       ///< In/out (NULL: none): the last detection's work units (0: none yet); the advance
                                ///< forks the next detection by it (DFM_CPU_DETECT_WORK_MIN, cpu_threads.h).
    int64_t* detect_forks;      ///< In/out (NULL: none): detections run forked, counted (tests read it).
    int64_t detect_work_min;    ///< Fork threshold of the detection in work units (DFM_CPU_DETECT_WORK_MIN).
    double* shape_impulse;      ///< Out: 6 per shape (reaction impulse N s, angular impulse N m s), accumulated.
    double particle_impulse[3]; ///< Out: contact impulse on particles, accumulated.
    float max_penetration;      ///< Out: largest penetration at the end of the advance, m.
    int32_t kind_counts[3];     ///< Out: particle, edge, face records of the advance.
    const struct dfm_cpu_host_solve* hosts; ///< Dynamic host bodies solved after every sweep (host_bodies_cpu.h);
                                            ///< NULL = none.
    struct dfm_cpu_rigid_broad* broad; ///< NULL (all-pairs detection), or the rigid broad phase (rigid_broad_cpu.h):
                                       ///< every advance detects only the candidates it selects.
    const int32_t* particle_env;       ///< With `broad`: environment of each particle.
    int32_t env_count;                 ///< With `broad`: the world's environments.
    int64_t generation;                ///< With `broad`: the candidate lists' generation (dfm_contacts).
    dfm_detect_cache detect;           ///< Storage of the serial detection's shared values (all NULL: none).
    const struct dfm_cpu_simd* simd;   ///< The advance's lane layout (vbd_simd.h; set by dfm_cpu_vbd_advance): the
                                       ///< finalize's residual pass W particles at a time; NULL = scalar.
} dfm_cpu_contacts;

/// Detection over all candidates (serial, so records come out in candidate order). Every detection
/// function returns its work units (contact_detect.h: one per candidate plus one per SDF
/// evaluation), which the advance uses to decide the next detection's fork (cpu_threads.h).
int64_t dfm_cpu_contacts_detect(const dfm_contact_view* c, const dfm_detect_input* in);

/// dfm_cpu_contacts_detect with the advance's shared values (ch filled by dfm_cpu_detect_cache_fill,
/// or NULL): the same records, bitwise, with the per-shape and per-corner work done once.
int64_t dfm_cpu_contacts_detect_cached(const dfm_contact_view* c, const dfm_detect_input* in,
                                       const dfm_detect_cache* ch);

/// Fills ch for one advance: every shape's start pose, every particle's |v|, the corner cache
/// emptied. ch's arrays: shape_count poses, particle_count speeds and corner shapes, 4 *
/// particle_count corner floats.
void dfm_cpu_detect_cache_fill(const dfm_detect_cache* ch, const dfm_contact_view* c, const dfm_detect_input* in,
                               int32_t particle_count);

/// Detection split into contiguous chunks of the candidate index space, run by `threads` OpenMP
/// workers into `scratch` (room for a record per candidate), then copied into `c`'s
/// records chunk by chunk: the records, their order, the count and the capacity drops are exactly
/// those of dfm_cpu_contacts_detect, for any thread count.
int64_t dfm_cpu_contacts_detect_parallel(const dfm_contact_view* c, const dfm_detect_input* in,
                                         const dfm_contact_records* scratch, int threads);

/// Detection of the candidates sel[0 .. n) only (global indices, ascending: the selection of the
/// rigid broad phase, rigid_broad_cpu.h), serial or, with `scratch` and more than one thread, in
/// chunks as dfm_cpu_contacts_detect_parallel. When the selection holds every candidate that
/// passes detection's AABB early-out, the records, their order, the count and the drops are
/// exactly those of dfm_cpu_contacts_detect.
int64_t dfm_cpu_contacts_detect_selected(const dfm_contact_view* c, const dfm_detect_input* in, const int32_t* sel,
                                         int64_t n, const dfm_contact_records* scratch, int threads);

/// Writes, for every particle that is a corner of a record with weight >= 1/2, the normal of its
/// closest such record and the distance to contact along it (others get a zero normal): the
/// initial-guess hint of dfm_vbd_predict.
void dfm_cpu_contacts_guess_normals(const dfm_contact_view* c, int32_t particle_count, float* guess_normal,
                                    float* guess_gap, int threads);

/// Builds the per-particle contact lists over the active records (once per advance).
void dfm_cpu_contacts_build_lists(const dfm_contact_view* c, int32_t particle_count);

/// AVBD penalty ramp over the active records only.
void dfm_cpu_contacts_update_penalties(const dfm_contact_view* c, const float* d);

/// Legacy scatter for one color: zeroes the color's accumulators, then every active record adds
/// w f and w^2 H to its corners of that color.
void dfm_cpu_contacts_scatter_color(const dfm_cpu_contacts* cc, const float* d, float h, const int32_t* color_particles,
                                    int32_t begin, int32_t end, int32_t color);

struct dfm_cpu_coarse;

/// Coulomb's decision per contact patch of every free body (dfm_patch_friction_body), after the
/// iterations and before dfm_cpu_contacts_friction; no-op without cc->node_body_friction. A body
/// whose coarse steps carried friction in this advance (`coarse`, NULL = none; coarse_friction.h)
/// takes that solve's patch forces instead. Bodies touch disjoint particles and nodes: any order
/// (and thread count) gives the same bits.
void dfm_cpu_contacts_patch_friction(dfm_cpu_contacts* cc, const dfm_vbd_view* v, struct dfm_cpu_coarse* coarse);

/// Adds the patch decision's node forces (cc->node_body_friction) to the projection's
/// (cc->node_friction), so reactions and the contact query carry both; no-op without them.
void dfm_cpu_contacts_patch_friction_attribute(dfm_cpu_contacts* cc);

/// Coulomb friction projection after the iterations, before finalize: color by color, each
/// particle of the color walks its list (dfm_contact_friction_particle).
void dfm_cpu_contacts_friction(dfm_cpu_contacts* cc, const uint8_t* mode, float* x, float* d, float h,
                               int32_t color_count, const int32_t* color_offsets, const int32_t* color_particles);

/// End of an advance: reactions on shapes (momentum-consistent: each touching particle's final
/// residual force, split over its records), contact impulse on particles, penetration.
/// Needs the per-particle lists (built in both paths).
void dfm_cpu_contacts_finalize(dfm_cpu_contacts* cc, const dfm_vbd_view* view);

#ifdef __cplusplus
}
#endif

#endif
