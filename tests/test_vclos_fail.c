/* vclos failures (doc/vclos.md §6) and the free-mode baselines' routing (§5).
 *
 * Multi-leaf jobs are built directly with the internal stage-2 fill (vc_fill_stage2 +
 * vc_job_add, chosen leaves and spines), so that the cases do not depend on the ILP. Every
 * `down` is checked against a brute-force replay written here from the contract alone: which
 * jobs are evicted, repaired or degraded, onto which spine each lost virtual spine moves
 * (least RPN, ties lowest index, counted at that moment), which members it takes (lowest
 * free index per leaf), and the whole reservation state afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/common/rng.h"
#include "../src/vclos/vclos_internal.h"
#include "test_util.h"

/* ---- helpers ---- */

/* A stage-2 job from chosen leaves (ascending) and the spine of each virtual spine. */
static vc_job *mk_job(tsched_vclos *v, const char *name, uint32_t l, uint32_t q, const uint32_t *leaves,
                      const uint32_t *sp)
{
    vc_job *j = calloc(1, sizeof *j);
    ck_assert_ptr_nonnull(j);
    j->name = strdup(name);
    j->gpus = l * q * v->T;
    j->optimal = 1;
    ck_assert_ok(vc_fill_stage2(v, j, l, q, leaves, sp));
    ck_assert_ok(vc_job_add(v, j));
    return j;
}

static uint32_t member_id(const tsched_topology *t, const char *name)
{
    uint32_t m = tsched_topology_find_member(t, name);
    ck_assert_msg(m != TSCHED_NONE, "no member %s", name);
    return m;
}

static const vc_job *job_of(const tsched_vclos *v, const char *name)
{
    uint32_t slot = vc_find_job(v, name);
    return slot == VC_NONE ? NULL : v->jobs[slot];
}

/* Number of entries of the last changes list; fills names/what up to 16. */
static size_t changes(const tsched_vclos *v, const char **names, tsched_vclos_change *what)
{
    size_t n = 99;
    ck_assert_ok(tsched_vclos_changes(names, what, 16, &n, v));
    return n;
}

/* Every reservation of the handle is consistent with its jobs (doc/vclos.md §9 validity):
 * each listed member is up, belongs to the pair (leaf, sp(v)), is held by that job only and
 * the handle's owner map has nothing else; free GPUs and node owners match the jobs;
 * `degraded` is set exactly when a link is lost. */
static void check_valid(const tsched_vclos *v)
{
    uint64_t *own = calloc(v->nlinks + 1, sizeof *own);
    uint32_t *used = calloc(v->nnodes, sizeof *used);
    uint64_t *nown = calloc(v->nnodes, sizeof *nown);
    ck_assert(own && used && nown);
    for (uint32_t i = 0; i < v->njobs; i++) {
        const vc_job *j = v->jobs[i];
        for (uint32_t x = 0; x < j->nnodes; x++) {
            used[j->nodes[x]] += j->gpn;
            ck_assert(vc_node_up(v, j->nodes[x]));
            if (j->stage > 0) {
                ck_assert_uint_eq(nown[j->nodes[x]], 0);
                nown[j->nodes[x]] = j->seq;
                ck_assert_uint_eq(v->node_leaf[j->nodes[x]], j->leaves[x / (j->nnodes / j->l)]);
            }
        }
        int lost = 0;
        if (j->links) {
            ck_assert_uint_eq(j->stage, 2);
            for (uint32_t a = 0; a < j->l; a++)
                for (uint32_t vs = 0; vs < j->s; vs++) {
                    uint32_t m = j->links[a * j->s + vs];
                    if (m == VC_NONE) {
                        lost = 1;
                        continue;
                    }
                    ck_assert_uint_lt(m, v->nmembers);
                    ck_assert(vc_member_up(v, m));
                    ck_assert_uint_eq(v->member_pair[m], j->leaves[a] * v->S + j->sp[vs]);
                    ck_assert_uint_eq(own[m], 0);
                    own[m] = j->seq;
                }
        }
        ck_assert_int_eq(j->degraded, lost);
    }
    for (uint32_t m = 0; m < v->nlinks; m++)
        ck_assert_uint_eq(v->link_owner[m], v->mode == TSCHED_VCLOS_MODE_FREE ? 0 : own[m]);
    for (uint32_t n = 0; n < v->nnodes; n++) {
        ck_assert_uint_eq(v->node_free[n] + used[n], v->T);
        ck_assert_uint_eq(v->node_owner[n], nown[n]);
    }
    free(own);
    free(used);
    free(nown);
}

/* A copy of a job's facts. */
typedef struct {
    char name[32];
    uint64_t seq;
    uint32_t l, s, nnodes, stage;
    uint32_t nodes[64], leaves[16], sp[64], links[256];
    int has_links;
} snap_job;

static uint32_t snap(const tsched_vclos *v, snap_job *out)
{
    for (uint32_t i = 0; i < v->njobs; i++) {
        const vc_job *j = v->jobs[i];
        snap_job *s = &out[i];
        memset(s, 0, sizeof *s);
        ck_assert_uint_lt(strlen(j->name), sizeof s->name);
        strcpy(s->name, j->name);
        s->seq = j->seq;
        s->l = j->l;
        s->s = j->s;
        s->nnodes = j->nnodes;
        s->stage = j->stage;
        ck_assert_uint_le(j->nnodes, 64);
        memcpy(s->nodes, j->nodes, j->nnodes * sizeof *s->nodes);
        if (j->stage >= 1)
            memcpy(s->leaves, j->leaves, j->l * sizeof *s->leaves);
        if (j->stage == 2) {
            ck_assert_uint_le(j->s, 64);
            memcpy(s->sp, j->sp, j->s * sizeof *s->sp);
        }
        if ((s->has_links = j->links != NULL)) {
            ck_assert_uint_le(j->l * j->s, 256);
            memcpy(s->links, j->links, j->l * j->s * sizeof *s->links);
        }
    }
    return v->njobs;
}

/* Reference free test: up in the handle's state and not held in the replay's owner map. */
static int ref_free(const tsched_vclos *v, const uint64_t *own, uint32_t m) { return vc_member_up(v, m) && !own[m]; }

/* The replay of one `down` (already applied to v's state bytes) from the snapshot taken
 * before it: the expected jobs after it (in `exp`, count returned) and the expected changes. */
