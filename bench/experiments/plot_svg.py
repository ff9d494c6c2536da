"""A plain SVG writer for the experiment plots (used when matplotlib is not installed).

Three chart kinds, enough for doc/EXPERIMENTS.md: line charts (x numeric, several series),
grouped bar charts (categories x series) and timelines (rows of busy intervals). Standard
library only; the output is deterministic (same data, same bytes).
"""

from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
W, H = 720, 420
ML, MR, MT, MB = 80, 190, 40, 60


def _fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.0f" % v if float(v).is_integer() else "%.1f" % v
    return "%.3g" % v


def _ticks(lo, hi, n=5):
    import math
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = 10 * mag
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            step = m * mag
            break
    t = math.ceil(lo / step - 1e-9) * step
    out = []
    while t <= hi + 1e-9 * step:
        out.append(round(t, 10))
        t += step
    return out


class _Doc:
    def __init__(self, title, xlabel, ylabel):
        self.parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                      'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">' % (W, H, W, H),
                      '<rect width="100%" height="100%" fill="white"/>',
                      '<text x="%d" y="22" font-size="15" text-anchor="middle">%s</text>'
                      % ((ML + W - MR) // 2, escape(title)),
                      '<text x="%d" y="%d" text-anchor="middle">%s</text>'
                      % ((ML + W - MR) // 2, H - 15, escape(xlabel)),
                      '<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">%s</text>'
                      % ((MT + H - MB) // 2, (MT + H - MB) // 2, escape(ylabel))]

    def add(self, s):
        self.parts.append(s)

    def axes(self):
        self.add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (ML, H - MB, W - MR, H - MB))
        self.add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (ML, MT, ML, H - MB))

    def yaxis(self, lo, hi):
        for t in _ticks(lo, hi):
            y = H - MB - (t - lo) / (hi - lo) * (H - MT - MB)
            self.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ML, y, W - MR, y))
            self.add('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (ML - 5, y + 4, _fmt(t)))

    def legend(self, names):
        for i, n in enumerate(names):
            y = MT + 10 + 18 * i
            self.add('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (W - MR + 12, y - 10, COLORS[i % len(COLORS)]))
            self.add('<text x="%d" y="%d">%s</text>' % (W - MR + 30, y, escape(n)))

    def save(self, path):
        self.add("</svg>")
        with open(path, "w") as f:
            f.write("\n".join(self.parts) + "\n")


def line_chart(path, title, xlabel, ylabel, series, logy=False):
    """series: list of (name, [(x, y), ...]); points with y None are skipped."""
    import math
    pts = [(x, y) for _, s in series for x, y in s if y is not None]
    d = _Doc(title, xlabel, ylabel)
    if not pts:
        d.add('<text x="200" y="200">no data</text>')
        d.save(path)
        return
    f = (lambda v: math.log10(v)) if logy else (lambda v: v)
    xlo, xhi = min(p[0] for p in pts), max(p[0] for p in pts)
    ylo, yhi = min(0, min(f(p[1]) for p in pts)) if not logy else math.floor(min(f(p[1]) for p in pts)), max(f(p[1]) for p in pts)
    if logy:
        yhi = math.ceil(yhi)
    else:
        yhi *= 1.05
    if xhi == xlo:
        xhi = xlo + 1
    if yhi <= ylo:
        yhi = ylo + 1
    sx = lambda x: ML + (x - xlo) / (xhi - xlo) * (W - ML - MR)
    sy = lambda y: H - MB - (f(y) - ylo) / (yhi - ylo) * (H - MT - MB)
    if logy:
        for e in range(int(ylo), int(yhi) + 1):
            y = H - MB - (e - ylo) / (yhi - ylo) * (H - MT - MB)
            d.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ML, y, W - MR, y))
            d.add('<text x="%d" y="%.1f" text-anchor="end">1e%d</text>' % (ML - 5, y + 4, e))
    else:
        d.yaxis(ylo, yhi)
    for t in sorted(set(p[0] for p in pts)):
        d.add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (sx(t), H - MB + 16, _fmt(t)))
    d.axes()
    for i, (name, s) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        p = [(sx(x), sy(y)) for x, y in s if y is not None]
        if len(p) > 1:
            d.add('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                  % (c, " ".join("%.1f,%.1f" % q for q in p)))
        for q in p:
            d.add('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (q[0], q[1], c))
    d.legend([n for n, _ in series])
    d.save(path)


def bar_chart(path, title, xlabel, ylabel, categories, series):
    """categories: labels on x; series: list of (name, [value or None per category])."""
    vals = [v for _, s in series for v in s if v is not None]
    d = _Doc(title, xlabel, ylabel)
    hi = (max(vals) if vals else 1) * 1.08 or 1
    d.yaxis(0, hi)
    d.axes()
    n = max(1, len(series))
    gw = (W - ML - MR) / max(1, len(categories))
    bw = gw * 0.8 / n
    for ci, cat in enumerate(categories):
        x0 = ML + ci * gw + gw * 0.1
        d.add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x0 + gw * 0.4, H - MB + 16, escape(str(cat))))
        for si, (_, s) in enumerate(series):
            v = s[ci]
            if v is None:
                continue
            h = v / hi * (H - MT - MB)
            d.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                  % (x0 + si * bw, H - MB - h, bw * 0.95, h, COLORS[si % len(COLORS)]))
    d.legend([nm for nm, _ in series])
    d.save(path)


def timeline(path, title, xlabel, rows, t_end):
    """rows: list of (label, [(start, end), ...]) busy intervals; the rest of [0, t_end] is idle."""
    d = _Doc(title, xlabel, "")
    rh = (H - MT - MB) / max(1, len(rows))
    sx = lambda t: ML + t / t_end * (W - ML - MR)
    for t in _ticks(0, t_end):
        d.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (sx(t), MT, sx(t), H - MB))
        d.add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (sx(t), H - MB + 16, _fmt(t)))
    for i, (label, iv) in enumerate(rows):
        y = MT + i * rh + rh * 0.15
        d.add('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#eee" stroke="#999"/>'
              % (ML, y, W - ML - MR, rh * 0.7))
        for a, b in iv:
            d.add('<rect x="%.1f" y="%.1f" width="%.2f" height="%.1f" fill="%s"/>'
                  % (sx(a), y, max(0.5, sx(b) - sx(a)), rh * 0.7, COLORS[0]))
        d.add('<text x="%d" y="%.1f" text-anchor="end" font-size="10">%s</text>' % (ML - 4, y + rh * 0.4, escape(label)))
    d.add('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">GPUs busy</text>'
          % (W - MR + 12, MT, COLORS[0], W - MR + 30, MT + 10))
    d.add('<rect x="%d" y="%d" width="12" height="12" fill="#eee" stroke="#999"/><text x="%d" y="%d">idle</text>'
          % (W - MR + 12, MT + 20, W - MR + 30, MT + 30))
    d.axes()
    d.save(path)
