/* The characterization database of Arnold 5.2 (`tsched.affinity.v1`): records
 * <GPU type, r1, r2, j_dp, j_pp>, nearest-neighbour lookup in (r1, r2) within a GPU type,
 * and the built-in records from the paper's published measurements. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc.h"
#include "../common/json.h"
#include "workload_internal.h"

#define AFFINITY_FORMAT "tsched.affinity.v1"
#define MAX_RECORDS 1000000u

/* Representative jobs for the paper's measurements; doc/workload.md explains each choice.
 * The MoE record's j_dp/j_pp split the paper's 1.8% so that alpha is its stated 0.3. */
static const ts_affinity_config default_configs[] = {
    {"H800", "Arnold 5.2/Fig. 5(a): 24B dense on H800, PP-aligned +2.3%, DP-aligned no speedup (alpha 0); "
             "config h 6144, l 48, V 64000, s 4096, tp 8, pp 8, dp 46, gb 1472, mb 1",
     2944, 8, 8, 6144, 48, 64000, 4096, 1472, 1, 1, 0, 0.0, 2.3},
    {"H800", "Arnold 5.2/Fig. 5(a): 24B MoE on H800, alpha 0.3 and PP-aligned +1.8% (j = 0.3 and 0.7 of 1.8); "
             "config h 3072, l 36, 8 experts, V 64000, s 4096, tp 4, pp 4, dp 128, gb 1024, mb 1",
     2048, 4, 4, 3072, 36, 64000, 4096, 1024, 1, 1, 8, 0.3 * 1.8, 0.7 * 1.8},
    {"L20", "Arnold App. E/Table 2: 7B dense on L20, DP-aligned +1.4% (alpha 1); "
            "config h 4096, l 32, V 32000, s 4096, tp 4, pp 2, dp 8, gb 512, mb 1",
     64, 4, 2, 4096, 32, 32000, 4096, 512, 1, 1, 0, 1.4, 0.0},
    {"L20", "Arnold App. E/Table 2: 14B dense on L20, PP-aligned +0.5% (alpha 0); "
            "config h 5120, l 40, V 32000, s 4096, tp 4, pp 4, dp 4, gb 512, mb 1",
     64, 4, 4, 5120, 40, 32000, 4096, 512, 1, 1, 0, 0.0, 0.5},
};

const ts_affinity_config *ts_affinity_default_configs(uint32_t *n)
{
    *n = (uint32_t)(sizeof default_configs / sizeof default_configs[0]);
    return default_configs;
}

void tsched_affinity_free(tsched_affinity *db)
{
    if (!db)
        return;
    for (uint32_t i = 0; i < db->count; i++) {
        free(db->rec[i].gpu_type);
        free(db->rec[i].note);
    }
    free(db->rec);
    free(db);
}

uint32_t tsched_affinity_count(const tsched_affinity *db) { return db ? db->count : 0; }

const ts_affinity_record *ts_affinity_record_at(const tsched_affinity *db, uint32_t i)
{
    return db && i < db->count ? &db->rec[i] : NULL;
}

static tsched_status db_new(tsched_affinity **out)
{
    *out = ts_calloc(1, sizeof **out);
    return *out ? TSCHED_OK : TSCHED_E_NOMEM;
}

/* Append a record; the strings are copied. */
static tsched_status db_add(tsched_affinity *db, const char *gpu_type, const char *note, double r1, double r2,
                            double j_dp, double j_pp)
{
    tsched_status st = TS_GROW(db->rec, db->cap, (size_t)db->count + 1);
    if (st != TSCHED_OK)
        return st;
    ts_affinity_record *r = &db->rec[db->count];
    memset(r, 0, sizeof *r);
    if (!(r->gpu_type = ts_strdup(gpu_type)) || (note && !(r->note = ts_strdup(note)))) {
        free(r->gpu_type);
        free(r->note);
        return TSCHED_E_NOMEM;
    }
    r->r1 = r1;
    r->r2 = r2;
    r->j_dp = j_dp;
    r->j_pp = j_pp;
    db->count++;
    return TSCHED_OK;
}

tsched_status tsched_affinity_default(tsched_affinity **out)
{
    if (!out)
        return ts_error(TSCHED_E_INVALID, "tsched_affinity_default: out is NULL");
    *out = NULL;
    tsched_affinity *db;
    tsched_status st = db_new(&db);
    if (st != TSCHED_OK)
        return st;
    uint32_t n;
    const ts_affinity_config *c = ts_affinity_default_configs(&n);
    for (uint32_t i = 0; i < n; i++) {
        tsched_model m;
        tsched_model_init(&m);
        m.hidden = c[i].hidden;
        m.layers = c[i].layers;
        m.vocab = c[i].vocab;
        m.seq = c[i].seq;
        m.global_batch = c[i].global_batch;
        m.micro_batch = c[i].micro_batch;
        m.vpp = c[i].vpp;
        m.moe_experts = c[i].moe_experts;
        tsched_volumes v;
        if ((st = ts_volumes_compute(&v, c[i].tp, c[i].pp, c[i].gpus / (c[i].tp * c[i].pp), &m)) != TSCHED_OK) {
            st = ts_error(TSCHED_E_INTERNAL, "built-in affinity record %u: %s", i, tsched_last_error());
            break;
        }
        if ((st = db_add(db, c[i].gpu_type, c[i].note, v.r1, v.r2, c[i].j_dp, c[i].j_pp)) != TSCHED_OK)
            break;
    }
    if (st != TSCHED_OK) {
        tsched_affinity_free(db);
        return st;
    }
    *out = db;
    return TSCHED_OK;
}

