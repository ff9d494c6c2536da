/* The `tsched.scenario.v1` reader (doc/sim.md §4.2, errors §8). The whole document is
 * checked first (types, ranges, whole numbers, failure times and names' types), then applied
 * through tsched_sim_set_policy / tsched_sim_set_option / tsched_sim_add_failure; what only
 * the engine can judge (policy names, failure element names) fails while applying, with the
 * field named. Absent fields keep the simulation's current values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json.h"
#include "common/names.h"
#include "sim/sim_api.h"

#define SCENARIO_FORMAT "tsched.scenario.v1"
/* 2^53: the largest whole number every double holds exactly (seeds go up to it) */
#define WHOLE_MAX 9007199254740992.0

typedef struct scenario_slot {
    void *unused; /* ts_json_load_string() stores NULL here */
    tsched_sim *sim;
} scenario_slot;

static const struct {
    const char *key;
    tsched_sim_policy which;
} policies[] = {
    {"queue", TSCHED_SIM_QUEUE},     {"placement", TSCHED_SIM_PLACEMENT}, {"routing", TSCHED_SIM_ROUTING},
    {"reroute", TSCHED_SIM_REROUTE}, {"priority", TSCHED_SIM_PRIORITY},   {"links", TSCHED_SIM_LINKS},
};
#define NPOLICIES (sizeof policies / sizeof policies[0])

/* Numbers of the scenario: `where` "" for top-level fields, "measure" for the window. */
static const struct {
    const char *where, *key;
    tsched_sim_option which;
    int whole;    /* must be a whole number */
    int nullable; /* null = INFINITY */
    double max;
} options[] = {
    {"", "seed", TSCHED_SIM_SEED, 1, 0, WHOLE_MAX},
    {"", "levels", TSCHED_SIM_LEVELS, 1, 0, 4294967295.0},
    {"", "until_s", TSCHED_SIM_UNTIL_S, 0, 1, TS_SIM_MAX_S},
    {"measure", "from_s", TSCHED_SIM_MEASURE_FROM_S, 0, 0, TS_SIM_MAX_S},
    {"measure", "to_s", TSCHED_SIM_MEASURE_TO_S, 0, 1, TS_SIM_MAX_S},
    {"", "phase_latency_us", TSCHED_SIM_PHASE_LATENCY_US, 0, 0, TS_SIM_MAX_S * 1e6},
    {"", "max_sim_iterations", TSCHED_SIM_MAX_SIM_ITERATIONS, 1, 0, WHOLE_MAX},
    {"", "place_time_limit_ms", TSCHED_SIM_PLACE_TIME_LIMIT_MS, 0, 0, TS_SIM_MAX_S * 1e3},
    {"", "sample_ms", TSCHED_SIM_SAMPLE_MS, 0, 0, TS_SIM_MAX_S * 1e3},
    {"", "schedule_interval_s", TSCHED_SIM_SCHEDULE_INTERVAL_S, 0, 0, TS_SIM_MAX_S},
    {"", "crius_depth", TSCHED_SIM_CRIUS_DEPTH, 1, 0, 16},
    {"", "timeseries", TSCHED_SIM_TIMESERIES, 1, 0, 1},
};
#define NOPTIONS (sizeof options / sizeof options[0])

/* What the check pass found, for the apply pass. */
typedef struct scenario {
    const char *name;
    const char *policy[NPOLICIES]; /* NULL = absent */
    int has_option[NOPTIONS];
    double option[NOPTIONS];
    const json_t *failures;
    tsched_gpu_catalog *cat; /* "gpus" (placement crius), read in the check pass; NULL = absent */
    int shared, host;        /* "shared_nodes", "host_links": 1 on, 0 off, -1 absent */
    double pcie, nvlink;
} scenario;

/* Defaults of "host_links" (doc/sim.md "Shared nodes and host-internal links"): PCIe Gen4 x16
 * per direction (16 GT/s x 16 lanes), NVLink 3 on an A100 (600 GB/s per GPU, both directions). */
