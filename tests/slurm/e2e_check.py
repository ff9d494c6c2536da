#!/usr/bin/env python3
"""JSON checks for tests/slurm/e2e.sh (exit 1 with one line on a failed check).

  e2e_check.py jobs SQUEUE_JSON ID...          one line per job: id state priority req nodes
  (squeue --json exits 0 when it cannot reach the controller: its "errors" are checked)
  e2e_check.py vars SQUEUE_JSON ID             shell assignments of one job's fields (`squeue
      --json`): state prio req nodes admin comment
  e2e_check.py states SQUEUE_JSON STATE ID...  exit 0 when every job is in STATE, 1 when one
      ended otherwise (one line), else 3 (quiet)
  e2e_check.py expect TOPOLOGY NODE=FREE,DOWN...  the nodes' free GPUs and down flag (0|1) in
      a tsched.topology.v1 are these (* = any)
  e2e_check.py agree OFFLINE DUMP [TAKEN...]   the placer's fabric DUMP has the free GPUs and down
      nodes of OFFLINE, except that each TAKEN node (placed earlier in the same cycle) has no
      free GPU in DUMP; same node names and leaves
  e2e_check.py expand HOSTLIST                 the node names of a Slurm hostlist
  e2e_check.py placed SQUEUE_JSON ID OFFLINE DIR LOG NOTNODES [TAKEN...]
      one placed job, in one process (spawns are slow on a loaded machine): the dump
      DIR/dump/ID.{topology,job,placement}.json, its replay DIR/replay/ID.{placement.json,hosts}
      by `topo-sched place`, the hostfile DIR/hosts/ID.hosts and the job in squeue agree: same
      placement (solve_ms aside), hostfile bytes = the replay's, the job RUNNING on exactly the
      placement's nodes, none of NOTNODES (comma-separated), the last "placed" line of LOG
      names them, and the dump agrees with OFFLINE ("-": not checked) as `agree` does.
      Writes DIR/replay/ID.nodes (sorted) and prints one line.
"""
import json
import re
import shlex
import sys

# Job states after which a job never runs again.
FINAL = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
         "DEADLINE", "OUT_OF_MEMORY"}


def fail(msg):
    print("e2e_check: " + msg)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def jobs_of(path):
    """Job id -> job of a `squeue --json` output. squeue exits 0 when it cannot reach the
    controller and lists the error instead: None then."""
    d = load(path)
    if d.get("errors"):
        return None
    return {str(j["job_id"]): norm(j) for j in d["jobs"]}


def norm(j):
    """22.05's squeue --json fields (v0.0.38); later releases give job_state as a list and
    numbers as {"set", "number"} objects: reduced to the 22.05 forms."""
    out = dict(j)
    if isinstance(out.get("job_state"), list):
        out["job_state"] = out["job_state"][0] if out["job_state"] else ""
    for k, v in out.items():
        if isinstance(v, dict) and "number" in v and "set" in v:
            out[k] = v["number"] if v["set"] else 0
    for k in ("required_nodes", "nodes", "admin_comment", "comment"):
        out[k] = out.get(k) or ""
    return out


def jobs_or_fail(path):
    all_jobs = jobs_of(path)
    if all_jobs is None:
        fail("%s: squeue reports %s" % (path, load(path)["errors"][0].get("description", "an error")))
    return all_jobs


def job(path, jid):
    j = jobs_or_fail(path).get(str(jid))
    if j is None:
        fail("job %s not in %s" % (jid, path))
    return j


def node_view(path):
    """name -> (leaf, free GPUs, down) of a tsched.topology.v1 document."""
    d = load(path)
    st = d.get("state") or {}
    free = st.get("free_gpus") or {}
    down = set(st.get("down") or [])
    return {n["name"]: (n.get("leaf"), int(free.get(n["name"], n["gpus"])), n["name"] in down)
            for n in d["nodes"]}


def agree(offline, dump, taken, quiet=False):
    a, b = node_view(offline), node_view(dump)
    if set(a) != set(b):
        fail("%s and %s name different nodes: only in the first %s, only in the second %s"
             % (offline, dump, sorted(set(a) - set(b)), sorted(set(b) - set(a))))
    for name in sorted(a):
        la, fa, da = a[name]
        lb, fb, db = b[name]
        if la != lb:
            fail("%s: leaf %s offline, %s in %s" % (name, la, lb, dump))
        if name in taken:
            if fb != 0 and not db:
                fail("%s was placed earlier in the cycle but %s gives it %d free GPUs" % (name, dump, fb))
            continue
        if (fa, da) != (fb, db):
            fail("%s: offline free=%d down=%d, %s free=%d down=%d" % (name, fa, da, dump, fb, db))
    if not quiet:
        print("ok: %s agrees with %s (%d nodes, %d taken in the cycle)" % (dump, offline, len(a), len(taken)))


