/* Plain Cell estimation for the benchmark: the formulas of doc/cell.md §3.2 written out
 * once more, per stage and per option t (d = g / t), over flat arrays on the stack; then
 * the exact optimum of §3.3 by sweeping theta2 (a candidate max A) and, inside it, theta1
 * (max C + X) over the options sorted by C + X. No library code. */
#include "ref_cell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct opt {
    uint32_t stage;
    double cx, tau, a;
} opt;

/* Largest divisor of g that is <= G. */
static uint32_t tp_max(uint32_t g, uint32_t G)
{
    for (uint32_t t = g < G ? g : G; t > 1; t--)
        if (g % t == 0)
            return t;
    return 1;
}

typedef struct stage_terms {
    double C, X, K, A, M;
} stage_terms;

/* Offset, FLOPs and parameters of stage s (the per-stage sums of §3.2). */
typedef struct stage_sums {
    uint32_t o;
    double Phi, Pi;
} stage_sums;

static stage_sums sums(const ref_cell_in *in, uint32_t s)
{
    const double h = in->hidden, seq = in->seq, V = in->vocab;
    const uint32_t l = (uint32_t)in->layers;
    stage_sums r = {0, 0, 0};
    for (uint32_t i = 0; i < s; i++)
        r.o += in->gpus[i];
    for (uint32_t i = in->first_layer[s]; i < in->first_layer[s + 1]; i++) {
        r.Phi += 72 * seq * h * h + 12 * seq * seq * h + (i == l - 1 ? 6 * seq * h * V : 0);
        r.Pi += 12 * h * h + 9 * h + (i == 0 ? h * (V + seq) : 0) + (i == l - 1 ? h * V : 0);
    }
    return r;
}

/* C, X, K, A, M of stage s with tensor parallelism t. */
static stage_terms terms(const ref_cell_in *in, uint32_t s, const stage_sums *ss, uint32_t t)
{
    const double h = in->hidden, seq = in->seq;
    const uint32_t S = in->S, G = in->G;
    const double B = 4.0 * S, m = in->gb / B;
    const double F = in->tflops * 1e12 * in->efficiency, W = in->intra_gbps * 1e9 / 8, U = in->U_gbps * 1e9 / 8;
    const uint32_t o = ss->o, g = in->gpus[s], d = g / t;
    const uint32_t n = in->first_layer[s + 1] - in->first_layer[s];
    const double Phi = ss->Phi, Pi = ss->Pi;
    int tp_in = 1;
    for (uint32_t j = 0; j < d; j++)
        if ((o + j * t) / G != (o + (j + 1) * t - 1) / G)
            tp_in = 0;
    const double bw_tp = tp_in ? W : U;
    const double bw_dp = o / G == (o + g - 1) / G ? W : U;
    double bw_b = U;
    if (s > 0 && (o - in->gpus[s - 1]) / G == (o + g - 1) / G)
        bw_b = W;
    const double a = 2 * m * seq * h;
    stage_terms r;
    r.C = m * Phi / (g * F);
    r.X = t > 1 ? n * 4.0 * 2.0 * (t - 1) / t * (a / d) / bw_tp : 0;
    r.K = s > 0 ? 2 * ((a / g) / bw_b + (t > 1 ? (double)(t - 1) / t * (a / d) / bw_tp : 0)) : 0;
    r.A = d > 1 ? 2.0 * (d - 1) / d * 4 * Pi / t / bw_dp : 0;
    r.M = 16 * Pi / t + (double)(S - s) * n * (m / d) * 34 * seq * h / t;
    return r;
}

