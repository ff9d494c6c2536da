#!/bin/sh
# Module seams (doc/ARCHITECTURE.md): a module of src/ uses another module through its public
# header (include/topo-sched/*.h), src/common/, or the provider's one interface header below,
# never through its internals.
#
#   check_seams.sh ROOT [ARCHIVE] [--self-test]
#
# 1. include scan of ROOT/src: a file of module M (src/M/..., sub-folders included) may
#    include a header of another module P only if it is P's interface header; an
#    `_internal.h` of another module always fails, however it is spelt ("../P/x_internal.h",
#    "P/x_internal.h").
# 2. with ARCHIVE (the internal static library) and nm: an object of module M may reference
#    a symbol defined by module P only if it is public (tsched_*) or declared in P's
#    interface header, so a local extern declaration cannot go round the scan.
# 3. --self-test: the check run on a copy of src/ with one planted violation of each kind
#    (and on a small archive built with cc when there is one) must fail, the clean copy pass.
# Prints one line per violation and exits 1 on any; POSIX sh, awk and nm only (CI runs the
# include scan before anything is installed).
set -eu

# The interface header of each provider module: the only header of it other modules include.
interfaces='topology/topology_paths.h
workload/workload_view.h
routing/pathcache.h'
# Exceptions, one "module header" pair a line: none (the command line's trace converters
# became tsched_trace_* calls in issue 22).
allowed=''

root=${1:?usage: check_seams.sh ROOT [ARCHIVE] [--self-test]}
shift
archive=
selftest=0
for a in "$@"; do
    case $a in
    --self-test) selftest=1 ;;
    *) archive=$a ;;
    esac
done

