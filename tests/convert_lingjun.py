#!/usr/bin/env python3
"""Convert the Alibaba Lingjun production Clos (topo.csv) into tsched.topology.v1.

Usage:
  convert_lingjun.py [--double-sided] TOPO_CSV OUT_JSON
                                                 write the fixture
  convert_lingjun.py --check [--double-sided] TOPO_CSV EXPECTED [--skip-without DIR]
                                                 exit 0 if EXPECTED equals a fresh
                                                 conversion, 1 (with a diff summary) if not;
                                                 77 (skipped) if directory DIR is absent
                                                 (../shared/data, only beside the project's
                                                 own checkout)

Input: ../shared/data/alibaba-lingjun-dataset-2023/topo.csv (columns ip,DSW,PSW,ASW:
hashed host IP, core switch, pod/aggregation switch, ToR). ASW names repeat under
different PSWs, so a ToR is the pair (PSW, ASW).

Model (doc/PERFORMANCE.md and DESIGN 5.1):
  - one tier-2 switch per DSW, one tier-1 switch per PSW whose pod is the PSW's own name
    (the data has one aggregation switch per pod), one tier-0 leaf per (PSW, ASW) named
    "<PSW>-<ASW>" in that pod;
  - one node per CSV row, in CSV order (so node i is row i), named by the first 12 hex
    characters of its hashed IP, or by the whole hash if 12 characters do not keep the
    names unique;
  - facts the CSV does not carry are ASSUMPTIONS: every host has 8 GPUs (stated by the
    data's README), gpu_type "GPU" because the GPU model is not in the data, 8 NICs of
    200 Gbit/s each (the CRUX paper, seed 001, gives 200 Gbps RDMA NICs for its testbed
    hosts; it does not state the production NIC count, 8 = one per GPU is assumed);
  - links are non-blocking, as the paper states the cluster is 1:1: a leaf-PSW trunk is
    hosts * 8 links of 200 Gbit/s, a PSW-DSW trunk is the sum of its leaves' trunks.

--double-sided writes the variant of the CRUX paper's "double-sided" fabric (seed 001,
section 6.1: "each host is connected to two ToR switches via eight links"), an ASSUMPTION on
how the data's ToRs pair up, since the CSV gives one ToR per host: within each pod the
leaves, in natural order, form pairs (1st, 2nd), (3rd, 4th), ...; with an odd count the last
leaf pairs with the pod's first (so that first leaf serves two pairs); a pod of one leaf keeps
its hosts single-homed. Every host of a pair (A, B) gets `rails` [A x4, B x4]: NICs 0-3 on
the pair's first leaf, 4-7 on its second, the same order for every host of the pair, so NIC
k to NIC k traffic between two hosts of one pair never leaves its ToR. A host's `leaf` is
its NIC 0 leaf. Links stay non-blocking: a leaf-PSW trunk has one link per NIC on the leaf
(4 per host of every pair using it), a PSW-DSW trunk the sum of its leaves'.

Output is deterministic: switches by tier (leaves, spines, cores, the generator's index
order) and then by name in natural order (P8 < P10, S2 < S10), nodes in CSV order, links
leaf-PSW in leaf order then PSW-DSW; one array element per line; trailing newline.
Standard library only.
"""

import csv
import difflib
import json
import os
import re
import sys

GPUS_PER_HOST = 8
GPU_TYPE = "GPU"
NICS_PER_HOST = 8
NIC_GBPS = 200
NAME_PREFIX = 12
COLUMNS = ["ip", "DSW", "PSW", "ASW"]


class InputError(Exception):
    pass


def natural_key(name):
    """Digits compare as numbers so that P8 sorts before P10 and S2 before S10."""
    return [(0, int(tok), "") if tok.isdigit() else (1, 0, tok) for tok in re.findall(r"\d+|\D+", name)]


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != COLUMNS:
            raise InputError("%s: header is %r, expected %r" % (path, header, COLUMNS))
        rows = []
        for lineno, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != 4 or any(not cell.strip() for cell in row):
                raise InputError("%s:%d: expected 4 non-empty fields, got %r" % (path, lineno, row))
            ip, dsw, psw, asw = (cell.strip() for cell in row)
            if not re.fullmatch(r"[0-9a-f]+", ip) or len(ip) < NAME_PREFIX:
                raise InputError("%s:%d: ip %r is not a hex hash" % (path, lineno, ip))
            rows.append((lineno, ip, dsw, psw, asw))
    if not rows:
        raise InputError("%s: no hosts" % path)
    return rows


