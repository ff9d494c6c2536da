#!/usr/bin/env python3
# libtopo-sched: network-topology-aware scheduling for GPU clusters.
# Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
"""Draw the placement benchmark as an SVG, in the manner of Arnold's Figure 7.

Reads the JSON lines of `bench_placement --json` (other lines are ignored) from a file
or standard input and writes grouped bars: for each (scenario, job, alpha), the mean
weighted spread (Eq. 2) of every algorithm over the seeds; lower is better. Above each
group: best baseline / mip (ratio of the means). One panel per benchmark section.

usage: bench/plot_placement.py [-o OUT.svg] [--sections arnold,lingjun,scale] [FILE|-]
  default: read standard input, write doc/placement-bench.svg in the source tree,
  sections arnold and scale (lingjun: every algorithm but random-fit ties there).
Python 3 standard library only.
"""
import argparse
import json
import math
import os
import sys
from xml.sax.saxutils import escape

ALGOS = ["mip", "best-fit", "random-fit", "gpu-pack", "topo-aware", "exhaustive"]
COLORS = {
    "mip": "#c0392b",
    "best-fit": "#2e86c1",
    "random-fit": "#a6acaf",
    "gpu-pack": "#27ae60",
    "topo-aware": "#8e44ad",
    "exhaustive": "#f5b041",
}
BASELINES = ["best-fit", "random-fit", "gpu-pack", "topo-aware"]
SECTION_TITLES = {
    "arnold": "Arnold Table 1 settings (free nodes spread unevenly over pods; mean over seeds)",
    "lingjun": "Lingjun production Clos (847 hosts, 3 pods) at 30/60/90 % occupancy (jobs that fit)",
    "scale": "Scale: 150 x 8 job (1,200 nodes) on a 2,048-node, 16-pod clos3",
}
ROMAN = {"i": "(i)", "ii": "(ii)", "iii": "(iii)"}

FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""


def read_lines(stream):
    """Summary records keyed by (section, scenario, job, alpha) -> {algo: record}, in order."""
    groups = {}
    quick = False
    for line in stream:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec.get("bench") != "placement" or rec.get("type") != "summary":
            continue
        quick = quick or bool(rec.get("quick"))
        key = (rec["section"], rec["scenario"], rec["job"], round(float(rec["alpha"]), 3))
        groups.setdefault(key, {"label": rec.get("label", rec["scenario"]), "rows": rec.get("rows"),
                                "cols": rec.get("cols"), "algos": {}})
        groups[key]["algos"][rec["algo"]] = rec
    return groups, quick


def nice_max(v):
    """A round axis maximum with room above `v` for the labels, and its tick step."""
    raw = max(v * 1.08, 1e-9) / 6
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw - 1e-12)
    return math.ceil(v * 1.08 / step) * step, step


def group_caption(section, scenario, job, alpha, info):
    if section == "arnold":
        name = ROMAN.get(scenario, scenario)
    elif section == "lingjun":
        name = scenario.replace("lingjun-", "LJ ") + "%"
    else:
        name = "all free" if scenario.endswith("free") else "40% busy"
    shape = "%sx%s" % (info["rows"], info["cols"]) if info.get("rows") else job
    return name, shape, "\u03b1=%g" % alpha


