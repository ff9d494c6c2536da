#!/usr/bin/env python3
"""`topo-sched topology export` and `place --hostfile-per-task / --pod-order` checked from
outside (doc/export.md), with PyYAML as an independent YAML reader.

For random fabrics (trees, deep and uneven trees, non-trees, NVLink domains that nest or not)
the domain-tree partitions are computed here from the fabric's JSON alone (union-find over
the links), and every export's grouping of the nodes -- Kueue/KAI labels (by path of values),
Volcano HyperNode ancestry, Slurm switches (conf and yaml), Slurm blocks -- must give exactly
those partitions; the JSON form must hold the same objects as the YAML stream. Then: the
Slurm conf round trip through `topology import-slurm`, hostlists expanded here (not by the
library), per-task host files and pod orders against the placement's ranks, the NVLink
warning, the error exits, and the named components of generated Clos fabrics.

usage: export_check.py TOPO_SCHED        (exit 77 when PyYAML is missing)
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("PyYAML is not installed: skipping")
    sys.exit(77)

EXE = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="export_check.")
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(*args, ok=True):
    p = subprocess.run([EXE] + list(args), capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit("topo-sched %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def write(name, obj):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))
    return path


# ---- hostlists, expanded here ----------------------------------------------------------------

def expand(expr):
    """Slurm hostlist expansion for items with at most one bracket group (what the exports
    write), with zero padding to the digits of each range's low end."""
    names, depth, item = [], 0, ""
    items = []
    for ch in expr:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    if item:
        items.append(item)
    for it in items:
        m = re.fullmatch(r"([^\[\]]*)\[([0-9,\-]+)\]([^\[\]]*)", it)
        if not m:
            assert "[" not in it and "]" not in it, it
            names.append(it)
            continue
        pre, ranges, post = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            w = len(lo)
            for v in range(int(lo), int(hi or lo) + 1):
                names.append("%s%0*d%s" % (pre, w, v, post))
    return names


# ---- the reference: partitions from the fabric document ----------------------------------

def canon(keys):
    """Partition of nodes 0..n-1 as the tuple of each node's first node with an equal key."""
    first, rep = {}, []
    for i, k in enumerate(keys):
        rep.append(first.setdefault(k, i))
    return tuple(rep)


def nests(a, b):
    return all(b[i] == b[a[i]] for i in range(len(a)))


def reference(doc):
    """Written levels from the bottom: [(kind, partition)], and whether NVLink is left out."""
    sw = {s["name"]: s["tier"] for s in doc["switches"]}
    top = max(sw.values())
    parent = {s: s for s in sw}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    tiers = []
    for k in range(top + 1):
        for l in doc["links"]:
            if max(sw[l["a"]], sw[l["b"]]) <= k:
                parent[find(l["a"])] = find(l["b"])
        tiers.append(canon([find(n["leaf"]) for n in doc["nodes"]]))
    nvl = None
    if any("nvl_domain" in n for n in doc["nodes"]):
        nvl = canon([n.get("nvl_domain", ("alone", i)) for i, n in enumerate(doc["nodes"])])
    pos = None
    if nvl:
        if nests(nvl, tiers[0]):
            pos = 0
        else:
            for k in range(top + 1):
                if nests(tiers[k], nvl) and (k == top or nests(nvl, tiers[k + 1])):
                    pos = k + 1
                    break
    levels = [("tier%d" % k, p) for k, p in enumerate(tiers)]
    if pos is not None:
        levels.insert(pos, ("nvl", nvl))
    return levels, nvl is not None and pos is None, nvl


# ---- random fabrics ------------------------------------------------------------------------

SPEEDS = [100, 200, 400, 800, 12.5]


