/* vclos formats (doc/vclos.md §8): tsched.vclos.v1 out (field order, flows equal to those
 * regenerated from the output's own ranks and links, contention-free by recount), the
 * tsched.vclos-requests.v1 reader (every error names the request and field), load_state
 * (round trip, validation, the handle unchanged on error), determinism. Stage-2 jobs are
 * built by hand with the internal vc_fill_stage2 + vc_job_add, so that these tests do not
 * depend on the ILP. */
#include <jansson.h>
#include <stdio.h>

#include "test_util.h"
#include "../src/common/alloc.h"
#include "../src/vclos/vclos_internal.h"

/* Add a stage-2 job by hand: leaves (local, ascending) and the spine of each virtual spine. */
static void add_stage2(tsched_vclos *v, const char *name, uint32_t l, uint32_t q, const uint32_t *leaves,
                       const uint32_t *sp)
{
    vc_job *j = ts_calloc(1, sizeof *j);
    ck_assert_ptr_nonnull(j);
    j->name = ts_strdup(name);
    j->gpus = l * q * v->T;
    j->optimal = 1;
    ck_assert_ok(vc_fill_stage2(v, j, l, q, leaves, sp));
    ck_assert_ok(vc_job_add(v, j));
}

static json_t *parse(const char *s)
{
    json_error_t e;
    json_t *r = json_loads(s, JSON_REJECT_DUPLICATES, &e);
    ck_assert_msg(r != NULL, "output is not JSON: %s", e.text);
    return r;
}

static const char *jstr(const json_t *o, const char *k)
{
    const json_t *x = json_object_get(o, k);
    ck_assert_msg(json_is_string(x), "field %s is not a string", k);
    return json_string_value(x);
}

/* Keys of an object in order, joined by ','. */
static void keys_are(const json_t *o, const char *want)
{
    char got[512] = "";
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)o, k, val)
    {
        (void)val;
        if (*got)
            strcat(got, ",");
        strcat(got, k);
    }
    ck_assert_str_eq(got, want);
}

/* Two equal JSON values (jansson's deep equality); on mismatch both are printed. */
static void same(const json_t *a, const json_t *b, const char *what)
{
    if (!json_equal((json_t *)a, (json_t *)b)) {
        char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);
        ck_abort_msg("%s differ:\n%s\n%s", what, x, y);
    }
}

/* The flows of one job regenerated from its `ranks` and `spines` alone (vClos source
 * routes, doc/vclos.md §1), compared with its `flows`. Returns the number of flows. */
static size_t check_flows(const json_t *job, tsched_vclos_pattern pat, uint32_t step)
{
    const json_t *ranks = json_object_get(job, "ranks"), *spines = json_object_get(job, "spines");
    const json_t *flows = json_object_get(job, "flows");
    size_t R = json_array_size(ranks), s = json_array_size(spines);
    uint32_t steps = tsched_vclos_pattern_steps(pat, (uint32_t)R);
    if (!steps) {
        ck_assert_ptr_null(flows);
        return 0;
    }
    ck_assert_ptr_nonnull(flows);
    json_t *want = json_array();
    for (size_t r = 0; r < R; r++) {
        uint32_t st = step % steps;
        size_t d = pat == TSCHED_VCLOS_RING ? (r + 1) % R : pat == TSCHED_VCLOS_ALLTOALL ? (r + st + 1) % R
                                                                                         : r ^ ((size_t)1 << st);
        const json_t *a = json_array_get(ranks, r), *b = json_array_get(ranks, d);
        ck_assert_int_eq(json_integer_value(json_object_get(a, "rank")), (json_int_t)r);
        if (!strcmp(jstr(a, "node"), jstr(b, "node")))
            continue;
        json_t *hops = json_array(), *links = json_array();
        json_array_append_new(hops, json_string(jstr(a, "leaf")));
        if (strcmp(jstr(a, "leaf"), jstr(b, "leaf"))) {
            ck_assert_uint_gt(s, 0);
            const json_t *bb = json_array_get(ranks, (d / s) * s + r % s);
            json_array_append(hops, json_array_get(spines, r % s));
            json_array_append_new(hops, json_string(jstr(b, "leaf")));
            json_array_append(links, json_object_get(a, "uplink"));
            json_array_append(links, json_object_get(bb, "uplink"));
        }
        json_array_append_new(want, json_pack("{s:i, s:i, s:s, s:O, s:s, s:O, s:o, s:o}", "src_rank", (json_int_t)r,
                                              "dst_rank", (json_int_t)d, "src", jstr(a, "node"), "src_nic",
                                              json_object_get(a, "nic"), "dst", jstr(b, "node"), "dst_nic",
                                              json_object_get(b, "nic"), "hops", hops, "links", links));
    }
    same(flows, want, "reported and regenerated flows");
    size_t n = json_array_size(want);
    json_decref(want);
    return n;
}

