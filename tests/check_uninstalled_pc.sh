#!/bin/sh
# Without installing: PKG_CONFIG_PATH=BUILD_DIR/meson-uninstalled pkg-config --cflags --libs
# topo-sched builds and links examples/free_capacity.c against the source tree's public
# headers (include/, not src/) and the just-built library, and the program runs; the
# --static flags name the libraries the static archive needs.
# usage: check_uninstalled_pc.sh BUILD_DIR SOURCE_DIR CC [CC_ARGS...]
set -eu
build=$1 src=$2
shift 2
[ "$#" -ge 1 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR CC [CC_ARGS...]"; exit 2; }
pcdir=$build/meson-uninstalled
[ -f "$pcdir/topo-sched-uninstalled.pc" ] || { echo "no $pcdir/topo-sched-uninstalled.pc"; exit 1; }
export PKG_CONFIG_PATH="$pcdir"
flags=$(pkg-config --cflags --libs topo-sched) || { echo "pkg-config cannot resolve topo-sched from $pcdir"; exit 1; }
cflags=$(pkg-config --cflags topo-sched)
# The public headers are include/topo-sched/*.h: the flags must name include/ (the build
# tree's include/ may come too, for generated headers).
case " $cflags " in
    *" -I$src/include "*) ;;
    *) echo "uninstalled pkg-config --cflags lacks -I$src/include: $cflags"; exit 1 ;;
esac
# Static linking from the build tree: libtopo-sched.a sits beside the shared library and
# --static adds the libraries it needs.
static_libs=$(pkg-config --static --libs topo-sched)
for l in -ltopo-sched -lglpk -ljansson -lm; do
    case " $static_libs " in *" $l "*) ;; *) echo "uninstalled pkg-config --static --libs lacks $l: $static_libs"; exit 1 ;; esac
done
[ -f "$build/src/libtopo-sched.a" ] || { echo "no $build/src/libtopo-sched.a beside the shared library"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tsched-uninst.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A sanitized library (-Db_sanitize or -Dfuzz) needs the program built the same way.
san=
undef=$(nm -D --undefined-only "$build/src/libtopo-sched.so" 2>/dev/null || true)
case $undef in *__asan_*) san="$san -fsanitize=address" ;; esac
case $undef in *__ubsan_*) san="$san -fsanitize=undefined" ;; esac
# -nostdinc is not an option (libc headers), so prove where topo-sched.h came from: the
# dependency list must hold the source tree's copy, not an installed one.
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
"$@" -std=c11 $cflags -M "$src/examples/free_capacity.c" > "$work/deps" ||
    { echo "examples/free_capacity.c does not preprocess with: $cflags"; exit 1; }
tr -s ' \\\n' '\n' < "$work/deps" | grep -qx "$src/include/topo-sched/topo-sched.h" ||
    { echo "topo-sched.h was not taken from $src/include:"; cat "$work/deps"; exit 1; }
# shellcheck disable=SC2086
if ! "$@" -std=c11 -Wall -Wextra -Werror $san -o "$work/example" "$src/examples/free_capacity.c" $flags \
        -Wl,-rpath,"$build/src" > "$work/cc.log" 2>&1; then
    echo "examples/free_capacity.c does not build with: $flags"
    cat "$work/cc.log"
    exit 1
fi
"$work/example" > "$work/out" || { echo "the example built from the uninstalled .pc fails"; cat "$work/out"; exit 1; }
[ -s "$work/out" ] || { echo "the example built from the uninstalled .pc printed nothing"; exit 1; }
echo "ok: uninstalled topo-sched.pc ($cflags) builds and runs examples/free_capacity.c"
