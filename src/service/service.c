/* The service (doc/serve.md): named fabrics and one answer line per request. */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/cnum.h"
#include "common/json.h"
#include "service_internal.h"

tsched_status tsched_service_new(tsched_service **out)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_service_new: out is NULL");
    *out = ts_calloc(1, sizeof **out);
    return *out ? TSCHED_OK : TSCHED_E_NOMEM;
}

static void drop(svc_fabric *f)
{
    if (f->owned)
        tsched_topology_free(f->topo);
    free(f->name);
}

void tsched_service_free(tsched_service *svc)
{
    if (!svc)
        return;
    for (size_t i = 0; i < svc->count; i++)
        drop(&svc->fabrics[i]);
    free(svc->fabrics);
    free(svc);
}

svc_fabric *ts_svc_find(tsched_service *svc, const char *name)
{
    for (size_t i = 0; i < svc->count; i++)
        if (strcmp(svc->fabrics[i].name, name) == 0)
            return &svc->fabrics[i];
    return NULL;
}

tsched_status ts_svc_put(tsched_service *svc, const char *name, tsched_topology *topo, int owned)
{
    /* Nothing changes until the name's copy and the slot exist: out of memory leaves the
     * loaded fabrics as they were (a fabric of that name included). */
    char *copy = ts_strdup(name);
    svc_fabric *f = copy ? ts_svc_find(svc, name) : NULL;
    if (f)
        drop(f);
    else if (copy && TS_GROW(svc->fabrics, svc->cap, svc->count + 1) == TSCHED_OK)
        f = &svc->fabrics[svc->count++];
    if (!f) {
        free(copy);
        if (owned)
            tsched_topology_free(topo);
        return TSCHED_E_NOMEM;
    }
    *f = (svc_fabric){copy, topo, owned};
    return TSCHED_OK;
}

tsched_status ts_svc_remove(tsched_service *svc, const char *name)
{
    svc_fabric *f = ts_svc_find(svc, name);
    if (!f)
        return ts_error(TSCHED_E_NOT_FOUND, "name: no fabric named \"%s\" is loaded", name);
    drop(f);
    *f = svc->fabrics[--svc->count];
    if (svc->count == 0) { /* give the array back: memory stays flat over load/unload cycles */
        free(svc->fabrics);
        svc->fabrics = NULL;
        svc->cap = 0;
    }
    return TSCHED_OK;
}

tsched_status tsched_service_attach(tsched_service *svc, const char *name, tsched_topology *topo)
{
    if (!svc || !name || !topo)
        return ts_error(TSCHED_E_INVALID, "tsched_service_attach: %s is NULL", !svc ? "svc" : !name ? "name" : "topo");
    if (!*name)
        return ts_error(TSCHED_E_INVALID, "tsched_service_attach: name is empty");
    return ts_svc_put(svc, name, topo, 0);
}

tsched_status tsched_service_detach(tsched_service *svc, const char *name)
{
    if (!svc || !name)
        return ts_error(TSCHED_E_INVALID, "tsched_service_detach: %s is NULL", !svc ? "svc" : "name");
    tsched_status st = ts_svc_remove(svc, name);
    return st == TSCHED_OK ? st : ts_error(st, "tsched_service_detach: no fabric named \"%s\"", name);
}

/* ---- answers ---- */

/* The CLI's exit status for a status (DESIGN 3). */
static int exit_code(tsched_status st)
{
    switch (st) {
    case TSCHED_OK: return 0;
    case TSCHED_E_INFEASIBLE:
    case TSCHED_E_NO_PATH: return 1;
    case TSCHED_E_NOMEM:
    case TSCHED_E_SOLVER:
    case TSCHED_E_TIMEOUT:
    case TSCHED_E_INTERNAL: return 3;
    default: return 2;
    }
}

/* One JSON value as compact text (malloc); reals as their shortest text, so an id such as
 * 0.1 comes back as it was given. */
static char *dump_compact(const json_t *v) { return ts_json_write(v, TS_JSON_COMPACT, NULL); }

void ts_svc_minify(char *s)
{
    char *w = s;
    int in_str = 0, esc = 0;
    for (; *s; s++) {
        char c = *s;
        if (in_str) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"')
            in_str = 1;
        else if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
            continue;
        *w++ = c;
    }
    *w = '\0';
}

static tsched_status ok_answer(char **answer, const json_t *id, const char *result, const char *extra)
{
    char *idtext = dump_compact(id ? id : json_null());
    if (!idtext)
        return ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
    static const char a[] = "{\"id\":", b[] = ",\"ok\":true,\"result\":", c[] = "}";
    size_t ni = strlen(idtext), nr = result ? strlen(result) : 4, ne = extra ? strlen(extra) : 0;
    char *out = malloc(sizeof a + ni + sizeof b + nr + ne + sizeof c);
    if (!out) {
        free(idtext);
        return ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
    }
    char *p = out;
    memcpy(p, a, sizeof a - 1), p += sizeof a - 1;
    memcpy(p, idtext, ni), p += ni;
    memcpy(p, b, sizeof b - 1), p += sizeof b - 1;
    memcpy(p, result ? result : "null", nr), p += nr;
    if (ne)
        memcpy(p, extra, ne), p += ne;
    memcpy(p, c, sizeof c);
    free(idtext);
    *answer = out;
    return TSCHED_OK;
}

/* A JSON string of `msg` on one line: control characters (from names a request gave) and
 * bytes that are not valid UTF-8 become '?'. */