# 1. the include scan. awk resolves each quoted include as the compiler does (the including
# file's folder, then src/), and names the module of the file and of the header.
scan_includes() {
    (cd "$1/src" && find . -name '*.c' -o -name '*.h' | sed 's|^\./||' | LC_ALL=C sort) |
        awk -v src="$1/src" -v ifaces="$interfaces" -v allowed="$allowed" '
        function norm(p,   n, i, k, parts, out, o) {
            n = split(p, parts, "/"); k = 0
            for (i = 1; i <= n; i++) {
                if (parts[i] == "" || parts[i] == ".") continue
                if (parts[i] == "..") { if (k > 0) k--; else return ""; continue }
                out[++k] = parts[i]
            }
            o = ""
            for (i = 1; i <= k; i++) o = o (i > 1 ? "/" : "") out[i]
            return o
        }
        function exists(p,   line, r) {
            r = (getline line < (src "/" p)); close(src "/" p)
            return r >= 0
        }
        function module(p) { return index(p, "/") ? substr(p, 1, index(p, "/") - 1) : "" }
        BEGIN {
            n = split(ifaces, a, "\n"); for (i = 1; i <= n; i++) iface[a[i]] = 1
            n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1
            bad = 0
        }
        {
            file = $0; m = module(file); dir = file; sub(/\/[^\/]*$/, "", dir)
            if (m == "") next
            ln = 0
            while ((getline line < (src "/" file)) > 0) {
                ln++
                if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
                inc = line; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
                t = norm(dir "/" inc)
                if (t == "" || !exists(t)) t = norm(inc)
                if (t == "" || !exists(t)) continue # public (include/) or system
                p = module(t)
                if (p == "" || p == m || p == "common") continue
                base = t; sub(/^.*\//, "", base)
                if (base ~ /_internal\.h$/) {
                    printf "src/%s:%d: includes \"%s\": %s is internal to module %s (use its interface header or public API)\n", file, ln, inc, t, p
                    bad++
                } else if (!(t in iface) && !((m " " t) in ok)) {
                    printf "src/%s:%d: includes \"%s\": %s is not the interface header of module %s\n", file, ln, inc, t, p
                    bad++
                }
            }
            close(src "/" file)
        }
        END { exit bad > 0 }'
}

# 2. the symbol check over the archive's objects (named <module>_<file>.c.o by meson).
scan_symbols() { # root archive
    allowed_syms=$(for h in $interfaces; do
        p=${h%%/*}
        [ -f "$1/src/$h" ] || continue
        grep -oE '\bts_[A-Za-z0-9_]+[[:space:]]*\(' "$1/src/$h" | sed "s/[[:space:](]*\$//; s/^/$p /"
    done | LC_ALL=C sort -u)
    { nm -A -g --defined-only "$2" | sed 's/^/D /'; nm -A -u "$2" | sed 's/^/U /'; } |
        awk -v allowed="$allowed_syms" '
        BEGIN { n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
        {
            kind = $1; rest = substr($0, 3)
            i = index(rest, ":"); rest = substr(rest, i + 1) # drop the archive
            i = index(rest, ":"); obj = substr(rest, 1, i - 1)
            sub(/^.*\//, "", obj); m = obj; sub(/_.*$/, "", m)
            sym = $NF; type = $(NF - 1)
            if (kind == "D") { if (type ~ /^[TDBRCVWGS]$/) def[sym] = m; next }
            use[++nu] = m " " sym " " obj
        }
        END {
            bad = 0
            for (k = 1; k <= nu; k++) {
                split(use[k], u, " "); p = def[u[2]]
                if (p == "" || p == u[1] || p == "common" || u[2] ~ /^tsched_/ || ((p " " u[2]) in ok)) continue
                printf "%s (module %s) uses %s of module %s: neither public (tsched_*) nor in its interface header\n", u[3], u[1], u[2], p
                bad++
            }
            exit bad > 0
        }'
}

check() { # root [archive]: 0 when clean
    check_rc=0
    scan_includes "$1" || check_rc=1
    if [ -n "${2:-}" ]; then
        if command -v nm >/dev/null 2>&1; then
            scan_symbols "$1" "$2" || check_rc=1
        else
            echo "skip: no nm, the symbol check did not run"
        fi
    fi
    return $check_rc
}

self_test() { # root
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp -R "$1/src" "$tmp/src"
    fails=0
    expect() { # want(0|1) what: run the check on the copy
        if check "$tmp" ${arc:-} >"$tmp/out" 2>&1; then got=0; else got=1; fi
        if [ "$got" != "$1" ]; then
            echo "self-test FAILED: $2 (expected $([ "$1" = 1 ] && echo a failure || echo a pass))"
            cat "$tmp/out"; fails=$((fails + 1))
        else
            echo "self-test ok: $2"
        fi
    }
    arc=
    expect 0 "the clean copy passes"
    for plant in 'cell/pools.c|#include "../topology/topology_internal.h"' \
                 'sim/trace_load.c|#include "routing/routing_internal.h"' \
                 'priority/crux.c|#include "../placement/solver.h"' \
                 'cli/main.c|#include "../workload/flows_internal.h"'; do
        f=${plant%%|*}; line=${plant#*|}
        cp "$tmp/src/$f" "$tmp/keep"
        printf '%s\n' "$line" >>"$tmp/src/$f"
        expect 1 "src/$f with $line is caught"
        cp "$tmp/keep" "$tmp/src/$f"
    done
    # the symbol check, on objects named as meson names them
    cc=${CC:-cc}
    if command -v "$cc" >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 && command -v ar >/dev/null 2>&1; then
        mkdir "$tmp/o"
        printf 'int ts_leaf_count(void) { return 1; }\nint ts_topology_secret(void) { return 2; }\n' >"$tmp/o/a.c"
        printf 'int ts_leaf_count(void);\nint use_ok(void) { return ts_leaf_count(); }\n' >"$tmp/o/b.c"
        printf 'int ts_topology_secret(void);\nint use_bad(void) { return ts_topology_secret(); }\n' >"$tmp/o/c.c"
        "$cc" -c "$tmp/o/a.c" -o "$tmp/o/topology_a.c.o" && "$cc" -c "$tmp/o/b.c" -o "$tmp/o/routing_b.c.o" &&
            "$cc" -c "$tmp/o/c.c" -o "$tmp/o/routing_c.c.o"
        ar rc "$tmp/o/good.a" "$tmp/o/topology_a.c.o" "$tmp/o/routing_b.c.o"
        ar rc "$tmp/o/bad.a" "$tmp/o/topology_a.c.o" "$tmp/o/routing_b.c.o" "$tmp/o/routing_c.c.o"
        arc=$tmp/o/good.a
        expect 0 "an interface symbol (ts_leaf_count) used across modules passes"
        arc=$tmp/o/bad.a
        expect 1 "a symbol outside the interface (ts_topology_secret) used across modules is caught"
    else
        echo "skip: no cc, nm or ar, the symbol check's self-test did not run"
    fi
    return $fails
}

status=0
if check "$root" "$archive"; then echo "ok: module seams"; else status=1; fi
if [ "$selftest" = 1 ]; then self_test "$root" || status=1; fi
exit $status
