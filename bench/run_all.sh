#!/bin/sh
# Build (if needed) and run every bench_* program of a build directory, with a header
# naming the machine and the revision so that results files can be compared later.
#
# usage: bench/run_all.sh [-o FILE] [BUILD_DIR] [-- BENCH_ARGS...]
#   BUILD_DIR  default: build-bench in the source tree; configured as a release build
#              without tests if it does not exist yet (timings of a debug build mislead)
#   -o FILE    where to write the results; "-" = standard output;
#              default: bench/results-YYYY-MM-DD.txt in the source tree
#   BENCH_ARGS passed to every benchmark, e.g. -- --quick
# Exit status: 0 if every benchmark ran and exited 0, else 1 (2: bad usage).
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
out=
build=
while [ $# -gt 0 ]; do
    case $1 in
        -o) [ $# -ge 2 ] || { echo "run_all.sh: -o needs a file" >&2; exit 2; }
            out=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        -*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
        *) [ -z "$build" ] || { echo "run_all.sh: one build directory only" >&2; exit 2; }
           build=$1; shift ;;
    esac
done
[ -n "$build" ] || build=$src/build-bench
[ -n "$out" ] || out=$src/bench/results-$(date +%Y-%m-%d).txt

if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$src" --buildtype=release -Dtests=false -Dbench=true >&2 || exit 1
fi
ninja -C "$build" >&2 || exit 1

run() {
    echo "# libtopo-sched benchmarks"
    echo "# date:     $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
    echo "# revision: $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "# host:     $(uname -srm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs," \
         "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
    echo "# compiler: $(${CC:-cc} --version 2>/dev/null | head -n 1)"
    # Options given at setup (meson keeps them in cmd_line.txt); anything absent is the
    # project default (buildtype=debugoptimized), which would make the timings mislead.
    echo "# build:    $build: $(sed -n 's/^\([a-z_]*\) = \(.*\)/\1=\2/p' "$build/meson-private/cmd_line.txt" 2>/dev/null | tr '\n' ' ')"
    echo "# args:     ${*:-(none)}"
    status=0
    found=0
    for exe in "$build"/bench/bench_*; do
        if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then continue; fi
        found=1
        echo
        echo "## $(basename "$exe")"
        echo "running $(basename "$exe") $*" >&2
        "$exe" "$@" || { echo "## $(basename "$exe") FAILED (exit $?)"; status=1; }
    done
    if [ $found -eq 0 ]; then
        echo "run_all.sh: no bench_* programs in $build/bench (configured with -Dbench=false?)" >&2
        status=1
    fi
    return $status
}

if [ "$out" = - ]; then
    run "$@"
else
    run "$@" >"$out"
    rc=$?
    echo "results written to $out" >&2
    exit $rc
fi