/* ---- reading and writing ---- */

static tsched_status read_record(tsched_affinity *db, const json_t *v, size_t i)
{
    char where[48];
    snprintf(where, sizeof where, "records[%zu]", i);
    if (!json_is_object(v))
        return ts_error(TSCHED_E_TYPE, "%s: expected an object, got %s", where, ts_json_type_name(v));
    tsched_status st;
    const char *type, *note = NULL;
    double r1, r2, j_dp, j_pp;
    if ((st = ts_json_str(&type, v, where, "gpu_type", 1)) || (st = ts_json_num(&r1, v, where, "r1", 1, 0, 0, DBL_MAX)) ||
        (st = ts_json_num(&r2, v, where, "r2", 1, 0, 0, DBL_MAX)) ||
        (st = ts_json_num(&j_dp, v, where, "j_dp", 1, 0, 0, DBL_MAX)) ||
        (st = ts_json_num(&j_pp, v, where, "j_pp", 1, 0, 0, DBL_MAX)) || (st = ts_json_str(&note, v, where, "note", 0)))
        return st;
    if (j_dp == 0 && j_pp == 0)
        return ts_error(TSCHED_E_RANGE, "%s: j_dp and j_pp are both 0, so alpha = j_dp / (j_dp + j_pp) is undefined",
                        where);
    if (!isfinite(j_dp + j_pp))
        return ts_error(TSCHED_E_RANGE, "%s: j_dp + j_pp overflows", where);
    return db_add(db, type, note, r1, r2, j_dp, j_pp);
}

static tsched_status load_doc(tsched_affinity **out, const json_t *root)
{
    tsched_status st;
    const json_t *records;
    if ((st = ts_json_check_format(root, AFFINITY_FORMAT)) || (st = ts_json_arr(&records, root, "", "records", 1)))
        return st;
    if (json_array_size(records) > MAX_RECORDS)
        return ts_error(TSCHED_E_TOO_LARGE, "records: %zu records; at most %u are supported", json_array_size(records),
                        MAX_RECORDS);
    tsched_affinity *db;
    if ((st = db_new(&db)) != TSCHED_OK)
        return st;
    size_t i;
    const json_t *v;
    json_array_foreach(records, i, v)
    {
        if ((st = read_record(db, v, i)) != TSCHED_OK) {
            tsched_affinity_free(db);
            return st;
        }
    }
    *out = db;
    return TSCHED_OK;
}

static tsched_status read_doc(void *slot, const void *ctx, const json_t *root)
{
    (void)ctx;
    return load_doc((tsched_affinity **)slot, root);
}

tsched_status tsched_affinity_load_string(tsched_affinity **out, const char *json, size_t len)
{
    return ts_json_load_string(out, read_doc, NULL, json, len, "tsched_affinity_load_string");
}

tsched_status tsched_affinity_load_file(tsched_affinity **out, const char *path)
{
    return ts_json_load_file(out, read_doc, NULL, path, "tsched_affinity_load_file");
}

static double record_alpha(const ts_affinity_record *r) { return r->j_dp / (r->j_dp + r->j_pp); }

tsched_status ts_affinity_to_json(char **out, const tsched_affinity *db)
{
    if (!out || !db)
        return ts_error(TSCHED_E_INVALID, "ts_affinity_to_json: out or db is NULL");
    *out = NULL;
    tsched_status st;
    json_t *root = json_object(), *records = json_array();
    if (!root || !records) {
        json_decref(root);
        json_decref(records);
        return ts_error(TSCHED_E_NOMEM, "out of memory building JSON");
    }
    if ((st = ts_json_set(root, "format", json_string(AFFINITY_FORMAT))) ||
        (st = ts_json_set(root, "records", records)))
        goto out;
    for (uint32_t i = 0; i < db->count; i++) {
        const ts_affinity_record *r = &db->rec[i];
        json_t *o = json_object();
        if ((st = ts_json_push(records, o)) != TSCHED_OK)
            goto out;
        /* alpha is informative: the reader derives it from j_dp and j_pp. */
        if ((st = ts_json_set(o, "gpu_type", json_string(r->gpu_type))) ||
            (st = ts_json_set(o, "r1", json_real(r->r1))) || (st = ts_json_set(o, "r2", json_real(r->r2))) ||
            (st = ts_json_set(o, "j_dp", json_real(r->j_dp))) || (st = ts_json_set(o, "j_pp", json_real(r->j_pp))) ||
            (st = ts_json_set(o, "alpha", json_real(record_alpha(r)))) ||
            (r->note && (st = ts_json_set(o, "note", json_string(r->note)))))
            goto out;
    }
    st = ts_json_dump(out, root);
out:
    json_decref(root);
    return st;
}

