#!/usr/bin/env python3
"""Alibaba cluster-trace-gpu-v2023 node list -> a heterogeneous tsched.topology.v1 (E6).

The node list (`openb_node_list_gpu_node.csv`: sn, cpu_milli, memory_mib, gpu, model) has
1,213 GPU nodes of 12 pools (GPU model x GPUs per node) and no network. This converter keeps,
per pool, the first ceil(fraction x count) nodes in file order (at least one, so every pool
survives a scale-down), names them by `sn`, gives each `gpu_type` = the `model` column and
one NIC of `--nic-gbps` (default 100 Gbit/s: one ConnectX-5 per server, as in Crius Table 1;
the trace says nothing), and wires a two-tier fabric: the nodes of one pool fill leaves of
at most `--nodes-per-leaf` (default 16), pools in name order, every leaf linked to each of
`--spines` spines (default 2) with enough capacity for its NICs (non-blocking). Under
placement crius the fabric carries no flows, so only the pools and the nodes' GPUs matter.

usage: alibaba_nodes.py NODE_CSV [--fraction F] [--nic-gbps G] [--spines S] [--nodes-per-leaf K] [-o FILE]
"""

import argparse
import collections
import csv
import json
import math
import sys


def convert(csv_path, fraction=1.0, nic_gbps=100.0, spines=2, nodes_per_leaf=16, name="alibaba-v2023"):
    pools = collections.OrderedDict()
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            g = int(row["gpu"])
            if g < 1:
                continue
            pools.setdefault("%s/%d" % (row["model"], g), []).append((row["sn"], row["model"], g))
    switches, nodes, links = [], [], []
    for s in range(spines):
        switches.append({"name": "spine%d" % s, "tier": 1})
    leaf = 0
    kept = collections.OrderedDict()
    for pool in sorted(pools):
        members = pools[pool]
        keep = members[:max(1, int(math.ceil(fraction * len(members) - 1e-9)))]
        kept[pool] = len(keep)
        for i in range(0, len(keep), nodes_per_leaf):
            chunk = keep[i:i + nodes_per_leaf]
            lname = "leaf%d" % leaf
            leaf += 1
            switches.append({"name": lname, "tier": 0})
            for sn, model, g in chunk:
                nodes.append({"name": sn, "leaf": lname, "gpus": g, "gpu_type": model, "nics": 1, "nic_gbps": nic_gbps})
            per_spine = nic_gbps * len(chunk) / spines
            for s in range(spines):
                links.append({"a": lname, "b": "spine%d" % s, "gbps": per_spine})
    doc = {"format": "tsched.topology.v1", "name": name, "switches": switches, "nodes": nodes, "links": links}
    return doc, kept


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("--fraction", type=float, default=1.0, help="share of each pool's nodes kept (default 1)")
    p.add_argument("--nic-gbps", type=float, default=100.0)
    p.add_argument("--spines", type=int, default=2)
    p.add_argument("--nodes-per-leaf", type=int, default=16)
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    if not (0 < a.fraction <= 1):
        sys.exit("--fraction: %g is out of range (0, 1]" % a.fraction)
    doc, kept = convert(a.csv, a.fraction, a.nic_gbps, a.spines, a.nodes_per_leaf)
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    json.dump(doc, out, indent=1)
    out.write("\n")
    for pool, n in kept.items():
        sys.stderr.write("%s: %d nodes\n" % (pool, n))


if __name__ == "__main__":
    main()
