# Shared set-up of the topo_sched tests: the package from this source tree, the test data of
# the project, and the topo-sched command the answers are compared with.
import json
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
if os.environ.get("TOPO_SCHED_TEST_INSTALLED") != "1":
    sys.path.insert(0, PACKAGE_ROOT)

SOURCE = os.environ.get("TOPO_SCHED_SOURCE") or os.path.dirname(os.path.dirname(PACKAGE_ROOT))
DATA = os.path.join(SOURCE, "tests", "data")


def data(*parts):
    return os.path.join(DATA, *parts)


def read(*parts):
    with open(data(*parts), encoding="utf-8") as f:
        return f.read()


def find_cli():
    cli = os.environ.get("TOPO_SCHED_CLI")
    if cli:
        return cli
    return shutil.which("topo-sched")


def run_cli(*args, stdin=None):
    """Run the topo-sched command; return its standard output parsed as JSON."""
    cli = find_cli()
    if not cli:
        raise unittest.SkipTest("no topo-sched command (set TOPO_SCHED_CLI)")
    proc = subprocess.run([cli] + list(args), input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("topo-sched %s failed (%d): %s" % (" ".join(args), proc.returncode, proc.stderr))
    return json.loads(proc.stdout)


def cli_error(*args):
    """Run a topo-sched command expected to fail: (exit status, standard error)."""
    cli = find_cli()
    if not cli:
        raise unittest.SkipTest("no topo-sched command (set TOPO_SCHED_CLI)")
    proc = subprocess.run([cli] + list(args), capture_output=True, text=True)
    return proc.returncode, proc.stderr
