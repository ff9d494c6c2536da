#!/usr/bin/env python3
"""topo-sched topology import-k8s-nodes --pods-json against an independent reference.

Seeded random clusters (nodes with random GPU counts, Ready conditions, cordons and missing
labels) and random pod lists (containers and init containers with requests, limits only or
neither, sidecars, overhead, every phase, unbound pods, pods on nodes the import leaves out,
quantities as strings and as integers) are written as kubectl prints them; the free GPUs and
down nodes of the imported fabric are compared with what the Kubernetes scheduler's rules,
restated here (k8s.io/component-helpers resource.PodRequests), give. Also the recorded
fixtures by hand, the CLI's errors naming the file, and standard input.

Usage: test_live_k8s.py TOPO_SCHED TEST_DATA
"""
import json
import os
import random
import subprocess
import sys
import tempfile

TS, DATA = sys.argv[1], sys.argv[2]
RES = "nvidia.com/gpu"
LEVELS = "example.com/block,example.com/rack"
failures = 0
checks = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(*args, stdin=None):
    p = subprocess.run([TS, *args], input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# ---- the reference ----

def qty(c, key):
    v = c.get("resources", {}).get(key, {}).get(RES)
    return None if v is None else int(v)


def container_request(c):
    r = qty(c, "requests")
    if r is None:  # the API server defaults an extended resource's request from its limit
        r = qty(c, "limits")
    return r or 0


def pod_request(spec):
    total = sum(container_request(c) for c in spec.get("containers", []))
    sidecars = init_peak = 0
    for c in spec.get("initContainers", []):
        r = container_request(c)
        if c.get("restartPolicy") == "Always":
            total += r
            sidecars += r
            need = sidecars
        else:
            need = r + sidecars
        init_peak = max(init_peak, need)
    over = spec.get("overhead", {}).get(RES)
    return max(total, init_peak) + (int(over) if over is not None else 0)


def expected(nodes, pods):
    """{node: (gpus, free, down)} of the nodes the import keeps."""
    keep = {}
    for n in nodes["items"]:
        labels = n["metadata"].get("labels", {})
        gpus = int(n["status"].get("allocatable", {}).get(RES, "0"))
        if gpus == 0 or any(k not in labels for k in LEVELS.split(",")):
            continue
        ready = [c["status"] for c in n["status"].get("conditions", []) if c["type"] == "Ready"]
        down = bool(n["spec"].get("unschedulable")) or (bool(ready) and ready[0] != "True")
        keep[n["metadata"]["name"]] = [gpus, 0, down]
    for p in pods["items"]:
        node = p["spec"].get("nodeName")
        if not node or node not in keep or p.get("status", {}).get("phase") in ("Succeeded", "Failed"):
            continue
        keep[node][1] += pod_request(p["spec"])
    return {k: (g, max(g - t, 0), d) for k, (g, t, d) in keep.items()}


# ---- random inputs ----

def quantity(rng, n):
    return n if rng.random() < 0.2 else str(n)


def container(rng, name, init=False):
    c = {"name": name, "image": "registry.example/x:1"}
    res = {}
    form = rng.randrange(5)
    n = rng.randrange(0, 5)
    if form == 0:
        res = {"requests": {"cpu": "1", RES: quantity(rng, n)}, "limits": {RES: quantity(rng, n)}}
    elif form == 1:
        res = {"limits": {RES: quantity(rng, n), "memory": "1Gi"}}  # limits only
    elif form == 2:
        res = {"requests": {"cpu": "500m"}}  # no GPU
    elif form == 3:
        res = {"requests": {RES: quantity(rng, n)}, "limits": {RES: quantity(rng, n + rng.randrange(2))}}
    if res or rng.random() < 0.5:
        c["resources"] = res
    if init and rng.random() < 0.35:
        c["restartPolicy"] = "Always"
    return c


def random_case(rng):
    nn = rng.randrange(1, 13)
    nodes = []
    for i in range(nn):
        labels = {"kubernetes.io/hostname": "h%d" % i}
        if rng.random() < 0.9:
            labels["example.com/block"] = "b%d" % rng.randrange(2)
        if rng.random() < 0.9:
            labels["example.com/rack"] = "r%d" % rng.randrange(3)
        status = {"allocatable": {"cpu": "96"}}
        if rng.random() < 0.9:
            status["allocatable"][RES] = str(rng.choice([0, 1, 2, 4, 8, 8, 8]))
        conds = [{"type": "MemoryPressure", "status": "False"}]
        if rng.random() < 0.9:
            conds.append({"type": "Ready", "status": rng.choice(["True"] * 6 + ["False", "Unknown"])})
        status["conditions"] = conds
        spec = {"unschedulable": True} if rng.random() < 0.1 else {}
        nodes.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "h%d" % i, "labels": labels},
                      "spec": spec, "status": status})
    pods = []
    for i in range(rng.randrange(0, 40)):
        spec = {"containers": [container(rng, "c%d" % k) for k in range(rng.randrange(0, 4))]}
        if rng.random() < 0.4:
            spec["initContainers"] = [container(rng, "i%d" % k, True) for k in range(rng.randrange(1, 4))]
        if rng.random() < 0.15:
            spec["overhead"] = {"cpu": "250m", RES: quantity(rng, rng.randrange(2))} if rng.random() < 0.5 \
                else {"cpu": "250m"}
        where = rng.random()
        if where < 0.8:
            spec["nodeName"] = "h%d" % rng.randrange(nn)
        elif where < 0.9:
            spec["nodeName"] = "elsewhere"
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p%d" % i, "namespace": "ns"}, "spec": spec}
        phase = rng.choice(["Running", "Running", "Pending", "Succeeded", "Failed", "Unknown", None])
        if phase:
            pod["status"] = {"phase": phase}
        pods.append(pod)
    return ({"apiVersion": "v1", "kind": "List", "items": nodes},
            {"apiVersion": "v1", "kind": "List", "items": pods, "metadata": {"resourceVersion": ""}})


