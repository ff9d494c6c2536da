/* The cost model v1 of doc/cell.md §3.2 for one stage option, and T of a plan.
 *
 * Every formula is written in the order the note prints it (left to right), so that an
 * independent program transcribing the note gets the same doubles.
 *
 * Op profile (§3.4): time_s replaces phi_i / F (C_s = m sum time_s / g), params replaces
 * p_i, act_bytes replaces 34 seq h, out_bytes replaces 2 seq h. The note's a = 2 m seq h is
 * "one micro-batch's boundary activation"; with a profile each use of it takes the layer
 * whose output actually moves: the TP all-reduces of X are per layer (4 per layer, each of
 * m out_bytes_i / d bytes, summed over the stage's layers: n_s a / d analytically), and K_s
 * (send/recv into stage s, then the all-gather in its TP group) moves m out_bytes of the
 * previous stage's last layer (the layer before the cut, as in stage determination (b)).
 * Each modelled collective takes the profile's interpolation when it has an entry for
 * (op, scope, ranks): TP all-reduce = allreduce among t, K's send/recv = sendrecv ranks 1,
 * K's all-gather = allgather among t, A = allreduce among d; scope inter iff the layout
 * puts that group on U. Without an entry, the §3.2 formula. */
#include <math.h>

#include "estimate_internal.h"

__extension__ typedef unsigned __int128 u128;

/* count * per + extra as a double; exact whenever the integer fits in 128 bits. */
static double big_sum(uint64_t count, u128 per, u128 extra)
{
    if (count && per > (~(u128)0 - extra) / count)
        return (double)count * (double)per + (double)extra;
    return (double)(per * count + extra);
}

void ts_cm_init(ts_cm *cm, const ts_cell_in *in, uint32_t n_gpus, uint32_t stages, const uint32_t *first,
                const uint32_t *g)
{
    const ts_gpu *gpu = in->gpu;
    uint32_t S = stages, l = in->layers;
    cm->S = S;
    cm->N = n_gpus;
    cm->G = in->G;
    cm->B = 4 * S;
    cm->m = (double)in->global_batch / cm->B;
    cm->h = in->hidden;
    cm->seq = in->seq;
    cm->a = 2 * cm->m * cm->seq * cm->h;
    cm->F = gpu->tflops * 1e12 * gpu->efficiency;
    cm->W = gpu->intra_gbps * 1e9 / 8;
    cm->U = in->U_gbps * 1e9 / 8;
    cm->memcap = 0.9 * gpu->mem_gib * 1073741824.0;
    cm->prof = in->profile;
    u128 h = in->hidden, sq = in->seq, V = in->vocab;
    u128 phi = 72 * sq * h * h + 12 * sq * sq * h, head = 6 * sq * h * V;
    u128 p = 12 * h * h + 9 * h, emb = h * (V + sq), out = h * V;
    uint32_t o = 0;
    for (uint32_t s = 0; s < S; s++) {
        ts_cm_stage *st = &cm->st[s];
        st->first = first[s];
        st->n = first[s + 1] - first[s];
        st->g = g[s];
        st->o = o;
        o += g[s];
        int has_last = first[s + 1] == l, has_first = first[s] == 0;
        if (!cm->prof) {
            st->Phi = big_sum(st->n, phi, has_last ? head : 0);
            st->Pi = big_sum(st->n, p, (has_first ? emb : 0) + (has_last ? out : 0));
            st->act = 0;
            st->a_in = cm->a;
        } else {
            const ts_prof_layer *L = cm->prof->layers;
            st->Phi = st->Pi = st->act = 0;
            for (uint32_t i = first[s]; i < first[s + 1]; i++) {
                st->Phi += L[i].time_s;
                st->Pi += L[i].params;
                st->act += L[i].act_bytes;
            }
            st->a_in = s > 0 ? cm->m * L[first[s] - 1].out_bytes : 0;
        }
    }
}

/* Node of the Cell's GPU k under the layout of §1. */
static uint32_t node_of(uint32_t k, uint32_t G) { return k / G; }

