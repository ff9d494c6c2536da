/*
 * libtopo-sched: network-topology-aware scheduling for GPU clusters.
 * Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
 */
/**
 * @file service.h
 * @brief The request/answer protocol of `topo-sched serve` (doc/serve.md) as a library
 *        call: one JSON request in, one compact JSON answer line out, with named fabrics
 *        kept loaded between requests. The CLI service and the language bindings answer
 *        through this one code path, so every answer's `result` is the document the
 *        matching CLI command prints.
 *
 * A service handle is not shared between threads at once (like every handle); distinct
 * handles may be used from distinct threads.
 */
#ifndef TOPO_SCHED_SERVICE_H
#define TOPO_SCHED_SERVICE_H

#include <stddef.h>

#include "common.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque service: a set of named fabrics and the operations of doc/serve.md. */
typedef struct tsched_service tsched_service;

/**
 * A new service with no fabrics. Free with tsched_service_free(). Errors: TSCHED_E_INVALID
 * (NULL `out`), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_service_new(tsched_service **out);

/** Free the service and the fabrics it loaded (attached fabrics stay the caller's). NULL is a no-op. */
TSCHED_API void tsched_service_free(tsched_service *svc);

/**
 * Answer one request: `len` bytes holding one JSON object (doc/serve.md). `*answer` receives
 * one line of compact JSON without the newline, to be freed with tsched_free():
 * `{"id":..,"ok":true,"result":DOC}` or
 * `{"id":..,"ok":false,"exit":N,"status":"TSCHED_E_..","error":"..."}`. Returns TSCHED_OK
 * whenever an answer was produced (error answers included); another status only when no
 * answer could be made: TSCHED_E_INVALID (NULL `answer`, `svc` or `request`), TSCHED_E_NOMEM.
 * A request that loads or unloads a fabric changes nothing unless its ok answer is returned;
 * an "update" answered with TSCHED_E_NOMEM (or not answered) may have been applied.
 * `*stop` (may be NULL) is set to 1 after a "shutdown" request, to 0 otherwise.
 */
TSCHED_API tsched_status tsched_service_handle(char **answer, int *stop, tsched_service *svc, const char *request,
                                               size_t len);

/**
 * Make the fabric `topo`, which the caller owns, answer under `name` (replacing any fabric
 * of that name). Borrowed: the service never frees or copies it; the caller keeps it alive
 * until tsched_service_detach() or tsched_service_free(); state changes the caller makes are
 * seen by the next request, and "update" requests change the caller's fabric. Errors:
 * TSCHED_E_INVALID (NULL argument, empty name), TSCHED_E_NOMEM.
 */
TSCHED_API tsched_status tsched_service_attach(tsched_service *svc, const char *name, tsched_topology *topo);

/**
 * Forget the fabric named `name` (an attached one is not freed; a loaded one is). Errors:
 * TSCHED_E_INVALID (NULL argument), TSCHED_E_NOT_FOUND (no fabric of that name).
 */
TSCHED_API tsched_status tsched_service_detach(tsched_service *svc, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* TOPO_SCHED_SERVICE_H */