def imported(doc):
    """{node: (gpus, free, down)} of a tsched.topology.v1 document."""
    state = doc.get("state", {})
    free, down = state.get("free_gpus", {}), set(state.get("down", []))
    out = {}
    for n in doc["nodes"]:
        g = n["gpus"]
        out[n["name"]] = (g, free.get(n["name"], g), n["name"] in down)
    return out


def main():
    global checks
    tmp = tempfile.mkdtemp(prefix="live-k8s-")
    nodes_f, pods_f = os.path.join(tmp, "nodes.json"), os.path.join(tmp, "pods.json")
    # the fixtures, by hand (tests/data/k8s/README.md)
    fix_nodes = os.path.join(DATA, "import", "nodes.json")
    want_small = {"gpu01": (8, 2, False), "gpu02": (8, 5, True), "gpu03": (8, 0, True), "gpu04": (4, 0, False),
                  "gpu07": (8, 3, False)}
    for name, want in (("pods-small.json", want_small),
                       ("pods-empty.json", {k: (g, g, d) for k, (g, _, d) in want_small.items()})):
        path = os.path.join(DATA, "k8s", name)
        rc, out, err = run("topology", "import-k8s-nodes", fix_nodes, "--levels", LEVELS, "--pods-json", path)
        checks += 1
        if rc != 0:
            fail("%s: exit %d: %s" % (name, rc, err))
            continue
        got = imported(json.loads(out))
        if got != want:
            fail("%s: got %s, want %s" % (name, got, want))
        with open(path) as f:
            ref = expected(json.load(open(fix_nodes)), json.load(f))
        if ref != want:
            fail("%s: the reference says %s, the README %s" % (name, ref, want))
    # standard input
    with open(os.path.join(DATA, "k8s", "pods-small.json")) as f:
        rc, out, err = run("topology", "import-k8s-nodes", fix_nodes, "--levels", LEVELS, "--pods-json", "-",
                           stdin=f.read())
    checks += 1
    if rc != 0 or imported(json.loads(out)) != want_small:
        fail("--pods-json -: exit %d %s" % (rc, err))
    rc, out, err = run("topology", "import-k8s-nodes", "-", "--levels", LEVELS, "--pods-json", "-")
    checks += 1
    if rc != 2 or "cannot both be standard input" not in err:
        fail("FILE - and --pods-json -: exit %d %s" % (rc, err))
    # errors name the pod file and the field, on one line, exit 2
    with open(pods_f, "w") as f:
        f.write('{"kind":"List","items":[{"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"1.5"}}}]}}]}')
    rc, out, err = run("topology", "import-k8s-nodes", fix_nodes, "--levels", LEVELS, "--pods-json", pods_f)
    checks += 1
    want_err = "topo-sched: %s: items[0].spec.containers[0].resources.limits[\"nvidia.com/gpu\"]: \"1.5\" is not " \
               "a whole number of GPUs\n" % pods_f
    if rc != 2 or err != want_err:
        fail("a bad quantity: exit %d, %r (want %r)" % (rc, err, want_err))
    rc, out, err = run("topology", "import-k8s-nodes", fix_nodes, "--levels", LEVELS, "--pods-json",
                       os.path.join(tmp, "missing.json"))
    checks += 1
    if rc != 2 or "missing.json" not in err:
        fail("a missing pod file: exit %d %s" % (rc, err))
    # random cases against the reference
    rng = random.Random(25)
    compared = busy_seen = 0
    # the sanitizer setup (TSCHED_SLOW_BUILD) runs a fifth of the random cases
    ncases = 30 if os.environ.get("TSCHED_SLOW_BUILD") else 150
    for case in range(ncases):
        nodes, pods = random_case(rng)
        with open(nodes_f, "w") as f:
            json.dump(nodes, f, indent=4, sort_keys=True)
        with open(pods_f, "w") as f:
            json.dump(pods, f, indent=4, sort_keys=True)
        want = expected(nodes, pods)
        rc, out, err = run("topology", "import-k8s-nodes", nodes_f, "--levels", LEVELS, "--pods-json", pods_f)
        checks += 1
        if not want:
            if rc != 2 or ("no node is left to import" not in err and "no node carries the label" not in err):
                fail("case %d: no node kept, exit %d %s" % (case, rc, err))
            continue
        if rc != 0:
            fail("case %d: exit %d: %s" % (case, rc, err))
            continue
        got = imported(json.loads(out))
        compared += 1
        busy_seen += sum(1 for g, fr, _ in want.values() if fr < g)
        if got != want:
            bad = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
            fail("case %d: (got, want) differ on %s" % (case, bad))
    if compared < ncases * 2 // 3 or busy_seen < ncases * 2 // 3:
        fail("too few informative cases: %d compared, %d busy nodes" % (compared, busy_seen))
    print("%d checks, %d random cases compared (%d busy nodes), %d failures" % (checks, compared, busy_seen, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