def panel(out, x0, y0, width, height, section, items):
    """One panel of grouped bars; returns nothing, appends SVG elements to `out`."""
    left, right, top, bottom = 64, 16, 34, 62
    pw, ph = width - left - right, height - top - bottom
    px, py = x0 + left, y0 + top
    vals = [r["mean_weighted"] for _, g in items for r in g["algos"].values() if "mean_weighted" in r]
    ymax, step = nice_max(max(vals) if vals else 1.0)
    out.append('<text x="%g" y="%g" %s font-size="15" font-weight="bold">%s</text>'
               % (x0 + left, y0 + 20, FONT, escape(SECTION_TITLES.get(section, section))))
    # axes and grid
    t = 0.0
    while t <= ymax + 1e-9:
        y = py + ph - ph * t / ymax
        out.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#e5e7e9" stroke-width="1"/>'
                   % (px, y, px + pw, y))
        out.append('<text x="%g" y="%g" %s font-size="11" text-anchor="end">%g</text>'
                   % (px - 6, y + 4, FONT, round(t, 3)))
        t += step
    out.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333" stroke-width="1"/>' % (px, py, px, py + ph))
    out.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333" stroke-width="1"/>'
               % (px, py + ph, px + pw, py + ph))
    out.append('<text transform="translate(%g,%g) rotate(-90)" %s font-size="12" text-anchor="middle">'
               'mean weighted spread (lower is better)</text>' % (x0 + 16, py + ph / 2, FONT))
    n = len(items)
    slot = pw / max(n, 1)
    present = [a for a in ALGOS if any(a in g["algos"] and "mean_weighted" in g["algos"][a] for _, g in items)]
    bw = min(16.0, slot * 0.8 / max(len(present), 1))
    for i, (key, g) in enumerate(items):
        section_, scenario, job, alpha = key
        cx = px + slot * (i + 0.5)
        ran = [a for a in present if a in g["algos"] and "mean_weighted" in g["algos"][a]]
        gx = cx - bw * len(ran) / 2
        if not ran:
            out.append('<text x="%g" y="%g" %s font-size="10" text-anchor="middle" fill="#555">does not fit</text>'
                       % (cx, py + ph - 8, FONT))
        for j, a in enumerate(ran):
            v = g["algos"][a]["mean_weighted"]
            h = ph * v / ymax
            x = gx + j * bw
            style = ('fill="none" stroke="%s" stroke-width="2"' % COLORS[a]) if a == "exhaustive" \
                else 'fill="%s"' % COLORS[a]
            out.append('<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" %s><title>%s %s %s alpha %g: %.3f</title>'
                       '</rect>' % (x + 0.5, py + ph - h, max(bw - 1, 1), h, style, escape(a), escape(scenario),
                                    escape(job), alpha, v))
        # ratio best baseline / mip
        mip = g["algos"].get("mip", {}).get("mean_weighted")
        base = [g["algos"][b]["mean_weighted"] for b in BASELINES
                if b in g["algos"] and "mean_weighted" in g["algos"][b]]
        if mip and base:
            tallest = max(g["algos"][a]["mean_weighted"] for a in ran)
            r = min(base) / mip
            out.append('<text x="%g" y="%g" %s font-size="10" text-anchor="middle" fill="%s">%.2fx</text>'
                       % (cx, py + ph - ph * tallest / ymax - 5, FONT, "#c0392b" if r > 1.0005 else "#555", r))
        m = g["algos"].get("mip", {})
        if "mean_weighted" in m and m.get("optimal", 0) < m.get("instances", 0):
            # mip not proven optimal on some seeds (time limit or size cap): mark its bar
            h = ph * m["mean_weighted"] / ymax
            out.append('<text x="%g" y="%g" %s font-size="12" font-weight="bold" text-anchor="middle" fill="%s">'
                       '\u2020</text>' % (gx + bw / 2, py + ph - h - 3, FONT, COLORS["mip"]))
        name, shape, al = group_caption(section_, scenario, job, alpha, g)
        fs = 11 if slot >= 60 else 9
        for k, text in enumerate((name, shape, al)):
            out.append('<text x="%g" y="%g" %s font-size="%d" text-anchor="middle">%s</text>'
                       % (cx, py + ph + 15 + 13 * k, FONT, fs, escape(text)))
        if i > 0 and key[:3] != items[i - 1][0][:3]:
            sx = px + slot * i
            out.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#bbb" stroke-dasharray="3,3"/>'
                       % (sx, py, sx, py + ph + 48))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", nargs="?", default="-", help="JSON lines of bench_placement --json (default: stdin)")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--output", default=os.path.join(here, "..", "doc", "placement-bench.svg"))
    ap.add_argument("--sections", default="arnold,scale", help="comma-separated: arnold, lingjun, scale")
    args = ap.parse_args()
    if args.input == "-":
        groups, quick = read_lines(sys.stdin)
    else:
        with open(args.input, encoding="utf-8") as f:
            groups, quick = read_lines(f)
    sections = [s for s in args.sections.split(",") if s]
    panels = []
    for s in sections:
        items = [(k, g) for k, g in groups.items() if k[0] == s]
        if s == "lingjun":  # many groups: leave out the jobs that do not fit (see the bench's table)
            items = [(k, g) for k, g in items if any("mean_weighted" in r for r in g["algos"].values())]
        if items:
            panels.append((s, items))
    if not panels:
        sys.exit("plot_placement.py: no summary lines of bench_placement --json in the input")
    width = 1100
    heights = [340 if len(items) <= 12 else 380 for _, items in panels]
    legend_h = 40
    total_h = 48 + sum(heights) + legend_h
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
           % (width, total_h, width, total_h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%g" y="26" %s font-size="18" font-weight="bold" text-anchor="middle">libtopo-sched placement: '
           'weighted spread of communication groups by algorithm%s</text>'
           % (width / 2, FONT, " (quick run)" if quick else "")]
    # legend
    lx, ly = 80, 40
    for a in ALGOS:
        style = ('fill="none" stroke="%s" stroke-width="2"' % COLORS[a]) if a == "exhaustive" \
            else 'fill="%s"' % COLORS[a]
        out.append('<rect x="%g" y="%g" width="14" height="14" %s/>' % (lx, ly, style))
        out.append('<text x="%g" y="%g" %s font-size="12">%s</text>' % (lx + 19, ly + 12, FONT, a))
        lx += 115
    out.append('<text x="%g" y="%g" %s font-size="11" fill="#555">above a group: best baseline / mip (means)'
               '</text>' % (lx - 10, ly + 5, FONT))
    out.append('<text x="%g" y="%g" %s font-size="11" fill="#555">\u2020 on mip: not proven optimal'
               '</text>' % (lx - 10, ly + 18, FONT))
    y = 48 + legend_h - 8
    for (s, items), h in zip(panels, heights):
        panel(out, 0, y, width, h, s, items)
        y += h
    out.append("</svg>")
    path = os.path.normpath(args.output)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print("wrote %s (%d groups)" % (path, sum(len(i) for _, i in panels)), file=sys.stderr)


if __name__ == "__main__":
    main()
