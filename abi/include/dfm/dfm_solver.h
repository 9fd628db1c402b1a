/// @file dfm_solver.h
/// Solver providers: the deformable solvers a world can run, listed by name, registered from
/// shared libraries, and swapped at run time between steps (dfm_world_set_solver).
///
/// Built-in providers: "vbd" (Vertex Block Descent, backends cpu and cuda) and "xpbd" (extended
/// position-based dynamics, backend cpu). A third-party provider is a shared library exporting
/// `dfm_solver_provider_entry` (see dfm_solver_entry_fn) that hands out a dfm_solver_provider_v1
/// table; dfm_register_solver_library loads it.
///
/// Units and frames: SI (m, kg, s) in the host's world frame, like the rest of the ABI.
/// Threading: registration and listing are process-wide and may be called from any thread (they
/// take a lock); dfm_world_set_solver follows the world's rule (externally synchronized).
#ifndef DFM_SOLVER_H
#define DFM_SOLVER_H

#include "dfm_base.h"
#include "dfm_types.h"
#include "dfm_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the provider table layout (dfm_solver_provider_v1). A library built against
/// another major is refused by dfm_register_solver_library.
#define DFM_SOLVER_PROVIDER_ABI_MAJOR 1
/// Minor version of the provider table; grows when fields are appended.
#define DFM_SOLVER_PROVIDER_ABI_MINOR 0
/// (major << 16) | minor of the provider table this header describes.
#define DFM_SOLVER_PROVIDER_ABI ((uint32_t)((DFM_SOLVER_PROVIDER_ABI_MAJOR << 16) | DFM_SOLVER_PROVIDER_ABI_MINOR))

/// Longest provider name, including the terminating zero.
#define DFM_SOLVER_NAME_MAX 32

/// Capability bits of a provider (dfm_solver_provider_v1.capabilities, dfm_solver_info).
enum {
    DFM_SOLVER_CAP_CLOTH = 1u << 0,         ///< Simulates cloth membranes (triangles).
    DFM_SOLVER_CAP_BENDING = 1u << 1,       ///< Simulates cloth bending (hinges).
    DFM_SOLVER_CAP_VOLUME = 1u << 2,        ///< Simulates volumetric bodies (tetrahedra).
    DFM_SOLVER_CAP_CONTACTS = 1u << 3,      ///< Collides particles with the host's rigid shapes.
    DFM_SOLVER_CAP_FRICTION = 1u << 4,      ///< Coulomb friction against shapes.
    DFM_SOLVER_CAP_REACTIONS = 1u << 5,     ///< Reports shape reactions (dfm_world_get_shape_reactions).
    DFM_SOLVER_CAP_KINEMATIC = 1u << 6,     ///< Honours pinned and kinematic vertices.
    DFM_SOLVER_CAP_DETERMINISTIC = 1u << 7, ///< Bitwise identical results run to run.
    DFM_SOLVER_CAP_WARM_START = 1u << 8     ///< Keeps solver data across steps that a swap discards.
};

/// Backend bits (1u << dfm_backend) of dfm_solver_provider_v1.backends and dfm_solver_info.
enum {
    DFM_SOLVER_BACKEND_CPU = 1u << DFM_BACKEND_CPU,  ///< Runs on the CPU.
    DFM_SOLVER_BACKEND_CUDA = 1u << DFM_BACKEND_CUDA ///< Runs on a CUDA device.
};

/// The world state a third-party provider reads and writes, all host memory owned by dfm and
/// valid only during the call that receives it. Indices are world-wide particles (body offsets
/// from dfm_body_info.first_particle). Positions in m and velocities in m/s, world frame.
typedef struct dfm_solver_state {
    uint32_t struct_size;       ///< sizeof(dfm_solver_state) as dfm was compiled.
    int32_t particle_count;     ///< Particles in the world.
    float* x;                   ///< Positions, 3 per particle (read/write).
    float* v;                   ///< Velocities, 3 per particle (read/write).
    const float* mass;          ///< kg per particle (lumped).
    const uint8_t* mode;        ///< dfm_vertex_mode per particle (0 dynamic, 1 pinned, 2 kinematic).
    const float* kin_target;    ///< Kinematic vertices: where they must be at the end of the step, m.
    const int32_t* environment; ///< Environment per particle (-1 = shared).
    int32_t triangle_count;     ///< Cloth triangles.
    const int32_t* triangles;   ///< 3 world-wide particle indices per triangle.
    int32_t tet_count;          ///< Tetrahedra.
    const int32_t* tets;        ///< 4 world-wide particle indices per tet.
    int32_t shape_count;        ///< Rigid shapes registered (a provider without contacts ignores them).
    float gravity[3];           ///< m/s^2, world frame.
    int32_t substeps;           ///< The world's substeps per step (dfm_world_set_solver_counts).
    int32_t iterations;         ///< The world's iterations per substep.
    int64_t model_generation;   ///< Changes whenever bodies were added or removed (arrays resized).
} dfm_solver_state;