static json_t *message_string(const char *msg)
{
    char *copy = strdup(msg);
    if (!copy)
        return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    json_t *s = json_string(copy);
    if (!s) {
        for (unsigned char *p = (unsigned char *)copy; *p; p++)
            if (*p >= 0x80)
                *p = '?';
        s = json_string(copy);
    }
    free(copy);
    return s;
}

static tsched_status error_answer(char **answer, const json_t *id, tsched_status st, const char *msg)
{
    json_t *o = json_object();
    json_t *m = message_string(msg);
    if (!o || !m || json_object_set(o, "id", id ? (json_t *)id : json_null()) ||
        json_object_set_new(o, "ok", json_false()) || json_object_set_new(o, "exit", json_integer(exit_code(st))) ||
        json_object_set_new(o, "status", json_string(tsched_status_str(st))) || json_object_set(o, "error", m)) {
        json_decref(o);
        json_decref(m);
        return ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
    }
    *answer = dump_compact(o);
    json_decref(o);
    json_decref(m);
    return *answer ? TSCHED_OK : ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
}

/* Fields other than id, op, options and the op's own. */
static tsched_status check_fields(const svc_req *req, const svc_op *op)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)req->root, key, v)
    {
        (void)v;
        if (!strcmp(key, "id") || !strcmp(key, "op") || (!strcmp(key, "options") && op->options))
            continue;
        int known = 0;
        for (const char *const *f = op->fields; f && *f && !known; f++)
            known = !strcmp(key, *f);
        if (!known)
            return ts_error(TSCHED_E_FORMAT, "%s: unknown field for op \"%s\"", key, op->name);
    }
    const json_t *opts = json_object_get(req->root, "options");
    if (!opts || json_is_null(opts))
        return TSCHED_OK;
    if (!json_is_object(opts))
        return ts_error(TSCHED_E_TYPE, "options: expected an object, got %s", ts_json_type_name(opts));
    json_object_foreach((json_t *)opts, key, v)
    {
        (void)v;
        int known = 0;
        for (const char *const *o = op->options; *o && !known; o++)
            known = !strcmp(key, *o);
        if (!known)
            return ts_error(TSCHED_E_FORMAT, "options.%s: unknown option for op \"%s\"", key, op->name);
    }
    return TSCHED_OK;
}

static tsched_status run(char **result, int *stops, svc_req *req)
{
    tsched_status st;
    if (!json_is_object(req->root))
        return ts_error(TSCHED_E_TYPE, "request: expected an object, got %s", ts_json_type_name(req->root));
    if ((st = ts_svc_str(&req->op, req, "op")) != TSCHED_OK)
        return st;
    size_t n;
    const svc_op *ops = ts_svc_ops(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ops[i].name, req->op) != 0)
            continue;
        if ((st = check_fields(req, &ops[i])) != TSCHED_OK)
            return st;
        *stops = ops[i].stops;
        return ops[i].fn(result, req);
    }
    char list[512];
    size_t at = 0;
    for (size_t i = 0; i < n && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", ops[i].name);
    return ts_error(TSCHED_E_FORMAT, "op: unknown operation \"%s\" (%s)", req->op, list);
}

static tsched_status handle(char **answer, int *stop, tsched_service *svc, const char *request, size_t len);

/* The service reads no files (no field of a request, nor a document inside one, can name a
 * path the library would open) and reads and writes numbers in the C locale whatever the
 * host's locale is: both hold for the thread while it answers. */
tsched_status tsched_service_handle(char **answer, int *stop, tsched_service *svc, const char *request, size_t len)
{
    int files = ts_files_forbid(1);
    locale_t old = ts_c_locale_enter();
    tsched_status st = handle(answer, stop, svc, request, len);
    ts_c_locale_leave(old);
    ts_files_forbid(files);
    return st;
}

static tsched_status handle(char **answer, int *stop, tsched_service *svc, const char *request, size_t len)
{
    if (answer)
        *answer = NULL;
    if (stop)
        *stop = 0;
    if (!answer || !svc || !request)
        return ts_error(TSCHED_E_INVALID, "tsched_service_handle: %s is NULL",
                        !answer ? "answer" : !svc ? "svc" : "request");
    json_t *root = NULL;
    char *result = NULL;
    int stops = 0;
    svc_req req = {svc, NULL, NULL, NULL, NULL, NULL, NULL};
    tsched_status st = ts_json_parse(&root, request, len);
    if (st != TSCHED_OK)
        st = ts_error_prefix(st, "request");
    else {
        req.root = root;
        st = run(&result, &stops, &req);
    }
    const json_t *id = root && json_is_object(root) ? json_object_get(root, "id") : NULL;
    tsched_status ast;
    if (st == TSCHED_OK) {
        if (result)
            ts_svc_minify(result);
        ast = ok_answer(answer, id, result, req.extra);
        if (ast == TSCHED_OK && (req.put_topo || req.drop_name)) {
            /* the answer exists: now the change (put takes the fabric, even on failure) */
            st = req.put_topo ? ts_svc_put(svc, req.put_name, req.put_topo, 1) : ts_svc_remove(svc, req.drop_name);
            req.put_topo = NULL;
            if (st != TSCHED_OK) {
                free(*answer);
                *answer = NULL;
            }
        }
    }
    if (st != TSCHED_OK) {
        char *msg = strdup(tsched_last_error());
        ast = msg ? error_answer(answer, id, st, msg) : ts_error(TSCHED_E_NOMEM, "out of memory writing the answer");
        free(msg);
    }
    tsched_topology_free(req.put_topo); /* not loaded: the answer could not be written */
    free(result);
    free(req.extra);
    json_decref(root);
    if (ast != TSCHED_OK)
        return ast;
    if (stop)
        *stop = st == TSCHED_OK && stops;
    return TSCHED_OK;
}
