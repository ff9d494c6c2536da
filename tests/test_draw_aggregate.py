#!/usr/bin/env python3
"""topo-sched draw's aggregated view of large fabrics and its PNG output (doc/draw.md).

usage: test_draw_aggregate.py TOPO_SCHED        (TSCHED_DRAW_PNG=1 when built with -Dpng)

A seeded random three-tier fabric of 600 nodes is written here as explicit JSON (uneven link
speeds and counts, down nodes, switches, trunks and member links, busy GPUs) and drawn. The
picture is checked against what this script computes from that JSON alone: the blocks (pods)
and their leaves and nodes, every node square, every heatmap cell's trunk count and capacity
and, after place/flows/route, every cell's busiest load; the placed nodes' DP/PP groups; the
picture's size bound at 512 and 8,192 nodes; no two text boxes overlapping (text extents
estimated at 0.64 em a character, 0.70 bold, as the writer does); --view auto switching
exactly when the full view passes 2,000 px; PNG signature and size.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from draw_tool import SVG, Checks, Tool, classes

EXE = sys.argv[1]
PNG = os.environ.get("TSCHED_DRAW_PNG") == "1"
LIMIT = 2000
check = Checks()
tool = Tool(EXE)
run, draw = tool.run, tool.draw


def size_of(root):
    return float(root.get("width")), float(root.get("height"))


def text_boxes(root):
    """Estimated boxes of every <text>: 0.64 em a character (0.70 bold), ascent 0.8, descent 0.25."""
    boxes = []
    for t in root.iter(SVG + "text"):
        s = "".join(t.itertext())
        size = float(t.get("font-size", "12"))
        k = 0.70 if "bold" in (t.get("font-weight") or "") else 0.64
        w = k * size * len(s)
        x, y = float(t.get("x")), float(t.get("y"))
        a = t.get("text-anchor", "start")
        x0 = x - w / 2 if a == "middle" else x - w if a == "end" else x
        boxes.append((x0, y - 0.8 * size, x0 + w, y + 0.25 * size, s))
    return boxes


def overlaps(boxes):
    bad = []
    boxes = sorted(boxes)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b[0] >= a[2]:
                break
            if a[1] < b[3] and b[1] < a[3] and a[0] < b[2]:
                bad.append((a[4], b[4]))
    return bad


def check_picture(root, what):
    w, h = size_of(root)
    check(w <= LIMIT and h <= LIMIT, "%s: %g x %g px within %d" % (what, w, h, LIMIT))
    bad = overlaps(text_boxes(root))
    check(not bad, "%s: no overlapping text (%s)" % (what, bad[:3]))
    inside = all(0 <= b[0] and b[2] <= w + 1 and 0 <= b[1] and b[3] <= h + 1 for b in text_boxes(root))
    check(inside, "%s: every text inside the picture" % what)


# ---- a seeded random explicit fabric -----------------------------------------------------------
rnd = random.Random(25)
PODS, LEAVES, SPINES, CORES, NPL = 4, 10, 4, 6, 15
switches, nodes, links = [], [], []
for c in range(CORES):
    switches.append({"name": "core%d" % c, "tier": 2})
for p in range(PODS):
    for s in range(SPINES):
        switches.append({"name": "p%d-spine%d" % (p, s), "tier": 1, "pod": "pod%d" % p})
    for l in range(LEAVES):
        switches.append({"name": "p%d-leaf%d" % (p, l), "tier": 0, "pod": "pod%d" % p})
        for n in range(NPL - (l % 3 == 2)):  # uneven leaves: 14 or 15 nodes
            nodes.append({"name": "n%d-%d-%d" % (p, l, n), "leaf": "p%d-leaf%d" % (p, l), "gpus": 8,
                          "nics": 1, "nic_gbps": 400})
        for s in range(SPINES):
            links.append({"a": "p%d-leaf%d" % (p, l), "b": "p%d-spine%d" % (p, s),
                          "gbps": rnd.choice([100, 200, 400]), "count": rnd.randint(1, 4)})
    for s in range(SPINES):
        for c in range(CORES):
            if (c + s) % 2 == 0 or rnd.random() < 0.3:
                links.append({"a": "core%d" % c, "b": "p%d-spine%d" % (p, s), "gbps": 400, "count": rnd.randint(1, 3)})
down = ["n0-0-3", "n2-5-0", "p1-spine2", "p0-leaf1~p0-spine0", "p3-leaf4~p3-spine1#0",
        "p2-leaf0~p2-spine3", "p2-leaf0~p2-spine3#0"]
free = {nodes[i]["name"]: rnd.randint(0, 7) for i in rnd.sample(range(len(nodes)), 30)}
fab = {"format": "tsched.topology.v1", "name": "aggregate-test", "switches": switches, "nodes": nodes, "links": links,
       "state": {"free_gpus": free, "down": down}}
tier = {s["name"]: s["tier"] for s in switches}
tier_order = {k: [s["name"] for s in switches if s["tier"] == k] for k in range(3)}
tidx = {n: i for k in tier_order for i, n in enumerate(tier_order[k])}
members, cap = {}, {}
for ln in links:
    a, b = ln["a"], ln["b"]
    key = (a, b) if tier[a] < tier[b] else (b, a)
    members.setdefault(key, []).extend([ln["gbps"]] * ln.get("count", 1))
for key, ms in members.items():
    up = sum(g for k, g in enumerate(ms) if "%s~%s#%d" % (key[0], key[1], k) not in down)
    trunk_down = "%s~%s" % key in down or "%s~%s" % (key[1], key[0]) in down or up == 0
    cap[key] = (up, trunk_down)

tmp = tempfile.mkdtemp(prefix="draw-agg-test-")
F = os.path.join(tmp, "fabric.json")
json.dump(fab, open(F, "w"))

# ---- --view auto: aggregate exactly when the full view passes 2,000 px -------------------------
t0 = time.monotonic()
full = ET.fromstring(draw("-t", F, "--view", "full"))
fw, fh = size_of(full)
auto = ET.fromstring(draw("-t", F))
check(fw > LIMIT and "aggregate" in classes(auto), "600 nodes: full view %g px wide, auto draws the aggregate" % fw)
choices = set()
for leaves in range(2, 40, 3):
    gen = os.path.join(tmp, "ls%d.json" % leaves)
    json.dump({"format": "tsched.topology.v1", "name": "ls",
               "generate": {"kind": "leaf_spine", "leaves": leaves, "spines": 2, "nodes_per_leaf": 2,
                            "gpus_per_node": 8, "nic_gbps": 400}}, open(gen, "w"))
    w_, h_ = size_of(ET.fromstring(draw("-t", gen, "--view", "full")))
    agg = "aggregate" in classes(ET.fromstring(draw("-t", gen)))
    choices.add(agg)
    check(agg == (w_ > LIMIT or h_ > LIMIT), "%d leaves: full %g x %g px, auto aggregate %s" % (leaves, w_, h_, agg))
check(choices == {True, False}, "the leaf counts tried cross the threshold")
check("aggregate" in classes(ET.fromstring(draw("-t", os.path.join(tmp, "ls2.json"), "--view", "aggregate"))),
      "--view aggregate forces it on a small fabric")

# ---- the node map: pods as blocks ---------------------------------------------------------------
root = auto
check_picture(root, "600 nodes")
blocks = [g for g in root.iter(SVG + "g") if "block" in classes(g)]
check([b.get("data-pod") for b in blocks] == ["pod%d" % p for p in range(PODS)], "one block per pod, in order")
for p, b in enumerate(blocks):
    want = [n["name"] for n in nodes if n["leaf"].startswith("p%d-" % p)]
    got = [r.get("data-name") for r in b.iter(SVG + "rect") if "node" in classes(r)]
    check(sorted(got) == sorted(want) and int(b.get("data-nodes")) == len(want) and int(b.get("data-leaves")) == LEAVES,
          "pod%d: its %d nodes, %d leaves" % (p, len(want), LEAVES))
squares = {r.get("data-name"): r for r in root.iter(SVG + "rect") if "node" in classes(r)}
check(len(squares) == len(nodes), "one square per node")
for n in nodes:
    r = squares[n["name"]]
    is_down = n["name"] in down or n["leaf"] in down
    check(("down" in classes(r)) == is_down, "node %s down iff it or its leaf is" % n["name"])
    check(("busy" in classes(r)) == (free.get(n["name"], 8) < 8), "node %s busy iff GPUs in use" % n["name"])
# a leaf is a column: its nodes share an x, in index order down the column
for p in range(PODS):
    for l in range(LEAVES):
        xs = [(float(squares[n["name"]].get("x")), float(squares[n["name"]].get("y")))
              for n in nodes if n["leaf"] == "p%d-leaf%d" % (p, l)]
        check(len({x for x, _ in xs}) == 1 and [y for _, y in xs] == sorted(y for _, y in xs),
              "p%d-leaf%d drawn as one column" % (p, l))


# ---- heatmaps: cells recomputed from the JSON ---------------------------------------------------
def bins(n, maxbins):
    per = max(1, -(-n // maxbins))
    return per, -(-n // per)


def expected_cells(lo, up, loads=None):
    px, _ = bins(len(tier_order[lo]), 240)
    py, _ = bins(len(tier_order[up]), 64)
    cells = {}
    for (a, b), (gb, tdown) in cap.items():
        if tier[a] != lo or tier[b] != up:
            continue
        c = cells.setdefault((tidx[a] // px, tidx[b] // py), {"trunks": 0, "cap": 0.0, "up": 0, "load": None})
        c["trunks"] += 1
        if not tdown:
            c["up"] += 1
            c["cap"] += gb
        v = (loads or {}).get((a, b))
        if v is not None and (c["load"] is None or v > c["load"]):
            c["load"] = v
    return (px, py), cells


def heatmaps(root_):
    out = {}
    for g in root_.iter(SVG + "g"):
        if "heatmap" in classes(g):
            cells = {(int(r.get("data-col")), int(r.get("data-row"))): r for r in g.iter(SVG + "rect") if "cell" in classes(r)}
            out[(g.get("data-lower"), g.get("data-upper"))] = (g, cells)
    return out


names = ("leaf", "spine", "core")
hm = heatmaps(root)
check(sorted(hm) == [("leaf", "spine"), ("spine", "core")], "one heatmap per joined pair of tiers: %s" % sorted(hm))
for (lo, up), (g, cells) in hm.items():
    (px, py), exp = expected_cells(names.index(lo), names.index(up))
    check((int(g.get("data-col-size")), int(g.get("data-row-size"))) == (px, py), "%s x %s: bin sizes" % (lo, up))
    check(int(g.get("data-cols")) == bins(len(tier_order[names.index(lo)]), 240)[1] and
          int(g.get("data-rows")) == bins(len(tier_order[names.index(up)]), 64)[1], "%s x %s: bin counts" % (lo, up))
    check(sorted(cells) == sorted(exp), "%s x %s: a cell where trunks are (%d vs %d)" % (lo, up, len(cells), len(exp)))
    for k, c in exp.items():
        r = cells.get(k)
        if r is None:
            continue
        check(int(r.get("data-trunks")) == c["trunks"] and abs(float(r.get("data-value")) - c["cap"]) < 1e-6,
              "%s x %s cell %s: %d trunks, %g Gbit/s (drawn %s, %s)" % (lo, up, k, c["trunks"], c["cap"],
                                                                        r.get("data-trunks"), r.get("data-value")))
        check(("down" in classes(r)) == (c["up"] == 0), "%s x %s cell %s: down iff no trunk up" % (lo, up, k))
check(any("down" in classes(r) for _, cells in hm.values() for r in cells.values()), "a cell of down trunks is marked")

# ---- placement and routes ---------------------------------------------------------------------
JOB = os.path.join(tmp, "job.json")
json.dump({"format": "tsched.job.v1", "name": "agg-job", "gpus": 1536, "tp": 8, "pp": 6}, open(JOB, "w"))
pl, fl, rt = (os.path.join(tmp, n) for n in ("pl.json", "fl.json", "rt.json"))
for cmd in (["place", "-t", F, "-j", JOB, "--algo", "best-fit", "--no-timing", "-o", pl],
            ["flows", "-t", F, "-p", pl, "--pattern", "dp-ring", "--gbits", "10", "-o", fl],
            ["route", "-t", F, "-f", fl, "--no-timing", "-o", rt]):
    r = run(*cmd)
    if r.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd[0], r.stderr.decode()))
placement, routes = json.load(open(pl)), json.load(open(rt))
per = {}
for f in routes["flows"]:
    h = f["hops"]
    for a, b in zip(h, h[1:]):
        key, d = ((a, b), 0) if tier[a] < tier[b] else ((b, a), 1)
        per.setdefault(key, [0.0, 0.0])[d] += f["rate_gbps"]
loads = {k: max(v) / cap[k][0] for k, v in per.items()}
check(len(loads) > 10, "the routes cross %d trunks" % len(loads))
for by, field in (("dp", "col"), ("pp", "row")):
    rp = ET.fromstring(draw("-t", F, "-p", pl, "-r", rt, "--group-by", by))
    check_picture(rp, "600 nodes, placement and routes, --group-by " + by)
    sq = {r.get("data-name"): r for r in rp.iter(SVG + "rect") if "node" in classes(r)}
    want = {a["node"]: a for a in placement["assignment"]}
    check(sorted(n for n, r in sq.items() if "placed" in classes(r)) == sorted(want), "%s: the placed squares" % by)
    fills = {}
    for n, a in want.items():
        r = sq[n]
        check(int(r.get("data-rank")) == a["rank"] and int(r.get("data-group")) == a[field],
              "%s: %s rank %d, group %d" % (by, n, a["rank"], a[field]))
        fills.setdefault(a[field] % 10, set()).add(r.get("fill"))
    check(all(len(v) == 1 for v in fills.values()) and len({next(iter(v)) for v in fills.values()}) == len(fills),
          "%s: one colour per group (mod 10), groups differ" % by)
    if by == "dp":
        for (lo, up), (g, cells) in heatmaps(rp).items():
            _, exp = expected_cells(names.index(lo), names.index(up), loads)
            check(g.get("data-value") == "load", "%s x %s: a load map" % (lo, up))
            for k, c in exp.items():
                r = cells[k]
                if c["load"] is None:
                    check("loaded" not in classes(r) and float(r.get("data-value")) == 0, "%s x %s cell %s idle" % (lo, up, k))
                else:
                    check("loaded" in classes(r) and abs(float(r.get("data-value")) - c["load"]) < 1e-6,
                          "%s x %s cell %s: load %.4f (drawn %s)" % (lo, up, k, c["load"], r.get("data-value")))
check(any(v > 0.2 for v in loads.values()), "some trunk is loaded")

# ---- generated fabrics of 512 and 8,192 nodes: bounded, readable, fast --------------------------
for name, gen in (("512", {"kind": "clos3", "pods": 4, "leaves_per_pod": 8, "spines_per_pod": 8, "cores": 16,
                           "nodes_per_leaf": 16}),
                  ("512-ls", {"kind": "leaf_spine", "leaves": 32, "spines": 16, "nodes_per_leaf": 16}),
                  ("8192", {"kind": "clos3", "pods": 16, "leaves_per_pod": 16, "spines_per_pod": 16, "cores": 64,
                            "nodes_per_leaf": 32}),
                  ("8192-ls", {"kind": "leaf_spine", "leaves": 256, "spines": 64, "nodes_per_leaf": 32})):
    gen.update({"gpus_per_node": 8, "nic_gbps": 400})
    G = os.path.join(tmp, "gen%s.json" % name)
    json.dump({"format": "tsched.topology.v1", "name": "gen" + name, "generate": gen}, open(G, "w"))
    t1 = time.monotonic()
    data = draw("-t", G)
    dt = time.monotonic() - t1
    rg = ET.fromstring(data)
    check("aggregate" in classes(rg), "%s nodes: aggregated by default" % name)
    check_picture(rg, name + " nodes")
    nn = len([r for r in rg.iter(SVG + "rect") if "node" in classes(r)])
    want_n = gen["nodes_per_leaf"] * gen.get("leaves", gen.get("pods", 1) * gen.get("leaves_per_pod", 0))
    check(nn == want_n, "%s: %d node squares (%d)" % (name, want_n, nn))
    check(dt < 5, "%s nodes drawn in %.2f s" % (name, dt))
    print("%s nodes: %.2f s, %d bytes, %s x %s px" % (name, dt, len(data), rg.get("width"), rg.get("height")))

# ---- PNG ----------------------------------------------------------------------------------------
def png_size(b):
    return struct.unpack(">II", b[16:24]) if b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" else None


# under AddressSanitizer: the font caches fontconfig and pango keep are not our leaks
PNG_ENV = dict(os.environ, LSAN_OPTIONS="suppressions=%s:print_suppressions=0" %
               os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan-png.supp"))


def run_png(*args):
    return subprocess.run([EXE, "draw", *args, "--format", "png"], capture_output=True, env=PNG_ENV)


if PNG:
    for args, ref in ((["-t", F], auto), (["-t", F, "--view", "full"], full)):
        out = os.path.join(tmp, "pic.png")
        t1 = time.monotonic()
        r = run_png(*args, "-o", out)
        dt = time.monotonic() - t1
        check(r.returncode == 0 and not r.stderr, "PNG %s: exit %d %s" % (args, r.returncode, r.stderr.decode()))
        b = open(out, "rb").read() if r.returncode == 0 else b""
        w, h = size_of(ref)
        check(png_size(b) == (int(w), int(h)), "PNG %s: signature and %d x %d px (%s)" % (args[1:], w, h, png_size(b)))
        print("PNG %s: %.2f s, %d bytes" % (args[1:], dt, len(b)))
    r = run_png("-t", F)
    check(r.returncode == 0 and png_size(r.stdout) is not None, "PNG on standard output")
else:
    r = run("draw", "-t", F, "--format", "png")
    err = r.stderr.decode()
    check(r.returncode == 2 and not r.stdout and "--format png" in err and err.count("\n") == 1,
          "built without PNG: --format png exits 2 naming it: %r" % err)
    print("built without PNG: PNG checks skipped")

# ---- bad usage ------------------------------------------------------------------------------------
for args, needle in ((["--view", "bogus"], "--view"), (["--group-by", "tp"], "--group-by"),
                     (["--view", "aggregate", "--format", "dot"], "--view aggregate")):
    r = run("draw", "-t", F, *args)
    err = r.stderr.decode()
    check(r.returncode == 2 and not r.stdout and needle in err and err.count("\n") == 1,
          "draw %s: exit %d, %r" % (" ".join(args), r.returncode, err))
check(draw("-t", F, "--format", "dot").startswith(b"graph "), "DOT stays the full graph under --view auto")
check(draw("-t", F, "-p", pl, "-r", rt) == draw("-t", F, "-p", pl, "-r", rt), "same bytes twice")

shutil.rmtree(tmp) if not os.environ.get("KEEP") else print(tmp)
check.finish(" in %.1f s" % (time.monotonic() - t0))