/// A provider's function table (version 1). Every function returns DFM_OK or a negative
/// dfm_result and may write a message into `err` (err_size bytes, zero-terminated).
typedef struct dfm_solver_provider_v1 {
    uint32_t struct_size;    ///< sizeof(dfm_solver_provider_v1) as the provider compiled it.
    uint32_t provider_abi;   ///< DFM_SOLVER_PROVIDER_ABI as the provider compiled it.
    const char* name;        ///< Unique name, [a-z0-9_-], shorter than DFM_SOLVER_NAME_MAX.
    const char* description; ///< One line for listings (static storage).
    uint32_t capabilities;   ///< DFM_SOLVER_CAP_* bits.
    uint32_t backends;       ///< DFM_SOLVER_BACKEND_* bits it can run on.
    /// Creates an instance for one world on `backend` (a dfm_backend, never AUTO).
    dfm_result (*create)(int32_t backend, void** out_instance, char* err, size_t err_size);
    /// Frees an instance (NULL is a no-op).
    void (*destroy)(void* instance);
    /// Takes over the world's state: called after create, and again before a step whenever
    /// state->model_generation changed. The provider may copy what it needs.
    dfm_result (*import_state)(void* instance, const dfm_solver_state* state, char* err, size_t err_size);
    /// Advances the world by dt seconds: on return x and v hold the state at the end of the step,
    /// and kinematic vertices are at kin_target.
    dfm_result (*step)(void* instance, dfm_solver_state* state, float dt, char* err, size_t err_size);
    /// Writes any state the provider keeps privately back into state->x and state->v (called
    /// before the provider is swapped out or destroyed with its world). May be NULL.
    dfm_result (*export_state)(void* instance, dfm_solver_state* state, char* err, size_t err_size);
} dfm_solver_provider_v1;

/// Signature of the function a provider library exports as `dfm_solver_provider_entry`: gives
/// its table for provider ABI `provider_abi` (the host's DFM_SOLVER_PROVIDER_ABI) in *out, static
/// storage valid while the library is loaded. Returns DFM_ERROR_ABI_MISMATCH for a major it does
/// not implement.
typedef dfm_result (*dfm_solver_entry_fn)(uint32_t provider_abi, const dfm_solver_provider_v1** out);

/// What a listing reports about one provider.
typedef struct dfm_solver_info {
    uint32_t struct_size;           ///< sizeof(dfm_solver_info) as compiled by the caller.
    char name[DFM_SOLVER_NAME_MAX]; ///< Provider name.
    uint32_t capabilities;          ///< DFM_SOLVER_CAP_* bits.
    uint32_t backends;              ///< DFM_SOLVER_BACKEND_* bits.
    int32_t builtin;                ///< 1 for providers inside libdfm, 0 for registered ones.
    const char* description;        ///< One line (static storage of the provider).
} dfm_solver_info;

/// An empty info struct with struct_size set, ready for dfm_solver_get_info.
static inline dfm_solver_info dfm_solver_info_init(void) {
    dfm_solver_info s;
    dfm_zero_bytes(&s, sizeof(s));
    s.struct_size = (uint32_t)sizeof(s);
    return s;
}

/// Number of providers known in this process (built-in first, then registered ones in order).
/// Thread safety: any thread.
DFM_API int32_t dfm_solver_count(void);

/// Describes provider `index` (0 .. dfm_solver_count() - 1) in *out (struct_size set by the
/// caller). DFM_ERROR_INDEX_OUT_OF_RANGE for a bad index, DFM_ERROR_STRUCT_SIZE for a bad size;
/// the message is in dfm_world_last_error(NULL). Thread safety: any thread.
DFM_API dfm_result dfm_solver_get_info(int32_t index, dfm_solver_info* out);

/// Registers a provider table (copied; the table's functions and strings must stay valid for the
/// life of the process). Refused: NULL (DFM_ERROR_NULL_POINTER), struct_size below the version 1
/// layout (DFM_ERROR_STRUCT_SIZE), another provider ABI major (DFM_ERROR_ABI_MISMATCH), a bad or
/// taken name, missing functions or no backend (DFM_ERROR_INVALID_VALUE), more than 16
/// registrations (DFM_ERROR_CAPACITY). Messages in dfm_world_last_error(NULL).
/// Thread safety: any thread.
DFM_API dfm_result dfm_register_solver(const dfm_solver_provider_v1* provider);

/// Loads the shared library at `path` (dlopen), calls its exported `dfm_solver_provider_entry`
/// and registers the table it returns (as dfm_register_solver). The library stays loaded for the
/// life of the process. A library that cannot be loaded or lacks the entry gives
/// DFM_ERROR_INVALID_VALUE; an entry refusing our provider ABI gives DFM_ERROR_ABI_MISMATCH.
/// On success *out_name (may be NULL) points to the provider's name. Thread safety: any thread.
DFM_API dfm_result dfm_register_solver_library(const char* path, const char** out_name);

/// Switches `world` to provider `name` on `backend` between steps. DFM_BACKEND_AUTO keeps the
/// world's current backend when the provider supports it, else the CPU. Carried over: positions,
/// velocities, pins, kinematic targets, materials, shapes and their states, environments, gravity
/// and solver counts. Not carried over (and said in an info log line): solver-private data such
/// as warm starts and captured CUDA graphs; contact records are re-detected at the next step.
/// Errors (the world stays on its current solver and keeps stepping): NULL world/name
/// (DFM_ERROR_NULL_POINTER), unknown name (DFM_ERROR_UNKNOWN_SOLVER), unknown backend value
/// (DFM_ERROR_INVALID_ENUM), a backend the provider lacks (DFM_ERROR_UNSUPPORTED), CUDA not
/// usable here (DFM_ERROR_DEVICE_UNAVAILABLE), the provider's create/import failing (its code).
DFM_API dfm_result dfm_world_set_solver(dfm_world* world, const char* name, int32_t backend);

/// The world's current provider name (static storage of the provider, valid while it stays
/// registered) and backend (a dfm_backend, never AUTO). Either output may be NULL.
DFM_API dfm_result dfm_world_get_solver(dfm_world* world, const char** out_name, int32_t* out_backend);

#ifdef __cplusplus
}
#endif

#endif
