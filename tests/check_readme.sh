#!/bin/sh
# The README's test command and .ci/run must be the same command.
set -eu
root=$1
cmd=$(grep '^apt-get update -qq' "$root/.ci/run")
if grep -qxF -- "$cmd" "$root/README.md"; then echo "ok: README and .ci/run agree"; exit 0; fi
echo "README.md does not contain the command of .ci/run:"; echo "$cmd"; exit 1
