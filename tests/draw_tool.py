"""What tests/test_draw.py and tests/test_draw_aggregate.py share: counted checks and running
topo-sched draw (imported from the test's own directory, which python3 puts on sys.path)."""
import subprocess
import sys

SVG = "{http://www.w3.org/2000/svg}"


class Checks:
    """Counts checks; prints each failure; `finish` prints the tally and exits 1 on a failure."""

    def __init__(self):
        self.passed, self.failures = 0, []

    def __call__(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL:", what)

    def finish(self, suffix=""):
        print("%d passed, %d failed%s" % (self.passed, len(self.failures), suffix))
        sys.exit(1 if self.failures else 0)


class Tool:
    """The topo-sched executable: `run` any command, `draw` that must succeed (its stdout)."""

    def __init__(self, exe):
        self.exe = exe

    def run(self, *args, stdin=None):
        return subprocess.run([self.exe, *args], capture_output=True, input=stdin)

    def draw(self, *args):
        r = self.run("draw", *args)
        if r.returncode != 0:
            raise SystemExit("draw %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr.decode()))
        return r.stdout


def classes(el):
    return el.get("class", "").split()