def random_fabric(rng, tiers, extra, nvl, uneven):
    switches, links, nodes = [], [], []
    cnt = [0] * tiers
    par = {}
    top = tiers - 1
    cnt[top] = 1 + rng.randrange(2)
    for i in range(cnt[top]):
        switches.append({"name": "t%ds%d" % (top, i), "tier": top})
    for k in range(top - 1, -1, -1):
        for i in range(cnt[k + 1]):
            sp = rng.choice(SPEEDS)
            uniform = rng.random() < 0.7
            for _ in range(1 + rng.randrange(3)):
                j = cnt[k]
                cnt[k] += 1
                par[(k, j)] = i
                switches.append({"name": "t%ds%d" % (k, j), "tier": k})
                links.append({"a": "t%ds%d" % (k, j), "b": "t%ds%d" % (k + 1, i),
                              "gbps": sp if uniform else rng.choice(SPEEDS), "count": 1})
        if uneven and k > 0 and rng.random() < 0.5:
            j = cnt[k]
            cnt[k] += 1
            switches.append({"name": "t%ds%d" % (k, j), "tier": k})
    if extra:
        have = {(l["a"], l["b"]) for l in links}
        for k in range(top):
            for _ in range(1 + rng.randrange(3)):
                a, b = "t%ds%d" % (k, rng.randrange(cnt[k])), "t%ds%d" % (k + 1, rng.randrange(cnt[k + 1]))
                if (a, b) not in have:
                    have.add((a, b))
                    links.append({"a": a, "b": b, "gbps": 100, "count": 1})
    fmt = rng.choice(["gpu%03d", "n%d", "r1n%02d", "node-%d-ib"])
    per = [0 if rng.random() < 0.2 else 1 + rng.randrange(4) for _ in range(cnt[0])]
    if sum(per) == 0:
        per[0] = 1
    nums = list(range(sum(per)))
    for i in range(len(nums)):
        if rng.random() < 0.25:
            j = rng.randrange(len(nums))
            nums[i], nums[j] = nums[j], nums[i]
    it = iter(nums)
    for l in range(cnt[0]):
        for i in range(per[l]):
            n = {"name": fmt % next(it), "leaf": "t0s%d" % l, "gpus": 8}
            if nvl == 1 and rng.random() < 0.75:
                n["nvl_domain"] = "nv%d-%d" % (l, i // 2)
            elif nvl == 2 and tiers > 1 and (0, l) in par:
                n["nvl_domain"] = "nvp%d" % par[(0, l)]
            elif nvl == 3 and rng.random() < 0.66:
                n["nvl_domain"] = "nvr%d" % rng.randrange(3)
            nodes.append(n)
    return {"format": "tsched.topology.v1", "name": "rnd", "switches": switches, "links": links, "nodes": nodes}


# ---- readers of the exports ---------------------------------------------------------------

def groups_by_ancestry(node_parent, parent, height, nodes, k):
    """Partition at height k: each node's ancestor of height k (None when missing)."""
    keys = []
    for n in nodes:
        s = node_parent[n]
        while s is not None and height[s] < k:
            s = parent.get(s)
        if s is None or height[s] != k:
            return None
        keys.append(s)
    return canon(keys)


def tree_heights(node_parent, parent, children):
    height = {}
    for s in set(node_parent.values()):
        height[s] = 0
    changed = True
    while changed:
        changed = False
        for c, p in parent.items():
            if c in height and height.get(p, -1) < height[c] + 1:
                height[p] = height[c] + 1
                changed = True
    return height


def check_tree(levels, names, node_parent, parent, what):
    tiers = [p for kind, p in levels if kind != "nvl"]
    height = tree_heights(node_parent, parent, None)
    for k, p in enumerate(tiers):
        got = groups_by_ancestry(node_parent, parent, height, names, k)
        if got != p:
            fail("%s: tier %d grouping %s, expected %s" % (what, k, got, p))
    if max(height.values()) != len(tiers) - 1:
        fail("%s: %d tiers, expected %d" % (what, max(height.values()) + 1, len(tiers)))


def parse_conf(text):
    node_parent, parent, speed, order = {}, {}, {}, []
    for line in text.splitlines():
        kv = dict(tok.split("=", 1) for tok in line.split())
        if "SwitchName" not in kv:
            continue
        s = kv["SwitchName"]
        order.append(s)
        if "LinkSpeed" in kv:
            speed[s] = float(kv["LinkSpeed"])
        for n in expand(kv.get("Nodes", "")):
            assert n not in node_parent, n
            node_parent[n] = s
        for c in expand(kv.get("Switches", "")):
            assert c not in parent, c
            parent[c] = s
    return node_parent, parent, speed, order


def check_blocks(blocks, names, nvl, leaves, what):
    """Blocks: the NVLink partition, a node without a domain in its leaf's block."""
    node_block = {}
    for b in blocks:
        for n in b["nodes"]:
            node_block[n] = b["name"]
    keys = [nvl_key if nvl_key is not None else ("leaf", leaves[i]) for i, nvl_key in enumerate(nvl)]
    if canon([node_block.get(n) for n in names]) != canon(keys):
        fail("%s: blocks %s do not match the NVLink domains" % (what, blocks))


def check_labels(docs, levels, names, api, what):
    topo = docs[0]
    if topo["apiVersion"] != api or topo["kind"] != "Topology":
        fail("%s: first document %s" % (what, topo))
    keys = [l["nodeLabel"] for l in topo["spec"]["levels"]]
    if keys[-1] != "kubernetes.io/hostname" or len(keys) != len(levels) + 1:
        fail("%s: levels %s for %d written levels" % (what, keys, len(levels)))
        return
    labels = {}
    for d in docs[1:]:
        if d["apiVersion"] != "v1" or d["kind"] != "Node":
            fail("%s: document %s" % (what, d))
        labels[d["metadata"]["name"]] = d["metadata"]["labels"]
    if sorted(labels) != sorted(names):
        fail("%s: nodes %s" % (what, sorted(labels)))
        return
    for j, key in enumerate(keys[:-1]):
        got = canon([tuple(str(labels[n][k]) for k in keys[: j + 1]) for n in names])
        if got != levels[len(levels) - 1 - j][1]:
            fail("%s: grouping by %s: %s, expected %s" % (what, keys[: j + 1], got, levels[len(levels) - 1 - j][1]))


def check_volcano(docs, levels, names, what):
    node_hn, parent, tier = {}, {}, {}
    for d in docs:
        if d["apiVersion"] != "topology.volcano.sh/v1alpha1" or d["kind"] != "HyperNode":
            fail("%s: document %s" % (what, d))
        name = d["metadata"]["name"]
        if name in tier:
            fail("%s: two HyperNodes %s" % (what, name))
        tier[name] = d["spec"]["tier"]
        for m in d["spec"]["members"]:
            target = m["selector"]["exactMatch"]["name"]
            if m["type"] == "Node":
                node_hn[target] = name
            else:
                parent[target] = name
    # tiers from 1 in order
    seq = [d["spec"]["tier"] for d in docs]
    if seq != sorted(seq):
        fail("%s: tiers not in order: %s" % (what, seq))
    height = {h: t - 1 for h, t in tier.items()}
    for k, (kind, p) in enumerate(levels):
        got = groups_by_ancestry(node_hn, parent, height, names, k)
        if got != p:
            fail("%s: tier %d grouping %s, expected %s" % (what, k + 1, got, p))


def export(topo, to, *extra):
    p = run("topology", "export", "-t", topo, "--to", to, *extra)
    return p.stdout, p.stderr


COVERED = {"nvl left out": 0, "nvl inserted": 0, "4+ levels": 0}


def check_fabric(doc, tag):
    path = write("fab-%s.json" % tag, doc)
    levels, left_out, nvl = reference(doc)
    COVERED["nvl left out"] += left_out
    COVERED["nvl inserted"] += any(k == "nvl" for k, _ in levels)
    COVERED["4+ levels"] += len(levels) >= 4
    names = [n["name"] for n in doc["nodes"]]
    leaves = [n["leaf"] for n in doc["nodes"]]
    raw_nvl = [n.get("nvl_domain") for n in doc["nodes"]]
    # Slurm conf, tree form
    text, err = export(path, "slurm-conf")
    if err:
        fail("%s: slurm-conf wrote to stderr: %s" % (tag, err))
    node_parent, parent, _, _ = parse_conf(text)
    check_tree(levels, names, node_parent, parent, tag + " slurm-conf")
    # Slurm yaml: tree entry, and the NVLink blocks
    text, _ = export(path, "slurm-yaml")
    ys = yaml.safe_load(text)
    tree = ys[0]
    if tree["topology"] != doc["name"] or tree["cluster_default"] is not True:
        fail("%s: slurm-yaml entry %s" % (tag, {k: v for k, v in tree.items() if k != "tree"}))
    node_parent, parent = {}, {}
    for s in tree["tree"]["switches"]:
        for n in expand(s.get("nodes", "")):
            node_parent[n] = s["switch"]
        for c in expand(s.get("children", "")):
            parent[c] = s["switch"]
    check_tree(levels, names, node_parent, parent, tag + " slurm-yaml")
    if nvl:
        if len(ys) != 2 or ys[1]["topology"] != doc["name"] + "-nvl" or ys[1]["cluster_default"] is not False:
            fail("%s: slurm-yaml has no NVLink block entry: %s" % (tag, ys))
        else:
            blocks = [{"name": b["block"], "nodes": expand(b["nodes"])} for b in ys[1]["block"]["blocks"]]
            check_blocks(blocks, names, raw_nvl, leaves, tag + " slurm-yaml blocks")
            if ys[1]["block"]["block_sizes"] != [min(len(b["nodes"]) for b in blocks)]:
                fail("%s: block_sizes %s" % (tag, ys[1]["block"]["block_sizes"]))
    elif len(ys) != 1:
        fail("%s: slurm-yaml has %d entries without NVLink domains" % (tag, len(ys)))
    # Slurm conf, block form
    text, _ = export(path, "slurm-conf", "--block")
    blocks = []
    for line in text.splitlines():
        kv = dict(tok.split("=", 1) for tok in line.split())
        if "BlockName" in kv:
            blocks.append({"name": kv["BlockName"], "nodes": expand(kv["Nodes"])})
        elif "BlockSizes" in kv:
            if int(kv["BlockSizes"]) != min(len(b["nodes"]) for b in blocks):
                fail("%s: BlockSizes %s" % (tag, kv["BlockSizes"]))
    check_blocks(blocks, names, raw_nvl, leaves, tag + " slurm-conf --block")
    # Kubernetes: YAML streams, and the same objects in JSON
    for to, api in (("kueue", "kueue.x-k8s.io/v1beta2"), ("kai", "kai.scheduler/v1alpha1"), ("volcano", None)):
        text, err = export(path, to)
        if left_out != ("warning" in err) or err.count("\n") > 1:
            fail("%s %s: stderr %r, NVLink left out: %s" % (tag, to, err, left_out))
        docs = list(yaml.safe_load_all(text))
        if api:
            check_labels(docs, levels, names, api, "%s %s" % (tag, to))
        else:
            check_volcano(docs, levels, names, "%s %s" % (tag, to))
        js, _ = export(path, to, "--format", "json")
        lst = json.loads(js)
        if lst.get("apiVersion") != "v1" or lst.get("kind") != "List" or lst.get("items") != docs:
            fail("%s %s: the JSON List differs from the YAML stream" % (tag, to))


def main():
    rng = random.Random(14)
    # the sanitizer setup (TSCHED_SLOW_BUILD) runs fewer random fabrics and hostlists (about
    # a third): each CLI run costs several times more there, and the plain build runs them all
    slow = bool(os.environ.get("TSCHED_SLOW_BUILD"))
    for i in range(24 if slow else 60):
        doc = random_fabric(rng, 1 + rng.randrange(5), rng.random() < 0.5, rng.randrange(4), rng.random() < 0.5)
        check_fabric(doc, "r%d" % i)
    if min(COVERED.values()) < 3:
        fail("the random fabrics cover too little: %s" % COVERED)

    # Clos fabrics: the named components
    ls = {"format": "tsched.topology.v1", "name": "ls", "generate": {"kind": "leaf_spine", "leaves": 4, "spines": 2,
                                                                      "nodes_per_leaf": 2, "gpus_per_node": 8,
                                                                      "nic_gbps": 400}}
    text, _ = export(write("ls.json", ls), "slurm-conf")
    if text.splitlines()[-1] != "SwitchName=spine-0 Switches=leaf[0-3] LinkSpeed=6400":
        fail("leaf_spine: %s" % text)
    c3 = {"format": "tsched.topology.v1", "name": "c3", "generate": {"kind": "clos3", "pods": 2, "leaves_per_pod": 2,
                                                                      "spines_per_pod": 2, "cores": 2,
                                                                      "nodes_per_leaf": 2, "gpus_per_node": 8,
                                                                      "nic_gbps": 400}}
    text, _ = export(write("c3.json", c3), "volcano", "--tier-names")
    hn = {d["metadata"]["name"]: d["spec"] for d in yaml.safe_load_all(text)}
    if sorted(hn) != ["core-0", "leaf0", "leaf1", "leaf2", "leaf3", "pod0", "pod1"] or \
            hn["pod1"]["tierName"] != "spine" or hn["core-0"]["tier"] != 3:
        fail("clos3 HyperNodes: %s" % hn)

    # Slurm conf round trip through import-slurm (trees of up to three tiers)
    for i in range(15 if slow else 40):
        doc = random_fabric(rng, 1 + rng.randrange(3), False, 0, rng.random() < 0.5)
        path = write("rt.json", doc)
        conf, _ = export(path, "slurm-conf")
        back = json.loads(run("topology", "import-slurm", write("rt.conf", conf)).stdout)
        if {n["name"]: n["leaf"] for n in back["nodes"]} != {n["name"]: n["leaf"] for n in doc["nodes"]}:
            fail("round trip %d: nodes or leaves differ" % i)
            continue
        order = [n["name"] for n in doc["nodes"]]
        back["nodes"].sort(key=lambda n: order.index(n["name"]))
        if reference(back)[0] != reference(doc)[0]:
            fail("round trip %d: domain tree differs" % i)
        _, parent, speed, _ = parse_conf(conf)
        caps = {frozenset((l["a"], l["b"])): l["gbps"] * l.get("count", 1) for l in back["links"]}
        for c, p in parent.items():
            if p in speed and caps.get(frozenset((c, p))) != speed[p]:
                fail("round trip %d: trunk %s~%s has %s, LinkSpeed %s" % (i, c, p, caps.get(frozenset((c, p))),
                                                                          speed[p]))
        conf2, _ = export(write("rt2.json", back), "slurm-conf")
        a, b = parse_conf(conf), parse_conf(conf2)
        if (a[0], a[1], a[3]) != (b[0], b[1], b[3]):  # LinkSpeed may appear where the import made trunks even
            fail("round trip %d: the re-export differs:\n%s\n%s" % (i, conf, conf2))

    # Through the other importers: topology.yaml (tree entry and NVLink blocks), the block
    # form of topology.conf, and Kubernetes nodes carrying the exported labels
    for i in range(15 if slow else 40):
        doc = random_fabric(rng, 1 + rng.randrange(6), rng.random() < 0.3, rng.randrange(4), rng.random() < 0.5)
        doc["name"] = "rnd"
        path = write("rt.json", doc)
        levels, left_out, nvl = reference(doc)
        order = [n["name"] for n in doc["nodes"]]
        leaf_of = {n["name"]: n["leaf"] for n in doc["nodes"]}
        raw = {n["name"]: n.get("nvl_domain") for n in doc["nodes"]}

        def load(p):
            d = json.loads(p.stdout)
            d["nodes"].sort(key=lambda n: order.index(n["name"]))
            return d

        def same_tree(back, what):
            if [n["name"] for n in back["nodes"]] != order:
                fail("%s %d: nodes differ" % (what, i))
                return False
            if [p for k, p in reference(back)[0] if k != "nvl"] != [p for k, p in levels if k != "nvl"]:
                fail("%s %d: the domain tree differs" % (what, i))
                return False
            return True

        def blocks_of(back):
            return canon([n.get("nvl_domain") for n in back["nodes"]])

        want_blocks = canon([raw[n] if raw[n] is not None else ("leaf", leaf_of[n]) for n in order])
        ypath = write("rt.yaml", export(path, "slurm-yaml")[0])
        yargs = ["--nvl-topology", "rnd-nvl"] if nvl else []
        back = load(run("topology", "import-slurm-yaml", ypath, *yargs))
        if same_tree(back, "slurm-yaml") and nvl and blocks_of(back) != want_blocks:
            fail("slurm-yaml %d: the NVLink blocks differ" % i)
        back = load(run("topology", "import-slurm", write("rt.conf", export(path, "slurm-conf", "--block")[0])))
        if blocks_of(back) != want_blocks or canon([n["leaf"] for n in back["nodes"]]) != want_blocks:
            fail("slurm-conf --block %d: blocks differ" % i)
        # Kubernetes: nodes labelled as exported; the import keeps the domain tree and the
        # NVLink domains, and exports the same objects again
        text = export(path, "kueue")[0]
        docs = list(yaml.safe_load_all(text))
        keys = [l["nodeLabel"] for l in docs[0]["spec"]["levels"]][:-1]
        items = [{"metadata": {"name": d["metadata"]["name"],
                               "labels": dict(d["metadata"]["labels"],
                                              **{"kubernetes.io/hostname": d["metadata"]["name"]})},
                  "spec": {}, "status": {"allocatable": {"nvidia.com/gpu": "8"},
                                         "conditions": [{"type": "Ready", "status": "True"}]}} for d in docs[1:]]
        npath = write("nodes.json", {"apiVersion": "v1", "kind": "List", "items": items})
        if any(k == "nvl" for k, _ in levels):
            kargs = ["--levels", ",".join(k for k in keys if k != "tsched.topology/nvl"),
                     "--nvl-label", "tsched.topology/nvl"]
        else:
            kargs = ["--kueue-topology", write("topo.yaml", yaml.safe_dump(docs[0]))]
        back = load(run("topology", "import-k8s-nodes", npath, *kargs))
        if same_tree(back, "kueue") and nvl and not left_out and \
                canon([n.get("nvl_domain", ("alone", j)) for j, n in enumerate(back["nodes"])]) != nvl:
            fail("kueue %d: the NVLink domains differ" % i)
        again = export(write("back.json", back), "kueue", "--name", "rnd")[0]
        if again != text:
            fail("kueue %d: the import's export differs:\n%s\n---\n%s" % (i, text[:400], again[:400]))

    # Hostlists: expand(compress(list)) == list, through the export of one leaf's nodes
    for i in range(70 if slow else 200):
        names, seen = [], set()
        for _ in range(1 + rng.randrange(30)):
            pre = rng.choice(["gpu", "n", "r1n", "a.b-", "Z"])
            v = len(names) + rng.randrange(3) if rng.random() < 0.7 else rng.randrange(1000)
            name = ("%s%d-x" % (pre, v)) if rng.random() < 0.1 else "%s%0*d" % (pre, rng.randrange(4), v)
            if name not in seen:
                seen.add(name)
                names.append(name)
        doc = {"format": "tsched.topology.v1", "name": "h", "switches": [{"name": "l", "tier": 0}], "links": [],
               "nodes": [{"name": n, "leaf": "l", "gpus": 8} for n in names]}
        conf, _ = export(write("h.json", doc), "slurm-conf")
        got = expand(dict(t.split("=", 1) for t in conf.split())["Nodes"])
        if got != names:
            fail("hostlist: %s expands to %s, not %s" % (conf.strip(), got, names))

    # NVLink domains that nest nowhere: left out, one warning line, exit 0
    bad_nvl = {"format": "tsched.topology.v1", "name": "w",
               "switches": [{"name": "r1", "tier": 0}, {"name": "r2", "tier": 0}, {"name": "b", "tier": 1}],
               "links": [{"a": "r1", "b": "b", "gbps": 400}, {"a": "r2", "b": "b", "gbps": 400}],
               "nodes": [{"name": "g%d" % i, "leaf": "r1" if i < 2 else "r2", "gpus": 8, "nvl_domain": "xy"[i % 2]}
                         for i in range(4)]}
    p = run("topology", "export", "-t", write("w.json", bad_nvl), "--to", "kueue")
    if p.returncode != 0 or p.stderr.count("\n") != 1 or "warning" not in p.stderr or "nvl" in p.stdout:
        fail("NVLink warning: exit %d, stderr %r" % (p.returncode, p.stderr))

    # errors: exit 2, one line on stderr naming the switch or field, nothing on stdout
    def two_racks(r1, r2):
        return write("e.json", {"format": "tsched.topology.v1", "name": "fabric",
                                "switches": [{"name": r1, "tier": 0}, {"name": r2, "tier": 0},
                                             {"name": "b1", "tier": 1}],
                                "links": [{"a": r1, "b": "b1", "gbps": 400}, {"a": r2, "b": "b1", "gbps": 400}],
                                "nodes": [{"name": "gpu01", "leaf": r1, "gpus": 8},
                                          {"name": "gpu02", "leaf": r2, "gpus": 8}]})

    def expect_error(args, needles):
        p = run(*args, ok=False)
        if p.returncode != 2 or p.stdout or p.stderr.count("\n") != 1 or not all(n in p.stderr for n in needles):
            fail("%s: exit %d, stdout %r, stderr %r (wanted %s)" % (" ".join(args), p.returncode, p.stdout,
                                                                   p.stderr, needles))

    e = two_racks("Rack 1", "r2")
    for to in ("kueue", "kai", "volcano"):
        expect_error(["topology", "export", "-t", e, "--to", to], ['switch "Rack 1"', "sanitize"])
    out, _ = export(e, "kueue", "--sanitize")
    if "tsched.topology/leaf: rack-1" not in out:
        fail("--sanitize: %s" % out)
    e = two_racks("Rack A", "rack-a")
    for to in ("kueue", "volcano"):
        expect_error(["topology", "export", "-t", e, "--to", to, "--sanitize"], ['"Rack A"', '"rack-a"'])
    e = two_racks("r1", "r2")
    expect_error(["topology", "export", "-t", e, "--to", "kueue", "--levels", "a/x,b/y,c/z"], ["levels", "3 keys"])
    expect_error(["topology", "export", "-t", e, "--to", "kueue", "--levels", "bad key,b"], ["levels[0]"])
    expect_error(["topology", "export", "-t", e, "--to", "volcano", "--block"], ["--block"])
    expect_error(["topology", "export", "-t", e, "--to", "yaml"], ["--to"])
    out, _ = export(e, "kueue", "--levels", "example.com/block,example.com/rack,kubernetes.io/hostname")
    docs = list(yaml.safe_load_all(out))
    if [l["nodeLabel"] for l in docs[0]["spec"]["levels"]] != ["example.com/block", "example.com/rack",
                                                                "kubernetes.io/hostname"] or \
            docs[1]["metadata"]["labels"] != {"example.com/block": "b1", "example.com/rack": "r1"}:
        fail("--levels: %s" % docs)
    expect_error(["topology", "export", "-t", two_racks("r1", "r 1"), "--to", "slurm-conf"], ['switch "r 1"'])
    bad_node = {"format": "tsched.topology.v1", "name": "f", "switches": [{"name": "l", "tier": 0}], "links": [],
                "nodes": [{"name": "a=b", "leaf": "l", "gpus": 8}]}
    expect_error(["topology", "export", "-t", write("bn.json", bad_node), "--to", "slurm-yaml"], ['node "a=b"'])
    expect_error(["topology", "export", "-t", write("bn.json", bad_node), "--to", "volcano", "--sanitize"],
                 ['node "a=b"'])

    # per-task host files and pod order against the placement's ranks
    topo = write("ls.json", dict(ls, generate=dict(ls["generate"], nodes_per_leaf=4)))
    job = write("job.json", {"format": "tsched.job.v1", "name": "jx", "gpus": 64, "tp": 8, "pp": 2, "alpha": 0.5})
    for tpn in (None, "1", "3"):
        hosts, pods, plf = os.path.join(TMP, "hosts"), os.path.join(TMP, "pods.json"), os.path.join(TMP, "pl.json")
        extra = ["--tasks-per-node", tpn] if tpn else []
        run("place", "-t", topo, "-j", job, "--algo", "random-fit", "--seed", "3", "--no-timing", "-o", plf,
            "--hostfile", hosts, "--hostfile-per-task", "--pod-order", pods, *extra)
        pl = json.load(open(plf))
        by_rank = {a["rank"]: a["node"] for a in pl["assignment"]}
        per = int(tpn) if tpn else 8
        lines = open(hosts).read().splitlines()
        if lines != [by_rank[i // per] for i in range(len(by_rank) * per)]:
            fail("per-task host file (T=%s): %s" % (tpn, lines))
        po = json.load(open(pods))
        pp = int(tpn) if tpn else 1
        want = [{"index": i, "node": by_rank[i // pp], "nodeSelector": {"kubernetes.io/hostname": by_rank[i // pp]}}
                for i in range(len(by_rank) * pp)]
        if po != {"format": "tsched.pod-order.v1", "job": "jx",
                  "index_label": "batch.kubernetes.io/job-completion-index", "pods": want}:
            fail("pod order (T=%s): %s" % (tpn, po))
    run("place", "-t", topo, "-j", job, "--no-timing", "-o", plf, "--pod-order", pods, "--index-label", "x.io/i")
    if json.load(open(pods))["index_label"] != "x.io/i":
        fail("--index-label")
    expect_error(["place", "-t", topo, "-j", job, "--pod-order", pods, "--index-label", "not a key"], ["index_label"])
    expect_error(["place", "-t", topo, "-j", job, "--hostfile-per-task"], ["--hostfile"])

    if failures:
        print("%d failures" % failures)
        sys.exit(1)
    print("all export checks passed")


if __name__ == "__main__":
    main()
