#!/usr/bin/env python3
"""Convert the dcn-simulators fat tree and flow sets ("Routing for Large ML Models", seed 004)
into tsched.topology.v1 and tsched.flows.v1 for bench/bench_routing.c.

Usage:
  convert_dcn.py DCN_DIR OUT_DIR     write OUT_DIR/dcn-fabric.json and one
                                     OUT_DIR/dcn-jobs<N>-ring<R>.flows.json per folder
  convert_dcn.py --outputs DCN_DIR   print the names of the files it would write, one a line
  convert_dcn.py --inputs DCN_DIR    print the input files it reads, one a line

DCN_DIR is ../shared/data/dcn-simulators (see its SOURCE.md): the netbench topology
fat_tree-64_tors-32_cores-2048_servers.topology and traffic_pairs/concurrent_jobs_N/
ring_size_R/job_K-MODEL.txt.

Fabric. The paper's two-level Clos: 64 ToRs x 32 spines, one 100 Gbit/s NIC per server,
unit link capacity. It is written as a generate block (leaf_spine, leaves 64, spines 32,
nodes_per_leaf 32, gpus_per_node 1, nics_per_node 1, nic_gbps 100, uplinks 1), after
checking the .topology file against exactly that: |V| = 2144, ToRs 0..63, cores (spines)
64..95, servers 96..2143; every ToR linked to every one of the 32 spines exactly once in
each direction; every server linked to exactly one ToR, in both directions, and server
vertex v (server index s = v - 96) under ToR s // 32, which is where the generator puts
node<s> (node i under leaf floor(i / nodes_per_leaf)); no other link. Anything else is an
error: the generated fabric would not be the file's.

Flows. Every folder concurrent_jobs_N/ring_size_R is one instance: the flows of all its
job files, all active at once, files in job order (K), lines in file order (greedy routing
depends on the order). Per flow: job = file stem ("job_0-BLOOM"), src/dst = node<s>,
gbits = flow_size / 1e9 (flow_size is in bits, per SOURCE.md), NIC 0 at both ends.

NOTE on the node numbering: SOURCE.md says src/dst are server indices 0..2047 (server s
under ToR s / 32). The files do not agree: src/dst run from 96 to 2143, and the src_tor /
dst_tor columns equal (v - 96) // 32 on every line, i.e. src/dst are the netbench vertex
ids of the .topology file (servers 96..2143). The converter therefore maps v to server
s = v - 96, and checks src_tor / dst_tor against the .topology file's wiring for every
flow; a file using another numbering fails the check instead of being mis-converted.

Output is deterministic: one flow per line, trailing newline. Standard library only.
"""

import json
import os
import re
import sys

TOPOLOGY_FILE = "fat_tree-64_tors-32_cores-2048_servers.topology"
TORS = 64
SPINES = 32
SERVERS_PER_TOR = 32
SERVERS = TORS * SERVERS_PER_TOR
FIRST_SPINE = TORS
FIRST_SERVER = TORS + SPINES
NIC_GBPS = 100
HEADER = "#src dst src_tor dst_tor start_time flow_size compute_time stage_index"
FABRIC_OUT = "dcn-fabric.json"
FABRIC_NAME = "dcn-fat-tree-64x32"


class InputError(Exception):
    pass