def convert(path, double_sided=False):
    rows = read_rows(path)

    seen = {}
    for lineno, ip, _, _, _ in rows:
        if ip in seen:
            raise InputError("%s:%d: host %s already listed on line %d" % (path, lineno, ip, seen[ip]))
        seen[ip] = lineno
    # Short names keep the fixture readable; fall back to the whole hash rather than
    # silently merging two hosts.
    short = {ip[:NAME_PREFIX] for _, ip, _, _, _ in rows}
    width = NAME_PREFIX if len(short) == len(rows) else None

    psw_dsw = {}
    leaf_hosts = {}
    for lineno, ip, dsw, psw, asw in rows:
        if psw_dsw.setdefault(psw, dsw) != dsw:
            raise InputError("%s:%d: PSW %s is under DSW %s and %s; the model needs one core parent per pod"
                             % (path, lineno, psw, psw_dsw[psw], dsw))
        leaf_hosts[(psw, asw)] = leaf_hosts.get((psw, asw), 0) + 1

    def leaf_name(psw, asw):
        return "%s-%s" % (psw, asw)

    leaves = sorted(leaf_hosts, key=lambda k: natural_key(leaf_name(*k)))
    psws = sorted(psw_dsw, key=natural_key)
    dsws = sorted(set(psw_dsw.values()), key=natural_key)
    names = {leaf_name(*k) for k in leaves} | set(psws) | set(dsws)
    if len(names) != len(leaves) + len(psws) + len(dsws):
        raise InputError("%s: switch names collide after naming leaves <PSW>-<ASW>" % path)

    switches = [{"name": leaf_name(p, a), "tier": 0, "pod": p} for p, a in leaves]
    switches += [{"name": p, "tier": 1, "pod": p} for p in psws]
    switches += [{"name": d, "tier": 2} for d in dsws]

    homes = pair_leaves(leaves) if double_sided else {k: [k] * NICS_PER_HOST for k in leaves}
    leaf_nics = {k: 0 for k in leaves}
    nodes = []
    for _, ip, _, psw, asw in rows:
        rails = homes[(psw, asw)]
        node = {"name": ip[:width] if width else ip, "leaf": leaf_name(*rails[0]), "gpus": GPUS_PER_HOST,
                "gpu_type": GPU_TYPE, "nics": NICS_PER_HOST, "nic_gbps": NIC_GBPS}
        if len(set(rails)) > 1:
            node["rails"] = [leaf_name(*k) for k in rails]
        for k in rails:
            leaf_nics[k] += 1
        nodes.append(node)

    # Non-blocking: every NIC below a switch has a full-speed link above it.
    links = []
    psw_links = {p: 0 for p in psws}
    for p, a in leaves:
        count = leaf_nics[(p, a)]
        psw_links[p] += count
        links.append({"a": leaf_name(p, a), "b": p, "gbps": NIC_GBPS, "count": count})
    for p in psws:
        links.append({"a": p, "b": psw_dsw[p], "gbps": NIC_GBPS, "count": psw_links[p]})

    doc = [
        ("format", "tsched.topology.v1"),
        ("name", "alibaba-lingjun-2023-double-sided" if double_sided else "alibaba-lingjun-2023"),
        ("switches", switches),
        ("nodes", nodes),
        ("links", links),
    ]
    return render(doc)


def pair_leaves(leaves):
    """The double-sided ToR pairs (module docstring): leaf -> the leaves of its host's 8 NICs."""
    by_pod = {}
    for k in leaves:  # already in natural order
        by_pod.setdefault(k[0], []).append(k)
    homes = {}
    half = NICS_PER_HOST // 2
    for pod in by_pod.values():
        if len(pod) == 1:
            homes[pod[0]] = [pod[0]] * NICS_PER_HOST
            continue
        for i in range(0, len(pod), 2):
            a = pod[i]
            b = pod[i + 1] if i + 1 < len(pod) else pod[0]
            homes[a] = [a] * half + [b] * half
            if i + 1 < len(pod):
                homes[b] = homes[a]
    return homes


def render(doc):
    """Top-level fields one per line, each array element on its own line: short
    diffs when the data or the model changes, and still plain JSON."""
    out = ["{"]
    for i, (key, value) in enumerate(doc):
        comma = "," if i + 1 < len(doc) else ""
        if isinstance(value, list):
            out.append(' "%s": [' % key)
            for j, item in enumerate(value):
                sep = "," if j + 1 < len(value) else ""
                out.append("  " + json.dumps(item, separators=(", ", ": "), ensure_ascii=True) + sep)
            out.append(" ]" + comma)
        else:
            out.append(' "%s": %s%s' % (key, json.dumps(value), comma))
    out.append("}")
    text = "\n".join(out) + "\n"
    json.loads(text)  # the hand layout must still be valid JSON
    return text


def check(csv_path, expected_path, double_sided=False):
    fresh = convert(csv_path, double_sided)
    try:
        with open(expected_path, encoding="utf-8") as f:
            committed = f.read()
    except OSError as e:
        print("convert_lingjun: cannot read %s: %s" % (expected_path, e.strerror), file=sys.stderr)
        return 1
    if committed == fresh:
        return 0
    a, b = committed.splitlines(), fresh.splitlines()
    diff = list(difflib.unified_diff(a, b, expected_path, "fresh conversion of " + csv_path, lineterm="", n=1))
    changed = sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
    print("convert_lingjun: %s differs from a fresh conversion (%d lines committed, %d fresh, %d changed lines)"
          % (expected_path, len(a), len(b), changed), file=sys.stderr)
    for line in diff[:40]:
        print(line, file=sys.stderr)
    if len(diff) > 40:
        print("... (%d more diff lines)" % (len(diff) - 40), file=sys.stderr)
    print("regenerate with: %s %s%s %s" % (sys.argv[0], "--double-sided " if double_sided else "", csv_path,
                                            expected_path), file=sys.stderr)
    return 1


def main(argv):
    ds = "--double-sided" in argv
    argv = [a for a in argv if a != "--double-sided"]
    try:
        if len(argv) == 6 and argv[1] == "--check" and argv[4] == "--skip-without":
            if not os.path.isdir(argv[5]):
                print("skip: %s not found (only in the project's own checkout)" % argv[5])
                return 77
            return check(argv[2], argv[3], ds)
        if len(argv) == 4 and argv[1] == "--check":
            return check(argv[2], argv[3], ds)
        if len(argv) == 3 and not argv[1].startswith("-"):
            text = convert(argv[1], ds)
            with open(argv[2], "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            return 0
    except InputError as e:
        print("convert_lingjun: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("convert_lingjun: %s: %s" % (e.filename, e.strerror), file=sys.stderr)
        return 2
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