static uint32_t replay_down(const tsched_vclos *v, const snap_job *before, uint32_t nb, snap_job *exp,
                            char (*cnames)[32], tsched_vclos_change *cwhat, uint32_t *nchg)
{
    uint64_t *own = calloc(v->nlinks + 1, sizeof *own);
    ck_assert_ptr_nonnull(own);
    if (v->mode == TSCHED_VCLOS_MODE_VCLOS)
        for (uint32_t i = 0; i < nb; i++)
            for (uint32_t x = 0; before[i].has_links && x < before[i].l * before[i].s; x++)
                if (before[i].links[x] != VC_NONE)
                    own[before[i].links[x]] = before[i].seq;
    uint32_t ne = 0;
    *nchg = 0;
    for (uint32_t i = 0; i < nb; i++) {
        snap_job j = before[i];
        int evict = 0;
        for (uint32_t x = 0; x < j.nnodes; x++)
            evict |= !vc_node_up(v, j.nodes[x]);
        if (evict) {
            for (uint32_t x = 0; j.has_links && x < j.l * j.s; x++)
                if (j.links[x] != VC_NONE)
                    own[j.links[x]] = 0;
            strcpy(cnames[*nchg], j.name);
            cwhat[(*nchg)++] = TSCHED_VCLOS_EVICTED;
            continue;
        }
        int hit = 0, all = 1;
        if (v->mode == TSCHED_VCLOS_MODE_VCLOS && j.has_links) {
            for (uint32_t vs = 0; vs < j.s; vs++) {
                int lost = 0;
                for (uint32_t a = 0; a < j.l; a++) {
                    uint32_t m = j.links[a * j.s + vs];
                    lost |= m != VC_NONE && !vc_member_up(v, m);
                }
                if (!lost)
                    continue;
                hit = 1;
                for (uint32_t a = 0; a < j.l; a++) {
                    uint32_t *m = &j.links[a * j.s + vs];
                    if (*m == VC_NONE)
                        continue;
                    own[*m] = 0;
                    if (!vc_member_up(v, *m))
                        *m = VC_NONE;
                }
                /* brute force over spines: every leaf of the job needs a free member */
                uint32_t best = VC_NONE, best_rpn = 0;
                for (uint32_t sp = 0; sp < v->S; sp++) {
                    int ok = 1;
                    for (uint32_t a = 0; a < j.l && ok; a++) {
                        uint32_t pair = j.leaves[a] * v->S + sp, f = 0;
                        for (uint32_t k = 0; k < v->pair_k[pair]; k++)
                            f += ref_free(v, own, v->pair_first[pair] + k);
                        ok = f > 0;
                    }
                    if (!ok)
                        continue;
                    uint32_t r = 0;
                    for (uint32_t n = 0; n < v->L; n++) {
                        uint32_t pair = n * v->S + sp;
                        for (uint32_t k = 0; k < v->pair_k[pair]; k++)
                            r += ref_free(v, own, v->pair_first[pair] + k);
                    }
                    if (best == VC_NONE || r < best_rpn) {
                        best = sp;
                        best_rpn = r;
                    }
                }
                if (best == VC_NONE) {
                    all = 0;
                    for (uint32_t a = 0; a < j.l; a++)
                        if (j.links[a * j.s + vs] != VC_NONE)
                            own[j.links[a * j.s + vs]] = j.seq;
                    continue;
                }
                j.sp[vs] = best;
                for (uint32_t a = 0; a < j.l; a++) {
                    uint32_t pair = j.leaves[a] * v->S + best, m = VC_NONE;
                    for (uint32_t k = 0; k < v->pair_k[pair] && m == VC_NONE; k++)
                        if (ref_free(v, own, v->pair_first[pair] + k))
                            m = v->pair_first[pair] + k;
                    ck_assert_uint_ne(m, VC_NONE);
                    j.links[a * j.s + vs] = m;
                    own[m] = j.seq;
                }
            }
        }
        if (hit) {
            strcpy(cnames[*nchg], j.name);
            cwhat[(*nchg)++] = all ? TSCHED_VCLOS_REPAIRED : TSCHED_VCLOS_DEGRADED;
        }
        exp[ne++] = j;
    }
    free(own);
    return ne;
}

/* `down` of `name` checked against the replay; returns the number of changes. */
static uint32_t down_checked(tsched_vclos *v, const char *name)
{
    static snap_job before[64], exp[64], after[64];
    static char cnames[64][32];
    tsched_vclos_change cwhat[64];
    uint32_t nb = snap(v, before), nchg = 0;
    ck_assert_uint_le(nb, 64);
    ck_assert_ok(tsched_vclos_set_up(v, name, 0));
    uint32_t ne = replay_down(v, before, nb, exp, cnames, cwhat, &nchg);
    uint32_t na = snap(v, after);
    ck_assert_uint_eq(na, ne);
    for (uint32_t i = 0; i < ne; i++) {
        ck_assert_str_eq(after[i].name, exp[i].name);
        ck_assert_uint_eq(after[i].nnodes, exp[i].nnodes);
        ck_assert_mem_eq(after[i].nodes, exp[i].nodes, exp[i].nnodes * sizeof(uint32_t)); /* ranks unchanged */
        if (exp[i].stage == 2) {
            ck_assert_mem_eq(after[i].leaves, exp[i].leaves, exp[i].l * sizeof(uint32_t));
            for (uint32_t vs = 0; vs < exp[i].s; vs++)
                ck_assert_msg(after[i].sp[vs] == exp[i].sp[vs], "%s after down %s: sp(%u) = %u, expected %u",
                              exp[i].name, name, vs, after[i].sp[vs], exp[i].sp[vs]);
        }
        ck_assert_int_eq(after[i].has_links, exp[i].has_links);
        for (uint32_t x = 0; exp[i].has_links && x < exp[i].l * exp[i].s; x++)
            ck_assert_msg(after[i].links[x] == exp[i].links[x], "%s after down %s: link %u = %u, expected %u",
                          exp[i].name, name, x, after[i].links[x], exp[i].links[x]);
    }
    const char *got[64];
    tsched_vclos_change gw[64];
    size_t cnt = 0;
    ck_assert_ok(tsched_vclos_changes(got, gw, 64, &cnt, v));
    ck_assert_uint_eq(cnt, nchg);
    for (uint32_t i = 0; i < nchg; i++) {
        ck_assert_str_eq(got[i], cnames[i]);
        ck_assert_int_eq(gw[i], cwhat[i]);
    }
    check_valid(v);
    return nchg;
}

/* Random stage-2 job: l leaves with q idle nodes each, virtual spines on random spines that
 * still have free members on every chosen leaf. Returns 1 if one was added. */
static int random_job(tsched_vclos *v, ts_rng *rng, const char *name)
{
    uint32_t l = 2 + (uint32_t)ts_rng_below(rng, v->L - 1), q = 1 + (uint32_t)ts_rng_below(rng, v->maxp);
    uint32_t s = q * v->E, cand[16], nc = 0, leaves[16], sp[64], cnt[16] = {0};
    for (uint32_t n = 0; n < v->L; n++)
        if (vc_rsn(v, n) >= q)
            cand[nc++] = n;
    if (nc < l)
        return 0;
    ts_rng_shuffle_u32(rng, cand, nc);
    for (uint32_t i = 0; i < l; i++)
        leaves[i] = cand[i];
    for (uint32_t i = 1; i < l; i++) /* ascending */
        for (uint32_t k = i; k > 0 && leaves[k] < leaves[k - 1]; k--) {
            uint32_t t = leaves[k];
            leaves[k] = leaves[k - 1];
            leaves[k - 1] = t;
        }
    if (v->mode != TSCHED_VCLOS_MODE_FREE) {
        for (uint32_t vs = 0; vs < s; vs++) {
            uint32_t ok[16], no = 0;
            for (uint32_t m = 0; m < v->S; m++) {
                int good = 1;
                for (uint32_t i = 0; i < l && good; i++)
                    good = vc_pair_free(v, leaves[i], m) > cnt[m];
                if (good)
                    ok[no++] = m;
            }
            if (!no)
                return 0;
            cnt[ok[ts_rng_below(rng, no)]]++;
        }
    } else {
        for (uint32_t vs = 0; vs < s; vs++)
            cnt[ts_rng_below(rng, v->S)]++;
    }
    for (uint32_t m = 0, x = 0; m < v->S; m++)
        for (uint32_t c = 0; c < cnt[m]; c++)
            sp[x++] = m;
    mk_job(v, name, l, q, leaves, sp);
    return 1;
}

