/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file common.h
 * @brief Status codes, the last-error message, memory release and version.
 *
 * Every fallible function of the library returns a ::tsched_status. On failure a
 * message that names the offending input (file, field, index, value) is kept for the
 * calling thread and read with tsched_last_error(). The message of one thread is never
 * seen or overwritten by another thread.
 */
#ifndef TOPO_SCHED_COMMON_H
#define TOPO_SCHED_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TSCHED_BUILDING_LIBRARY) && defined(__GNUC__)
#define TSCHED_API __attribute__((visibility("default")))
#else
#define TSCHED_API
#endif

#include "version.h"

/** "No such element": returned by index lookups that find nothing. */
#define TSCHED_NONE UINT32_MAX

/**
 * Status of a call. The numbers are part of the ABI: they never change and a removed
 * code's number is never reused.
 */
typedef enum tsched_status {
    TSCHED_OK = 0,              /**< success */
    TSCHED_E_NOMEM = 1,         /**< an allocation failed */
    TSCHED_E_INVALID = 2,       /**< an argument is invalid (NULL handle, bad index, ...) */
    TSCHED_E_PARSE = 3,         /**< malformed text: JSON syntax, topology.conf syntax */
    TSCHED_E_FORMAT = 4,        /**< unknown "format" or version, unknown enumerated value */
    TSCHED_E_TYPE = 5,          /**< a field has the wrong JSON type */
    TSCHED_E_RANGE = 6,         /**< a number is negative, non-finite or out of its range */
    TSCHED_E_NOT_FOUND = 7,     /**< a name refers to nothing (dangling reference) */
    TSCHED_E_DUPLICATE = 8,     /**< a name is defined twice */
    TSCHED_E_TOO_LARGE = 9,     /**< sizes that would not fit in memory or in the index types */
    TSCHED_E_CYCLE = 10,        /**< a cycle where a hierarchy or a DAG is required */
    TSCHED_E_IO = 11,           /**< a file could not be read or written */
    TSCHED_E_STATE = 12,        /**< the handle is not in a state that allows the call */
    TSCHED_E_BUFFER = 13,       /**< the caller's buffer is too small; the size needed is reported */
    TSCHED_E_NO_PATH = 14,      /**< two endpoints have no surviving path */
    TSCHED_E_INFEASIBLE = 15,   /**< the request has no feasible answer */
    TSCHED_E_SOLVER = 16,       /**< the MIP/ILP solver failed */
    TSCHED_E_TIMEOUT = 17,      /**< a time limit ran out before any answer was found */
    TSCHED_E_INTERNAL = 18,     /**< a bug in the library: please report it */
    TSCHED_E_MISMATCH = 19      /**< a result or handle used with a fabric other than the one it was made on,
                                     or after that fabric's shape changed */
} tsched_status;

/**
 * Short constant name of a status ("TSCHED_E_PARSE"). Never NULL; unknown values give
 * "TSCHED_E_UNKNOWN". The string is static: do not free it.
 */
TSCHED_API const char *tsched_status_str(tsched_status status);

/**
 * Message of the last failure in the calling thread, naming the offending input; "" if
 * the last call that set an error was tsched_clear_error() or none failed yet. The string
 * belongs to the library and stays valid until the next failing call in this thread.
 */
TSCHED_API const char *tsched_last_error(void);

/** Status of the last failure in the calling thread (TSCHED_OK if none). */
TSCHED_API tsched_status tsched_last_status(void);

/** Forget the calling thread's last failure. */
TSCHED_API void tsched_clear_error(void);

/**
 * Release memory the library handed to the caller (strings from `*_to_json`, arrays
 * from `*_take_*`). NULL is a no-op.
 */
TSCHED_API void tsched_free(void *ptr);

/** Version of the library actually linked, as "MAJOR.MINOR.PATCH". Static string. */
TSCHED_API const char *tsched_version(void);

/**
 * Version of the library actually linked as one number, MAJOR * 10000 + MINOR * 100 + PATCH
 * (compare with ::TSCHED_VERSION_NUMBER, the version of the headers a program was built with).
 */
TSCHED_API uint32_t tsched_version_number(void);

/* ---- resource limits ------------------------------------------------------------------ */

