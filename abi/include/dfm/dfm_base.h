/// @file dfm_base.h
/// Export macros, versions, result codes and the log callback of the dfm C ABI.
///
/// Units: SI throughout (m, kg, s, N). Frames: every position, velocity and gravity vector is in
/// the host's world frame; dfm has no preferred up axis.
#ifndef DFM_BASE_H
#define DFM_BASE_H

#include <stddef.h>
#include <stdint.h>

// clang-format off
#if defined(_WIN32)
#  if defined(DFM_BUILDING_LIBRARY)
#    define DFM_API __declspec(dllexport)
#  else
#    define DFM_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
/// Marks a function exported by libdfm.
#  define DFM_API __attribute__((visibility("default")))
#else
#  define DFM_API
#endif
// clang-format on

#ifdef __cplusplus
extern "C" {
#endif

/// Major version of the ABI this header describes. A world refuses a caller whose major differs.
#define DFM_ABI_VERSION_MAJOR 1
/// Minor version: grows when fields or functions are appended; older callers stay compatible.
#define DFM_ABI_VERSION_MINOR 7
/// The ABI version this header describes, packed as (major << 16) | minor. Pass it to
/// dfm_world_create().
#define DFM_ABI_VERSION ((uint32_t)((DFM_ABI_VERSION_MAJOR << 16) | DFM_ABI_VERSION_MINOR))

/// Result of every fallible call. Zero is success, positive values are qualified successes,
/// negative values are errors. Values are never renumbered; retired codes stay reserved.
typedef enum dfm_result {
    DFM_OK = 0,                           ///< Success.
    DFM_INCOMPLETE = 1,                   ///< Success, but an output was truncated (see the call).
    DFM_ERROR_NULL_POINTER = -1,          ///< A required pointer argument was NULL.
    DFM_ERROR_INVALID_COUNT = -2,         ///< A count was zero or negative where one is required.
    DFM_ERROR_INDEX_OUT_OF_RANGE = -3,    ///< An index (vertex, environment, range) is out of range.
    DFM_ERROR_NON_FINITE = -4,            ///< A position, velocity or parameter was NaN or infinite.
    DFM_ERROR_DEGENERATE_ELEMENT = -5,    ///< A triangle has zero area or a tetrahedron is flat.
    DFM_ERROR_INVERTED_ELEMENT = -6,      ///< A tetrahedron has negative signed volume.
    DFM_ERROR_STALE_ID = -7,              ///< The id names a body that was removed (or never existed).
    DFM_ERROR_FOREIGN_ID = -8,            ///< The id belongs to another world.
    DFM_ERROR_STRUCT_SIZE = -9,           ///< A struct_size field is zero, too small or too large.
    DFM_ERROR_ABI_MISMATCH = -10,         ///< The caller was compiled against another ABI major.
    DFM_ERROR_INVALID_VALUE = -11,        ///< A scalar is outside its domain (e.g. dt <= 0, mass < 0).
    DFM_ERROR_OUT_OF_HOST_MEMORY = -12,   ///< A host allocation failed; the world is unchanged.
    DFM_ERROR_CAPACITY = -13,             ///< A fixed capacity would be exceeded.
    DFM_ERROR_INVALID_STATE = -14,        ///< The call is not allowed in the world's current state.
    DFM_ERROR_OUT_OF_DEVICE_MEMORY = -15, ///< A device allocation failed; the world is unchanged.
    DFM_ERROR_DEVICE_UNAVAILABLE = -16,   ///< The requested backend or device is not usable here.
    DFM_ERROR_UNSUPPORTED = -17,          ///< The feature is not supported by this build/backend.
    DFM_ERROR_INVALID_ENUM = -18,         ///< An enum argument has an unknown value.
    DFM_ERROR_UNKNOWN_SOLVER = -19,       ///< No solver provider has the requested name.
    DFM_ERROR_OUT_OF_BOUNDS = -20,        ///< (ABI 1.5) A step moved a particle beyond DFM_MAX_COORD; it was
                                          ///< rolled back.
    DFM_RESULT_MAX_ENUM = 0x7FFFFFFF
} dfm_result;

/// Severity of a log message.
typedef enum dfm_log_level {
    DFM_LOG_ERROR = 0,   ///< A call failed; the message repeats the world's last error.
    DFM_LOG_WARNING = 1, ///< Something was dropped, clamped or ignored (e.g. capacity overflow).
    DFM_LOG_INFO = 2,    ///< Informational (e.g. backend chosen, colors computed).
    DFM_LOG_LEVEL_MAX_ENUM = 0x7FFFFFFF
} dfm_log_level;

/// Log callback. `message` is valid only during the call. Called from the thread that made the
/// dfm call that logs; a callback shared by worlds used from several threads must be thread-safe.
typedef void (*dfm_log_fn)(void* user, dfm_log_level level, const char* message);

/// Zeroes `size` bytes at `p` (used by the *_init helpers so public headers need no <string.h>).
static inline void dfm_zero_bytes(void* p, size_t size) {
    unsigned char* b = (unsigned char*)p;
    for (size_t i = 0; i < size; ++i) b[i] = 0;
}

/// Runtime ABI version of the loaded library, packed like DFM_ABI_VERSION.
/// Thread safety: any thread.
DFM_API uint32_t dfm_abi_version(void);

/// Runtime library version string, e.g. "1.0.0". Static storage. Thread safety: any thread.
DFM_API const char* dfm_version(void);

/// Static English name of a result code, e.g. "DFM_ERROR_STALE_ID". Unknown codes give
/// "DFM_RESULT_UNKNOWN". Thread safety: any thread.
DFM_API const char* dfm_result_string(dfm_result result);

#ifdef __cplusplus
}
#endif

#endif
