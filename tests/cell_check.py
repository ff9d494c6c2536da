#!/usr/bin/env python3
"""Independent check of `topo-sched cells` (doc/cell.md, "The cost model").

Recomputes every number a tsched.cells.v1 document holds from the formulas alone, by brute
force: stage cuts by enumerating every cut vector (exact rational bottleneck), every plan of
the plan space by enumerating the product of the per-stage options, the optimum and its
tie-breaks, the favours, plans_evaluated, the per-stage times and memory, T and the
throughput. It shares no code with the library: only the documents (fabric, job, catalogue)
and the formulas. Numbers must agree to 1e-9 relative, the cuts, GPU counts and plans
exactly, and the list of Cells (pool name order, then N, then S) must be the one the
options ask for.

usage: cell_check.py -t TOPO -j JOB [-c GPUS] [--type T] [--gpus N] [--stages S]
                     [--plans assembled|tuned|exhaustive] CELLS.json
       cell_check.py --schedule -t TOPO -q QUEUE [-c GPUS] SCHEDULE.json
       cell_check.py --worked-example     (prints the worked example's numbers)

--schedule checks a tsched.crius-schedule.v1 document against its fabric and queue: jobs in
queue order; every running job on nodes of its pool, node GPUs summing to its Cell's N, whole
nodes when N >= G and one node otherwise, no node holding more than its free GPUs plus those
of the queue's running jobs; a changed job's N in {N_G/2, N_G, 2 N_G}; its iteration_s,
throughput and stage_plan those of the assembled Cell recomputed here; reference_throughput
the best assembled throughput over the pools at N_G; `value` the objective recomputed; with
depth 0 no running job of the queue changes. It does not judge the scheduler's choices.
Exit 0 when everything agrees, 1 with one line per disagreement otherwise.

Op profiles are not modelled here (their collectives' interpolation leaves too much to the
implementation); run it on analytic Cells only.
"""
import argparse
import itertools
import json
import sys
from fractions import Fraction

# The built-in catalogue (doc/cell.md, "GPU catalogue"): tflops, mem_gib, intra_gbps;
# efficiency 0.5 for all.
BUILTIN = {
    "H100": (989, 80, 3600), "H800": (989, 80, 1600), "A100": (312, 80, 2400),
    "A100-40G": (312, 40, 2400), "A40": (149.7, 48, 256), "A10": (125, 24, 256),
    "L20": (119.5, 48, 256), "V100": (125, 32, 1200), "V100M16": (125, 16, 1200),
    "V100M32": (125, 32, 1200), "T4": (65, 16, 128), "P100": (18.7, 16, 128),
}
REL = 1e-9


def catalogue(path):
    cat = {k: {"tflops": v[0], "mem_gib": v[1], "intra_gbps": v[2], "efficiency": 0.5} for k, v in BUILTIN.items()}
    if path:
        with open(path) as f:
            doc = json.load(f)
        for g in doc["gpus"]:
            cat[g["name"]] = {"tflops": g["tflops"], "mem_gib": g["mem_gib"], "intra_gbps": g["intra_gbps"],
                              "efficiency": g.get("efficiency", 0.5)}
    return cat


def pools_of(topo):
    """{name: (gpu_type, G, U_gbps)} over every node of the fabric."""
    gen = topo.get("generate")
    nodes = []
    default_gbps = 400.0
    if gen:
        default_gbps = gen["nic_gbps"]
        if gen["kind"] == "leaf_spine":
            count = gen["leaves"] * gen["nodes_per_leaf"]
        else:
            count = gen["pods"] * gen["leaves_per_pod"] * gen["nodes_per_leaf"]
        g = gen["gpus_per_node"]
        nodes += [(gen.get("gpu_type", "GPU"), g, gen.get("nics_per_node", g), gen["nic_gbps"])] * count
    for n in topo.get("nodes", []):
        nics = n.get("nics", len(n["rails"]) if "rails" in n else n["gpus"])
        nodes.append((n.get("gpu_type", "GPU"), n["gpus"], nics, n.get("nic_gbps", default_gbps)))
    pools = {}
    for typ, g, nics, gbps in nodes:
        name = "%s/%d" % (typ, g)
        u = nics * gbps / g
        if name in pools:
            u = min(u, pools[name][2])
        pools[name] = (typ, g, u)
    return dict(sorted(pools.items(), key=lambda kv: kv[0].encode()))


