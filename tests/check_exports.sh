#!/bin/sh
# ABI check: the dynamic symbols of the library are exactly the version script's, all
# prefixed tsched_, and every TSCHED_API function declared in the public headers.
# usage: check_exports.sh LIBRARY.so VERSION_SCRIPT INCLUDE_DIR
set -eu
lib=$1 map=$2 inc=$3
tmp=${TMPDIR:-/tmp}/tsched-abi.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols, minus the version-node names the linker adds.
nm -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u > "$tmp/nm"
grep -o 'tsched_[A-Za-z0-9_]*' "$map" | sort -u > "$tmp/map"
# Functions declared with TSCHED_API in the headers (name right before the parenthesis).
cat "$inc"/*.h | tr '\n' ' ' | grep -o 'TSCHED_API[^;(]*(' | grep -o 'tsched_[A-Za-z0-9_]*[[:space:]]*($' \
    | tr -d ' (' | sort -u > "$tmp/hdr"

status=0
bad=$(grep -v '^tsched_' "$tmp/nm" || true)
if [ -n "$bad" ]; then echo "symbols without the tsched_ prefix are exported:"; echo "$bad"; status=1; fi
if ! diff -u "$tmp/map" "$tmp/nm" > "$tmp/d1"; then
    echo "version script and nm -D differ (- map only, + exported only):"; cat "$tmp/d1"; status=1
fi
if ! diff -u "$tmp/hdr" "$tmp/map" > "$tmp/d2"; then
    echo "headers and version script differ (- header only, + map only):"; cat "$tmp/d2"; status=1
fi
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" != "libtopo-sched.so.0" ]; then echo "SONAME is '$soname', expected libtopo-sched.so.0"; status=1; fi
n=$(wc -l < "$tmp/nm")
[ "$status" -eq 0 ] && echo "ok: $n exported symbols match the version script and the headers; SONAME $soname"
exit $status