#define HOST_PCIE_GBPS 256.0
#define HOST_NVLINK_GBPS 4800.0

/* "shared_nodes": a boolean; "host_links": null (off), or an object of optional capacities. */
static tsched_status read_host(scenario *sc, const json_t *root)
{
    const json_t *v = json_object_get(root, "shared_nodes");
    sc->shared = sc->host = -1;
    if (v && !json_is_boolean(v))
        return ts_error(TSCHED_E_TYPE, "shared_nodes: expected true or false, got %s", ts_json_type_name(v));
    if (v)
        sc->shared = json_is_true(v);
    v = json_object_get(root, "host_links");
    if (!v)
        return TSCHED_OK;
    sc->host = 0;
    if (json_is_null(v))
        return TSCHED_OK;
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "host_links: expected an object or null, got %s", ts_json_type_name(v));
    const char *key;
    const json_t *x;
    json_object_foreach((json_t *)v, key, x) {
        if (strcmp(key, "pcie_gbps") != 0 && strcmp(key, "nvlink_gbps") != 0)
            return ts_error(TSCHED_E_INVALID, "host_links.%s: unknown field (pcie_gbps, nvlink_gbps)", key);
        if (!json_is_number(x))
            return ts_error(TSCHED_E_TYPE, "host_links.%s: expected a number, got %s", key, ts_json_type_name(x));
    }
    x = json_object_get(v, "pcie_gbps");
    sc->pcie = x ? json_number_value(x) : HOST_PCIE_GBPS;
    x = json_object_get(v, "nvlink_gbps");
    sc->nvlink = x ? json_number_value(x) : HOST_NVLINK_GBPS;
    if (!(sc->pcie > 0) || sc->pcie > 1e12)
        return ts_error(TSCHED_E_RANGE, "host_links.pcie_gbps: %.17g is not in (0, 1e12]", sc->pcie);
    if (!(sc->nvlink >= 0) || sc->nvlink > 1e12)
        return ts_error(TSCHED_E_RANGE, "host_links.nvlink_gbps: %.17g is not in [0, 1e12] (0: no NVLink)",
                        sc->nvlink);
    sc->host = 1;
    return TSCHED_OK;
}

/* "gpus": a `tsched.gpus.v1` object, or the path of such a file, merged over the built-in
 * catalogue for placement crius (doc/sim.md §3.2). */
static tsched_status read_gpus(tsched_gpu_catalog **out, const json_t *root)
{
    const json_t *v = json_object_get(root, "gpus");
    tsched_status st;
    if (!v || json_is_null(v))
        return TSCHED_OK;
    if (json_is_string(v)) {
        st = tsched_gpu_catalog_load_file(out, json_string_value(v));
    } else if (json_is_object(v)) {
        char *txt = ts_json_write(v, TS_JSON_COMPACT, NULL);
        if (!txt)
            return ts_error(TSCHED_E_NOMEM, "gpus: out of memory");
        st = tsched_gpu_catalog_load_string(out, txt, strlen(txt));
        free(txt);
    } else {
        return ts_error(TSCHED_E_TYPE, "gpus: expected a tsched.gpus.v1 object or a file name, got %s",
                        ts_json_type_name(v));
    }
    if (st != TSCHED_OK) {
        *out = NULL;
        return ts_error_prefix(st, "gpus");
    }
    return TSCHED_OK;
}

/* The engine's messages usually name the option already; name the field where they do not. */
static tsched_status name_field(tsched_status st, const char *field)
{
    size_t n = strlen(field);
    const char *msg = tsched_last_error();
    if (strncmp(msg, field, n) == 0 && (msg[n] == ':' || msg[n] == ' '))
        return st;
    return ts_error_prefix(st, field);
}