def check_topology(path):
    """Check the netbench file describes the fabric the generate block makes."""
    header = {}
    links = []
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if "=" in line:
                k, v = line.split("=", 1)
                header[k.strip()] = v.strip()
                continue
            parts = line.split()
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise InputError("%s:%d: expected a link 'a b', got %r" % (path, lineno, line))
            links.append((int(parts[0]), int(parts[1]), lineno))
    want = {
        "|V|": str(FIRST_SERVER + SERVERS),
        "ToRs": "incl_range(0,%d)" % (TORS - 1),
        "Cores": "incl_range(%d,%d)" % (FIRST_SPINE, FIRST_SERVER - 1),
        "Servers": "incl_range(%d,%d)" % (FIRST_SERVER, FIRST_SERVER + SERVERS - 1),
    }
    for k, v in want.items():
        if header.get(k) != v:
            raise InputError("%s: %s is %r, expected %r" % (path, k, header.get(k), v))
    if header.get("|E|") != str(len(links)):
        raise InputError("%s: |E| is %r but the file lists %d links" % (path, header.get("|E|"), len(links)))

    def kind(v):
        if v < FIRST_SPINE:
            return "tor"
        if v < FIRST_SERVER:
            return "spine"
        if v < FIRST_SERVER + SERVERS:
            return "server"
        return None

    seen = set()
    server_tor = {}
    for a, b, lineno in links:
        ka, kb = kind(a), kind(b)
        if (a, b) in seen:
            raise InputError("%s:%d: link %d -> %d listed twice" % (path, lineno, a, b))
        seen.add((a, b))
        pair = {ka, kb}
        if pair == {"tor", "spine"}:
            continue
        if pair == {"tor", "server"}:
            srv, tor = (a, b) if ka == "server" else (b, a)
            if server_tor.setdefault(srv, tor) != tor:
                raise InputError("%s:%d: server %d linked to ToRs %d and %d" % (path, lineno, srv, server_tor[srv], tor))
            continue
        raise InputError("%s:%d: link %d -> %d joins %s and %s" % (path, lineno, a, b, ka, kb))
    for tor in range(TORS):
        for sp in range(FIRST_SPINE, FIRST_SERVER):
            for a, b in ((tor, sp), (sp, tor)):
                if (a, b) not in seen:
                    raise InputError("%s: ToR %d and spine %d are not linked (%d -> %d missing)" % (path, tor, sp, a, b))
    for v in range(FIRST_SERVER, FIRST_SERVER + SERVERS):
        tor = server_tor.get(v)
        if tor is None or (v, tor) not in seen or (tor, v) not in seen:
            raise InputError("%s: server vertex %d is not linked to one ToR in both directions" % (path, v))
        s = v - FIRST_SERVER
        if tor != s // SERVERS_PER_TOR:
            raise InputError("%s: server vertex %d (server %d) is under ToR %d, the generator puts node%d under leaf%d"
                             % (path, v, s, tor, s, s // SERVERS_PER_TOR))
    expected = 2 * TORS * SPINES + 2 * SERVERS
    if len(seen) != expected:
        raise InputError("%s: %d links, expected %d" % (path, len(seen), expected))
    return server_tor


def fabric_doc():
    return {
        "format": "tsched.topology.v1",
        "name": FABRIC_NAME,
        "generate": {
            "kind": "leaf_spine",
            "leaves": TORS,
            "spines": SPINES,
            "nodes_per_leaf": SERVERS_PER_TOR,
            "gpus_per_node": 1,
            "nics_per_node": 1,
            "nic_gbps": NIC_GBPS,
            "uplinks": 1,
        },
    }


FOLDER_RE = re.compile(r"^concurrent_jobs_(\d+)$")
RING_RE = re.compile(r"^ring_size_(\d+)$")
JOB_RE = re.compile(r"^job_(\d+)-(.+)\.txt$")


def instances(dcn_dir):
    """[(out_name, rel_folder, [job file paths in job order])] sorted by (N, R)."""
    root = os.path.join(dcn_dir, "traffic_pairs")
    if not os.path.isdir(root):
        raise InputError("%s: no traffic_pairs folder" % dcn_dir)
    found = []
    for cj in os.listdir(root):
        m = FOLDER_RE.match(cj)
        if not m or not os.path.isdir(os.path.join(root, cj)):
            continue
        for rs in os.listdir(os.path.join(root, cj)):
            r = RING_RE.match(rs)
            folder = os.path.join(root, cj, rs)
            if not r or not os.path.isdir(folder):
                continue
            jobs = []
            for name in os.listdir(folder):
                j = JOB_RE.match(name)
                if j:
                    jobs.append((int(j.group(1)), name))
                elif not name.startswith("."):
                    raise InputError("%s: unexpected file %s" % (folder, name))
            if not jobs:
                raise InputError("%s: no job_K-MODEL.txt files" % folder)
            jobs.sort()
            if [k for k, _ in jobs] != list(range(len(jobs))):
                raise InputError("%s: job numbers %s are not 0..%d" % (folder, [k for k, _ in jobs], len(jobs) - 1))
            out = "dcn-jobs%d-ring%d.flows.json" % (int(m.group(1)), int(r.group(1)))
            found.append(((int(m.group(1)), int(r.group(1))), out, "%s/%s" % (cj, rs),
                          [os.path.join(folder, n) for _, n in jobs]))
    if not found:
        raise InputError("%s: no concurrent_jobs_N/ring_size_R folders" % root)
    found.sort()
    return [(out, rel, files) for _, out, rel, files in found]


def read_flows(path, server_tor):
    job = os.path.basename(path)[:-len(".txt")]
    flows = []
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
        if first != HEADER:
            raise InputError("%s:1: header %r, expected %r" % (path, first, HEADER))
        for lineno, raw in enumerate(f, 2):
            line = raw.strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 8 or not all(p.isdigit() for p in parts):
                raise InputError("%s:%d: expected 8 whole numbers, got %r" % (path, lineno, line))
            src, dst, src_tor, dst_tor, _start, size, _compute, _stage = map(int, parts)
            for end, v, tor in (("src", src, src_tor), ("dst", dst, dst_tor)):
                if v not in server_tor:
                    raise InputError("%s:%d: %s %d is not a server vertex (%d..%d)"
                                     % (path, lineno, end, v, FIRST_SERVER, FIRST_SERVER + SERVERS - 1))
                if server_tor[v] != tor:
                    raise InputError("%s:%d: %s %d sits under ToR %d in the topology file, the line says %d"
                                     % (path, lineno, end, v, server_tor[v], tor))
            if src == dst:
                raise InputError("%s:%d: flow from server %d to itself" % (path, lineno, src))
            if size <= 0:
                raise InputError("%s:%d: flow_size %d is not positive" % (path, lineno, size))
            flows.append({
                "job": job,
                "src": "node%d" % (src - FIRST_SERVER),
                "dst": "node%d" % (dst - FIRST_SERVER),
                "src_nic": 0,
                "dst_nic": 0,
                "gbits": size / 1e9,
            })
    return flows


def dumps(obj):
    return json.dumps(obj, separators=(", ", ": "), sort_keys=False)


def flows_text(rel, flows):
    lines = ['{"format": "tsched.flows.v1", "source": %s, "flows": [' % json.dumps("traffic_pairs/" + rel)]
    lines.extend("  " + dumps(fl) + ("," if i + 1 < len(flows) else "") for i, fl in enumerate(flows))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) == 3 and argv[1] in ("--outputs", "--inputs"):
        insts = instances(argv[2])
        if argv[1] == "--outputs":
            names = [FABRIC_OUT] + [out for out, _, _ in insts]
        else:
            names = [os.path.join(argv[2], TOPOLOGY_FILE)] + [p for _, _, files in insts for p in files]
        print("\n".join(names))
        return 0
    if len(argv) != 3 or argv[1].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    dcn_dir, out_dir = argv[1], argv[2]
    server_tor = check_topology(os.path.join(dcn_dir, TOPOLOGY_FILE))
    insts = instances(dcn_dir)
    os.makedirs(out_dir, exist_ok=True)
    write(os.path.join(out_dir, FABRIC_OUT), json.dumps(fabric_doc(), indent=2) + "\n")
    total = 0
    for out, rel, files in insts:
        flows = []
        for p in files:
            flows.extend(read_flows(p, server_tor))
        total += len(flows)
        write(os.path.join(out_dir, out), flows_text(rel, flows))
    sys.stderr.write("convert_dcn.py: %s and %d flow sets (%d flows) written to %s\n"
                     % (FABRIC_OUT, len(insts), total, out_dir))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (InputError, OSError, UnicodeDecodeError) as e:
        sys.stderr.write("convert_dcn.py: %s\n" % e)
        sys.exit(1)
