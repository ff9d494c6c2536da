#!/usr/bin/env python3
"""Compare an exported topology.conf with what Slurm made of it (tests/slurm/export_load.sh).

    export_load_check.py batch MANIFEST      (lines: tree EXPORTED.conf SHOWN.txt FABRIC.json LABEL
                                                     or block EXPORTED.conf - FABRIC.json LABEL)
    export_load_check.py nodes FABRIC.json... (writes FABRIC.nodes: the node names, one a line)

Every hostlist is expanded by Slurm's own parser (`scontrol show hostnames`, one call for all
lists, separated by marker names), so this checks what Slurm reads, not what we think it
reads. tree: `scontrol show topology` (SHOWN.txt) lists exactly the exported switches; a leaf
has exactly its exported nodes, an upper switch exactly its exported child switches and the
union of their nodes; LinkSpeed is the exported integer where one was written; the switches
cover every node of the fabric. block: the blocks' nodes are the fabric's nodes, each once,
and BlockSizes is a list of positive integers.
"""
import json
import subprocess
import sys

SEP = "tsxsep"


def fields(line):
    """KEY=VALUE pairs of one topology.conf or scontrol line (keys case-insensitive)."""
    out = {}
    for tok in line.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k.lower()] = v
    return out


def expand_all(lists):
    """Each hostlist expanded by Slurm, in one scontrol call."""
    if not lists:
        return []
    joined = ",".join("%s,%s%d" % (l, SEP, i) if l else "%s%d" % (SEP, i) for i, l in enumerate(lists))
    r = subprocess.run(["scontrol", "show", "hostnames", joined], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        sys.exit("scontrol show hostnames failed: " + r.stderr.strip())
    out, cur = [], []
    for name in r.stdout.split():
        if name.startswith(SEP):
            out.append(cur)
            cur = []
        else:
            cur.append(name)
    if len(out) != len(lists):
        sys.exit("scontrol show hostnames: %d lists back for %d" % (len(out), len(lists)))
    return out


def conf_lines(path, lead):
    rows = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            f = fields(line)
            if lead in f:
                rows.append(f)
    return rows


class Mismatch(Exception):
    pass


def fail(msg):
    raise Mismatch(msg)


def check_tree(conf, shown, fabric_nodes):
    exp = conf_lines(conf, "switchname")
    got = conf_lines(shown, "switchname")
    keys = []  # (side, switch, field) for each hostlist
    lists = []
    for side, rows in (("exp", exp), ("got", got)):
        for r in rows:
            for k in ("nodes", "switches"):
                if k in r:
                    keys.append((side, r["switchname"], k))
                    lists.append(r[k])
    sets = {}
    for key, names in zip(keys, expand_all(lists)):
        sets[key] = names
    en = [r["switchname"] for r in exp]
    if any(len(n) > 64 for n in en):  # Slurm 24.11 and later refuse longer names (22.05 does not)
        fail("%s: a switch name over 64 characters" % conf)
    gn = [r["switchname"] for r in got]
    if sorted(en) != sorted(gn):
        fail("%s: switches exported %s, slurmctld shows %s" % (conf, sorted(set(en) - set(gn)), sorted(set(gn) - set(en))))
    by_got = {r["switchname"]: r for r in got}
    nodes_under = {}

    def under(sw):
        if sw not in nodes_under:
            e = next(r for r in exp if r["switchname"] == sw)
            if "nodes" in e:
                nodes_under[sw] = set(sets[("exp", sw, "nodes")])
            else:
                acc = set()
                for c in sets.get(("exp", sw, "switches"), []):
                    acc |= under(c)
                nodes_under[sw] = acc
        return nodes_under[sw]

    covered = set()
    for e in exp:
        sw = e["switchname"]
        g = by_got[sw]
        if "nodes" in e:
            want = sets[("exp", sw, "nodes")]
            if sorted(sets.get(("got", sw, "nodes"), [])) != sorted(want):
                fail("%s: switch %s: nodes %s exported, %s shown" % (conf, sw, e["nodes"], g.get("nodes")))
            covered |= set(want)
        else:
            want = sets.get(("exp", sw, "switches"), [])
            if sorted(sets.get(("got", sw, "switches"), [])) != sorted(want):
                fail("%s: switch %s: switches %s exported, %s shown" % (conf, sw, e.get("switches"), g.get("switches")))
            if set(sets.get(("got", sw, "nodes"), [])) != under(sw):
                fail("%s: switch %s: slurmctld puts nodes %s under it" % (conf, sw, g.get("nodes")))
        if "linkspeed" in e and g.get("linkspeed") != e["linkspeed"]:
            fail("%s: switch %s: LinkSpeed=%s exported, %s shown" % (conf, sw, e["linkspeed"], g.get("linkspeed")))
    if covered != set(fabric_nodes):
        fail("%s: the leaves hold %d nodes, the fabric has %d" % (conf, len(covered), len(fabric_nodes)))


def check_block(conf, fabric_nodes):
    blocks = conf_lines(conf, "blockname")
    sizes = conf_lines(conf, "blocksizes")
    seen = []
    for names in expand_all([b.get("nodes", "") for b in blocks]):
        seen += names
    if sorted(seen) != sorted(fabric_nodes) or len(set(seen)) != len(seen):
        fail("%s: the blocks hold %d nodes (%d distinct), the fabric has %d" % (conf, len(seen), len(set(seen)),
                                                                                  len(fabric_nodes)))
    if len(sizes) != 1 or not all(s.isdigit() and int(s) > 0 for s in sizes[0]["blocksizes"].split(",")):
        fail("%s: BlockSizes lines %s" % (conf, sizes))
    if any(len(b["blockname"]) > 64 for b in blocks):
        fail("%s: a block name over 64 characters" % conf)


def fabric_nodes(path):
    """The fabric's node names: its "nodes", or those of its "generate" block (node0, node1,
    ... leaf by leaf: doc/topology.md), counted here independently of the library."""
    doc = json.load(open(path))
    if "nodes" in doc:
        return [n["name"] for n in doc["nodes"]]
    g = doc["generate"]
    leaves = g["leaves"] if g["kind"] == "leaf_spine" else g["pods"] * g["leaves_per_pod"]
    return ["node%d" % i for i in range(leaves * g["nodes_per_leaf"])]


def main():
    if sys.argv[1] == "nodes":  # FABRIC.json ... -> FABRIC.nodes, one name a line
        for path in sys.argv[2:]:
            with open(path[:-len(".json")] + ".nodes", "w") as f:
                f.write("".join(n + "\n" for n in fabric_nodes(path)))
        return
    # batch MANIFEST: lines "MODE EXPORTED.conf SHOWN.txt|- FABRIC.json LABEL..."
    bad = 0
    for line in open(sys.argv[2]):
        mode, conf, shown, fabric, label = line.split(None, 4)
        label = label.strip()
        try:
            nodes = fabric_nodes(fabric)
            if mode == "tree":
                check_tree(conf, shown, nodes)
                print("ok   %s: scontrol show topology lists exactly the exported switches and nodes" % label)
            else:
                check_block(conf, nodes)
                print("ok   %s: Slurm's hostlist parser gives exactly the fabric's nodes, each in one block" % label)
        except Mismatch as e:
            print("FAIL %s: %s" % (label, e))
            bad = 1
    sys.exit(bad)


if __name__ == "__main__":
    main()