/* A random element name of the fabric: node, leaf, spine, trunk or member. */
static void random_element(const tsched_vclos *v, ts_rng *rng, char *buf, size_t cap)
{
    const tsched_topology *t = v->topo;
    uint32_t kind = (uint32_t)ts_rng_below(rng, 10);
    uint32_t leaf = (uint32_t)ts_rng_below(rng, v->L), spine = (uint32_t)ts_rng_below(rng, v->S);
    const char *ln = tsched_topology_switch_name(t, v->leaf_sw[leaf]);
    const char *sn = tsched_topology_switch_name(t, v->spine_sw[spine]);
    if (kind == 0)
        snprintf(buf, cap, "%s", tsched_topology_node_name(t, (uint32_t)ts_rng_below(rng, v->nnodes)));
    else if (kind == 1)
        snprintf(buf, cap, "%s", ln);
    else if (kind <= 4)
        snprintf(buf, cap, "%s", sn);
    else if (kind <= 6)
        snprintf(buf, cap, "%s~%s", sn, ln); /* either order */
    else
        snprintf(buf, cap, "%s~%s#%u", ln, sn, (uint32_t)ts_rng_below(rng, v->pair_k[leaf * v->S + spine]));
}

/* Contention-free recount over every step of the three patterns (degraded jobs excluded:
 * their lost routes are null). */
static void check_contention_free(const tsched_vclos *v)
{
    uint32_t maxr = 0;
    for (uint32_t i = 0; i < v->njobs; i++) {
        ck_assert_int_eq(v->jobs[i]->degraded, 0);
        if (v->jobs[i]->nnodes * v->E > maxr)
            maxr = v->jobs[i]->nnodes * v->E;
    }
    ck_assert_uint_le(tu_vclos_max_share(v, TSCHED_VCLOS_RING, 0, NULL), 1);
    for (uint32_t st = 0; st + 1 < maxr; st++)
        ck_assert_uint_le(tu_vclos_max_share(v, TSCHED_VCLOS_ALLTOALL, st, NULL), 1);
    for (uint32_t st = 0; (1u << st) < maxr; st++)
        ck_assert_uint_le(tu_vclos_max_share(v, TSCHED_VCLOS_HD, st, NULL), 1);
}

static void release_degraded(tsched_vclos *v)
{
    for (uint32_t i = 0; i < v->njobs;)
        if (v->jobs[i]->degraded)
            ck_assert_ok(tsched_vclos_release(v, v->jobs[i]->name));
        else
            i++;
}

/* ---- failures: hand-made cases ---- */

/* 4 leaves x 4 spines x 1 member, 2 nodes of 2 GPUs / 2 NICs per leaf. A on leaves 0,1 over
 * spines 0,1; B on leaves 2,3 over spines 1,2; C on leaves 0,1 over spines 2,3. spine1 down:
 * A cannot move (leaves 0,1 have no free member left: spine0 is its own, 2 and 3 are C's)
 * and is degraded; B moves virtual spine 0 to spine0 (RPN 2, tie with spine3, lowest index);
 * C is untouched. */