/* A 4 x 4 x 1 leaf-spine, 2 nodes of 2 GPUs and 2 NICs per leaf, with two stage-2 jobs
 * (leaves 0,2 on spines 0,1 and leaves 1,3 on spines 2,3), one stage-1 job and one stage-0. */
static tsched_vclos *busy(tsched_topology **t)
{
    *t = tu_leaf_spine(4, 4, 1, 2, 2, 2);
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, *t, TSCHED_VCLOS_MODE_VCLOS));
    static const uint32_t l02[] = {0, 2}, l13[] = {1, 3}, s01[] = {0, 1}, s23[] = {2, 3};
    add_stage2(v, "a", 2, 1, l02, s01);
    add_stage2(v, "b", 2, 1, l13, s23);
    tsched_vclos_outcome o;
    ck_assert_ok(tsched_vclos_allocate(v, "c", 1, &o));
    ck_assert_int_eq(o, TSCHED_VCLOS_ALLOCATED);
    return v;
}

START_TEST(test_fields_and_order)
{
    tsched_topology *t;
    tsched_vclos *v = busy(&t);
    char *s;
    ck_assert_ok(tsched_vclos_to_json(&s, v, TSCHED_VCLOS_RING, 0));
    json_t *r = parse(s);
    keys_are(r, "format,mode,shapes,jobs");
    ck_assert_str_eq(jstr(r, "format"), "tsched.vclos.v1");
    ck_assert_str_eq(jstr(r, "mode"), "vclos");
    const json_t *jobs = json_object_get(r, "jobs");
    ck_assert_uint_eq(json_array_size(jobs), 3);
    const json_t *a = json_array_get(jobs, 0);
    keys_are(a, "name,gpus,stage,nodes,gpus_per_node,leaves,spines,links,ranks,flows");
    ck_assert_str_eq(jstr(a, "name"), "a");
    ck_assert_int_eq(json_integer_value(json_object_get(a, "stage")), 2);
    json_t *want = json_pack("{s:[s,s], s:[s,s], s:[s,s], s:[s,s,s,s]}", "nodes", "node0", "node4", "leaves", "leaf0",
                             "leaf2", "spines", "spine0", "spine1", "links", "leaf0~spine0#0", "leaf0~spine1#0",
                             "leaf2~spine0#0", "leaf2~spine1#0");
    const char *k;
    json_t *val;
    json_object_foreach(want, k, val) same(json_object_get(a, k), val, k);
    json_decref(want);
    keys_are(json_array_get(json_object_get(a, "ranks"), 0), "rank,node,nic,leaf,uplink");
    ck_assert_str_eq(jstr(json_array_get(json_object_get(a, "ranks"), 3), "uplink"), "leaf2~spine1#0");
    /* ring over 4 ranks of 2 nodes: 1 -> 2 and 3 -> 0 cross leaves, 0 -> 1 and 2 -> 3 stay in a node */
    const json_t *f = json_object_get(a, "flows");
    ck_assert_uint_eq(json_array_size(f), 2);
    keys_are(json_array_get(f, 0), "src_rank,dst_rank,src,src_nic,dst,dst_nic,hops,links");
    want = json_pack("{s:i, s:i, s:s, s:i, s:s, s:i, s:[s,s,s], s:[s,s]}", "src_rank", 1, "dst_rank", 2, "src", "node0",
                     "src_nic", 1, "dst", "node4", "dst_nic", 0, "hops", "leaf0", "spine1", "leaf2", "links",
                     "leaf0~spine1#0", "leaf2~spine1#0");
    same(json_array_get(f, 0), want, "flow 1 -> 2");
    json_decref(want);
    /* stage 0: one node, its leaf, no ranks, no flows */
    const json_t *c = json_array_get(jobs, 2);
    keys_are(c, "name,gpus,stage,nodes,gpus_per_node,leaves,spines,links,ranks");
    ck_assert_int_eq(json_integer_value(json_object_get(c, "gpus_per_node")), 1);
    ck_assert_uint_eq(json_array_size(json_object_get(c, "nodes")), 1);
    ck_assert_uint_eq(json_array_size(json_object_get(c, "leaves")), 1);
    json_decref(r);
    tsched_free(s);
    /* without a pattern: no flows */
    ck_assert_ok(tsched_vclos_to_json(&s, v, -1, 0));
    r = parse(s);
    ck_assert_ptr_null(json_object_get(json_array_get(json_object_get(r, "jobs"), 0), "flows"));
    json_decref(r);
    tsched_free(s);
    ck_assert_status(tsched_vclos_to_json(&s, v, 3, 0), TSCHED_E_INVALID);
    ck_assert_errmsg_has("pattern");
    ck_assert_ptr_null(s);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* Random hand-built stage-2 jobs on a 6 x 4 x 2 fabric: every step of every pattern lists
 * exactly the flows regenerated from the output, and they share no directed member link. */
START_TEST(test_flows_regenerated)
{
    tu_rng rng = {0x1234 + (uint64_t)_i * 7919};
    for (int trial = 0; trial < 6; trial++) {
        tsched_topology *t = tu_leaf_spine(6, 4, 2, 4, 2, 2);
        tsched_vclos *v;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
        char name[16];
        for (int k = 0; k < 8; k++) {
            uint32_t l = 2 + tu_rng_below(&rng, 3), q = 1 + tu_rng_below(&rng, 2), s = q * v->E;
            /* leaves with q idle nodes, lowest first after a random start */
            uint32_t leaves[6], nl = 0, start = tu_rng_below(&rng, 6);
            for (uint32_t i = 0; i < 6 && nl < l; i++) {
                uint32_t n = (start + i) % 6;
                if (vc_rsn(v, n) >= q)
                    leaves[nl++] = n;
            }
            if (nl < l)
                continue;
            for (uint32_t i = 1; i < l; i++) /* ascending */
                for (uint32_t k2 = i; k2 > 0 && leaves[k2 - 1] > leaves[k2]; k2--) {
                    uint32_t x = leaves[k2];
                    leaves[k2] = leaves[k2 - 1];
                    leaves[k2 - 1] = x;
                }
            /* virtual spines: ascending spines, each used while every chosen leaf has a free member */
            uint32_t sp[8], ns = 0, used[4] = {0};
            for (uint32_t m = tu_rng_below(&rng, 4), tries = 0; ns < s && tries < 16; tries++, m = (m + 1) % 4) {
                int ok = 1;
                for (uint32_t i = 0; i < l; i++)
                    ok &= vc_pair_free(v, leaves[i], m) > used[m];
                if (ok) {
                    used[m]++;
                    sp[ns++] = m;
                }
            }
            if (ns < s)
                continue;
            for (uint32_t i = 1; i < s; i++)
                for (uint32_t k2 = i; k2 > 0 && sp[k2 - 1] > sp[k2]; k2--) {
                    uint32_t x = sp[k2];
                    sp[k2] = sp[k2 - 1];
                    sp[k2 - 1] = x;
                }
            snprintf(name, sizeof name, "j%d", k);
            add_stage2(v, name, l, q, leaves, sp);
        }
        tsched_vclos_outcome o;
        ck_assert_ok(tsched_vclos_allocate(v, "one-leaf", 8, &o));
        ck_assert_uint_gt(tsched_vclos_num_jobs(v), 0);
        size_t total = 0;
        for (int pat = 0; pat < 3; pat++)
            for (uint32_t step = 0; step < 5; step++) {
                char *s;
                ck_assert_ok(tsched_vclos_to_json(&s, v, pat, step));
                json_t *r = parse(s);
                const json_t *jobs = json_object_get(r, "jobs");
                for (size_t i = 0; i < json_array_size(jobs); i++)
                    total += check_flows(json_array_get(jobs, i), (tsched_vclos_pattern)pat, step);
                ck_assert_uint_le(tu_vclos_max_share(v, (tsched_vclos_pattern)pat, step, NULL), 1);
                json_decref(r);
                tsched_free(s);
            }
        ck_assert_uint_gt(total, 0);
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
}
END_TEST

/* output -> load_state into a fresh handle -> the same output */
START_TEST(test_state_round_trip)
{
    tsched_topology *t;
    tsched_vclos *v = busy(&t);
    /* a degraded job keeps a lost member as null */
    static const uint32_t l01[] = {0, 1}, s00[] = {0};
    tsched_topology *t2 = tu_leaf_spine(4, 4, 2, 2, 2, 1);
    tsched_vclos *w, *w2;
    ck_assert_ok(tsched_vclos_new(&w, t2, TSCHED_VCLOS_MODE_VCLOS));
    add_stage2(w, "d", 2, 1, l01, s00);
    w->link_owner[w->jobs[0]->links[1]] = 0;
    w->jobs[0]->links[1] = VC_NONE;
    w->jobs[0]->degraded = 1;
    tsched_vclos *hs[2] = {v, w};
    for (int h = 0; h < 2; h++) {
        char *a, *b;
        ck_assert_ok(tsched_vclos_to_json(&a, hs[h], TSCHED_VCLOS_ALLTOALL, 1));
        tsched_vclos *u;
        ck_assert_ok(tsched_vclos_new(&u, h ? t2 : t, TSCHED_VCLOS_MODE_VCLOS));
        ck_assert_ok(tsched_vclos_load_state(u, a, strlen(a)));
        ck_assert_ok(tsched_vclos_to_json(&b, u, TSCHED_VCLOS_ALLTOALL, 1));
        ck_assert_str_eq(a, b);
        /* loaded resources are held: loading the same jobs again fails (names), and under
         * other names (the nodes are no longer idle) */
        ck_assert_status(tsched_vclos_load_state(u, a, strlen(a)), TSCHED_E_DUPLICATE);
        ck_assert_errmsg_has("jobs[0].name");
        tsched_vclos_jobinfo info = {.size = sizeof info};
        ck_assert_ok(tsched_vclos_job_info(&info, u, h ? "d" : "a"));
        ck_assert_int_eq(info.degraded, h);
        tsched_free(a);
        tsched_free(b);
        tsched_vclos_free(u);
    }
    /* the free mode's jobs have no links */
    ck_assert_ok(tsched_vclos_new(&w2, t, TSCHED_VCLOS_MODE_FREE));
    char *a;
    ck_assert_ok(tsched_vclos_to_json(&a, v, -1, 0));
    ck_assert_status(tsched_vclos_load_state(w2, a, strlen(a)), TSCHED_E_INVALID);
    ck_assert_errmsg_has("mode: \"vclos\"");
    tsched_free(a);
    tsched_vclos_free(w2);
    tsched_vclos_free(w);
    tsched_vclos_free(v);
    tsched_topology_free(t2);
    tsched_topology_free(t);
}
END_TEST

/* OCS-vClos: random allocations (stages 2a, 2b, 3 re-point circuits) round-trip through
 * --state: the loaded handle writes the same document, and its next allocations are the
 * same as the original's (the circuits were re-pointed alike). A bad port fails naming it
 * and leaves the wiring as it was. */
START_TEST(test_state_round_trip_ocs)
{
    tsched_topology *t = tu_leaf_spine(8, 4, 1, 4, 2, 2);
    int stage2 = 0, bad_checked = 0, ocs_past_checked = 0;
    for (uint32_t seed = 1; seed <= tu_n(12); seed++) {
        tsched_vclos *v, *u;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_OCS));
        tu_rng r = {seed};
        char name[16];
        for (int i = 0; i < 10; i++) {
            uint32_t gpus = 2 + tu_rng_below(&r, 16); /* 2..17 */
            tsched_vclos_outcome o;
            snprintf(name, sizeof name, "j%d", i);
            ck_assert_ok(tsched_vclos_allocate(v, name, gpus, &o));
            if (i % 4 == 3 && tsched_vclos_num_jobs(v) > 1)
                ck_assert_ok(tsched_vclos_release(v, tsched_vclos_job_name(v, 0)));
        }
        for (uint32_t i = 0; i < tsched_vclos_num_jobs(v); i++) {
            tsched_vclos_jobinfo info = {.size = sizeof info};
            ck_assert_ok(tsched_vclos_job_info(&info, v, tsched_vclos_job_name(v, i)));
            stage2 += info.stage == 2;
        }
        char *a, *b, *c, *d;
        ck_assert_ok(tsched_vclos_to_json(&a, v, TSCHED_VCLOS_RING, 0));
        ck_assert_ok(tsched_vclos_new(&u, t, TSCHED_VCLOS_MODE_OCS));
        ck_assert_ok(tsched_vclos_load_state(u, a, strlen(a)));
        ck_assert_ok(tsched_vclos_to_json(&b, u, TSCHED_VCLOS_RING, 0));
        ck_assert_str_eq(a, b);
        ck_assert_uint_le(tu_vclos_max_share(u, TSCHED_VCLOS_RING, 0, NULL), 1);
        /* a port of the wrong leaf is refused and changes nothing */
        tsched_vclos *e;
        ck_assert_ok(tsched_vclos_new(&e, t, TSCHED_VCLOS_MODE_OCS));
        char *p = strstr(a, "\"leaf");
        char *port = p ? strstr(p, "@ocs") : NULL;
        if (port) {
            char *bad = ts_strdup(a);
            char *q = bad + (port - a);
            while (q > bad && *q != '"')
                q--;
            if (!strncmp(q, "\"leaf", 5) && q[5] >= '0' && q[5] <= '6') {
                q[5] = (char)(q[5] + 1); /* leafN~...@ocsK -> leaf(N+1)~...: another leaf's port */
                char *before, *after;
                ck_assert_ok(tsched_vclos_to_json(&before, e, -1, 0));
                ck_assert_int_ne(tsched_vclos_load_state(e, bad, strlen(bad)), TSCHED_OK);
                ck_assert_ok(tsched_vclos_to_json(&after, e, -1, 0));
                ck_assert_str_eq(before, after);
                tsched_free(before);
                tsched_free(after);
                bad_checked++;
            }
            free(bad);
            /* an OCS index past the layer's OCSes: refused, naming the field and the port */
            size_t at = (size_t)(port - a) + 4, nd = strspn(a + at, "0123456789"), len = strlen(a);
            bad = ts_malloc(len + 8, 1); /* the digits after "@ocs" become 99999999 */
            ck_assert_ptr_nonnull(bad);
            snprintf(bad, len + 8, "%.*s99999999%s", (int)at, a, a + at + nd);
            if (nd >= 1) {
                ck_assert_status(tsched_vclos_load_state(e, bad, strlen(bad)), TSCHED_E_INVALID);
                ck_assert_ptr_nonnull(strstr(tsched_last_error(), ".links["));
                ck_assert_ptr_nonnull(strstr(tsched_last_error(), "is not an OCS port"));
                ocs_past_checked++;
            }
            free(bad);
        }
        tsched_vclos_free(e);
        /* the same next allocation on both */
        tsched_vclos_outcome o1, o2;
        ck_assert_ok(tsched_vclos_allocate(v, "next", 8, &o1));
        ck_assert_ok(tsched_vclos_allocate(u, "next", 8, &o2));
        ck_assert_int_eq(o1, o2);
        ck_assert_ok(tsched_vclos_to_json(&c, v, TSCHED_VCLOS_ALLTOALL, 1));
        ck_assert_ok(tsched_vclos_to_json(&d, u, TSCHED_VCLOS_ALLTOALL, 1));
        ck_assert_str_eq(c, d);
        tsched_free(a);
        tsched_free(b);
        tsched_free(c);
        tsched_free(d);
        tsched_vclos_free(u);
        tsched_vclos_free(v);
    }
    ck_assert_int_gt(stage2, (int)tu_min(5));
    ck_assert_int_gt(bad_checked, (int)tu_min(3));
    ck_assert_int_gt(ocs_past_checked, (int)tu_min(3));
    tsched_topology_free(t);
}
END_TEST

