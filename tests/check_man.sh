#!/bin/sh
# doc/topo-sched.1 renders with every groff warning enabled (`groff -man -ww`, and
# `MANROFFOPT=-ww man -l` at 80 and 64 columns when man is installed; at 80 no line is
# wider), has the sections a manual page needs, and names the version the program reports.
# usage: check_man.sh MAN_PAGE PATH/TO/topo-sched
set -eu
page=$1 ts=$2
command -v groff > /dev/null 2>&1 || { echo "skip: groff is not installed (apt-get install groff)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
groff -man -ww -z "$page" 2> "$tmp/err" || fail=1
if [ -s "$tmp/err" ]; then echo "groff -man -ww warns:"; cat "$tmp/err"; fail=1; fi
if command -v man > /dev/null 2>&1; then
    for w in 80 64; do
        MANWIDTH=$w MANROFFOPT=-ww MAN_KEEP_FORMATTING= man -l "$page" > "$tmp/out" 2> "$tmp/err" || fail=1
        if [ -s "$tmp/err" ]; then echo "man -l at $w columns warns:"; cat "$tmp/err"; fail=1; fi
        grep -q 'topo-sched demo' "$tmp/out" || { echo "man -l at $w columns: no text rendered"; fail=1; }
        # at 80 columns even the no-fill blocks (synopsis, examples) fit
        [ "$w" -ne 80 ] || awk 'length > 80 { print "man -l: line " NR " is wider than 80 columns: " $0; bad = 1 }
            END { exit bad }' "$tmp/out" || fail=1
    done
else
    echo "note: man is not installed; only groff checked (apt-get install man-db)"
fi
for s in NAME SYNOPSIS DESCRIPTION 'EXIT STATUS' FILES EXAMPLES 'SEE ALSO'; do
    grep -q "^\.SH \"*$s\"*\$" "$page" || { echo "no section .SH $s"; fail=1; }
done
version=$("$ts" --version | sed 's/^topo-sched //')
grep -q "^\.TH TOPO-SCHED 1 [0-9-]* \"topo-sched $version\"" "$page" ||
    { echo ".TH does not name version $version: $(grep '^\.TH' "$page")"; fail=1; }
[ "$fail" -eq 0 ] || exit 1
echo "ok: $page renders without warnings and names version $version"