START_TEST(spine_down_repairs_and_degrades)
{
    tsched_topology *t = tu_leaf_spine(4, 4, 1, 2, 2, 2);
    char *before = NULL, *after = NULL;
    ck_assert_ok(tsched_topology_to_json(&before, t));
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    mk_job(v, "A", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    mk_job(v, "B", 2, 1, (uint32_t[]){2, 3}, (uint32_t[]){1, 2});
    mk_job(v, "C", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){2, 3});
    check_valid(v);
    ck_assert_uint_eq(down_checked(v, "spine1"), 2);
    const char *names[16];
    tsched_vclos_change what[16];
    ck_assert_uint_eq(changes(v, names, what), 2);
    ck_assert_str_eq(names[0], "A");
    ck_assert_int_eq(what[0], TSCHED_VCLOS_DEGRADED);
    ck_assert_str_eq(names[1], "B");
    ck_assert_int_eq(what[1], TSCHED_VCLOS_REPAIRED);
    const vc_job *a = job_of(v, "A"), *b = job_of(v, "B"), *c = job_of(v, "C");
    ck_assert_int_eq(a->degraded, 1);
    ck_assert_uint_eq(a->links[0 * 2 + 1], VC_NONE);
    ck_assert_uint_eq(a->links[1 * 2 + 1], VC_NONE);
    ck_assert_uint_eq(a->links[0], member_id(t, "leaf0~spine0#0"));
    ck_assert_uint_eq(b->sp[0], 0);
    ck_assert_uint_eq(b->sp[1], 2);
    ck_assert_uint_eq(b->links[0], member_id(t, "leaf2~spine0#0"));
    ck_assert_uint_eq(b->links[2], member_id(t, "leaf3~spine0#0"));
    ck_assert_uint_eq(v->link_owner[b->links[0]], b->seq);
    ck_assert_int_eq(b->degraded, 0);
    ck_assert_uint_eq(c->sp[0], 2);
    ck_assert_uint_eq(c->sp[1], 3);
    /* A's routes: rank 1 (leaf0, local 1) to rank 2 (leaf1): lost; rank 0 to rank 3: kept */
    uint32_t up, dn;
    ck_assert_ok(tsched_vclos_route(&up, &dn, v, "A", 1, 2));
    ck_assert_uint_eq(up, TSCHED_NONE);
    ck_assert_uint_eq(dn, TSCHED_NONE);
    ck_assert_ok(tsched_vclos_route(&up, &dn, v, "A", 0, 3));
    ck_assert_uint_eq(up, member_id(t, "leaf0~spine0#0"));
    ck_assert_uint_eq(dn, member_id(t, "leaf1~spine0#0"));
    /* job_info and job_links report the loss */
    tsched_vclos_jobinfo info = {.size = sizeof info};
    ck_assert_ok(tsched_vclos_job_info(&info, v, "A"));
    ck_assert_int_eq(info.degraded, 1);
    uint32_t links[4];
    size_t n = 0;
    ck_assert_ok(tsched_vclos_job_links(links, 4, &n, v, "A"));
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(links[1], TSCHED_NONE);
    /* up touches no job and clears the list */
    ck_assert_ok(tsched_vclos_set_up(v, "spine1", 1));
    ck_assert_uint_eq(changes(v, names, what), 0);
    ck_assert_int_eq(job_of(v, "A")->degraded, 1);
    ck_assert_uint_eq(job_of(v, "A")->links[1], VC_NONE);
    ck_assert_uint_eq(job_of(v, "B")->sp[0], 0);
    ck_assert_uint_eq(v->sw_down[tu_sw(t, "spine1")], 0);
    check_valid(v);
    /* the caller releases the degraded job; what is left is contention-free */
    ck_assert_ok(tsched_vclos_release(v, "A"));
    check_contention_free(v);
    /* the topology was never written */
    ck_assert_ok(tsched_topology_to_json(&after, t));
    ck_assert_str_eq(before, after);
    ck_assert(tsched_topology_switch_is_up(t, tu_sw(t, "spine1")));
    tsched_free(before);
    tsched_free(after);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* Least RPN wins over the lowest index: 5 leaves x 3 spines x 2 members, 2 nodes of 2 NICs
 * per leaf. X on leaves 0,1 over spines 0,1; Z holds both members of leaf3~spine2 and
 * leaf4~spine2. spine0 down: X's virtual spine 0 may go to spine1 (RPN 1 + 1 + 2 + 2 + 2 = 8)
 * or spine2 (RPN 2 + 2 + 2 = 6): spine2. Then spine1 down: X's virtual spine 1 also moves to
 * spine2, onto its other members (one member per leaf and virtual spine). */
START_TEST(repair_takes_least_rpn)
{
    tsched_topology *t = tu_leaf_spine(5, 3, 2, 2, 2, 2);
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    mk_job(v, "X", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    mk_job(v, "Z", 2, 1, (uint32_t[]){3, 4}, (uint32_t[]){2, 2});
    ck_assert_uint_eq(down_checked(v, "spine0"), 1);
    const vc_job *x = job_of(v, "X");
    ck_assert_uint_eq(x->sp[0], 2);
    ck_assert_uint_eq(x->sp[1], 1);
    ck_assert_uint_eq(x->links[0], member_id(t, "leaf0~spine2#0"));
    ck_assert_uint_eq(x->links[2], member_id(t, "leaf1~spine2#0"));
    ck_assert_uint_eq(down_checked(v, "spine1"), 1);
    ck_assert_uint_eq(x->sp[0], 2);
    ck_assert_uint_eq(x->sp[1], 2);
    ck_assert_uint_eq(x->links[1], member_id(t, "leaf0~spine2#1"));
    ck_assert_uint_eq(x->links[3], member_id(t, "leaf1~spine2#1"));
    check_contention_free(v);
    tsched_vclos_free(v);
    /* two virtual spines on one spine are repaired one by one: W holds both members of
     * leaf0~spine0 and leaf1~spine0; spine0 down: virtual spine 0 goes to spine1 (RPN 6, tie
     * with spine2, lowest index), then virtual spine 1 also to spine1 (RPN now 4 < 6) */
    tsched_topology *t2 = tu_leaf_spine(3, 3, 2, 1, 2, 2);
    ck_assert_ok(tsched_vclos_new(&v, t2, TSCHED_VCLOS_MODE_VCLOS));
    mk_job(v, "W", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 0});
    ck_assert_uint_eq(down_checked(v, "spine0"), 1);
    const vc_job *w = job_of(v, "W");
    ck_assert_uint_eq(w->sp[0], 1);
    ck_assert_uint_eq(w->sp[1], 1);
    ck_assert_uint_eq(w->links[0], member_id(t2, "leaf0~spine1#0"));
    ck_assert_uint_eq(w->links[1], member_id(t2, "leaf0~spine1#1"));
    ck_assert_uint_eq(w->links[2], member_id(t2, "leaf1~spine1#0"));
    ck_assert_uint_eq(w->links[3], member_id(t2, "leaf1~spine1#1"));
    check_contention_free(v);
    tsched_vclos_free(v);
    tsched_topology_free(t2);
    tsched_topology_free(t);
}
END_TEST

/* A member down hits only the job that reserved it: two jobs share trunk leaf0~spine0
 * (members 0 and 1). */
START_TEST(member_down_hits_its_owner_only)
{
    tsched_topology *t = tu_leaf_spine(2, 3, 2, 2, 2, 2);
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    mk_job(v, "P", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    mk_job(v, "R", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    ck_assert_uint_eq(job_of(v, "P")->links[0], member_id(t, "leaf0~spine0#0"));
    ck_assert_uint_eq(job_of(v, "R")->links[0], member_id(t, "leaf0~spine0#1"));
    ck_assert_uint_eq(down_checked(v, "spine0~leaf0#1"), 1);
    const char *names[16];
    tsched_vclos_change what[16];
    ck_assert_uint_eq(changes(v, names, what), 1);
    ck_assert_str_eq(names[0], "R");
    ck_assert_int_eq(what[0], TSCHED_VCLOS_REPAIRED);
    const vc_job *r = job_of(v, "R");
    /* spine2 (RPN 4) beats spine0 and spine1 (RPN 0 each, but neither has a free member on
     * both leaves: leaf0~spine0#1 is down, the rest are P's and R's) */
    ck_assert_uint_eq(r->sp[0], 2);
    ck_assert_uint_eq(r->sp[1], 1);
    ck_assert_uint_eq(r->links[0], member_id(t, "leaf0~spine2#0"));
    ck_assert_uint_eq(r->links[2], member_id(t, "leaf1~spine2#0"));
    /* the old member on leaf1 was given back */
    ck_assert_uint_eq(v->link_owner[member_id(t, "leaf1~spine0#1")], 0);
    ck_assert_uint_eq(v->member_down[member_id(t, "leaf0~spine0#1")], 1);
    ck_assert(tsched_topology_member_is_up(t, member_id(t, "leaf0~spine0#1")));
    check_contention_free(v);
    /* a trunk down: P's and R's members on leaf1~spine1 */
    ck_assert_uint_eq(down_checked(v, "leaf1~spine1"), 2);
    ck_assert_uint_eq(changes(v, names, what), 2);
    ck_assert_str_eq(names[0], "P");
    ck_assert_str_eq(names[1], "R");
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* A node down evicts its job and frees everything; a leaf down evicts every job under it.
 * 3 leaves x 2 spines x 1 member, 3 nodes of 2 GPUs per leaf (node0-2 on leaf0, ...). */
START_TEST(node_and_leaf_down_evict)
{
    tsched_topology *t = tu_leaf_spine(3, 2, 1, 3, 2, 2);
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    tsched_vclos_outcome o;
    ck_assert_ok(tsched_vclos_allocate(v, "small", 1, &o)); /* stage 0 on node0 */
    ck_assert_int_eq(o, TSCHED_VCLOS_ALLOCATED);
    mk_job(v, "big", 2, 1, (uint32_t[]){1, 2}, (uint32_t[]){0, 1}); /* node3, node6 */
    ck_assert_ok(tsched_vclos_allocate(v, "one", 4, &o));        /* stage 1: node1, node2 */
    ck_assert_int_eq(o, TSCHED_VCLOS_ALLOCATED);
    ck_assert_uint_eq(job_of(v, "one")->nodes[0], tu_node(t, "node1"));
    check_valid(v);
    uint32_t held = 0;
    for (uint32_t m = 0; m < v->nmembers; m++)
        held += v->link_owner[m] != 0;
    ck_assert_uint_eq(held, 4);
    ck_assert_uint_eq(down_checked(v, "node6"), 1);
    const char *names[16];
    tsched_vclos_change what[16];
    ck_assert_uint_eq(changes(v, names, what), 1);
    ck_assert_str_eq(names[0], "big");
    ck_assert_int_eq(what[0], TSCHED_VCLOS_EVICTED);
    ck_assert_ptr_null(job_of(v, "big"));
    for (uint32_t m = 0; m < v->nmembers; m++)
        ck_assert_uint_eq(v->link_owner[m], 0);
    ck_assert_uint_eq(v->node_free[tu_node(t, "node3")], 2);
    ck_assert_uint_eq(v->node_owner[tu_node(t, "node3")], 0);
    ck_assert_uint_eq(v->node_down[tu_node(t, "node6")], 1);
    ck_assert(tsched_topology_node_is_up(t, tu_node(t, "node6")));
    /* the freed members and node3 can be taken again (node6 is down: leaf2 gives node7) */
    ck_assert(vc_node_idle(v, tu_node(t, "node3")));
    ck_assert(!vc_node_idle(v, tu_node(t, "node6")));
    mk_job(v, "again", 2, 1, (uint32_t[]){1, 2}, (uint32_t[]){0, 1});
    ck_assert_uint_eq(job_of(v, "again")->nodes[0], tu_node(t, "node3"));
    ck_assert_uint_eq(job_of(v, "again")->nodes[1], tu_node(t, "node7"));
    ck_assert_uint_eq(job_of(v, "again")->links[0], member_id(t, "leaf1~spine0#0"));
    check_valid(v);
    /* leaf0 down: the stage-0 and the stage-1 job, in allocation order */
    ck_assert_uint_eq(down_checked(v, "leaf0"), 2);
    ck_assert_uint_eq(changes(v, names, what), 2);
    ck_assert_str_eq(names[0], "small");
    ck_assert_str_eq(names[1], "one");
    ck_assert_int_eq(what[1], TSCHED_VCLOS_EVICTED);
    ck_assert_uint_eq(v->njobs, 1);
    /* a stage-1 allocation can use the nodes freed on leaf1 */
    ck_assert_ok(tsched_vclos_allocate(v, "one2", 4, &o));
    ck_assert_int_eq(o, TSCHED_VCLOS_ALLOCATED);
    ck_assert_uint_eq(job_of(v, "one2")->nodes[0], tu_node(t, "node4"));
    /* up again: no job touched, the node is idle again */
    ck_assert_ok(tsched_vclos_set_up(v, "node6", 1));
    ck_assert_uint_eq(changes(v, names, what), 0);
    ck_assert(vc_node_idle(v, tu_node(t, "node6")));
    ck_assert_uint_eq(v->njobs, 2);
    check_valid(v);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

START_TEST(unknown_names_and_changes_buffer)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 2, 2, 2, 2);
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
    const char *bad[] = {"nosuch", "leaf0~nosuch", "leaf0~leaf1", "leaf0~spine0#2", "leaf0~spine0#x", "", "~", "#"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_status(tsched_vclos_set_up(v, bad[i], 0), TSCHED_E_NOT_FOUND);
        char want[64];
        snprintf(want, sizeof want, "name: \"%s\" not found", bad[i]);
        ck_assert_str_eq(tsched_last_error(), want);
        ck_assert_status(tsched_vclos_set_up(v, bad[i], 1), TSCHED_E_NOT_FOUND);
    }
    ck_assert_status(tsched_vclos_set_up(NULL, "leaf0", 0), TSCHED_E_INVALID);
    ck_assert_status(tsched_vclos_set_up(v, NULL, 0), TSCHED_E_INVALID);
    /* two jobs hold every member of the fabric: spine1 down degrades both */
    mk_job(v, "a", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    mk_job(v, "b", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    ck_assert_uint_eq(down_checked(v, "spine1"), 2);
    size_t n = 0;
    ck_assert_status(tsched_vclos_changes(NULL, NULL, 0, &n, v), TSCHED_E_BUFFER);
    ck_assert_uint_eq(n, 2);
    const char *names[2];
    tsched_vclos_change what[2];
    ck_assert_status(tsched_vclos_changes(names, what, 1, &n, v), TSCHED_E_BUFFER);
    ck_assert_uint_eq(n, 2);
    ck_assert_ok(tsched_vclos_changes(names, what, 2, &n, v));
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(names[0], "a");
    ck_assert_str_eq(names[1], "b");
    ck_assert_int_eq(what[0], TSCHED_VCLOS_DEGRADED);
    ck_assert_int_eq(what[1], TSCHED_VCLOS_DEGRADED);
    ck_assert_status(tsched_vclos_changes(names, what, 2, NULL, v), TSCHED_E_INVALID);
    ck_assert_status(tsched_vclos_changes(names, what, 2, &n, NULL), TSCHED_E_INVALID);
    /* names are copies: they survive the job's release */
    ck_assert_ok(tsched_vclos_release(v, "a"));
    ck_assert_ok(tsched_vclos_changes(names, what, 2, &n, v));
    ck_assert_str_eq(names[0], "a");
    /* a second down of the same element changes nothing */
    ck_assert_uint_eq(down_checked(v, "spine1"), 0);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* Random fabrics, random jobs, random downs and ups, each down replayed by brute force; the
 * survivors stay contention-free; the topology is never written. */
START_TEST(random_failures_replayed)
{
    ts_rng rng;
    ts_rng_seed(&rng, 20260611);
    uint32_t counts[3] = {0, 0, 0}, downs = 0;
    for (int round = 0; round < (int)tu_n(150); round++) {
        uint32_t L = 2 + (uint32_t)ts_rng_below(&rng, 5), S = 2 + (uint32_t)ts_rng_below(&rng, 4);
        uint32_t K = 1 + (uint32_t)ts_rng_below(&rng, 2), P = 1 + (uint32_t)ts_rng_below(&rng, 3);
        uint32_t E = 1 + (uint32_t)ts_rng_below(&rng, 2);
        tsched_topology *t = tu_leaf_spine(L, S, K, P, E, E);
        char *before = NULL, *after = NULL;
        ck_assert_ok(tsched_topology_to_json(&before, t));
        tsched_vclos *v = NULL;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
        char name[32], el[96], downed[8][96];
        uint32_t ndowned = 0, seq = 0;
        for (int ev = 0; ev < 12; ev++) {
            for (int tries = 0; tries < 6; tries++) {
                snprintf(name, sizeof name, "j%u", seq);
                seq += (uint32_t)random_job(v, &rng, name);
            }
            check_valid(v);
            uint32_t what = (uint32_t)ts_rng_below(&rng, 4);
            if (what == 0 && ndowned) { /* up: touches no job */
                uint32_t i = (uint32_t)ts_rng_below(&rng, ndowned);
                static snap_job s1[64], s2[64];
                uint32_t n1 = snap(v, s1);
                ck_assert_ok(tsched_vclos_set_up(v, downed[i], 1));
                ck_assert_uint_eq(snap(v, s2), n1);
                ck_assert_mem_eq(s1, s2, n1 * sizeof *s1);
                size_t n = 9;
                ck_assert_ok(tsched_vclos_changes(NULL, NULL, 0, &n, v));
                ck_assert_uint_eq(n, 0);
                memmove(downed[i], downed[i + 1], (ndowned - i - 1) * sizeof downed[0]);
                ndowned--;
            } else if (what == 1 && v->njobs) { /* a release */
                ck_assert_ok(tsched_vclos_release(v, v->jobs[ts_rng_below(&rng, v->njobs)]->name));
            } else {
                random_element(v, &rng, el, sizeof el);
                down_checked(v, el);
                downs++;
                const char *names[64];
                tsched_vclos_change w[64];
                size_t n = 0;
                ck_assert_ok(tsched_vclos_changes(names, w, 64, &n, v));
                for (size_t i = 0; i < n; i++)
                    counts[w[i]]++;
                if (ndowned < 8)
                    strcpy(downed[ndowned++], el);
                release_degraded(v);
                check_contention_free(v);
            }
        }
        ck_assert_ok(tsched_topology_to_json(&after, t));
        ck_assert_str_eq(before, after);
        tsched_free(before);
        tsched_free(after);
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
    printf("random failures: %u downs: %u repaired, %u degraded, %u evicted\n", downs, counts[0], counts[1],
           counts[2]);
    ck_assert_uint_gt(counts[TSCHED_VCLOS_REPAIRED], tu_min(20));
    ck_assert_uint_gt(counts[TSCHED_VCLOS_DEGRADED], tu_min(20));
    ck_assert_uint_gt(counts[TSCHED_VCLOS_EVICTED], tu_min(20));
}
END_TEST

/* The same replay with jobs from tsched_vclos_allocate (stages 0, 1 and the ILP's stage 2),
 * downs and re-allocations interleaved; the survivors stay contention-free. */
START_TEST(random_failures_with_allocate)
{
    ts_rng rng;
    ts_rng_seed(&rng, 99);
    uint32_t stage2 = 0, counts[3] = {0, 0, 0};
    for (int round = 0; round < (int)tu_n(40); round++) {
        uint32_t L = 3 + (uint32_t)ts_rng_below(&rng, 4), S = 2 + (uint32_t)ts_rng_below(&rng, 4);
        uint32_t K = 1 + (uint32_t)ts_rng_below(&rng, 2), P = 1 + (uint32_t)ts_rng_below(&rng, 3);
        uint32_t T = 1 + (uint32_t)ts_rng_below(&rng, 2);
        tsched_topology *t = tu_leaf_spine(L, S, K, P, T, T);
        tsched_vclos *v = NULL;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_VCLOS));
        char name[32], el[96];
        uint32_t seq = 0;
        for (int ev = 0; ev < 10; ev++) {
            for (int k = 0; k < 4; k++) {
                snprintf(name, sizeof name, "a%u", seq++);
                tsched_vclos_outcome o;
                uint32_t gpus = 1 + (uint32_t)ts_rng_below(&rng, (L * P * T + 1) / 2);
                ck_assert_ok(tsched_vclos_allocate(v, name, gpus, &o));
                if (o == TSCHED_VCLOS_ALLOCATED && job_of(v, name)->stage == 2)
                    stage2++;
            }
            check_valid(v);
            check_contention_free(v);
            random_element(v, &rng, el, sizeof el);
            down_checked(v, el);
            const char *names[64];
            tsched_vclos_change w[64];
            size_t n = 0;
            ck_assert_ok(tsched_vclos_changes(names, w, 64, &n, v));
            for (size_t i = 0; i < n; i++)
                counts[w[i]]++;
            release_degraded(v);
            check_contention_free(v);
            if (ts_rng_below(&rng, 2))
                ck_assert_ok(tsched_vclos_set_up(v, el, 1));
        }
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
    printf("random failures with allocate: %u stage-2 jobs; %u repaired, %u degraded, %u evicted\n", stage2,
           counts[0], counts[1], counts[2]);
    /* the replay covered real stage-2 jobs and every kind of change */
    ck_assert_uint_gt(stage2, tu_min(20));
    ck_assert_uint_gt(counts[0], 0);
    ck_assert_uint_gt(counts[1], 0);
    ck_assert_uint_gt(counts[2], 0);
}
END_TEST

/* OCS mode: no repair. A spine down degrades exactly the jobs with a circuit on it (those
 * ports are dropped and no longer held); a node down evicts. Skipped while the OCS layer is
 * still the stub (its new() says "not built yet"). */
START_TEST(ocs_spine_down_degrades)
{
    ts_rng rng;
    ts_rng_seed(&rng, 5);
    uint32_t degraded = 0;
    for (int round = 0; round < 20; round++) {
        tsched_topology *t = tu_leaf_spine(4, 2, 1, 2, 2, 2);
        tsched_vclos *v = NULL;
        tsched_status st = tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_OCS);
        if (st == TSCHED_E_INVALID && strstr(tsched_last_error(), "not built yet")) {
            printf("ocs-vclos not built: OCS failure test skipped\n");
            tsched_topology_free(t);
            return;
        }
        ck_assert_ok(st);
        char name[16];
        for (uint32_t i = 0; i < 6; i++) {
            tsched_vclos_outcome o;
            snprintf(name, sizeof name, "o%u", i);
            ck_assert_ok(tsched_vclos_allocate(v, name, 2 + (uint32_t)ts_rng_below(&rng, 8), &o));
        }
        uint32_t spine = (uint32_t)ts_rng_below(&rng, v->S);
        /* the jobs with a circuit on that spine, before */
        int hit[16] = {0};
        uint32_t nb = v->njobs;
        static snap_job before[16], after[16];
        snap(v, before);
        for (uint32_t i = 0; i < nb; i++)
            for (uint32_t x = 0; before[i].has_links && x < before[i].l * before[i].s; x++) {
                uint32_t sp, lf, k;
                int rw;
                vc_ocs_port_peer(v, before[i].links[x], &sp, &lf, &k, &rw);
                hit[i] |= sp == spine;
            }
        ck_assert_ok(tsched_vclos_set_up(v, tsched_topology_switch_name(t, v->spine_sw[spine]), 0));
        ck_assert_uint_eq(snap(v, after), nb);
        const char *names[16];
        tsched_vclos_change what[16];
        size_t n = changes(v, names, what), c = 0;
        for (uint32_t i = 0; i < nb; i++) {
            ck_assert_mem_eq(after[i].nodes, before[i].nodes, before[i].nnodes * sizeof(uint32_t));
            for (uint32_t x = 0; before[i].has_links && x < before[i].l * before[i].s; x++) {
                uint32_t p = before[i].links[x], sp, lf, k;
                int rw;
                vc_ocs_port_peer(v, p, &sp, &lf, &k, &rw);
                ck_assert_uint_eq(after[i].links[x], sp == spine ? VC_NONE : p);
                ck_assert_uint_eq(v->link_owner[p], sp == spine ? 0 : before[i].seq);
            }
            ck_assert_int_eq(v->jobs[i]->degraded, hit[i]);
            if (hit[i]) {
                ck_assert_uint_lt(c, n);
                ck_assert_str_eq(names[c], before[i].name);
                ck_assert_int_eq(what[c++], TSCHED_VCLOS_DEGRADED);
                degraded++;
            }
        }
        ck_assert_uint_eq(c, n);
        /* a node of a running job down: evicted */
        if (v->njobs) {
            const vc_job *j = v->jobs[0];
            ck_assert_ok(tsched_vclos_set_up(v, tsched_topology_node_name(t, j->nodes[0]), 0));
            ck_assert_uint_eq(changes(v, names, what), 1);
            ck_assert_int_eq(what[0], TSCHED_VCLOS_EVICTED);
            ck_assert_uint_eq(v->njobs, nb - 1);
        }
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
    ck_assert_uint_gt(degraded, 5);
}
END_TEST

/* ---- free mode ---- */

/* In free mode nothing is reserved: a spine down touches no job; a node down evicts. */
START_TEST(free_mode_only_evicts)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 1, 2, 2, 2);
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_FREE));
    mk_job(v, "f", 2, 1, (uint32_t[]){0, 1}, (uint32_t[]){0, 1});
    ck_assert_ptr_null(job_of(v, "f")->links);
    ck_assert_uint_eq(down_checked(v, "spine0"), 0);
    ck_assert_uint_eq(down_checked(v, "leaf0~spine1#0"), 0);
    ck_assert_uint_eq(down_checked(v, "node2"), 1);
    ck_assert_uint_eq(v->njobs, 0);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* SR by hand: 2 leaves x 2 spines x 2 members, 3 nodes of 2 NICs per leaf. A stage-0 job
 * holds node0, so the free-mode job gets node1, node2 (leaf0) and node3, node4 (leaf1).
 * Rank r on leaf0 is NIC r % 2 of node 1 + r / 2: its k under leaf0 is 2 + r; on leaf1 rank
 * 4 + r has k = r. Up: spine k mod 2, member (k / 2) mod 2; down: the same spine and member
 * index on the destination's trunk. */
START_TEST(source_routing_by_hand)
{
    tsched_topology *t = tu_leaf_spine(2, 2, 2, 3, 2, 2);
    tsched_vclos *v = NULL;
    ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_FREE));
    tsched_vclos_outcome o;
    ck_assert_ok(tsched_vclos_allocate(v, "s0", 1, &o));
    ck_assert_int_eq(o, TSCHED_VCLOS_ALLOCATED);
    mk_job(v, "f", 2, 2, (uint32_t[]){0, 1}, (uint32_t[]){0, 0, 1, 1});
    ck_assert_uint_eq(job_of(v, "f")->nodes[0], tu_node(t, "node1"));
    ck_assert_uint_eq(job_of(v, "f")->nodes[2], tu_node(t, "node3"));
    /* expected (source rank -> up member, for a flow to the other leaf) */
    static const char *const want[8][2] = {
        {"leaf0~spine0#1", "leaf1~spine0#1"}, /* r0: k 2 -> spine 0, member 1 */
        {"leaf0~spine1#1", "leaf1~spine1#1"}, /* r1: k 3 */
        {"leaf0~spine0#0", "leaf1~spine0#0"}, /* r2: k 4 -> member 2 mod 2 = 0 */
        {"leaf0~spine1#0", "leaf1~spine1#0"}, /* r3: k 5 */
        {"leaf1~spine0#0", "leaf0~spine0#0"}, /* r4: k 0 */
        {"leaf1~spine1#0", "leaf0~spine1#0"}, /* r5: k 1 */
        {"leaf1~spine0#1", "leaf0~spine0#1"}, /* r6: k 2 */
        {"leaf1~spine1#1", "leaf0~spine1#1"}, /* r7: k 3 */
    };
    for (uint32_t r = 0; r < 8; r++) {
        uint32_t d = (r + 4) % 8, up, dn;
        ck_assert_ok(tsched_vclos_route(&up, &dn, v, "f", r, d));
        ck_assert_uint_eq(up, member_id(t, want[r][0]));
        ck_assert_uint_eq(dn, member_id(t, want[r][1]));
    }
    uint32_t up, dn;
    ck_assert_ok(tsched_vclos_route(&up, &dn, v, "f", 0, 3)); /* same leaf */
    ck_assert_uint_eq(up, TSCHED_NONE);
    ck_assert_ok(tsched_vclos_route(&up, &dn, v, "f", 0, 1)); /* same node */
    ck_assert_uint_eq(up, TSCHED_NONE);
    /* the ring step as a whole: rank 3 -> 4 and rank 7 -> 0 cross leaves */
    uint32_t U[8], D[8];
    ck_assert_ok(vc_free_step(v, TSCHED_VCLOS_RING, 0, U, D));
    for (uint32_t r = 0; r < 8; r++) {
        if (r == 3 || r == 7) {
            ck_assert_uint_eq(U[r], member_id(t, want[r][0]));
            ck_assert_uint_eq(D[r], member_id(t, want[r][1]));
        } else {
            ck_assert_uint_eq(U[r], VC_NONE);
            ck_assert_uint_eq(D[r], VC_NONE);
        }
    }
    /* static: a down member loses the routes through it, others stay */
    ck_assert_ok(tsched_vclos_set_up(v, "leaf1~spine0#1", 0));
    ck_assert_ok(tsched_vclos_route(&up, &dn, v, "f", 0, 4));
    ck_assert_uint_eq(up, TSCHED_NONE);
    ck_assert_uint_eq(dn, TSCHED_NONE);
    ck_assert_ok(tsched_vclos_route(&up, &dn, v, "f", 1, 4));
    ck_assert_uint_eq(up, member_id(t, "leaf0~spine1#1"));
    /* balanced-ecmp only by whole steps */
    ck_assert_ok(tsched_vclos_set_routing(v, TSCHED_VCLOS_ROUTING_BALANCED_ECMP, 3));
    ck_assert_status(tsched_vclos_route(&up, &dn, v, "f", 0, 4), TSCHED_E_STATE);
    tsched_vclos_free(v);
    tsched_topology_free(t);
}
END_TEST

/* The ECMP hash as doc/vclos.md §5 and free_route.c state it, recomputed here. */
static uint64_t ref_mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t ref_hash(uint64_t seed, const char *name, uint32_t src, uint32_t dst)
{
    uint64_t f = 0xCBF29CE484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        f = (f ^ *p) * 0x100000001B3ull;
    return ref_mix(ref_mix(ref_mix(ref_mix(seed) ^ f) ^ src) ^ dst);
}

/* Up members of a (leaf, spine) pair, ascending k, by the test's own reading of the state. */
static uint32_t ref_up_members(const tsched_vclos *v, const tsched_topology *t, uint32_t leaf, uint32_t spine,
                               uint32_t *out)
{
    uint32_t tr = tsched_topology_find_trunk(t, v->leaf_sw[leaf], v->spine_sw[spine]), n = 0;
    if (tr == TSCHED_NONE || v->trunk_down[tr] || v->sw_down[v->leaf_sw[leaf]] || v->sw_down[v->spine_sw[spine]])
        return 0;
    for (uint32_t k = 0; k < tsched_topology_trunk_links(t, tr); k++) {
        uint32_t m = tsched_topology_trunk_first_member(t, tr) + k;
        if (!v->member_down[m])
            out[n++] = m;
    }
    return n;
}

START_TEST(ecmp_hash_recomputed)
{
    ts_rng rng;
    ts_rng_seed(&rng, 77);
    uint32_t changed = 0, flows = 0;
    for (int round = 0; round < 60; round++) {
        uint32_t L = 2 + (uint32_t)ts_rng_below(&rng, 4), S = 2 + (uint32_t)ts_rng_below(&rng, 4);
        uint32_t K = 1 + (uint32_t)ts_rng_below(&rng, 3), P = 1 + (uint32_t)ts_rng_below(&rng, 3);
        tsched_topology *t = tu_leaf_spine(L, S, K, P, 2, 2);
        tsched_vclos *v = NULL;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_FREE));
        uint64_t seed = ts_rng_next(&rng);
        ck_assert_ok(tsched_vclos_set_routing(v, TSCHED_VCLOS_ROUTING_ECMP, seed));
        char name[16];
        for (uint32_t i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "job-%u", i);
            random_job(v, &rng, name);
        }
        /* random downs (spines, trunks, members) */
        for (int d = 0; d < 3; d++) {
            char el[96];
            random_element(v, &rng, el, sizeof el);
            if (tsched_topology_find_node(t, el) == TSCHED_NONE && tsched_topology_find_switch(t, el) != TSCHED_NONE &&
                tsched_topology_switch_tier(t, tsched_topology_find_switch(t, el)) == 0)
                continue; /* keep leaves (they would evict) */
            if (tsched_topology_find_node(t, el) != TSCHED_NONE)
                continue;
            ck_assert_ok(tsched_vclos_set_up(v, el, 0));
        }
        for (uint32_t i = 0; i < v->njobs; i++) {
            const vc_job *j = v->jobs[i];
            uint32_t R = j->nnodes * v->E;
            for (uint32_t a = 0; a < R; a++)
                for (uint32_t b = 0; b < R; b++) {
                    uint32_t up, dn, up2, dn2;
                    ck_assert_ok(tsched_vclos_route(&up, &dn, v, j->name, a, b));
                    ck_assert_ok(tsched_vclos_route(&up2, &dn2, v, j->name, a, b)); /* deterministic */
                    ck_assert_uint_eq(up, up2);
                    ck_assert_uint_eq(dn, dn2);
                    uint32_t la = j->leaves[a / j->s], lb = j->leaves[b / j->s];
                    if (a / v->E == b / v->E || la == lb) {
                        ck_assert_uint_eq(up, TSCHED_NONE);
                        continue;
                    }
                    uint64_t h = ref_hash(seed, j->name, a, b);
                    uint32_t cand[16], nc = 0, ua[8], ub[8], nua, nub;
                    for (uint32_t m = 0; m < v->S; m++)
                        if (ref_up_members(v, t, la, m, ua) && ref_up_members(v, t, lb, m, ub))
                            cand[nc++] = m;
                    if (!nc) {
                        ck_assert_uint_eq(up, TSCHED_NONE);
                        ck_assert_uint_eq(dn, TSCHED_NONE);
                        continue;
                    }
                    uint32_t m = cand[h % nc];
                    nua = ref_up_members(v, t, la, m, ua);
                    nub = ref_up_members(v, t, lb, m, ub);
                    ck_assert_uint_eq(up, ua[ref_mix(h ^ 1) % nua]);
                    ck_assert_uint_eq(dn, ub[ref_mix(h ^ 2) % nub]);
                    ck_assert(vc_member_up(v, up) && vc_member_up(v, dn));
                    flows++;
                    /* another seed moves some flows */
                    tsched_vclos *w = v;
                    w->seed = seed + 1;
                    ck_assert_ok(tsched_vclos_route(&up2, &dn2, w, j->name, a, b));
                    w->seed = seed;
                    changed += up2 != up || dn2 != dn;
                }
        }
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
    ck_assert_uint_gt(flows, 500);
    ck_assert_uint_gt(changed, flows / 4);
}
END_TEST