static void field_name(char *buf, size_t cap, const char *where, const char *key)
{
    snprintf(buf, cap, "%s%s%s", where, *where ? "." : "", key);
}

static tsched_status check_names(const json_t *ev, const char *where, const char *key)
{
    const json_t *arr;
    tsched_status st = ts_json_arr(&arr, ev, where, key, 0);
    for (size_t k = 0; st == TSCHED_OK && arr && k < json_array_size(arr); k++) {
        const json_t *v = json_array_get(arr, k);
        if (!json_is_string(v))
            return ts_error(TSCHED_E_TYPE, "%s.%s[%zu]: expected an element name (string), got %s", where, key, k,
                            ts_json_type_name(v));
        if (json_string_length(v) == 0 || strlen(json_string_value(v)) != json_string_length(v))
            return ts_error(TSCHED_E_RANGE, "%s.%s[%zu]: an element name must be non-empty without NUL characters",
                            where, key, k);
    }
    return st;
}

static tsched_status check_doc(scenario *sc, const json_t *root)
{
    tsched_status st;
    memset(sc, 0, sizeof *sc);
    if ((st = ts_json_check_format(root, SCENARIO_FORMAT)) != TSCHED_OK)
        return st;
    if ((st = ts_json_str(&sc->name, root, "", "name", 0)) != TSCHED_OK ||
        (sc->name && (st = ts_name_check(sc->name, "name")) != TSCHED_OK))
        return st;
    for (size_t i = 0; i < NPOLICIES; i++)
        if ((st = ts_json_str(&sc->policy[i], root, "", policies[i].key, 0)) != TSCHED_OK)
            return st;
    const json_t *measure;
    if ((st = ts_json_obj(&measure, root, "", "measure", 0)) != TSCHED_OK)
        return st;
    /* "measure": null is the default window */
    for (size_t i = 0; i < NOPTIONS; i++) {
        const json_t *obj = *options[i].where ? measure : root;
        if (!obj)
            continue;
        const json_t *v = json_object_get(obj, options[i].key);
        if (!v)
            continue;
        char field[48];
        field_name(field, sizeof field, options[i].where, options[i].key);
        if (json_is_null(v)) {
            if (!options[i].nullable)
                return ts_error(TSCHED_E_TYPE, "%s: expected a number, got null", field);
            sc->has_option[i] = 1;
            sc->option[i] = INFINITY;
            continue;
        }
        double d = 0;
        if ((st = ts_json_num(&d, obj, options[i].where, options[i].key, 1, 0, 0, options[i].max)) != TSCHED_OK)
            return st;
        if (options[i].whole && d != floor(d))
            return ts_error(TSCHED_E_RANGE, "%s: expected a whole number, got %.17g", field, d);
        sc->has_option[i] = 1;
        sc->option[i] = d;
    }
    /* the window may not end before it begins (the setters leave this to the run's start) */
    size_t from = 0, to = 0;
    for (size_t i = 0; i < NOPTIONS; i++) {
        from = options[i].which == TSCHED_SIM_MEASURE_FROM_S ? i : from;
        to = options[i].which == TSCHED_SIM_MEASURE_TO_S ? i : to;
    }
    if (sc->has_option[from] && sc->has_option[to] && sc->option[to] < sc->option[from])
        return ts_error(TSCHED_E_RANGE, "measure.to_s: %.17g is before measure.from_s %.17g", sc->option[to],
                        sc->option[from]);
    if ((st = ts_json_arr(&sc->failures, root, "", "failures", 0)) != TSCHED_OK)
        return st;
    if ((st = read_gpus(&sc->cat, root)) != TSCHED_OK || (st = read_host(sc, root)) != TSCHED_OK)
        return st;
    char where[40];
    for (size_t i = 0; sc->failures && i < json_array_size(sc->failures); i++) {
        const json_t *ev = json_array_get(sc->failures, i);
        double at = 0;
        snprintf(where, sizeof where, "failures[%zu]", i);
        if (!json_is_object(ev))
            return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(ev));
        if ((st = ts_json_num(&at, ev, where, "at_s", 1, 0, 0, TS_SIM_MAX_S)) ||
            (st = check_names(ev, where, "down")) || (st = check_names(ev, where, "up")))
            return st;
    }
    return TSCHED_OK;
}

