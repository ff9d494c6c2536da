"""Shared helpers of the experiment scripts (design/sim.md §11): arguments, running the CLI,
Markdown tables, plots (matplotlib when installed, else plot_svg). Standard library only."""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED_DATA = os.path.join(os.path.dirname(REPO), "shared", "data")
NA = "not available in this build"

sys.path.insert(0, HERE)
import plot_svg  # noqa: E402


def parse_args(doc, extra=None):
    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--topo-sched", default=os.path.join(REPO, "build", "src", "cli", "topo-sched"),
                   help="path of the topo-sched CLI (default: build/src/cli/topo-sched of the repo)")
    p.add_argument("--quick", action="store_true", help="tiny scale (seconds), for the CI smoke test")
    p.add_argument("--out", default=os.path.join(HERE, "out"), help="output folder (default bench/experiments/out)")
    if extra:
        extra(p)
    a = p.parse_args()
    if not os.access(a.topo_sched, os.X_OK):
        sys.exit("%s: not an executable; build it: ninja -C build src/cli/topo-sched" % a.topo_sched)
    os.makedirs(a.out, exist_ok=True)
    a.work = os.path.join(a.out, "work")
    os.makedirs(a.work, exist_ok=True)
    return a


class Rejected(Exception):
    """The CLI refused a policy (exit 2, 'not implemented' / 'not available')."""


def run(ts, args, check=True):
    r = subprocess.run([ts] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 2 and ("not implemented" in r.stderr or "not available" in r.stderr):
        raise Rejected(r.stderr.strip())
    if check and r.returncode != 0:
        sys.exit("topo-sched %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path


def simulate(ts, topo, trace, scenario=None, flags=(), timeseries=None):
    """Run `topo-sched simulate`; returns the parsed tsched.simresult.v1, or raises Rejected."""
    args = ["simulate", "-t", topo, "-w", trace, "--quiet", "--no-timing", "--compact"]
    if scenario:
        args += ["-s", scenario]
    if timeseries:
        args += ["--timeseries", timeseries]
    args += list(flags)
    return json.loads(run(ts, args).stdout)


def fmt(v, nd=1):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    return "%.*f" % (nd, v)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def write_md(path, title, intro, table, notes=""):
    with open(path, "w") as f:
        f.write("# %s\n\n%s\n\n%s\n%s" % (title, intro.strip(), table, ("\n" + notes.strip() + "\n") if notes else ""))
    print(open(path).read())


def _mpl():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except Exception:
        return None


def plot_lines(path, title, xlabel, ylabel, series, logy=False):
    plt = _mpl()
    if plt:
        try:
            fig, ax = plt.subplots(figsize=(8, 4.5))
            for name, pts in series:
                pts = [(x, y) for x, y in pts if y is not None]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
            ax.set_title(title), ax.set_xlabel(xlabel), ax.set_ylabel(ylabel)
            if logy:
                ax.set_yscale("log")
            ax.legend(loc="center left", bbox_to_anchor=(1, 0.5))
            fig.tight_layout()
            fig.savefig(path, format="svg")
            plt.close(fig)
            return
        except Exception:
            pass
    plot_svg.line_chart(path, title, xlabel, ylabel, series, logy)


def plot_bars(path, title, xlabel, ylabel, categories, series):
    plt = _mpl()
    if plt:
        try:
            fig, ax = plt.subplots(figsize=(8, 4.5))
            n = max(1, len(series))
            for i, (name, vals) in enumerate(series):
                xs = [c + i * 0.8 / n for c in range(len(categories))]
                ax.bar([x for x, v in zip(xs, vals) if v is not None], [v for v in vals if v is not None],
                       width=0.8 / n, label=name)
            ax.set_xticks([c + 0.4 - 0.4 / n for c in range(len(categories))], categories)
            ax.set_title(title), ax.set_xlabel(xlabel), ax.set_ylabel(ylabel)
            ax.legend(loc="center left", bbox_to_anchor=(1, 0.5))
            fig.tight_layout()
            fig.savefig(path, format="svg")
            plt.close(fig)
            return
        except Exception:
            pass
    plot_svg.bar_chart(path, title, xlabel, ylabel, categories, series)


def plot_timeline(path, title, xlabel, rows, t_end):
    plt = _mpl()
    if plt:
        try:
            fig, ax = plt.subplots(figsize=(8, 0.6 * len(rows) + 1.5))
            for i, (label, iv) in enumerate(rows):
                ax.broken_barh([(a, b - a) for a, b in iv], (i - 0.35, 0.7))
            ax.set_yticks(range(len(rows)), [r[0] for r in rows])
            ax.set_xlim(0, t_end), ax.set_title(title), ax.set_xlabel(xlabel)
            ax.invert_yaxis()
            fig.tight_layout()
            fig.savefig(path, format="svg")
            plt.close(fig)
            return
        except Exception:
            pass
    plot_svg.timeline(path, title, xlabel, rows, t_end)


def cli_choices(ts, option, sub="simulate"):
    """The values `topo-sched SUB --help` lists for OPTION (e.g. the priorities of this build), so
    that a script can mark a row "not available in this build" instead of failing."""
    text = subprocess.run([ts, sub, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    out, on = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(option + " "):
            on = True
        elif on and s.startswith("-"):
            break
        if on:
            out.append(s)
    words = " ".join(out).replace(",", " ").replace(":", " ").replace("(", " ").replace(")", " ").split()
    return set(words)


def parallel(fn, items, jobs, label):
    """fn(item) for every item, on at most `jobs` threads (each runs CLI processes, so at most
    `jobs` simulations at once); results in item order; progress lines on standard error."""
    import concurrent.futures
    timer, done, out = Timer(), [0], [None] * len(items)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futs = {ex.submit(fn, it): i for i, it in enumerate(items)}
        for f in concurrent.futures.as_completed(futs):
            out[futs[f]] = f.result()
            done[0] += 1
            sys.stderr.write("  %s: %d/%d done [%s]\n" % (label, done[0], len(items), timer))
            sys.stderr.flush()
    return out


def spread(vals, nd=1, scale=1.0, sign=False):
    """'median [min, max]' of the values (None entries skipped), or '—' without any."""
    v = sorted(x * scale for x in vals if x is not None)
    if not v:
        return "—"
    n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    f = "%+.*f" if sign else "%.*f"
    if n == 1:
        return f % (nd, med)
    return (f + " [" + f + ", " + f + "]") % (nd, med, nd, v[0], nd, v[-1])


def median(vals):
    v = sorted(x for x in vals if x is not None)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


class Timer:
    def __init__(self):
        self.t0 = time.time()

    def __str__(self):
        return "%.1f s" % (time.time() - self.t0)
