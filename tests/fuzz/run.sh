#!/bin/sh
# Fuzz smoke run (CI): every libFuzzer target of a -Dfuzz=true build runs SECONDS seconds,
# starting from the committed seed corpus, and any crash, leak, UBSan report, slow input
# (> 10 s) or RSS above 512 MB fails the run. New corpus units go to a scratch copy, so the
# committed corpus only changes by hand; a failing input is kept as
# BUILD_DIR/fuzz-artifacts/<target>-crash-* (or -leak-, -timeout-, -oom-).
# usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
set -eu
build=$1 secs=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
targets=$(find "$build/tests/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x 2>/dev/null | sort)
[ -n "$targets" ] || { echo "fuzz: no fuzz_* targets in $build/tests/fuzz (configure with CC=clang -Dfuzz=true)"; exit 1; }
[ -n "$(ls "$corpus")" ] || { echo "fuzz: empty seed corpus $corpus"; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tsched-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/fuzz-artifacts"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=64
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$here/ubsan.supp
status=0
for t in $targets; do
    name=$(basename "$t")
    # a target's own seeds when it has them (corpus-<target>/), else the shared corpus
    seeds=$corpus
    [ -d "$here/corpus-$name" ] && seeds=$here/corpus-$name
    rm -rf "$scratch/corpus" && cp -R "$seeds" "$scratch/corpus"
    log=$scratch/$name.log
    if "$t" -max_total_time="$secs" -rss_limit_mb=512 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-artifacts/$name-" "$scratch/corpus" > "$log" 2>&1; then
        echo "ok: $name: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
    else
        echo "FAIL: $name (exit $?); last lines of its log:"
        grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$log" | tail -n 40
        status=1
    fi
done
exit $status