/* ---- lookup ---- */

/* "H800, L20" (distinct types in record order), truncated to fit. */
static void list_types(char *buf, size_t size, const tsched_affinity *db)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < db->count && used + 1 < size; i++) {
        uint32_t k = 0;
        while (k < i && strcmp(db->rec[k].gpu_type, db->rec[i].gpu_type) != 0)
            k++;
        if (k < i)
            continue;
        int n = snprintf(buf + used, size - used, "%s\"%s\"", used ? ", " : "", db->rec[i].gpu_type);
        if (n < 0 || (size_t)n >= size - used) {
            buf[used] = '\0';
            break;
        }
        used += (size_t)n;
    }
}

tsched_status tsched_affinity_lookup(double *alpha, uint32_t *record, const tsched_affinity *db,
                                     const char *gpu_type, double r1, double r2)
{
    if (!alpha || !db || !gpu_type)
        return ts_error(TSCHED_E_INVALID, "tsched_affinity_lookup: alpha, db or gpu_type is NULL");
    if (!isfinite(r1))
        return ts_error(TSCHED_E_RANGE, "r1: %g is not a finite number", r1);
    if (!isfinite(r2))
        return ts_error(TSCHED_E_RANGE, "r2: %g is not a finite number", r2);
    uint32_t best = TSCHED_NONE;
    double best_d = 0;
    for (uint32_t i = 0; i < db->count; i++) {
        if (strcmp(db->rec[i].gpu_type, gpu_type) != 0)
            continue;
        double d = hypot(r1 - db->rec[i].r1, r2 - db->rec[i].r2);
        if (best == TSCHED_NONE || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    if (best == TSCHED_NONE) {
        char types[256];
        list_types(types, sizeof types, db);
        return ts_error(TSCHED_E_NOT_FOUND, "gpu_type: no affinity record for GPU type \"%s\" (the database has: %s)",
                        gpu_type, types[0] ? types : "no records");
    }
    *alpha = record_alpha(&db->rec[best]);
    if (record)
        *record = best;
    return TSCHED_OK;
}

tsched_status tsched_job_resolve_alpha(double *alpha, const tsched_job *job, const tsched_affinity *db,
                                       const char *gpu_type)
{
    if (!alpha || !job)
        return ts_error(TSCHED_E_INVALID, "tsched_job_resolve_alpha: alpha or job is NULL");
    if (!job->alpha_auto) {
        *alpha = job->alpha;
        return TSCHED_OK;
    }
    if (!gpu_type)
        return ts_error(TSCHED_E_INVALID, "gpu_type: needed to resolve \"alpha\": \"auto\" of job \"%s\"", job->name);
    tsched_volumes v = {.size = sizeof v};
    tsched_status st = tsched_job_volumes(&v, job);
    if (st != TSCHED_OK)
        return st;
    /* Only one kind of group talks across nodes: no measurement is needed to weigh them. */
    if (v.pp == 0) {
        *alpha = 1.0;
        return TSCHED_OK;
    }
    if (v.dp == 0) {
        *alpha = 0.0;
        return TSCHED_OK;
    }
    tsched_affinity *own = NULL;
    if (!db) {
        if ((st = tsched_affinity_default(&own)) != TSCHED_OK)
            return st;
        db = own;
    }
    st = tsched_affinity_lookup(alpha, NULL, db, gpu_type, v.r1, v.r2);
    tsched_affinity_free(own);
    return st;
}

tsched_status tsched_affinity_record(const char **gpu_type, double *r1, double *r2, double *j_dp, double *j_pp,
                                     const tsched_affinity *db, uint32_t index)
{
    if (!db)
        return ts_error(TSCHED_E_INVALID, "tsched_affinity_record: db is NULL");
    const ts_affinity_record *r = ts_affinity_record_at(db, index);
    if (!r)
        return ts_error(TSCHED_E_INVALID, "tsched_affinity_record: record %u does not exist (%u records)", index,
                        db ? db->count : 0);
    if (gpu_type)
        *gpu_type = r->gpu_type;
    if (r1)
        *r1 = r->r1;
    if (r2)
        *r2 = r->r2;
    if (j_dp)
        *j_dp = r->j_dp;
    if (j_pp)
        *j_pp = r->j_pp;
    return TSCHED_OK;
}

tsched_status tsched_affinity_to_json(char **out, const tsched_affinity *db)
{
    if (!out || !db)
        return ts_error(TSCHED_E_INVALID, "tsched_affinity_to_json: out or db is NULL");
    return ts_affinity_to_json(out, db);
}
