#!/usr/bin/env python3
"""topo-sched simulate --progress (issue 25, item 6): the lines on standard error give the
share done, the jobs done of the total, the simulated and wall times and an ETA; the last line
says 100% and "done"; nothing on standard error without --progress off a terminal or with
--quiet; the result on standard output is the same bytes with and without progress.

usage: test_sim_progress.py TOPO_SCHED TEST_DATA_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

TS, DATA = sys.argv[1], sys.argv[2]
FABRIC = os.path.join(DATA, 'sim', 'fabric.json')
failures = []
checks = 0

LINE = re.compile(r'^simulate: +(\d+)%, (\d+)/(\d+) jobs done, t = (\d+\.\d) s simulated, (\d+) s wall, '
                  r'(ETA (\d+) s|ETA unknown|done)$')


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def trace(path, jobs, iterations):
    # jobs arriving one after another, each a long run of short iterations: a few seconds
    js = [{'name': 'j%d' % i, 'arrival_s': i * 0.5, 'gpus': 16, 'tp': 8, 'compute_ms': 1,
           'iterations': iterations, 'phases': [{'pattern': 'dp-ring', 'gbits': 1.0}]} for i in range(jobs)]
    with open(path, 'w', encoding='utf-8') as f:
        json.dump({'format': 'tsched.trace.v1', 'name': 'progress', 'jobs': js}, f)


def run(args):
    r = subprocess.run([TS, 'simulate', '-t', FABRIC, '--no-timing'] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return r.returncode, r.stdout, r.stderr.decode()


def parse(err, what):
    """The progress lines of `err` as tuples (percent, done, total, t, wall, eta or None)."""
    lines = err.split('\n')
    check(lines[-1] == '', '%s: standard error ends with a newline' % what)
    check('\r' not in err, '%s: off a terminal, one line per update (no carriage return)' % what)
    out = []
    for ln in lines[:-1]:
        m = LINE.match(ln)
        check(m is not None, '%s: a progress line as documented: %r' % (what, ln))
        if m:
            eta = None if m.group(6) in ('done', 'ETA unknown') else int(m.group(7))
            out.append((int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4)), int(m.group(5)),
                        m.group(6), eta))
    return out


def main():
    with tempfile.TemporaryDirectory(prefix='tsched-progress.') as tmp:
        progress_checks(tmp)
    print('%d checks, %d failed' % (checks, len(failures)))
    return 1 if failures else 0


def progress_checks(tmp):
    slow = os.path.join(tmp, 'slow.json')
    # the sanitizer setup (TSCHED_SLOW_BUILD) runs about 5x slower: a third of the work still
    # lasts several seconds there, enough for lines before the last
    trace(slow, 4, 100000 if os.environ.get('TSCHED_SLOW_BUILD') else 300000)
    rc, out, err = run(['-w', slow, '--progress'])
    check(rc == 0, 'slow run: exit 0 (%s)' % err[-300:])
    lines = parse(err, 'slow run')
    check(len(lines) >= 2, 'slow run: progress lines before the last (%d lines)' % len(lines))
    if lines:
        last = lines[-1]
        res = json.loads(out)
        end_s = res['end_s']
        check(last[0] == 100 and last[5] == 'done', 'last line: 100%% and done: %r' % (last,))
        check(last[1] == 4 and last[2] == 4, 'last line: 4/4 jobs done: %r' % (last,))
        check(abs(last[3] - end_s) < 0.05 + 1e-9 * end_s, 'last line: the simulated end %r' % end_s)
        check(res['summary']['jobs'] == last[2], 'the total is the result\'s job count')
        for k, ln in enumerate(lines[:-1]):
            check(ln[2] == 4, 'every line: the total is 4 jobs: %r' % (ln,))
            check(ln[0] < 100 and ln[5] != 'done', 'only the last line says 100%%/done: %r' % (ln,))
            check(ln[5].startswith('ETA'), 'an ETA on every line before the last: %r' % (ln,))
            if k:
                prev = lines[k - 1]
                check(ln[0] >= prev[0] and ln[1] >= prev[1] and ln[3] >= prev[3],
                      'percent, jobs done and simulated time never go back: %r then %r' % (prev, ln))
        # the ETA is the wall time stretched over what is left: wall * (100 - pct) / pct
        for ln in lines[:-1]:
            if ln[0] >= 10 and ln[6] is not None:
                want = ln[4] * (100 - ln[0]) / ln[0]
                check(abs(ln[6] - want) <= 1 + 0.25 * want, 'ETA %d s near %.1f s: %r' % (ln[6], want, ln))
    rc2, out2, err2 = run(['-w', slow, '--quiet'])
    check(rc2 == 0 and err2 == '', '--quiet: nothing on standard error (%r)' % err2[:200])
    check(out2 == out, 'the result is the same bytes with and without --progress')
    # --until: the horizon is the total; the run ends there with jobs unfinished, at 100%
    rc, out, err = run(['-w', slow, '--progress', '--until', '300'])
    lines = parse(err, '--until')
    check(rc == 0 and lines and lines[-1][0] == 100 and lines[-1][2] == 4 and lines[-1][1] < 4
          and abs(lines[-1][3] - 300.0) < 0.05, '--until 300: last line 100%%, jobs left, t = 300: %r'
          % (lines[-1:],))
    # a short run: only the last line, with the total and 100%
    small = os.path.join(DATA, 'sim', 'trace.json')
    rc, out, err = run(['-w', small, '--progress'])
    lines = parse(err, 'short run')
    check(rc == 0 and len(lines) == 1 and lines[0][:3] == (100, 3, 3) and lines[0][5] == 'done',
          'short run: one line, 100%%, 3/3 jobs: %r' % (lines,))
    # off a terminal without --progress: nothing
    rc, out, err = run(['-w', small])
    check(rc == 0 and err == '', 'no --progress off a terminal: nothing on standard error (%r)' % err[:200])


if __name__ == '__main__':
    sys.exit(main())
