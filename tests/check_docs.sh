#!/bin/sh
# A copy of the project has no design notes beside it: README.md, doc/*.md and the man page
# never send the reader to ../shared or to the design documents (say what is needed in doc/).
# usage: check_docs.sh SOURCE_DIR
set -eu
src=$1
if grep -nE '\.\./shared|/work/shared|DESIGN|design/|design notes?\b|interop\.md' \
    "$src/README.md" "$src"/doc/*.md "$src/doc/topo-sched.1"; then
    echo "FAIL: the lines above point at notes that are not part of the project"
    exit 1
fi
echo "ok: README.md, doc/*.md and doc/topo-sched.1 are self-contained"
