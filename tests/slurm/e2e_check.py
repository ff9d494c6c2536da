#!/usr/bin/env python3
"""JSON checks for tests/slurm/e2e.sh (exit 1 with one line on a failed check).

  e2e_check.py jobs SQUEUE_JSON ID...          one line per job: id state priority req nodes
  (squeue --json exits 0 when it cannot reach the controller: its "errors" are checked)
  e2e_check.py vars SQUEUE_JSON ID             shell assignments of one job's fields (`squeue
      --json`): state prio req nodes admin comment
  e2e_check.py states SQUEUE_JSON STATE ID...  exit 0 when every job is in STATE, 1 when one
      ended otherwise (one line), else 3 (quiet)
  e2e_check.py nodes PLACEMENT                 the placement's nodes, sorted, one a line
  e2e_check.py same-placement A B              the two tsched.placement.v1 agree (solve_ms aside)
  e2e_check.py avail TOPOLOGY NODE             "free=F down=0|1" of one node
  e2e_check.py agree OFFLINE DUMP [TAKEN...]   the placer's fabric DUMP has the free GPUs and down
      nodes of OFFLINE, except that each TAKEN node (placed earlier in the same cycle) has no
      free GPU in DUMP; same node names and leaves
"""
import json
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
    return {str(j["job_id"]): j for j in d["jobs"]}


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


def agree(offline, dump, taken):
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
    print("ok: %s agrees with %s (%d nodes, %d taken in the cycle)" % (dump, offline, len(a), len(taken)))


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
    elif cmd == "nodes":
        for n in sorted({a["node"] for a in load(args[0])["assignment"]}):
            print(n)
    elif cmd == "same-placement":
        a, b = load(args[0]), load(args[1])
        a.pop("solve_ms", None)
        b.pop("solve_ms", None)
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            fail("%s and %s differ in %s" % (args[0], args[1], ", ".join(keys)))
    elif cmd == "avail":
        v = node_view(args[0]).get(args[1])
        if v is None:
            fail("no node %s in %s" % (args[1], args[0]))
        print("free=%d down=%d" % (v[1], int(v[2])))
    elif cmd == "agree":
        if args[0] == "-":
            return
        agree(args[0], args[1], set(args[2:]))
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