static int cmp_cx(const void *x, const void *y)
{
    const opt *a = x, *b = y;
    return (a->cx > b->cx) - (a->cx < b->cx);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int ref_cell_eval(ref_cell_out *out, const ref_cell_in *in, int space, const uint8_t *favor_tp)
{
    const uint32_t S = in->S;
    if (S == 0 || S > REF_CELL_MAX_STAGES || (space == 1 && !favor_tp))
        return -1;
    opt opts[REF_CELL_MAX_STAGES * REF_CELL_MAX_OPTS];
    double as[REF_CELL_MAX_STAGES * REF_CELL_MAX_OPTS];
    uint32_t k = 0, per_stage_ok[REF_CELL_MAX_STAGES];
    const double cap = 0.9 * in->mem_gib * 1073741824.0;
    out->options = 0;
    out->log10_plans = 0;
    out->feasible = 0;
    out->T = 0;
    for (uint32_t s = 0; s < S; s++) {
        const uint32_t g = in->gpus[s], tm = tp_max(g, in->G);
        const stage_sums ss = sums(in, s);
        uint32_t cnt = 0;
        per_stage_ok[s] = 0;
        for (uint32_t t = 1; t <= g && t <= in->G; t++) {
            if (g % t)
                continue;
            int take;
            if (space == 0)
                take = t == 1 || t == tm;
            else if (space == 1)
                take = favor_tp[s] ? (t * t >= g || t == tm) : t * t <= g;
            else
                take = 1;
            if (!take)
                continue;
            cnt++;
            stage_terms r = terms(in, s, &ss, t);
            if (r.M > cap)
                continue;
            if (k >= REF_CELL_MAX_STAGES * REF_CELL_MAX_OPTS)
                return -1;
            opts[k] = (opt){s, r.C + r.X, r.C + r.X + r.K, r.A};
            as[k] = r.A;
            k++;
            per_stage_ok[s]++;
        }
        out->options += cnt;
        out->log10_plans += log10((double)cnt);
    }
    for (uint32_t s = 0; s < S; s++)
        if (!per_stage_ok[s])
            return 0; /* out of memory in every plan */
    qsort(opts, k, sizeof *opts, cmp_cx);
    qsort(as, k, sizeof *as, cmp_dbl);
    const double Bm1 = 4.0 * S - 1;
    double best = INFINITY, best_tau[REF_CELL_MAX_STAGES];
    for (uint32_t ia = 0; ia < k; ia++) {
        if (ia > 0 && as[ia] == as[ia - 1])
            continue;
        const double theta2 = as[ia];
        if (theta2 >= best)
            break; /* every later score is at least theta2 */
        for (uint32_t s = 0; s < S; s++)
            best_tau[s] = INFINITY;
        uint32_t covered = 0;
        double sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            const opt *o = &opts[i];
            if (o->a > theta2)
                continue;
            if (o->tau < best_tau[o->stage]) {
                if (best_tau[o->stage] == INFINITY) {
                    covered++;
                    sum += o->tau;
                } else {
                    sum += o->tau - best_tau[o->stage];
                }
                best_tau[o->stage] = o->tau;
            }
            if (covered == S) {
                double score = sum + Bm1 * o->cx + theta2;
                if (score < best)
                    best = score;
            }
        }
    }
    out->feasible = 1;
    out->T = best;
    return 0;
}

/* T of one plan t[] (every stage feasible or not: the worked example's plans all are). */
static double plan_T(const ref_cell_in *in, const uint32_t *t)
{
    double sum = 0, mcx = 0, ma = 0;
    for (uint32_t s = 0; s < in->S; s++) {
        stage_sums ss = sums(in, s);
        stage_terms r = terms(in, s, &ss, t[s]);
        sum += r.C + r.X + r.K;
        if (r.C + r.X > mcx)
            mcx = r.C + r.X;
        if (r.A > ma)
            ma = r.A;
    }
    return sum + (4.0 * in->S - 1) * mcx + ma;
}

static double relerr(double x, double ref)
{
    return fabs(x - ref) / fabs(ref);
}

double ref_cell_selftest(void)
{
    ref_cell_in in;
    memset(&in, 0, sizeof in);
    in.hidden = 1024;
    in.layers = 4;
    in.vocab = 32000;
    in.seq = 512;
    in.gb = 64;
    in.tflops = 312;
    in.efficiency = 0.5;
    in.mem_gib = 80;
    in.intra_gbps = 2400;
    in.G = 4;
    in.U_gbps = 100;
    in.N = 4;
    in.S = 2;
    in.first_layer[0] = 0;
    in.first_layer[1] = 3;
    in.first_layer[2] = 4;
    in.gpus[0] = 2;
    in.gpus[1] = 2;
    static const uint32_t plans[4][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}};
    static const double want[4] = {0.033435586, 0.034358332, 0.033428349, 0.033746295};
    double worst = 0, e;
    for (int i = 0; i < 4; i++)
        if ((e = relerr(plan_T(&in, plans[i]), want[i])) > worst)
            worst = e;
    ref_cell_out o;
    if (ref_cell_eval(&o, &in, 0, NULL) != 0 || !o.feasible)
        return INFINITY;
    if ((e = relerr(o.T, 0.033428349)) > worst)
        worst = e;
    stage_sums s0 = sums(&in, 0);
    if ((e = relerr(terms(&in, 0, &s0, 1).M, 1564917760.0)) > worst)
        worst = e;
    in.N = 8;
    in.gpus[0] = in.gpus[1] = 4;
    if (ref_cell_eval(&o, &in, 0, NULL) != 0 || !o.feasible)
        return INFINITY;
    if ((e = relerr(o.T, 0.017986938)) > worst)
        worst = e;
    if (ref_cell_eval(&o, &in, 2, NULL) != 0 || !o.feasible)
        return INFINITY;
    if ((e = relerr(o.T, 0.017640540)) > worst)
        worst = e;
    return worst;
}