/* Balanced ECMP replayed: each flow's up member had the fewest flows among its candidates
 * when it was chosen (and is exactly the seeded draw among the ties), its down member is the
 * least-loaded up member of that spine's trunk (lowest k); per-link maxima against ECMP's. */
START_TEST(balanced_ecmp_replayed)
{
    ts_rng rng;
    ts_rng_seed(&rng, 4242);
    uint64_t sum_bal = 0, sum_ecmp = 0;
    uint32_t worse = 0, better = 0, cases = 0;
    for (int round = 0; round < 120; round++) {
        uint32_t L = 2 + (uint32_t)ts_rng_below(&rng, 5), S = 2 + (uint32_t)ts_rng_below(&rng, 4);
        uint32_t K = 1 + (uint32_t)ts_rng_below(&rng, 2), P = 1 + (uint32_t)ts_rng_below(&rng, 4);
        uint32_t E = 1 + (uint32_t)ts_rng_below(&rng, 2);
        tsched_topology *t = tu_leaf_spine(L, S, K, P, E, E);
        tsched_vclos *v = NULL;
        ck_assert_ok(tsched_vclos_new(&v, t, TSCHED_VCLOS_MODE_FREE));
        uint64_t seed = ts_rng_next(&rng);
        char name[16];
        for (uint32_t i = 0; i < 6; i++) {
            snprintf(name, sizeof name, "b%u", i);
            random_job(v, &rng, name);
        }
        if (ts_rng_below(&rng, 2)) {
            char el[96];
            random_element(v, &rng, el, sizeof el);
            uint32_t sw = tsched_topology_find_switch(t, el);
            if (tsched_topology_find_node(t, el) == TSCHED_NONE && (sw == TSCHED_NONE || tsched_topology_switch_tier(t, sw)))
                ck_assert_ok(tsched_vclos_set_up(v, el, 0));
        }
        uint32_t total = 0;
        for (uint32_t i = 0; i < v->njobs; i++)
            total += v->jobs[i]->stage ? v->jobs[i]->nnodes * v->E : 0;
        uint32_t *U = malloc((total + 1) * sizeof *U), *D = malloc((total + 1) * sizeof *D);
        uint32_t *cu = calloc(v->nmembers, sizeof *cu), *cd = calloc(v->nmembers, sizeof *cd);
        uint32_t *eu = calloc(v->nmembers, sizeof *eu), *ed = calloc(v->nmembers, sizeof *ed);
        ck_assert(U && D && cu && cd && eu && ed);
        tsched_vclos_pattern pat = (tsched_vclos_pattern)ts_rng_below(&rng, 3);
        uint32_t step = (uint32_t)ts_rng_below(&rng, 8);
        /* ECMP of the same step */
        ck_assert_ok(tsched_vclos_set_routing(v, TSCHED_VCLOS_ROUTING_ECMP, seed));
        ck_assert_ok(vc_free_step(v, pat, step, U, D));
        uint32_t max_e = 0, max_b = 0;
        for (uint32_t e = 0; e < total; e++)
            if (U[e] != VC_NONE) {
                max_e = ++eu[U[e]] > max_e ? eu[U[e]] : max_e;
                max_e = ++ed[D[e]] > max_e ? ed[D[e]] : max_e;
            }
        ck_assert_ok(tsched_vclos_set_routing(v, TSCHED_VCLOS_ROUTING_BALANCED_ECMP, seed));
        ck_assert_ok(vc_free_step(v, pat, step, U, D));
        /* replay */
        ts_rng draw;
        ts_rng_seed(&draw, seed);
        uint32_t off = 0;
        for (uint32_t i = 0; i < v->njobs; i++) {
            const vc_job *j = v->jobs[i];
            uint32_t R = j->stage ? j->nnodes * v->E : 0;
            uint32_t steps = tsched_vclos_pattern_steps(pat, R);
            for (uint32_t r = 0; r < R; r++) {
                uint32_t e = off + r, d = VC_NONE;
                if (steps) {
                    uint32_t st = step % steps;
                    d = pat == TSCHED_VCLOS_RING ? (r + 1) % R : pat == TSCHED_VCLOS_ALLTOALL ? (r + st + 1) % R
                                                                                                : r ^ (1u << st);
                }
                uint32_t la = d == VC_NONE ? 0 : j->leaves[r / j->s], lb = d == VC_NONE ? 0 : j->leaves[d / j->s];
                if (d == VC_NONE || r / v->E == d / v->E || la == lb) {
                    ck_assert_uint_eq(U[e], VC_NONE);
                    ck_assert_uint_eq(D[e], VC_NONE);
                    continue;
                }
                /* candidates: up members of la towards spines with an up member to lb */
                uint32_t cand[64], nc = 0, best = UINT32_MAX, ub[8], ua[8];
                for (uint32_t m = 0; m < v->S; m++) {
                    if (!ref_up_members(v, t, lb, m, ub))
                        continue;
                    uint32_t n = ref_up_members(v, t, la, m, ua);
                    for (uint32_t x = 0; x < n; x++)
                        cand[nc++] = ua[x];
                }
                if (!nc) {
                    ck_assert_uint_eq(U[e], VC_NONE);
                    continue;
                }
                for (uint32_t x = 0; x < nc; x++)
                    best = cu[cand[x]] < best ? cu[cand[x]] : best;
                uint32_t ties[64], nt = 0;
                for (uint32_t x = 0; x < nc; x++)
                    if (cu[cand[x]] == best)
                        ties[nt++] = cand[x];
                ck_assert_uint_eq(cu[U[e]], best); /* least-loaded at its time */
                uint32_t want = ties[nt > 1 ? ts_rng_below(&draw, nt) : 0];
                ck_assert_uint_eq(U[e], want);
                uint32_t sp = v->member_pair[U[e]] % v->S, nb = ref_up_members(v, t, lb, sp, ub), dm = ub[0];
                for (uint32_t x = 1; x < nb; x++)
                    if (cd[ub[x]] < cd[dm])
                        dm = ub[x];
                ck_assert_uint_eq(D[e], dm);
                max_b = ++cu[U[e]] > max_b ? cu[U[e]] : max_b;
                max_b = ++cd[D[e]] > max_b ? cd[D[e]] : max_b;
            }
            off += R;
        }
        ck_assert_uint_eq(off, total);
        if (max_e) {
            cases++;
            sum_bal += max_b;
            sum_ecmp += max_e;
            worse += max_b > max_e;
            better += max_b < max_e;
        }
        free(U);
        free(D);
        free(cu);
        free(cd);
        free(eu);
        free(ed);
        tsched_vclos_free(v);
        tsched_topology_free(t);
    }
    printf("balanced-ecmp vs ecmp, %u cases with fabric flows: sum of per-link maxima %llu vs %llu; "
           "balanced better in %u, worse in %u\n",
           cases, (unsigned long long)sum_bal, (unsigned long long)sum_ecmp, better, worse);
    ck_assert_uint_gt(cases, 50);
    ck_assert_uint_lt(sum_bal, sum_ecmp);
    ck_assert_uint_gt(better, worse);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("vclos-fail");
    TCase *tc = tcase_create("vclos-fail");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, spine_down_repairs_and_degrades);
    tcase_add_test(tc, repair_takes_least_rpn);
    tcase_add_test(tc, member_down_hits_its_owner_only);
    tcase_add_test(tc, node_and_leaf_down_evict);
    tcase_add_test(tc, unknown_names_and_changes_buffer);
    tcase_add_test(tc, random_failures_replayed);
    tcase_add_test(tc, random_failures_with_allocate);
    tcase_add_test(tc, ocs_spine_down_degrades);
    tcase_add_test(tc, free_mode_only_evicts);
    tcase_add_test(tc, source_routing_by_hand);
    tcase_add_test(tc, ecmp_hash_recomputed);
    tcase_add_test(tc, balanced_ecmp_replayed);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