/**
 * Resource limits, held per thread like the last error (DESIGN 3). Input that exceeds one is
 * rejected with ::TSCHED_E_TOO_LARGE naming the limit, its value and the input's, before
 * anything of that size is allocated. Defaults and hard ceilings are listed in
 * doc/ROBUSTNESS.md. Read with tsched_limits_get() (set `size` first), change a field and
 * write back with tsched_limits_set(). Fields may be appended in later versions: the library
 * reads and writes only the fields `size` covers.
 */
typedef struct tsched_limits {
    size_t size;            /**< sizeof(tsched_limits) as the caller knows it */
    uint64_t input_bytes;   /**< bytes of one input document or file; default 256 MiB */
    uint32_t nodes;         /**< nodes of one fabric, generated, expanded or listed; default 1,048,576 */
    uint32_t switches;      /**< switches of one fabric; default 262,144 */
    uint32_t nics_per_node; /**< NICs of one node; default 256 */
    uint32_t gpus_per_node; /**< GPUs of one node; default 1,024 */
    uint32_t trunks;        /**< trunks (switch pairs) of one fabric; default 4,194,304 */
    uint32_t name_bytes;    /**< bytes of one name (node, switch, job, pod, GPU type); default 255 */
    uint32_t flows;         /**< flows of one flow set or job set; default 67,108,864 */
    uint32_t kcut_orders;   /**< random topological orders of one K-cut; default 10,000 */
    uint32_t kcut_levels;   /**< priority levels K of one K-cut; default 64 */
    uint32_t dag_nodes;     /**< nodes of one DAG or jobs of one job set; default 16,777,216 */
    /** bytes of one crux K-cut's working memory, its worker threads together (each needs
     *  about 24 bytes an edge and 90 a node); fewer threads run when they would not fit,
     *  and a DAG that one worker cannot cut within it is refused; default 1 GiB (callers
     *  whose `size` ends before it keep that) */
    uint64_t kcut_memory;
    /** events one simulation run may handle (arrivals, phase and compute ends, flow
     *  completions, failures, ticks; superseded ones included); a scenario whose iterations
     *  alone need more is refused when the run starts, a run that reaches it stops with
     *  ::TSCHED_E_TOO_LARGE; default 268,435,456 (callers whose `size` ends before it keep it) */
    uint64_t sim_events;
    /** bytes of one launch file the library writes (host file, host file per task, pod
     *  order); a larger one is refused with ::TSCHED_E_TOO_LARGE before anything is written;
     *  default 256 MiB */
    uint64_t output_bytes;
    /** member links of one fabric (the parallel links of all trunks together); default
     *  1,048,576 */
    uint32_t members;
} tsched_limits;

/**
 * Copy the calling thread's limits into `*limits`, as far as `limits->size` covers.
 * Errors: ::TSCHED_E_INVALID (NULL, or a `size` that does not end on a field boundary or
 * exceeds the library's struct).
 */
TSCHED_API tsched_status tsched_limits_get(tsched_limits *limits);

/**
 * Set the calling thread's limits from `*limits`; the fields `limits->size` does not cover
 * keep their current values. A field of 0 restores that limit's default. Errors:
 * ::TSCHED_E_INVALID (NULL, bad `size`), ::TSCHED_E_RANGE (a value above the limit's hard
 * ceiling, naming the field); on error nothing changes.
 */
TSCHED_API tsched_status tsched_limits_set(const tsched_limits *limits);

/** Restore the calling thread's limits to their defaults. */
TSCHED_API void tsched_limits_reset(void);

/* ---- output options --------------------------------------------------------------------- */

/**
 * How a JSON writer lays out its document: the one set of output switches every `*_opts`
 * writer takes (tsched_cell_list_to_json_opts(), tsched_crius_to_json_opts(),
 * tsched_routes_to_json_opts(), ...), the CLI's `--compact` and `--no-timing`. Initialise
 * with tsched_output_opts_init(); fields may be appended (DESIGN 3: the library reads only
 * the fields `size` covers, the others keep their defaults). A NULL pointer means the
 * defaults. Both layouts are the same document: `compact` changes whitespace only.
 */
typedef struct tsched_output_opts {
    size_t size; /**< sizeof(tsched_output_opts) as the caller knows it */
    int compact; /**< non-zero: one line without whitespace; default 0: two-space indentation */
    int timing;  /**< 0: leave out volatile wall-clock fields (`solve_ms`, `wall_ms`); default 1 */
} tsched_output_opts;

/** Fill `opts` with the defaults (indented, with timing) and set its `size`; NULL is a no-op. */
TSCHED_API void tsched_output_opts_init(tsched_output_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_COMMON_H */