def expand(hostlist):
    """Node names of a Slurm hostlist with one bracket group per name (n[1-3,8],m05)."""
    names = []
    for tok in re.findall(r"[^,\[]*(?:\[[^\]]*\])?[^,]*", hostlist):
        if not tok:
            continue
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", tok)
        if not m:
            names.append(tok)
            continue
        for r in m.group(2).split(","):
            lo, _, hi = r.partition("-")
            width = len(lo) if lo.startswith("0") else 0
            for k in range(int(lo), int(hi or lo) + 1):
                names.append(m.group(1) + str(k).zfill(width) + m.group(3))
    return names


def placed(sq, jid, offline, d, log, notnodes, taken):
    pre = {f: "%s/dump/%s.%s.json" % (d, jid, f) for f in ("topology", "job", "placement")}
    for f in pre.values():
        try:
            open(f).close()
        except OSError:
            fail("job %s: no dump %s" % (jid, f))
    if offline != "-":
        agree(offline, pre["topology"], taken, quiet=True)
    rp = "%s/replay/%s.placement.json" % (d, jid)
    a, b = load(pre["placement"]), load(rp)
    a.pop("solve_ms", None)
    b.pop("solve_ms", None)
    if a != b:
        fail("job %s: dumped placement is not topo-sched place's (differs in %s)"
             % (jid, ", ".join(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)))))
    with open("%s/hosts/%s.hosts" % (d, jid), "rb") as f:
        hosts = f.read()
    with open("%s/replay/%s.hosts" % (d, jid), "rb") as f:
        if f.read() != hosts:
            fail("job %s: hostfile differs from topo-sched place --hostfile" % jid)
    nodes = sorted({x["node"] for x in b["assignment"]})
    if sorted(set(hosts.decode().split())) != nodes:
        fail("job %s: hostfile nodes are not the placement's" % jid)
    j = job(sq, jid)
    if j["job_state"] != "RUNNING":
        fail("job %s is %s" % (jid, j["job_state"]))
    if sorted(expand(j["nodes"])) != nodes:
        fail("job %s runs on %s, topo-sched place gives %s" % (jid, j["nodes"], " ".join(nodes)))
    bad = set(nodes) & set(notnodes.split(","))
    if bad:
        fail("job %s placed on %s" % (jid, ", ".join(sorted(bad))))
    with open(log) as f:
        lines = re.findall(r"^topo-sched-slurm: job=%s placed nodes=(\S+)" % jid, f.read(), re.M)
    if not lines:
        fail("job %s: no 'placed' line in %s" % (jid, log))
    if sorted(expand(lines[-1])) != nodes:
        fail("job %s: logged nodes %s are not its nodes" % (jid, lines[-1]))
    with open("%s/replay/%s.nodes" % (d, jid), "w") as f:
        f.write("".join(n + "\n" for n in nodes))
    print("job %s (%s) RUNNING on %s = topo-sched place on the dump; hostfile%s and log agree"
          % (jid, j["comment"], j["nodes"], "" if offline == "-" else ", offline import"))


def main(argv):
    if len(argv) < 2:
        fail("usage: see the module text")
    cmd, args = argv[1], argv[2:]
    if cmd == "jobs":
        all_jobs = jobs_or_fail(args[0])
        for jid in args[1:]:
            j = all_jobs.get(jid)
            if j is None:
                print(jid, "ABSENT")
            else:
                print(jid, j["job_state"], j["priority"], j["required_nodes"] or "-", j["nodes"] or "-")
    elif cmd == "vars":
        j = job(args[0], args[1])
        for var, key in (("state", "job_state"), ("prio", "priority"), ("req", "required_nodes"),
                         ("nodes", "nodes"), ("admin", "admin_comment"), ("comment", "comment")):
            print("%s=%s" % (var, shlex.quote(str(j[key]))))
    elif cmd == "states":
        all_jobs = jobs_of(args[0])
        if all_jobs is None:   # controller not reachable (yet): ask again
            sys.exit(3)
        got = [all_jobs.get(j, {}).get("job_state") for j in args[2:]]
        ended = [j for j, s in zip(args[2:], got) if s in FINAL and s != args[1]]
        if ended:
            fail("job %s ended %s" % (ended[0], all_jobs[ended[0]]["job_state"]))
        sys.exit(0 if all(s == args[1] for s in got) else 3)
    elif cmd == "expect":
        view = node_view(args[0])
        for want in args[1:]:
            name, _, fd = want.partition("=")
            if name not in view:
                fail("no node %s in %s" % (name, args[0]))
            got = (str(view[name][1]), str(int(view[name][2])))
            if any(w not in ("*", g) for w, g in zip(fd.split(","), got)):
                fail("%s: %s has free=%s down=%s, expected free=%s down=%s" % (args[0], name, got[0], got[1], *fd.split(",")))
    elif cmd == "placed":
        placed(args[0], args[1], args[2], args[3], args[4], args[5], set(args[6:]))
    elif cmd == "expand":
        print(" ".join(expand(args[0])))
    elif cmd == "agree":
        if args[0] == "-":
            return
        agree(args[0], args[1], set(args[2:]))
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
