#!/usr/bin/env python3
"""topo-sched draw (doc/draw.md), driven as a user would.

usage: test_draw.py TOPO_SCHED DATA_DIR [EXAMPLE_SVG]   (DATA_DIR = tests/data)

Checks the SVG against the input documents, recomputing what it should show: box counts from
the fabric, ranks from the placement, every trunk's load share from the routes and the fabric's
capacities (parsed here, not asked from the library), dashes on down elements; the same bytes
twice; DOT accepted by Graphviz when installed; grouping of big fabrics; bad input exits 2.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from draw_tool import SVG, Checks, Tool, classes

EXE, DATA = sys.argv[1], sys.argv[2]
FABRIC = os.path.join(DATA, "draw", "fabric.json")
JOB = os.path.join(DATA, "draw", "job.json")
check = Checks()
tool = Tool(EXE)
run, draw = tool.run, tool.draw


def groups(root, cls):
    return [g for g in root.iter(SVG + "g") if cls in classes(g)]


def rect_of(g):
    return g.find(SVG + "rect")


def dashed(el):
    return el is not None and el.get("stroke-dasharray") is not None


# ---- the fabric, parsed here ---------------------------------------------------------------
fab = json.load(open(FABRIC))
tier = {s["name"]: s["tier"] for s in fab["switches"]}
down = set(fab["state"]["down"])
cap = {}  # (lower, upper) -> Gbit/s of its up members, members numbered over the links entries
members = {}
for ln in fab["links"]:
    a, b = ln["a"], ln["b"]
    key = (a, b) if tier[a] < tier[b] else (b, a)
    members.setdefault(key, []).extend([ln["gbps"]] * ln.get("count", 1))
for key, ms in members.items():
    cap[key] = sum(g for k, g in enumerate(ms) if "%s~%s#%d" % (key[0], key[1], k) not in down)

tmp = tempfile.mkdtemp(prefix="draw-test-")
pl, fl, rt = (os.path.join(tmp, n) for n in ("pl.json", "fl.json", "rt.json"))
for cmd in (["place", "-t", FABRIC, "-j", JOB, "--no-timing", "-o", pl],
            ["flows", "-t", FABRIC, "-p", pl, "--pattern", "dp-ring", "--gbits", "10", "-o", fl],
            ["route", "-t", FABRIC, "-f", fl, "--no-timing", "-o", rt]):
    r = run(*cmd)
    if r.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd[0], r.stderr.decode()))
placement = json.load(open(pl))
routes = json.load(open(rt))

# ---- plain picture: boxes --------------------------------------------------------------------
out = draw("-t", FABRIC)
root = ET.fromstring(out)
check(root.tag == SVG + "svg", "the output is an SVG document")
sw_boxes = groups(root, "switch")
check(len(sw_boxes) == len(fab["switches"]), "one switch box per switch: %d" % len(sw_boxes))
check(sorted(g.get("data-name") for g in sw_boxes) == sorted(tier), "switch boxes name every switch")
for t_, name in ((0, "leaf"), (1, "spine"), (2, "core")):
    want = sum(1 for v in tier.values() if v == t_)
    check(len([g for g in sw_boxes if name in classes(g)]) == want, "%d %s boxes" % (want, name))
node_boxes = groups(root, "node")
check(sorted(g.get("data-name") for g in node_boxes) == sorted(n["name"] for n in fab["nodes"]),
      "one box per node, named")
check(not groups(root, "nodecount"), "no count box with --max-nodes above the leaf sizes")
check(not groups(root, "placed"), "nothing placed without -p")
# the switch rows: top tier first, switches in index order
ys = {}
for g in sw_boxes:
    r_ = rect_of(g)
    ys.setdefault(tier[g.get("data-name")], []).append((float(r_.get("x")), g.get("data-name")))
check(min(float(rect_of(g).get("y")) for g in sw_boxes if "core" in classes(g)) <
      min(float(rect_of(g).get("y")) for g in sw_boxes if "leaf" in classes(g)), "the top tier is drawn first")
order = [s["name"] for s in fab["switches"]]
for t_, row in ys.items():
    names = [n for _, n in sorted(row)]
    check(names == [n for n in order if tier[n] == t_], "tier %d in index order" % t_)
trunk_lines = [l for l in root.iter(SVG + "line") if "trunk" in classes(l)]
check(sorted(l.get("data-name") for l in trunk_lines) == sorted("%s~%s" % k for k in cap),
      "one line per trunk, named lower~upper")

# ---- down elements dashed, and only they -------------------------------------------------------
for g in sw_boxes:
    n = g.get("data-name")
    check(dashed(rect_of(g)) == (n in down), "switch %s dashed iff down" % n)
for g in node_boxes:
    n = g.get("data-name")
    check(dashed(rect_of(g)) == (n in down), "node %s dashed iff down" % n)
for l in trunk_lines:
    n = l.get("data-name")
    check(dashed(l) == (n in down), "trunk %s dashed iff down" % n)

# ---- --max-nodes: one count box per leaf above it -------------------------------------------
per_leaf = {}
for n in fab["nodes"]:
    per_leaf[n["leaf"]] = per_leaf.get(n["leaf"], 0) + 1
root3 = ET.fromstring(draw("-t", FABRIC, "--max-nodes", "3"))
counts = groups(root3, "nodecount")
check(len(counts) == sum(1 for v in per_leaf.values() if v > 3), "count boxes for leaves above --max-nodes")
check(not groups(root3, "node"), "no node box when every leaf is above --max-nodes")
check(sum(int(g.get("data-count")) for g in counts) == len(fab["nodes"]), "count boxes add up to the nodes")
check(all(re.search(r"\b%s nodes\b" % g.get("data-count"), "".join(g.itertext())) for g in counts),
      "count boxes show their count")

# ---- placement: ranks ------------------------------------------------------------------------
rootp = ET.fromstring(draw("-t", FABRIC, "-p", pl))
placed = groups(rootp, "placed")
want = {a["node"]: a["rank"] for a in placement["assignment"]}
got = {g.get("data-name"): int(g.get("data-rank")) for g in placed}
check(got == want, "placed nodes are the placement's, with its ranks")
check(sorted(got.values()) == list(range(len(want))), "ranks 0..n-1")
for g in placed:
    label = [t.text for t in g.iter(SVG + "text") if "rank" in classes(t)]
    check(label == [g.get("data-rank")], "node %s labelled with its rank" % g.get("data-name"))
    check(rect_of(g).get("fill") != "#ffffff", "placed node %s filled" % g.get("data-name"))
for g in groups(rootp, "node"):
    if g.get("data-name") not in want:
        check("placed" not in classes(g) and not [t for t in g.iter(SVG + "text") if "rank" in classes(t)],
              "unplaced node %s has no rank" % g.get("data-name"))
rootp3 = ET.fromstring(draw("-t", FABRIC, "-p", pl, "--max-nodes", "3"))
check(sum(int(g.get("data-placed")) for g in groups(rootp3, "nodecount")) == len(want),
      "count boxes count the placed nodes")


# ---- routes: loads recomputed from the documents --------------------------------------------
def expected_loads(rdoc, rates):
    per = {}  # (lower, upper) -> [up, down]
    for f in rdoc["flows"]:
        h = f["hops"]
        for a, b in zip(h, h[1:]):
            key, d = ((a, b), 0) if tier[a] < tier[b] else ((b, a), 1)
            per.setdefault(key, [0.0, 0.0])[d] += f["rate_gbps"] if rates else 1
    return {"%s~%s" % k: (max(v) / cap[k] if rates else max(v)) for k, v in per.items()}


def labels(root_):
    return {t.get("data-name"): t.text for t in root_.iter(SVG + "text") if "load" in classes(t)}


exp = expected_loads(routes, True)
check(len(exp) >= 3, "the routes cross trunks (%d)" % len(exp))
rootr = ET.fromstring(draw("-t", FABRIC, "-p", pl, "-r", rt))
lab = labels(rootr)
check(sorted(lab) == sorted(exp), "one load label per crossed trunk: %s vs %s" % (sorted(lab), sorted(exp)))
for name, share in exp.items():
    check(name in lab and abs(float(lab[name]) - share) <= 0.005 + 1e-9,
          "trunk %s labelled %s, load %.4f" % (name, lab.get(name), share))
widths = {l.get("data-name"): float(l.get("stroke-width")) for l in rootr.iter(SVG + "line") if "trunk" in classes(l)}
busy = max(exp, key=exp.get)
idle = [n for n in widths if n not in exp]
check(all(widths[busy] > widths[n] for n in idle), "the busiest trunk is drawn wider than idle ones")
check(any(l.get("stroke") != "#c8c8c8" for l in rootr.iter(SVG + "line") if l.get("data-name") == busy),
      "a loaded trunk is coloured")
# without rates: the flow count of the busier direction
norate = dict(routes, flows=[{k: v for k, v in f.items() if k != "rate_gbps"} for f in routes["flows"]])
norate.pop("min_rate_gbps", None)
nr = os.path.join(tmp, "norate.json")
json.dump(norate, open(nr, "w"))
labn = labels(ET.fromstring(draw("-t", FABRIC, "-r", nr)))
expn = expected_loads(norate, False)
check({k: int(v) for k, v in labn.items()} == expn, "without rates: flow counts %s vs %s" % (labn, expn))

# ---- deterministic -----------------------------------------------------------------------------
a = draw("-t", FABRIC, "-p", pl, "-r", rt)
b = draw("-t", FABRIC, "-p", pl, "-r", rt)
check(a == b, "same bytes twice")
o = os.path.join(tmp, "pic.svg")
draw("-t", FABRIC, "-p", pl, "-r", rt, "-o", o)
check(open(o, "rb").read() == a, "-o writes the same bytes")

if len(sys.argv) > 3:  # doc/draw-example.svg is made by these very commands (doc/draw.md)
    check(open(sys.argv[3], "rb").read() == a, "doc/draw-example.svg is up to date (see doc/draw.md to remake it)")

# ---- DOT ---------------------------------------------------------------------------------------
dot_text = draw("-t", FABRIC, "-p", pl, "-r", rt, "--format", "dot")
check(dot_text.startswith(b"graph ") and b"--" in dot_text, "DOT output is an undirected graph")
check(dot_text == draw("-t", FABRIC, "-p", pl, "-r", rt, "--format", "dot"), "DOT: same bytes twice")
if shutil.which("dot"):
    r = subprocess.run(["dot", "-Tsvg"], input=dot_text, capture_output=True)
    check(r.returncode == 0 and not r.stderr.strip(), "dot -Tsvg accepts it: %s" % r.stderr.decode()[:200])
    if r.returncode == 0:
        ET.fromstring(r.stdout)
else:
    print("dot not installed: DOT rendering check skipped")

# ---- more than three tiers, NVLink domains ---------------------------------------------------
DEEP = os.path.join(DATA, "draw", "deep.json")
deep = json.load(open(DEEP))
dtier = {s_["name"]: s_["tier"] for s_ in deep["switches"]}
rd = ET.fromstring(draw("-t", DEEP))
dboxes = groups(rd, "switch")
check(sorted(g.get("data-name") for g in dboxes) == sorted(dtier), "deep: one box per switch of tiers 0..4")
tops = {}
for g in dboxes:
    k = dtier[g.get("data-name")]
    check(("tier%d" % k if k >= 3 else ("leaf", "spine", "core")[k]) in classes(g), "deep: %s's tier class" % g.get("data-name"))
    tops.setdefault(k, set()).add(float(rect_of(g).get("y")))
check(all(len(v) == 1 for v in tops.values()), "deep: one row per tier")
rowy = [tops[k].pop() for k in sorted(tops)]
check(rowy == sorted(rowy, reverse=True) and len(rowy) == 5, "deep: five rows, the top tier first")
want_nvl = {n["name"]: n.get("nvl_domain") for n in deep["nodes"]}
got_nvl = {g.get("data-name"): g.get("data-nvl") for g in groups(rd, "node")}
check(got_nvl == want_nvl, "deep: nodes carry their NVLink domain: %s" % got_nvl)
bars = {}
for g in groups(rd, "node"):
    fills = [r_.get("fill") for r_ in g.iter(SVG + "rect") if "nvl" in classes(r_)]
    check(len(fills) == (1 if want_nvl[g.get("data-name")] else 0), "deep: NVLink bar on %s iff in a domain" % g.get("data-name"))
    if fills:
        bars.setdefault(want_nvl[g.get("data-name")], set()).add(fills[0])
check(all(len(v) == 1 for v in bars.values()) and len({next(iter(v)) for v in bars.values()}) == len(bars),
      "deep: one colour per NVLink domain, different domains differ")
check(dashed(rect_of([g for g in dboxes if g.get("data-name") == "t3-1"][0])), "deep: the down tier-3 switch is dashed")
if shutil.which("dot"):
    r = subprocess.run(["dot", "-Tsvg"], input=draw("-t", DEEP, "--format", "dot"), capture_output=True)
    check(r.returncode == 0 and not r.stderr.strip(), "deep: dot -Tsvg accepts it")

# ---- big fabrics: grouped rows, bounded output ------------------------------------------------
wide = os.path.join(tmp, "wide.json")
json.dump({"format": "tsched.topology.v1", "name": "wide",
           "generate": {"kind": "leaf_spine", "leaves": 100, "spines": 3, "nodes_per_leaf": 2,
                        "gpus_per_node": 8, "nic_gbps": 400}, "state": {"down": ["leaf0", "leaf1"]}}, open(wide, "w"))
rw = ET.fromstring(draw("-t", wide, "--view", "full"))
leaves = [g for g in groups(rw, "switch") if "leaf" in classes(g)]
check(0 < len(leaves) <= 64, "100 leaves drawn as at most 64 boxes (%d)" % len(leaves))
check(sum(int(g.get("data-count")) for g in leaves) == 100, "leaf groups add up to 100")
check(len([g for g in groups(rw, "switch") if "spine" in classes(g)]) == 3, "3 spine boxes")
check(sum(int(g.get("data-count")) for g in groups(rw, "nodecount")) == 200, "node counts add up to 200")
check(dashed(rect_of(leaves[0])) and not dashed(rect_of(leaves[1])), "a group is dashed when all its switches are down")

big = os.path.join(tmp, "big.json")
json.dump({"format": "tsched.topology.v1", "name": "big",
           "generate": {"kind": "clos3", "pods": 16, "leaves_per_pod": 64, "spines_per_pod": 16, "cores": 64,
                        "nodes_per_leaf": 16, "gpus_per_node": 8, "nic_gbps": 400}}, open(big, "w"))
for fmt in ("svg", "dot"):
    t0 = time.monotonic()
    data = draw("-t", big, "--format", fmt, "--view", "full")
    dt = time.monotonic() - t0
    check(dt < 10 and len(data) < 2_000_000, "131k-GPU fabric as %s: %.2f s, %d bytes" % (fmt, dt, len(data)))
rb = ET.fromstring(draw("-t", big, "--view", "full"))
for name, n in (("leaf", 1024), ("spine", 256), ("core", 64)):
    gs = [g for g in groups(rb, "switch") if name in classes(g)]
    check(len(gs) <= 64 and sum(int(g.get("data-count")) for g in gs) == n, "%s boxes add up to %d" % (name, n))
check(sum(int(g.get("data-count")) for g in groups(rb, "nodecount")) == 16384, "16384 nodes counted")

# ---- bad input: exit 2, one line naming the option or file ------------------------------------
other = os.path.join(tmp, "other-placement.json")
pdoc = json.load(open(pl))
pdoc["assignment"][0]["node"] = "gpu-z99"
json.dump(pdoc, open(other, "w"))
badroutes = os.path.join(tmp, "bad-routes.json")
rdoc = json.loads(json.dumps(routes))
hopped = next(i for i, f in enumerate(rdoc["flows"]) if f["hops"])
rdoc["flows"][hopped]["hops"][1] = "spine-zz"
json.dump(rdoc, open(badroutes, "w"))
for args, needle in ((["-p", other], "other-placement.json"),
                     (["--format", "jpg"], "--format"),
                     (["--max-nodes", "0"], "--max-nodes"),
                     (["--max-nodes", "x"], "--max-nodes"),
                     (["-r", badroutes], "flows[%d].hops[1]" % hopped),
                     (["-r", FABRIC], "format"),
                     (["--bogus"], "--bogus")):
    r = run("draw", "-t", FABRIC, *args)
    err = r.stderr.decode()
    check(r.returncode == 2 and not r.stdout and err.count("\n") == 1 and needle in err,
          "draw %s: exit %d, stderr %r" % (" ".join(args), r.returncode, err))
r = run("draw", "-t", os.path.join(tmp, "missing.json"))
check(r.returncode == 2 and "missing.json" in r.stderr.decode(), "missing topology: exit 2 naming the file")
r = run("draw")
check(r.returncode == 2 and "-t" in r.stderr.decode(), "no -t: exit 2")

shutil.rmtree(tmp)
check.finish()