static tsched_status apply_names(tsched_sim *sim, const json_t *ev, const char *where, const char *key, int64_t at_ns,
                                 int up)
{
    const json_t *arr = json_object_get(ev, key);
    char field[64];
    for (size_t k = 0; json_is_array(arr) && k < json_array_size(arr); k++) {
        tsched_status st = tsched_sim_add_failure(sim, at_ns, json_string_value(json_array_get(arr, k)), up);
        if (st != TSCHED_OK) {
            snprintf(field, sizeof field, "%s.%s[%zu]", where, key, k);
            return ts_error_prefix(st, field);
        }
    }
    return TSCHED_OK;
}

static tsched_status apply_doc(tsched_sim *sim, const scenario *sc)
{
    tsched_status st;
    for (size_t i = 0; i < NPOLICIES; i++)
        if (sc->policy[i] && (st = tsched_sim_set_policy(sim, policies[i].which, sc->policy[i])) != TSCHED_OK)
            return name_field(st, policies[i].key);
    char field[48];
    for (size_t i = 0; i < NOPTIONS; i++)
        if (sc->has_option[i] && (st = tsched_sim_set_option(sim, options[i].which, sc->option[i])) != TSCHED_OK) {
            field_name(field, sizeof field, options[i].where, options[i].key);
            return name_field(st, field);
        }
    if (sc->name && (st = ts_sim_set_name(sim, sc->name)) != TSCHED_OK)
        return name_field(st, "name");
    if (sc->cat && (st = tsched_sim_set_gpu_catalog(sim, sc->cat)) != TSCHED_OK)
        return name_field(st, "gpus");
    if ((sc->shared >= 0 || sc->host >= 0) &&
        (st = ts_sim_set_host(sim, sc->shared, sc->host, sc->pcie, sc->nvlink)) != TSCHED_OK)
        return st;
    char where[40];
    for (size_t i = 0; sc->failures && i < json_array_size(sc->failures); i++) {
        const json_t *ev = json_array_get(sc->failures, i);
        snprintf(where, sizeof where, "failures[%zu]", i);
        int64_t at_ns = ts_sim_ns(json_number_value(json_object_get(ev, "at_s")));
        /* down first: an element listed in both ends the instant up */
        if ((st = apply_names(sim, ev, where, "down", at_ns, 0)) ||
            (st = apply_names(sim, ev, where, "up", at_ns, 1)))
            return st;
    }
    return TSCHED_OK;
}

static tsched_status read_scenario(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    scenario sc;
    tsched_status st = check_doc(&sc, root);
    if (st == TSCHED_OK)
        st = apply_doc(((scenario_slot *)slot)->sim, &sc);
    tsched_gpu_catalog_free(sc.cat);
    return st;
}

tsched_status tsched_sim_load_scenario_string(tsched_sim *sim, const char *json, size_t len)
{
    if (!sim)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_load_scenario_string: sim is NULL");
    scenario_slot slot = {NULL, sim};
    return ts_json_load_string(&slot, read_scenario, NULL, json, len, "tsched_sim_load_scenario_string");
}

tsched_status tsched_sim_load_scenario_file(tsched_sim *sim, const char *path)
{
    if (!sim)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_load_scenario_file: sim is NULL");
    if (!path)
        return ts_error(TSCHED_E_INVALID, "tsched_sim_load_scenario_file: path is NULL");
    scenario_slot slot = {NULL, sim};
    return ts_json_load_file(&slot, read_scenario, NULL, path, "tsched_sim_load_scenario_file");
}
