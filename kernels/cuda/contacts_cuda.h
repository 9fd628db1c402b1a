/// @file contacts_cuda.h
/// Internal (C++/CUDA only): device buffers of the contact pipeline and the functions that
/// enqueue its passes on a stream (kernels/cuda/contacts_cuda.cu). Every buffer is allocated by
/// dfm_cuda_contacts_upload (capacities fixed there); the enqueue functions only launch work, so
/// they can be captured into a CUDA graph.
#ifndef DFM_CONTACTS_CUDA_H
#define DFM_CONTACTS_CUDA_H

#include <cuda_runtime.h>

#include "contact_view.h"
#include "vbd_cuda_api.h"
#include "vbd_view.h"

/// Step counters after the per-advance emitted counts: kinds[3], max penetration, max residual.
#define DFM_CUDA_COUNTER_TAIL 5

/// Device side of the contact pipeline of one world.
struct dfm_cuda_contacts {
    int32_t shape_count, capacity, particle_count;
    /* shapes: substep_capacity advances of shape_count runtime records, staged in pinned memory */
    dfm_shape_rt* rt;
    dfm_shape_rt* rt_staging;
    int32_t rt_advances;
    size_t rt_bytes;           ///< Device bytes of rt.
    const float** grid_values; ///< Host array: device copy of each shape's SDF grid (NULL if none).
    /* topology */
    int32_t *feat_particles, *feat_edges, *feat_faces;
    dfm_contact_candidates cand;                  ///< Device copy of the candidate lists.
    dfm_contact_records rec;                      ///< Canonical records (what every pass after detection reads).
    int deterministic;                            ///< The deterministic-mode buffers below exist.
    dfm_contact_records raw;                      ///< Deterministic mode: detection's output, compacted into rec.
    int32_t *cand_record, *cand_flag, *cand_slot; ///< Deterministic compaction, per global candidate index.
    int32_t *head, *next;
    int32_t *list_count, *list_offset, *list_fill, *list_items; ///< Deterministic lists.
    float *acc_f, *acc_H, *guess_normal, *guess_gap, *record_force, *node_part, *record_wrench;
    float* node_friction;               ///< 9 per record (3 per node): friction force of the projection, N.
    float* node_body_friction;          ///< 9 per record (3 per node): the patch decision's share per node, N
                                        ///< (contact_patch_friction.h).
    int32_t *shape_begin, *shape_end;   ///< Deterministic: bounds of the (kind, shape) record runs, [3][shapes].
    int32_t *run_chunks, *chunk_offset; ///< Deterministic: chunks per run and their exclusive scan, [3 shapes + 1].
    double* chunk_sum;                  ///< Deterministic: 6 wrench-impulse sums per chunk.
    int64_t chunk_capacity;             ///< Chunks that chunk_sum holds (capacity / chunk + 3 shapes).
    /* results */
    int32_t* counters; ///< [advances] emitted per advance, then the DFM_CUDA_COUNTER_TAIL step
                       ///< counters: kinds[3], max penetration bits, max residual bits.
    int32_t counter_advances;
    double* shape_impulse; ///< 6 per shape.
    void* scan_temp;
    size_t scan_temp_bytes;
    int32_t prefix_blocks; ///< Fixed grid of the grid-stride passes over the active prefix.
    int64_t device_bytes;  ///< Device memory held, bytes.
    void** allocations;    ///< Every cudaMalloc of the pipeline (grown on the host as needed).
    int allocation_count, allocation_capacity;
};

/// Everything one advance's contact passes need.
struct dfm_cuda_advance {
    dfm_contact_view view;         ///< Device pointers; shapes and count for this advance.
    dfm_vbd_view vbd;              ///< Device pointers, h set.
    const int32_t* particle_color; ///< Device.
    int32_t body_count;
    const int32_t* body_offsets;  ///< Device, body_count + 1.
    const int32_t* particle_body; ///< Device.
    float* residual;              ///< Device scratch, 3 per particle.
    float* body_extra;            ///< Device scratch, 3 per body.
    int residual_pass;            ///< 1: compute the local force residuals (last advance of a step).
    float* residual_norm;         ///< Device, 1 per particle: each one's local force residual (residual_pass), N.
    int deterministic;
    const float* deform_force; ///< Device, 3 per particle: deformable-contact force at the final iterate, taken
                               ///< out of the residuals (NULL without deformable contact: nothing launched).
};

