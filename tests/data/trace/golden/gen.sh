#!/bin/sh
# How the expected outputs of this folder were made, once, with the topo-sched of commit
# fa77abc (before the converters moved into the library): one file <name>.json per line of
# `cases`. Run from the repository root with that binary:
#   sh tests/data/trace/golden/gen.sh /path/to/old/topo-sched
set -eu
ts=$1 d=tests/data/trace
grep -v '^#' "$d/golden/cases" | while read -r name args; do
    # shellcheck disable=SC2086
    "$ts" $(printf '%s' "$args" | sed "s|@D@|$d|g") > "$d/golden/$name.json"
done