/* A state document with one field changed must fail naming it, and leave the handle as it was. */
static void state_bad(tsched_vclos *u, const char *doc, const char *from, const char *to, tsched_status want,
                      const char *msg)
{
    const char *p = strstr(doc, from);
    ck_assert_msg(p != NULL, "fixture lacks %s", from);
    size_t n = strlen(doc) - strlen(from) + strlen(to) + 1;
    char *bad = malloc(n);
    ck_assert_ptr_nonnull(bad);
    snprintf(bad, n, "%.*s%s%s", (int)(p - doc), doc, to, p + strlen(from));
    char *before, *after;
    ck_assert_ok(tsched_vclos_to_json(&before, u, -1, 0));
    ck_assert_status(tsched_vclos_load_state(u, bad, strlen(bad)), want);
    ck_assert_errmsg_has(msg);
    ck_assert_ok(tsched_vclos_to_json(&after, u, -1, 0));
    ck_assert_str_eq(before, after);
    tsched_free(before);
    tsched_free(after);
    free(bad);
}

START_TEST(test_state_errors)
{
    tsched_topology *t;
    tsched_vclos *v = busy(&t);
    char *doc;
    ck_assert_ok(tsched_vclos_to_json(&doc, v, -1, 0));
    tsched_vclos *u;
    ck_assert_ok(tsched_vclos_new(&u, t, TSCHED_VCLOS_MODE_VCLOS));
    state_bad(u, doc, "tsched.vclos.v1", "tsched.vclos.v2", TSCHED_E_FORMAT, "format");
    state_bad(u, doc, "\"node4\"", "\"node99\"", TSCHED_E_NOT_FOUND, "jobs[0].nodes[1]: \"node99\" not found");
    state_bad(u, doc, "\"node4\"", "\"node2\"", TSCHED_E_INVALID, "jobs[0].nodes[1]: \"node2\" is not under leaf2");
    state_bad(u, doc, "\"leaf2~spine1#0\"", "\"leaf2~spine2#0\"", TSCHED_E_INVALID, "jobs[0].links[3]");
    state_bad(u, doc, "\"leaf2~spine1#0\"", "\"leaf2~spine1#5\"", TSCHED_E_NOT_FOUND, "jobs[0].links[3]");
    state_bad(u, doc, "\"leaf2~spine1#0\"", "7", TSCHED_E_TYPE, "jobs[0].links[3]: expected a string");
    state_bad(u, doc, "\"gpus\": 4", "\"gpus\": 0", TSCHED_E_RANGE, "jobs[0].gpus: 0 is not a positive integer");
    state_bad(u, doc, "\"gpus\": 4", "\"gpus\": 6", TSCHED_E_INVALID, "jobs[0].nodes");
    state_bad(u, doc, "\"stage\": 2", "\"stage\": \"2\"", TSCHED_E_TYPE, "jobs[0].stage");
    state_bad(u, doc, "\"spine2\",", "\"spine2\", \"spine3\",", TSCHED_E_INVALID, "jobs[1].spines");
    /* the second job takes links of the first: reserved */
    state_bad(u, doc, "\"leaf1~spine2#0\"", "\"leaf1~spine0#0\"", TSCHED_E_INVALID, "jobs[1].links[0]");
    state_bad(u, doc, "\"name\": \"b\"", "\"name\": \"a\"", TSCHED_E_DUPLICATE, "jobs[1].name");
    /* a job of the document on a node a running job holds */
    ck_assert_ok(tsched_vclos_load_state(u, doc, strlen(doc)));
    tsched_vclos *x;
    ck_assert_ok(tsched_vclos_new(&x, t, TSCHED_VCLOS_MODE_VCLOS));
    tsched_vclos_outcome o;
    ck_assert_ok(tsched_vclos_allocate(x, "z", 4, &o)); /* leaf0 takes node0 and node1 */
    state_bad(x, doc, "format", "format", TSCHED_E_INVALID, "jobs[0].nodes[0]: \"node0\" is not idle");
    ck_assert_uint_eq(tsched_vclos_num_jobs(x), 1);
    tsched_vclos_free(x);
    ck_assert_status(tsched_vclos_load_state(u, "{", 1), TSCHED_E_PARSE);
    tsched_free(doc);
    tsched_vclos_free(u);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

static const char *req_hdr = "{\"format\": \"tsched.vclos-requests.v1\", \"requests\": [";

/* Apply `body` (the requests) to a fresh handle; returns the status, *out the document. */
static tsched_status apply(char **out, const tsched_topology *t, const char *body, int pattern, int timing)
{
    char doc[2048];
    snprintf(doc, sizeof doc, "%s%s]}", req_hdr, body);
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    tsched_status st = tsched_vclos_apply_requests(out, v, doc, strlen(doc), pattern, 0, timing);
    if (st)
        ck_assert_ptr_null(*out);
    tsched_vclos_free(v);
    return st;
}

START_TEST(test_requests)
{
    tsched_topology *t = tu_leaf_spine(4, 4, 1, 2, 2, 2);
    char *s = NULL, *s2 = NULL;
    const char *body = "{\"op\": \"alloc\", \"job\": \"a\", \"gpus\": 1}, {\"op\": \"alloc\", \"job\": \"b\", \"gpus\": 4},"
                       "{\"op\": \"alloc\", \"job\": \"w\", \"gpus\": 16}, {\"op\": \"release\", \"job\": \"a\"},"
                       "{\"op\": \"alloc\", \"job\": \"w\", \"gpus\": 15}, {\"op\": \"alloc\", \"job\": \"c\", \"gpus\": 2.0}";
    ck_assert_ok(apply(&s, t, body, TSCHED_VCLOS_RING, 1));
    json_t *r = parse(s);
    keys_are(r, "format,mode,shapes,results,jobs,waiting,solve_ms");
    const json_t *res = json_object_get(r, "results");
    ck_assert_uint_eq(json_array_size(res), 6);
    keys_are(json_array_get(res, 0), "index,op,job,status,stage,solve_ms");
    keys_are(json_array_get(res, 2), "index,op,job,status,reason,solve_ms");
    keys_are(json_array_get(res, 3), "index,op,job,status");
    ck_assert_str_eq(jstr(json_array_get(res, 2), "reason"), "gpu");
    ck_assert_str_eq(jstr(json_array_get(res, 3), "status"), "released");
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(res, 1), "stage")), 1);
    /* w waited twice: listed once */
    json_t *w = json_pack("[s]", "w");
    same(json_object_get(r, "waiting"), w, "waiting");
    json_decref(w);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "jobs")), 2);
    json_decref(r);
    tsched_free(s);
    /* --no-timing: no solve_ms anywhere, and byte-identical runs */
    ck_assert_ok(apply(&s, t, body, TSCHED_VCLOS_ALLTOALL, 0));
    ck_assert_ok(apply(&s2, t, body, TSCHED_VCLOS_ALLTOALL, 0));
    ck_assert_str_eq(s, s2);
    ck_assert_ptr_null(strstr(s, "solve_ms"));
    tsched_free(s);
    tsched_free(s2);

    static const struct {
        const char *body, *msg;
        tsched_status st;
    } bad[] = {
        {"{\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": 0}", "requests[0].gpus: 0 is not a positive integer", TSCHED_E_RANGE},
        {"{\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": -2}", "requests[0].gpus: -2 is not a positive integer", TSCHED_E_RANGE},
        {"{\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": 1.5}", "requests[0].gpus: 1.5 is not a positive integer", TSCHED_E_RANGE},
        {"{\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": 17}", "requests[0].gpus: 17 is above the fabric's 16 GPUs", TSCHED_E_RANGE},
        {"{\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": \"8\"}", "requests[0].gpus: expected a positive integer, got string", TSCHED_E_TYPE},
        {"{\"op\": \"alloc\", \"job\": \"j1\"}", "requests[0].gpus: missing", TSCHED_E_NOT_FOUND},
        {"{\"op\": \"alloc\", \"job\": 3, \"gpus\": 1}", "requests[0].job: expected a string", TSCHED_E_TYPE},
        {"{\"op\": \"alloc\", \"job\": \"a~b\", \"gpus\": 1}", "requests[0].job", TSCHED_E_RANGE},
        {"{\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": 1}, {\"op\": \"alloc\", \"job\": \"j1\", \"gpus\": 1}",
         "requests[1].job: \"j1\" is already allocated", TSCHED_E_DUPLICATE},
        {"{\"op\": \"release\", \"job\": \"j9\"}", "requests[0].job: \"j9\" is not running", TSCHED_E_NOT_FOUND},
        {"{\"op\": \"down\", \"name\": \"spine99\"}", "requests[0].name: \"spine99\" not found", TSCHED_E_NOT_FOUND},
        {"{\"op\": \"up\", \"name\": \"leaf0~spine0#3\"}", "requests[0].name: \"leaf0~spine0#3\" not found", TSCHED_E_NOT_FOUND},
        {"{\"op\": \"up\", \"name\": \"leaf0~leaf1\"}", "requests[0].name: \"leaf0~leaf1\" not found", TSCHED_E_NOT_FOUND},
        {"{\"op\": \"grow\"}", "requests[0].op: \"grow\" unknown", TSCHED_E_RANGE},
        {"{\"job\": \"x\"}", "requests[0].op: missing", TSCHED_E_NOT_FOUND},
        {"[]", "requests[0]: expected an object, got array", TSCHED_E_TYPE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = (char *)1;
        ck_assert_status(apply(&s, t, bad[i].body, -1, 1), bad[i].st);
        ck_assert_errmsg_has(bad[i].msg);
    }
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    static const char *docs[] = {"{\"format\": \"tsched.vclos.v1\", \"requests\": []}",
                                 "{\"format\": \"tsched.vclos-requests.v1\", \"requests\": {}}",
                                 "{\"format\": \"tsched.vclos-requests.v1\"}", "[1]", "{"};
    static const tsched_status want[] = {TSCHED_E_FORMAT, TSCHED_E_TYPE, TSCHED_E_NOT_FOUND, TSCHED_E_TYPE,
                                         TSCHED_E_PARSE};
    for (size_t i = 0; i < 5; i++)
        ck_assert_status(tsched_vclos_apply_requests(&s, v, docs[i], strlen(docs[i]), -1, 0, 1), want[i]);
    ck_assert_status(tsched_vclos_apply_requests(&s, v, docs[0], strlen(docs[0]), 7, 0, 1), TSCHED_E_INVALID);
    /* requests before a bad one stay applied */
    const char *partial = "{\"format\": \"tsched.vclos-requests.v1\", \"requests\": [{\"op\": \"alloc\", \"job\": \"k\","
                          " \"gpus\": 2}, {\"op\": \"release\", \"job\": \"nope\"}]}";
    ck_assert_status(tsched_vclos_apply_requests(&s, v, partial, strlen(partial), -1, 0, 1), TSCHED_E_NOT_FOUND);
    ck_assert_uint_eq(tsched_vclos_num_jobs(v), 1);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* Free mode: the flows' links are the routing's (tsched_vclos_route answers source and ecmp
 * flow by flow); needs free-mode routing (free_route.c). */
START_TEST(test_free_mode_flows)
{
    tsched_topology *t = tu_leaf_spine(4, 4, 2, 2, 2, 2);
    tsched_vclos *v;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_FREE));
    static const uint32_t l02[] = {0, 2}, l13[] = {1, 3}, s01[] = {0, 0, 1, 1}, s23[] = {2, 3, 2, 3};
    add_stage2(v, "a", 2, 2, l02, s01);
    add_stage2(v, "b", 2, 2, l13, s23);
    for (int routing = 0; routing < 3; routing++) {
        ck_assert_ok(tsched_vclos_set_routing(v, (tsched_vclos_routing)routing, 5));
        char *s;
        tsched_status st = tsched_vclos_to_json(&s, v, TSCHED_VCLOS_ALLTOALL, 2);
        if (st == TSCHED_E_STATE && strstr(tsched_last_error(), "not built yet")) {
            fprintf(stderr, "test_free_mode_flows: skipped (free-mode routing not built yet)\n");
            break;
        }
        ck_assert_ok(st);
        json_t *r = parse(s);
        ck_assert_str_eq(jstr(r, "mode"), "free");
        ck_assert_str_eq(jstr(r, "routing"), routing == 0 ? "source" : routing == 1 ? "ecmp" : "balanced-ecmp");
        ck_assert_int_eq(json_integer_value(json_object_get(r, "seed")), 5);
        const json_t *jobs = json_object_get(r, "jobs");
        for (size_t i = 0; i < json_array_size(jobs); i++) {
            const json_t *job = json_array_get(jobs, i), *flows = json_object_get(job, "flows");
            ck_assert_uint_eq(json_array_size(json_object_get(job, "links")), 0);
            ck_assert_uint_gt(json_array_size(flows), 0);
            for (size_t k = 0; k < json_array_size(flows); k++) {
                const json_t *f = json_array_get(flows, k), *links = json_object_get(f, "links"),
                             *hops = json_object_get(f, "hops");
                if (json_array_size(hops) == 1) {
                    ck_assert_uint_eq(json_array_size(links), 0);
                    continue;
                }
                ck_assert_uint_eq(json_array_size(links), 2);
                ck_assert_uint_eq(json_array_size(hops), 3);
                /* both members on the spine in the middle */
                char pre[64];
                snprintf(pre, sizeof pre, "~%s#", json_string_value(json_array_get(hops, 1)));
                ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(links, 0)), pre));
                ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(links, 1)), pre));
                if (routing == 2)
                    continue;
                uint32_t up, dn;
                ck_assert_ok(tsched_vclos_route(&up, &dn, v, jstr(job, "name"),
                                                (uint32_t)json_integer_value(json_object_get(f, "src_rank")),
                                                (uint32_t)json_integer_value(json_object_get(f, "dst_rank"))));
                char *nu, *nd;
                ck_assert_ok(tsched_vclos_link_name(&nu, v, up));
                ck_assert_ok(tsched_vclos_link_name(&nd, v, dn));
                ck_assert_str_eq(nu, json_string_value(json_array_get(links, 0)));
                ck_assert_str_eq(nd, json_string_value(json_array_get(links, 1)));
                tsched_free(nu);
                tsched_free(nd);
            }
        }
        json_decref(r);
        tsched_free(s);
    }
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("vclos-io");
    TCase *tc = tcase_create("io");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fields_and_order);
    tcase_add_loop_test(tc, test_flows_regenerated, 0, 4);
    tcase_add_test(tc, test_state_round_trip);
    tcase_add_test(tc, test_state_round_trip_ocs);
    tcase_add_test(tc, test_state_errors);
    tcase_add_test(tc, test_requests);
    tcase_add_test(tc, test_free_mode_flows);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