/* Is every tensor group (t consecutive GPUs from o) of a stage inside one node? */
static int groups_inside(uint32_t o, uint32_t g, uint32_t t, uint32_t G)
{
    if (t == 1 || node_of(o, G) == node_of(o + g - 1, G))
        return 1;
    if (o % G == 0 && G % t == 0)
        return 1;
    for (uint32_t k = o; k < o + g; k += t)
        if (node_of(k, G) != node_of(k + t - 1, G))
            return 0;
    return 1;
}

static double coll(const ts_cm *cm, ts_coll_op op, int inter, uint32_t ranks, double bytes, double formula)
{
    double secs;
    if (cm->prof && cm->prof->ncoll && ts_profile_coll_time(&secs, cm->prof, op, inter, ranks, bytes))
        return secs;
    return formula;
}

void ts_cm_option(ts_opt *o, const ts_cm *cm, uint32_t s, uint32_t t)
{
    const ts_cm_stage *st = &cm->st[s];
    uint32_t g = st->g, d = g / t, n = st->n, S = cm->S, G = cm->G;
    int tp_inter = !groups_inside(st->o, g, t, G);
    int dp_inter = node_of(st->o, G) != node_of(st->o + g - 1, G);
    int b_inter = s > 0 && node_of(cm->st[s - 1].o, G) != node_of(st->o + g - 1, G);
    double bw_tp = tp_inter ? cm->U : cm->W, bw_dp = dp_inter ? cm->U : cm->W, bw_b = b_inter ? cm->U : cm->W;
    double m = cm->m, C, X = 0, K = 0, A = 0, M;
    o->s = s;
    o->t = t;
    if (!cm->prof) {
        double a = cm->a, Phi = st->Phi, Pi = st->Pi;
        C = m * Phi / (g * cm->F);
        if (t > 1)
            X = n * 4.0 * 2 * (t - 1) / t * (a / d) / bw_tp;
        if (s > 0)
            K = 2 * ((a / g) / bw_b + (t > 1 ? (t - 1.0) / t * (a / d) / bw_tp : 0));
        if (d > 1)
            A = 2.0 * (d - 1) / d * 4 * Pi / t / bw_dp;
        M = 16 * Pi / t + (double)(S - s) * n * (m / d) * 34 * cm->seq * cm->h / t;
    } else {
        const ts_prof_layer *L = cm->prof->layers;
        double Pi = st->Pi;
        C = m * st->Phi / g;
        if (t > 1)
            for (uint32_t i = st->first; i < st->first + n; i++) {
                double ai = m * L[i].out_bytes;
                X += 4 * coll(cm, TS_COLL_ALLREDUCE, tp_inter, t, ai / d, 2.0 * (t - 1) / t * (ai / d) / bw_tp);
            }
        if (s > 0) {
            double a = st->a_in;
            double sr = coll(cm, TS_COLL_SENDRECV, b_inter, 1, a / g, (a / g) / bw_b);
            double ag = t > 1 ? coll(cm, TS_COLL_ALLGATHER, tp_inter, t, a / d, (t - 1.0) / t * (a / d) / bw_tp) : 0;
            K = 2 * (sr + ag);
        }
        if (d > 1)
            A = coll(cm, TS_COLL_ALLREDUCE, dp_inter, d, 4 * Pi / t, 2.0 * (d - 1) / d * 4 * Pi / t / bw_dp);
        M = 16 * Pi / t + (double)(S - s) * (m / d) * st->act / t;
    }
    o->C = C;
    o->X = X;
    o->K = K;
    o->A = A;
    o->M = M;
    o->cx = C + X;
    o->tau = C + X + K;
}

double ts_cm_iteration(const ts_cm *cm, const ts_opt *const *chosen)
{
    double sum = 0, mcx = 0, ma = 0;
    for (uint32_t s = 0; s < cm->S; s++) {
        sum += chosen[s]->tau;
        if (chosen[s]->cx > mcx)
            mcx = chosen[s]->cx;
        if (chosen[s]->A > ma)
            ma = chosen[s]->A;
    }
    return sum + (cm->B - 1) * mcx + ma;
}