/// (Re)allocates and uploads; shape_count 0 frees everything. `sms` is the device's multiprocessor
/// count (sizes the fixed grid of the prefix passes); `stream` orders the copies. The buffers of
/// deterministic mode exist only when d->deterministic is set.
int dfm_cuda_contacts_upload(dfm_cuda_contacts* c, const dfm_cuda_contacts_desc* d, int32_t particle_count, int32_t sms,
                             cudaStream_t stream, char* err, size_t err_size);

/// Frees every device and pinned buffer.
void dfm_cuda_contacts_free(dfm_cuda_contacts* c);

/// Makes room for `advances` advances of shape records and counters (outside any capture).
int dfm_cuda_contacts_reserve(dfm_cuda_contacts* c, int32_t advances, char* err, size_t err_size);

/// The contact view of advance `s` over the canonical records.
dfm_contact_view dfm_cuda_contacts_view(const dfm_cuda_contacts* c, int32_t s, float penalty_beta, float penalty_start,
                                        uint32_t flags);

/// Zeroes the step's counters and shape impulses.
int dfm_cuda_contacts_begin_step(dfm_cuda_contacts* c, cudaStream_t st, char* err, size_t err_size);

/// Detection and, in deterministic mode, compaction into candidate order.
int dfm_cuda_contacts_detect(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                             size_t err_size);

/// Per-particle lists over the active records and the initial-guess normals.
int dfm_cuda_contacts_lists(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                            size_t err_size);

/// AVBD penalty ramp over the active records.
int dfm_cuda_contacts_penalties(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                                size_t err_size);

/// Legacy scatter for one color (DFM_DISABLE_CONTACT_LISTS): zeroes the color's accumulators and
/// adds every active record's w f, w^2 H to its corners of that color (atomics).
int dfm_cuda_contacts_scatter(dfm_cuda_contacts* c, const dfm_cuda_advance* a, const int32_t* color_particles,
                              int32_t count, int32_t color, cudaStream_t st, char* err, size_t err_size);

/// Coulomb's decision per contact patch of every free body (contact_patch_friction.h; one block
/// per body, contacts_patch_block.cuh: the CPU's math, not its bits; `serial` 1, from
/// DFM_CUDA_PATCH_SERIAL=1 at backend creation: one thread per body, serial, the CPU's bits),
/// before the friction projection; writes `particle_slides` (a->view.particle_slides must be the
/// same array for the projection).
int dfm_cuda_contacts_patch_friction(dfm_cuda_contacts* c, const dfm_cuda_advance* a, uint8_t* particle_slides,
                                     int serial, cudaStream_t st, char* err, size_t err_size);

/// Adds the patch decision's node forces to the projection's (after the projection).
int dfm_cuda_contacts_patch_friction_attribute(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st,
                                               char* err, size_t err_size);

/// Friction projection of one color's particles.
int dfm_cuda_contacts_friction(dfm_cuda_contacts* c, const dfm_cuda_advance* a, const int32_t* color_particles,
                               int32_t count, cudaStream_t st, char* err, size_t err_size);

/// Reactions of the advance: record forces, per-particle residual split, per-shape wrench sums.
int dfm_cuda_contacts_finalize(dfm_cuda_contacts* c, const dfm_cuda_advance* a, cudaStream_t st, char* err,
                               size_t err_size);

/// Copies the step's results to the host (enqueued; valid after the stream synchronizes).
int dfm_cuda_contacts_download(dfm_cuda_contacts* c, int32_t advances, int32_t* emitted, int32_t kinds[3],
                               int32_t* max_pen_bits, int32_t* residual_bits, double* shape_impulse, cudaStream_t st,
                               char* err, size_t err_size);

#endif