class Model:
    def __init__(self, m):
        self.h, self.l, self.V, self.seq, self.gb = m["hidden"], m["layers"], m["vocab"], m["seq"], m["global_batch"]
        h, seq, V, l = self.h, self.seq, self.V, self.l
        self.key = (h, l, V, seq, self.gb)
        self.phi = [72 * seq * h * h + 12 * seq * seq * h for _ in range(l)]
        self.phi[-1] += 6 * seq * h * V
        self.p = [12 * h * h + 9 * h for _ in range(l)]
        self.p[0] += h * (V + seq)
        self.p[-1] += h * V


def stage_gpus(n, s):
    return [n // s + (1 if i >= s - n % s else 0) for i in range(s)]


def cut(model, n, s):
    """Brute force over every cut vector: min bottleneck (exact), then (constant bytes), then
    the lexicographically smallest cuts. Returns first_layer[S + 1]."""
    g = stage_gpus(n, s)
    best = None
    for cuts in itertools.combinations(range(1, model.l), s - 1):
        b = (0,) + cuts + (model.l,)
        beta = max(Fraction(sum(model.phi[b[i]:b[i + 1]]), g[i]) for i in range(s))
        key = (beta, cuts)
        if best is None or key < best:
            best = key
    return [0] + list(best[1]) + [model.l], g


def divisors(g, G):
    return [t for t in range(1, g + 1) if g % t == 0 and t <= G]


def tpmax(g, G):
    return max(divisors(g, G))


class Cell:
    """Everything of one Cell that does not depend on the plan."""

    def __init__(self, model, gpu, G, U_gbps, n, s):
        self.model, self.G, self.n, self.s = model, G, n, s
        self.F = gpu["tflops"] * 1e12 * gpu["efficiency"]
        self.W = gpu["intra_gbps"] * 1e9 / 8
        self.U = U_gbps * 1e9 / 8
        self.mem = 0.9 * gpu["mem_gib"] * 2 ** 30
        self.first, self.g = cut(model, n, s)
        self.B = 4 * s
        self.m = model.gb / self.B
        self.o = [sum(self.g[:i]) for i in range(s)]
        self.nl = [self.first[i + 1] - self.first[i] for i in range(s)]
        self.Phi = [sum(model.phi[self.first[i]:self.first[i + 1]]) for i in range(s)]
        self.Pi = [sum(model.p[self.first[i]:self.first[i + 1]]) for i in range(s)]

    def node(self, k):
        return k // self.G

    def one_node(self, lo, hi):  # GPUs lo..hi-1
        return self.node(lo) == self.node(hi - 1)

    def stage_terms(self, i, t):
        """(C + X, tau, A, M) of stage i with tensor parallelism t."""
        M, sq, h = self.model, self.model.seq, self.model.h
        g, o = self.g[i], self.o[i]
        d = g // t
        m = self.m
        a = 2 * m * sq * h
        bw_tp = self.W if all(self.one_node(o + j * t, o + (j + 1) * t) for j in range(d)) else self.U
        bw_dp = self.W if self.one_node(o, o + g) else self.U
        C = m * self.Phi[i] / (g * self.F)
        X = self.nl[i] * 4 * 2 * (t - 1) / t * (a / d) / bw_tp if t > 1 else 0.0
        K = 0.0
        if i > 0:
            bw_b = self.W if self.one_node(self.o[i - 1], o + g) else self.U
            K = 2 * ((a / g) / bw_b + ((t - 1) / t * (a / d) / bw_tp if t > 1 else 0.0))
        A = 2 * (d - 1) / d * 4 * self.Pi[i] / t / bw_dp if d > 1 else 0.0
        Mem = 16 * self.Pi[i] / t + (self.s - i) * self.nl[i] * (m / d) * 34 * sq * h / t
        return C + X, C + X + K, A, Mem

    def plan(self, ts):
        terms = [self.stage_terms(i, t) for i, t in enumerate(ts)]
        T = sum(x[1] for x in terms) + (self.B - 1) * max(x[0] for x in terms) + max(x[2] for x in terms)
        feasible = all(x[3] <= self.mem for x in terms)
        return T, feasible, terms

    def options(self, space, favours=None):
        out = []
        for i in range(self.s):
            g = self.g[i]
            adm = divisors(g, self.G)
            if space == "assembled":
                out.append(sorted({1, tpmax(g, self.G)}))
            elif space == "exhaustive":
                out.append(adm)
            elif favours[i] == "dp":
                out.append([t for t in adm if t * t <= g])
            else:
                out.append([t for t in adm if t * t >= g or t == tpmax(g, self.G)])
        return out

    def best(self, space, favours=None):
        opts = self.options(space, favours)
        plans = []
        for ts in itertools.product(*opts):
            T, ok, terms = self.plan(ts)
            if ok:
                plans.append((T, ts, terms))
        count = 1
        for o in opts:
            count *= len(o)
        if not plans:
            return None, count
        tmin = min(p[0] for p in plans)
        near = [p for p in plans if p[0] <= tmin * (1 + 1e-12)]
        near.sort(key=lambda p: (sum(1 for t in p[1] if t > 1), p[1]))
        return near[0], count


def expected(model, gpu, G, U, n, s, space):
    """The element of `cells` for Cell (n, s), as a dict."""
    e = {"gpus": n, "stages": s}
    if s > model.l:
        return dict(e, feasible=False, reason="more stages than layers")
    if s > n:
        return dict(e, feasible=False, reason="more stages than gpus")
    if n > G and n % G:
        return dict(e, feasible=False, reason="gpus not a multiple of the node size")
    c = Cell(model, gpu, G, U, n, s)
    asm, asm_count = c.best("assembled")
    if asm is None:
        return dict(e, feasible=False, reason="out of memory in every plan", cell=c)
    favours = ["dp" if t == 1 else "tp" for t in asm[1]]
    best, count = (asm, asm_count) if space == "assembled" else c.best(space, favours)
    T, ts, terms = best
    stages = [{"first_layer": c.first[i], "layers": c.nl[i], "gpus": c.g[i], "dp": c.g[i] // ts[i], "tp": ts[i],
               "favor": favours[i], "time_s": terms[i][1], "mem_bytes": terms[i][3]} for i in range(s)]
    return dict(e, feasible=True, microbatches=c.B, iteration_s=T, throughput=model.gb / T, plans_evaluated=count,
                stage_plan=stages)


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def check(args):
    with open(args.topo) as f:
        topo = json.load(f)
    with open(args.job) as f:
        job = json.load(f)
    with open(args.cells) as f:
        out = json.load(f)
    cat = catalogue(args.catalogue)
    model = Model(job["model"])
    errors = []

    def err(msg):
        errors.append(msg)

    for k, v in (("format", "tsched.cells.v1"), ("job", job["name"]), ("plans", args.plans)):
        if out.get(k) != v:
            err("%s: %r, expected %r" % (k, out.get(k), v))
    pools = pools_of(topo)
    ng = job["gpus"]
    ns = [args.gpus] if args.gpus else ([ng // 2] if ng % 2 == 0 else []) + [ng, 2 * ng]
    want, unknown = [], []
    for name, (typ, G, U) in pools.items():
        if args.type and typ != args.type:
            continue
        if typ not in cat:
            if typ not in unknown:
                unknown.append(typ)
            continue
        for n in ns:
            if args.stages:
                ss = [args.stages]
            else:
                ss, s = [], 1
                while s <= min(n, model.l):
                    ss.append(s)
                    s *= 2
            for s in ss:
                want.append((name, typ, G, U, n, s))
    if out.get("unknown_gpu_types", []) != unknown:
        err("unknown_gpu_types: %r, expected %r" % (out.get("unknown_gpu_types"), unknown))
    got = out.get("cells", [])
    keys = [(c.get("pool"), c.get("gpus"), c.get("stages")) for c in got]
    wkeys = [(w[0], w[4], w[5]) for w in want]
    if keys != wkeys:
        err("cells: %r, expected %r" % (keys, wkeys))
        return errors, 0
    checked = 0
    for c, (name, typ, G, U, n, s) in zip(got, want):
        where = "%s N=%d S=%d" % (name, n, s)
        e = expected(model, cat[typ], G, U, n, s, args.plans)
        if c.get("gpu_type") != typ:
            err("%s: gpu_type %r, expected %r" % (where, c.get("gpu_type"), typ))
        for k in ("feasible", "reason", "microbatches", "iteration_s", "throughput", "plans_evaluated"):
            if k in e and not close(c.get(k), e[k]):
                err("%s: %s %r, expected %r" % (where, k, c.get(k), e[k]))
        if e["feasible"]:
            sp = c.get("stage_plan", [])
            if len(sp) != s:
                err("%s: %d stages in stage_plan, expected %d" % (where, len(sp), s))
                continue
            for i, (a, b) in enumerate(zip(sp, e["stage_plan"])):
                for k in b:
                    if not close(a.get(k), b[k]):
                        err("%s: stage_plan[%d].%s %r, expected %r" % (where, i, k, a.get(k), b[k]))
        elif "stage_plan" in c and "cell" in e:  # cut but out of memory: ranges must still agree
            cc = e["cell"]
            for i, a in enumerate(c["stage_plan"]):
                if (a.get("first_layer"), a.get("layers"), a.get("gpus")) != (cc.first[i], cc.nl[i], cc.g[i]):
                    err("%s: stage_plan[%d] range %r, expected %r" % (where, i, a, (cc.first[i], cc.nl[i], cc.g[i])))
        checked += 1
    return errors, checked


def nodes_of(topo):
    """{node name: (pool name, gpus, free gpus)} (explicit nodes only)."""
    free = topo.get("state", {}).get("free_gpus", {})
    out = {}
    for n in topo.get("nodes", []):
        out[n["name"]] = ("%s/%d" % (n.get("gpu_type", "GPU"), n["gpus"]), n["gpus"], free.get(n["name"], n["gpus"]))
    return out


def check_schedule(args):
    with open(args.topo) as f:
        topo = json.load(f)
    with open(args.queue) as f:
        queue = json.load(f)
    with open(args.cells) as f:
        out = json.load(f)
    cat = catalogue(args.catalogue)
    pools, nodes = pools_of(topo), nodes_of(topo)
    errors = []
    err = errors.append
    if out.get("format") != "tsched.crius-schedule.v1":
        err("format: %r" % out.get("format"))
    qjobs, ojobs = queue["jobs"], out.get("jobs", [])
    if [j["name"] for j in qjobs] != [j.get("name") for j in ojobs]:
        err("jobs: %r, expected queue order %r" % ([j.get("name") for j in ojobs], [j["name"] for j in qjobs]))
        return errors, 0
    unknown = sorted({p[0] for p in pools.values() if p[0] not in cat})
    if sorted(out.get("unknown_gpu_types", [])) != unknown:
        err("unknown_gpu_types: %r, expected %r" % (out.get("unknown_gpu_types"), unknown))
    cap = {n: v[2] for n, v in nodes.items()}
    for q in qjobs:
        for nd in q.get("running", {}).get("nodes", []):
            cap[nd["node"]] += nd["gpus"]
    used = {n: 0 for n in nodes}
    cache = {}

    def estimate(model, pool, n, s):
        key = (model.key, pool, n, s)
        if key not in cache:
            typ, G, U = pools[pool]
            cache[key] = expected(model, cat[typ], G, U, n, s, "assembled")
        return cache[key]

    value = 0.0
    for q, o in zip(qjobs, ojobs):
        name = q["name"]
        model = Model(q["model"])
        ng = q["gpus"]
        if o.get("status") == "pending":
            if o.get("reason") not in ("no feasible cell", "insufficient gpus"):
                err("%s: pending with reason %r" % (name, o.get("reason")))
            if out.get("depth") == 0 and "running" in q:
                err("%s: running in the queue, pending at depth 0" % name)
            continue
        if o.get("status") != "running":
            err("%s: status %r" % (name, o.get("status")))
            continue
        pool, n, s = o.get("pool"), o.get("gpus"), o.get("stages")
        if pool not in pools or pools[pool][0] not in cat:
            err("%s: pool %r not a pool of a known type" % (name, pool))
            continue
        typ, G, U = pools[pool]
        if o.get("gpu_type") != typ:
            err("%s: gpu_type %r, expected %r" % (name, o.get("gpu_type"), typ))
        was = q.get("running")
        same = was and was["pool"] == pool and was["gpus"] == n and was["stages"] == s and \
            sorted((x["node"], x["gpus"]) for x in was["nodes"]) == sorted((x["node"], x["gpus"]) for x in o["nodes"])
        if (not was or not same) and o.get("changed") is not True:
            err("%s: a new or moved job with changed %r" % (name, o.get("changed")))
        if was and same and o.get("changed") is not False:
            err("%s: unchanged job with changed %r" % (name, o.get("changed")))
        if out.get("depth") == 0 and was and not same:
            err("%s: a running job changed at depth 0" % name)
        if not same and n not in ([ng // 2] if ng % 2 == 0 else []) + [ng, 2 * ng]:
            err("%s: %d GPUs, not in N_G/2, N_G, 2 N_G for N_G = %d" % (name, n, ng))
        total = 0
        for nd in o.get("nodes", []):
            node, k = nd["node"], nd["gpus"]
            if node not in nodes or nodes[node][0] != pool:
                err("%s: node %r is not in pool %s" % (name, node, pool))
                continue
            used[node] += k
            total += k
            if n >= G and k != G:
                err("%s: %d GPUs on %s, a Cell of %d >= G = %d takes whole nodes" % (name, k, node, n, G))
        if total != n:
            err("%s: node GPUs sum to %d, the Cell has %d" % (name, total, n))
        if n < G and len(o.get("nodes", [])) != 1:
            err("%s: a Cell of %d < G = %d on %d nodes" % (name, n, G, len(o.get("nodes", []))))
        e = estimate(model, pool, n, s)
        if not e["feasible"]:
            err("%s: runs the infeasible Cell %s/%d/%d (%s)" % (name, pool, n, s, e["reason"]))
            continue
        for k in ("iteration_s", "throughput"):
            if not close(o.get(k), e[k]):
                err("%s: %s %r, expected %r" % (name, k, o.get(k), e[k]))
        sp = o.get("stage_plan", [])
        for i, b in enumerate(e["stage_plan"]):
            a = sp[i] if i < len(sp) else {}
            for k in b:
                if not close(a.get(k), b[k]):
                    err("%s: stage_plan[%d].%s %r, expected %r" % (name, i, k, a.get(k), b[k]))
        # reference: best assembled throughput over the pools at N_G
        ref = 0.0
        for pn, (pt, pG, pU) in pools.items():
            if pt not in cat:
                continue
            sv = 1
            while sv <= min(ng, model.l):
                x = estimate(model, pn, ng, sv)
                if x["feasible"]:
                    ref = max(ref, x["throughput"])
                sv *= 2
        if ref > 0 and not close(o.get("reference_throughput"), ref):
            err("%s: reference_throughput %r, expected %r" % (name, o.get("reference_throughput"), ref))
        ref = o.get("reference_throughput") or ref
        value += e["throughput"] / ref if out.get("objective") == "normalized" else e["throughput"]
    for node, k in used.items():
        if k > cap[node]:
            err("node %s: %d GPUs used, %d available to the scheduler" % (node, k, cap[node]))
    if not close(out.get("value"), value):
        err("value %r, expected %r" % (out.get("value"), value))
    return errors, len(ojobs)


def worked_example():
    """doc/cell.md's worked example, printed for the test and the reader."""
    model = Model({"hidden": 1024, "layers": 4, "vocab": 32000, "seq": 512, "global_batch": 64})
    gpu = {"tflops": 312, "mem_gib": 80, "intra_gbps": 2400, "efficiency": 0.5}
    print("phi", model.phi[0], model.phi[-1], "p", model.p)
    c = Cell(model, gpu, 4, 100, 4, 2)
    print("N4 S2 g", c.g, "first", c.first, "B", c.B, "m", c.m)
    for ts in ((1, 1), (1, 2), (2, 1), (2, 2)):
        T, ok, terms = c.plan(ts)
        print("  t=%s T=%.9f M0=%.0f" % (ts, T, terms[0][3]))
    for space in ("assembled", "tuned", "exhaustive"):
        e = expected(model, gpu, 4, 100, 8, 2, space)
        print("N8 S2 %s t=%s T=%.9f plans=%d" % (space, tuple(x["tp"] for x in e["stage_plan"]), e["iteration_s"],
                                                e["plans_evaluated"]))


def main():
    if sys.argv[1:] == ["--worked-example"]:
        worked_example()
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--schedule", action="store_true")
    ap.add_argument("-t", dest="topo", required=True)
    ap.add_argument("-j", dest="job")
    ap.add_argument("-q", dest="queue")
    ap.add_argument("-c", dest="catalogue")
    ap.add_argument("--type")
    ap.add_argument("--gpus", type=int)
    ap.add_argument("--stages", type=int)
    ap.add_argument("--plans", default="assembled", choices=("assembled", "tuned", "exhaustive"))
    ap.add_argument("cells")
    args = ap.parse_args()
    if args.schedule:
        errors, checked = check_schedule(args)
    else:
        errors, checked = check(args)
    for e in errors[:20]:
        print("cell_check: " + e)
    if errors:
        print("cell_check: %d disagreements" % len(errors))
        return 1
    print("cell_check: %d %s agree" % (checked, "jobs" if args.schedule else "cells"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
